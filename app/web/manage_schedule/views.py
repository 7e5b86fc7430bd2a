"""The team schedule (blueprint `manage_schedule`): a team's shifts by day or week, edited in place.

`index` shows one day as an agenda of shift cards (`?view=day&day=…`: previous/next day, hours
per person and heads per role) or the week as a grid of providers by days (`?view=week`); with
no `view` the page holds both and the stylesheet shows the day on a phone, the week on a wider
screen. Role colours come from `role_colors` (a stylesheet built from the team's roles, since the
CSP allows no inline styles); open shifts and callouts are marked and approved time off shown.
`edit` opens a shift's editor at the shift (in its card, or in a row under its provider's row);
`update` saves it with its version. A 409 `version-conflict` shows the latest version next to
what the manager tried to save, with "Reload" (a link: discard mine) and "Apply my change to the
latest version" (hidden fields carry the attempted change; only the fields the manager changed
are re-sent). `create` posts an open shift. Saving times that look wrong (over 16 hours, a start
in the past, over the provider's approved time off) first answers the form with the reasons and
"Save anyway"; its signed `confirm` field names exactly what was confirmed, so changed values or
a tampered field are checked again. One round of concurrent API calls per page.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, abort, current_app, flash, request, url_for
from itsdangerous import BadSignature, URLSafeSerializer

from app.client import ApiClient, ApiProblem, VersionConflict
from app.contract.common import Page
from app.contract.providers import ProviderListQuery, ProviderWithRelations
from app.contract.roles import RoleListQuery, RoleRead
from app.contract.shifts import (
    ShiftCreate,
    ShiftListQuery,
    ShiftRead,
    ShiftSegmentCreate,
    ShiftUpdate,
)
from app.contract.teams import TeamListQuery, TeamRead
from app.contract.time_off import TimeOffRequestListQuery, TimeOffRequestRead
from app.contract.users import UserMe
from app.web.auth import api, current_user
from app.web.filters import format_date, format_time, leave_span
from app.web.forms import apply_problem
from app.web.htmx import render, see_other
from app.web.manage_schedule.calendar import (
    default_team,
    local_day,
    local_instant,
    my_teams,
    parse_day,
    today,
    week_start,
    zone,
)
from app.web.manage_schedule.forms import OpenShiftForm, ShiftEditForm
from app.web.manage_time_off.forms import options

bp = Blueprint("manage_schedule", __name__)

TEMPLATE = "manage_schedule/index.html"


@dataclass(frozen=True)
class Comparison:
    """One field of a version conflict: the latest value beside the manager's, and who changed
    it since the manager loaded the shift."""

    label: str
    latest: str
    mine: str
    they_changed: bool
    i_changed: bool


@dataclass(frozen=True)
class SaveWarning:
    """A reason to confirm a save: `long` (minutes), `past` (start) or `time_off` (name,
    request). The template words it, through the shared date and duration filters."""

    kind: str
    minutes: int = 0
    start: datetime | None = None
    name: str = ""
    request: TimeOffRequestRead | None = None


@dataclass(frozen=True)
class DayRole:
    """Heads of one role on a day: shifts held, and open shifts still to fill."""

    name: str
    held: int
    open: int


@dataclass
class Week:
    """Everything the schedule page shows."""

    team: TeamRead | None
    teams: list[TeamRead]
    start: date
    providers: list[ProviderWithRelations]
    shifts: list[ShiftRead]
    time_off: list[TimeOffRequestRead]
    roles: list[RoleRead]
    day: date | None = None  # the day the agenda shows
    view: str | None = None  # "day", "week", or None: the screen's width decides
    editing: ShiftRead | None = None
    edit_form: ShiftEditForm | None = None
    conflict: ShiftRead | None = None  # the latest version, after a version conflict
    open_form: OpenShiftForm | None = None
    grid: dict[tuple[str, date], list[ShiftRead]] = field(default_factory=dict)
    rows: list[tuple[str, str]] = field(default_factory=list)
    compare: list[Comparison] = field(default_factory=list)
    off: set[tuple[str, date]] = field(default_factory=set)
    role_warning: str | None = None  # the editor's provider does not hold the shift's roles
    warnings: list[SaveWarning] = field(default_factory=list)  # the editor's save, unconfirmed
    confirm: str = ""  # the signed confirmation of those warnings
    open_warnings: list[SaveWarning] = field(default_factory=list)
    open_confirm: str = ""

    @property
    def days(self) -> list[date]:
        """The seven days of the week."""
        return [self.start + timedelta(days=i) for i in range(7)]

    @property
    def shown_day(self) -> date:
        """The agenda's day (the week's first when none was named)."""
        return self.day or self.start

    def _args(self, **changes: Any) -> str:
        args: dict[str, Any] = {"team": str(self.team.id) if self.team else None,
                                "week": self.start.isoformat()}
        if self.view:
            args["view"] = self.view
        if self.view == "day" or self.day:
            args["day"] = self.shown_day.isoformat()
        args.update(changes)
        return urlencode({k: v for k, v in args.items() if v})

    def url(self, endpoint: str = "manage_schedule.index", **values: Any) -> str:
        """A schedule address keeping the team, week, view and day."""
        return url_for(endpoint, **values) + "?" + self._args()

    def edit_url(self, shift: ShiftRead, view: str) -> str:
        """The address of `shift`'s editor in the day agenda or the week grid."""
        day = local_day(shift.start_date) if view == "day" else None
        return url_for("manage_schedule.edit", shift_id=shift.id) + "?" + self._args(
            view=view, day=day.isoformat() if day else None,
            week=week_start(day).isoformat() if day else self.start.isoformat())

    def card_id(self, shift: ShiftRead) -> str:
        """The id of `shift`'s card: `shift-<id>` in the day view; with no view chosen the week's
        chip holds that id and the card another."""
        return f"shift-{shift.id}" if self.view == "day" else f"shift-{shift.id}-day"

    @staticmethod
    def anchor(shift: ShiftRead) -> str:
        """Where `shift`'s editor opens: its card (day view) or chip (week grid), `shift-<id>`
        in either (an editor's page shows one view)."""
        return f"shift-{shift.id}"

    def week_url(self, offset: int) -> str:
        """The same team, `offset` weeks away, as a week."""
        start = self.start + timedelta(weeks=offset)
        return url_for("manage_schedule.index") + "?" + self._args(
            week=start.isoformat(), day=None, view=self.view and "week")

    def day_url(self, offset: int = 0, *, view: str = "day") -> str:
        """The same team, `offset` days from the agenda's day (today with None)."""
        day = self.shown_day + timedelta(days=offset)
        return url_for("manage_schedule.index") + "?" + self._args(
            view=view, day=day.isoformat(), week=week_start(day).isoformat())

    def view_url(self, view: str) -> str:
        """This schedule in `view` ("day" or "week"), keeping the day."""
        return url_for("manage_schedule.index") + "?" + self._args(view=view)

    def person(self, provider_id: uuid.UUID | str | None) -> str:
        """A provider's name ("Open shift" for none)."""
        if not provider_id:
            return "Open shift"
        for pid, name in self.rows:
            if pid == str(provider_id):
                return name
        return "Someone outside this team"

    @staticmethod
    def next_day(shift: ShiftRead) -> bool:
        """Whether the shift ends on a later local day than it starts."""
        return local_day(shift.end_date) > local_day(shift.start_date)

    @property
    def day_shifts(self) -> list[ShiftRead]:
        """The shifts starting on the agenda's day, by start, open ones first at a time."""
        day = self.shown_day
        found = [s for s in self.shifts if local_day(s.start_date) == day]
        return sorted(found, key=lambda s: (s.start_date, s.provider is not None,
                                            self.person(s.provider)))

    @property
    def day_hours(self) -> list[tuple[str, int]]:
        """Minutes of work per person on the agenda's day (callouts and unpaid breaks aside)."""
        minutes: dict[str, int] = {}
        for s in self.day_shifts:
            if s.provider and not s.is_callout:
                name = self.person(s.provider)
                minutes[name] = minutes.get(name, 0) + worked_minutes(s)
        return sorted(minutes.items())

    @property
    def day_roles(self) -> list[DayRole]:
        """Heads per role on the agenda's day: held shifts and open ones (callouts aside)."""
        counts: dict[str, list[int]] = {}
        for s in self.day_shifts:
            if s.is_callout:
                continue
            name = role_name(s) or "No role"
            held_open = counts.setdefault(name, [0, 0])
            held_open[0 if s.provider else 1] += 1
        return [DayRole(name, held, open_) for name, (held, open_) in sorted(counts.items())]

    @property
    def editor_placed(self) -> str | None:
        """Where the editor opens: "card" (in its shift's card of the agenda), a grid row's
        key (the shift's provider id, or "open"), or None (above the schedule)."""
        shift = self.editing
        if shift is None:
            return None
        if self.view == "day":
            return "card" if any(s.id == shift.id for s in self.day_shifts) else None
        key = str(shift.provider) if shift.provider else "open"
        in_rows = key == "open" or any(pid == key for pid, _ in self.rows)
        return key if in_rows and local_day(shift.start_date) in self.days else None

    @property
    def day_off(self) -> list[TimeOffRequestRead]:
        """Approved time off touching the agenda's day."""
        return [r for r in self.time_off
                if (str(r.provider_id), self.shown_day) in self.off]


def role_name(shift: ShiftRead) -> str | None:
    """The name of the role of a shift's first working part."""
    for s in shift.segments:
        if s.type != "unpaid_break" and s.role_name:
            return s.role_name
    return None


def worked_minutes(shift: ShiftRead) -> int:
    """A shift's length without its unpaid breaks, in minutes."""
    total = shift.end_date - shift.start_date
    for s in shift.segments:
        if s.type == "unpaid_break":
            total -= s.end_date - s.start_date
    return max(0, int(total.total_seconds() // 60))


def _team_and_week(me: UserMe, args: Any) -> tuple[uuid.UUID | None, date, date | None]:
    try:
        team = uuid.UUID(args["team"]) if args.get("team") else None
    except ValueError:
        team = None
    if team is None:
        team = me.team_ids[0] if me.team_ids else None
    day = parse_day(args.get("day")) if args.get("day") else None
    if day is not None:
        return team, week_start(day), day
    start = week_start(parse_day(args.get("week")) or today())
    return team, start, (today() if week_start(today()) == start else None)


def week_reads(client: ApiClient, team: uuid.UUID | None, begin: datetime, end: datetime,
               ) -> list[Callable[[], Any]]:
    """The schedule's reads: teams, people, shifts, approved time off and roles of the week.
    Only one team's: with no team (there is none to pick) the week is empty, never every
    team's."""
    if team is None:
        return [lambda: client.list_teams(TeamListQuery(page_size=200)),
                *[lambda: Page[Any](items=[], cursor=None)] * 4]
    return [
        lambda: client.list_teams(TeamListQuery(page_size=200)),
        lambda: client.list_providers(ProviderListQuery(team_id=team, page_size=200)),
        lambda: client.list_shifts(ShiftListQuery(
            team_id=team, start_date=begin, end_date=end, include_callouts=True,
            include_display_names=True, page_size=200)),
        lambda: client.list_time_off_requests(TimeOffRequestListQuery(
            team_id=team, status=["approved"], start_date=begin, end_date=end, page_size=200)),
        lambda: client.list_roles(RoleListQuery(team=team, page_size=200)),
    ]


def build_week(args: Any, *, extra: list[Callable[[], Any]] | None = None,
               ) -> tuple[Week, list[Any]]:
    """Read the week the query names; `extra` calls run in the same concurrent round."""
    me = current_user()
    client = api()
    team_id, start, day = _team_and_week(me, args)
    if team_id is None:  # an administrator, in no team: open on the first team there is
        team_id = default_team(me, client.list_teams(TeamListQuery(page_size=200)).items)
    begin, end = local_instant(start), local_instant(start + timedelta(days=7))
    answers = client.concurrently(*week_reads(client, team_id, begin, end), *(extra or []))
    if team_id is not None and all(t.id != team_id for t in answers[0].items):
        # A team that is not there (a stale or mistyped link): the default team's week instead.
        team_id = default_team(me, answers[0].items)
        answers = client.concurrently(*week_reads(client, team_id, begin, end), *(extra or []))
    teams, providers, shifts, time_off, roles = answers[:5]
    more = answers[5:]
    mine = my_teams(me, teams.items)
    team = next((t for t in teams.items if t.id == team_id), None)
    view = args.get("view") if args.get("view") in ("day", "week") else None
    week = Week(team=team, teams=mine, start=start, day=day, view=view,
                providers=sorted(providers.items, key=lambda p: p.name or p.email),
                shifts=shifts.items, time_off=time_off.items, roles=roles.items)
    week.rows = [(str(p.id), p.name or p.email) for p in week.providers]
    known = {pid for pid, _ in week.rows}
    for s in week.shifts:
        key = (str(s.provider) if s.provider else "open", local_day(s.start_date))
        week.grid.setdefault(key, []).append(s)
        if s.provider and str(s.provider) not in known:
            # Someone no longer listed (dismissed, or moved team) still holds a shift here.
            known.add(str(s.provider))
            week.rows.append((str(s.provider), s.provider_name or "Former team member"))
    for r in week.time_off:
        # The local days the leave covers, as the time-off pages count them (a 24-hour step
        # from the start would skip a day after the autumn DST change).
        for day in leave_span(r, zone()).days:
            week.off.add((str(r.provider_id), day))
    return week, more


def _open_form(week: Week, form: OpenShiftForm | None = None) -> OpenShiftForm:
    form = form or OpenShiftForm(formdata=None, prefix="open",
                                 date=max(week.day or week.start, today()),
                                 start_time=time(7), end_time=time(19))
    # No role is chosen for the manager: an empty first choice, required.
    form.role.choices = options([("", "Choose a role")]
                                + [(str(r.id), r.name) for r in week.roles])
    return form


@bp.get("/manage/schedule")
def index() -> Response:
    """One day (an agenda) or the week (a grid) of one of the manager's teams."""
    week, _ = build_week(request.args)
    if week.team is None and week.teams:
        week.team = week.teams[0]
    week.open_form = _open_form(week)
    return render(TEMPLATE, fragment="schedule", week=week)


@bp.get("/manage/schedule/roles.css")
def role_colors() -> Response:
    """Each role's colour as a CSS custom property (the CSP forbids inline styles)."""
    roles = api().list_roles(RoleListQuery(page_size=200)).items
    lines = [f".role-{r.id} {{ --role-color: {_hex(r.hex_color)}; }}" for r in roles]
    response = Response("\n".join(lines) + "\n", mimetype="text/css")
    response.cache_control.private = True
    response.cache_control.max_age = 300
    return response


def _hex(value: str) -> str:
    text = value.strip()
    ok = text.startswith("#") and len(text) in (4, 7) and all(
        c in "0123456789abcdefABCDEF" for c in text[1:])
    return text if ok else "#6e7781"


# -- editing a shift ---------------------------------------------------------------------------

def _shift_roles(week: Week, shift: ShiftRead) -> dict[str, str]:
    """The roles the shift's work needs: id → name, in order."""
    names = {str(r.id): r.name for r in week.roles}
    found: dict[str, str] = {}
    for s in shift.segments:
        if s.role is not None and s.type in ("working", "on_call"):
            found.setdefault(str(s.role), names.get(str(s.role)) or s.role_name or "a role")
    return found


def _unheld(week: Week, shift: ShiftRead, provider: ProviderWithRelations) -> list[str]:
    held = {str(r.id) for r in provider.roles}
    return [name for role, name in _shift_roles(week, shift).items() if role not in held]


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def role_warning(week: Week, shift: ShiftRead, provider_id: str | uuid.UUID | None) -> str | None:
    """"Pat Provider does not hold the role Physician." when the provider given the shift does
    not hold a role it needs (managers may still assign it; claims need the role)."""
    person = next((p for p in week.providers if str(p.id) == str(provider_id or "")), None)
    if person is None:
        return None
    unheld = _unheld(week, shift, person)
    if not unheld:
        return None
    noun = "the role" if len(unheld) == 1 else "the roles"
    return f"{person.name or person.email} does not hold {noun} {_and(unheld)}."


def _provider_choices(week: Week, shift: ShiftRead) -> list[Any]:
    def label(p: ProviderWithRelations) -> str:
        unheld = _unheld(week, shift, p)
        name = p.name or p.email
        return f"{name} (does not hold {_and(unheld)})" if unheld else name

    return options([("", "Open shift (nobody)")] + [(str(p.id), label(p)) for p in week.providers])


def _fill(form: ShiftEditForm, shift: ShiftRead) -> None:
    start = shift.start_date.astimezone(zone())
    end = shift.end_date.astimezone(zone())
    form.date.data, form.start_time.data, form.end_time.data = start.date(), start.time(), \
        end.time()
    form.provider.data = str(shift.provider) if shift.provider else ""
    form.note.data = shift.note or ""
    form.version.data = shift.version


def _loaded(form: ShiftEditForm) -> None:
    form.orig_date.data = form.date.data.isoformat() if form.date.data else ""
    form.orig_start_time.data = form.start_time.data.strftime("%H:%M") \
        if form.start_time.data else ""
    form.orig_end_time.data = form.end_time.data.strftime("%H:%M") if form.end_time.data else ""
    form.orig_provider.data = form.provider.data or ""
    form.orig_note.data = form.note.data or ""


def compare(week: Week, latest: ShiftRead, form: ShiftEditForm) -> list[Comparison]:
    """The latest version of a shift beside what the manager tried to save, field by field."""
    site = zone()
    start, end = latest.start_date.astimezone(site), latest.end_date.astimezone(site)
    theirs = {"date": start.date().isoformat(), "start_time": start.strftime("%H:%M"),
              "end_time": end.strftime("%H:%M"),
              "provider": str(latest.provider) if latest.provider else "",
              "note": latest.note or ""}
    mine = _changes(form, only_changed=False)
    loaded = {"date": form.orig_date.data or "", "start_time": form.orig_start_time.data or "",
              "end_time": form.orig_end_time.data or "",
              "provider": form.orig_provider.data or "", "note": form.orig_note.data or ""}

    def shown(key: str, values: dict[str, str]) -> str:
        value = values[key]
        if key == "date":
            day = date.fromisoformat(value)
            return format_date(day, zone(), relative=False)
        if key in ("start_time", "end_time"):
            wall = datetime.combine(date(2000, 1, 1), time.fromisoformat(value), UTC)
            return format_time(wall, UTC)
        if key == "provider":
            return week.person(value)
        return value or "(none)"

    labels = {"date": "Date", "start_time": "Starts", "end_time": "Ends",
              "provider": "Provider", "note": "Note"}
    return [Comparison(label, shown(key, theirs), shown(key, mine),
                       theirs[key] != loaded[key].strip(), mine[key] != loaded[key].strip())
            for key, label in labels.items()]


def _editor(week: Week, shift: ShiftRead, form: ShiftEditForm | None = None, *,
            status: int = 200, conflict: ShiftRead | None = None) -> Response:
    if form is None:
        form = ShiftEditForm(formdata=None)
        _fill(form, shift)
        _loaded(form)
    form.provider.choices = _provider_choices(week, shift)
    week.role_warning = role_warning(week, shift, form.provider.data)
    week.editing, week.edit_form, week.conflict = shift, form, conflict
    if conflict is not None:
        week.compare = compare(week, conflict, form)
    week.open_form = week.open_form or _open_form(week)
    if week.view is None:  # the editor opens at the shift, so in one view
        week.view = "week"
    return render(TEMPLATE, fragment="schedule", week=week, status=status)


@bp.get("/manage/schedule/shifts/<uuid:shift_id>/edit")
def edit(shift_id: uuid.UUID) -> Response:
    """The shift open in the editor beside the week grid."""
    client = api()
    week, (shift,) = build_week(request.args, extra=[lambda: client.get_shift(shift_id)])
    return _editor(week, shift)


def _when(day: date, start: time, end: time) -> tuple[datetime, datetime]:
    """Local date and times as UTC instants; an end at or before the start is the next day."""
    begin = local_instant(day, start)
    finish = local_instant(day + timedelta(days=1) if end <= start else day, end)
    return begin, finish


def moved_segments(shift: ShiftRead, start: datetime, end: datetime) -> list[ShiftSegmentCreate]:
    """The shift's segments fitted to new times.

    A shift moved as a whole keeps its shape; otherwise segments keep their clock times inside
    the new bounds (those outside are dropped) and the first and last stretch to the new start
    and end.
    """
    delta = start - shift.start_date
    whole_move = end - shift.end_date == delta
    rows: list[tuple[datetime, datetime, Any]] = []
    for s in shift.segments:
        a, b = (s.start_date + delta, s.end_date + delta) if whole_move else (
            max(s.start_date, start), min(s.end_date, end))
        if b > a:
            rows.append((a, b, s))
    if not rows:
        first = shift.segments[0]
        rows = [(start, end, first)]
    rows[0] = (start, rows[0][1], rows[0][2])
    rows[-1] = (rows[-1][0], end, rows[-1][2])
    return [ShiftSegmentCreate(role=s.role, type=s.type, start_date=a, end_date=b,
                               skill_requirement=s.skill_requirement, labels=s.labels)
            for a, b, s in rows if s.role is not None]


def _changes(form: ShiftEditForm, *, only_changed: bool) -> dict[str, Any]:
    """What the form asks to change: every field, or those that differ from what was loaded."""
    current = {
        "date": form.date.data.isoformat(),
        "start_time": form.start_time.data.strftime("%H:%M"),
        "end_time": form.end_time.data.strftime("%H:%M"),
        "provider": form.provider.data or "",
        "note": (form.note.data or "").strip(),
    }
    if not only_changed:
        return current
    loaded = {"date": form.orig_date.data or "", "start_time": form.orig_start_time.data or "",
              "end_time": form.orig_end_time.data or "",
              "provider": form.orig_provider.data or "", "note": form.orig_note.data or ""}
    return {k: v for k, v in current.items() if v != loaded[k].strip()}


def _patch(shift: ShiftRead, form: ShiftEditForm, version: int) -> ShiftUpdate:
    """The PATCH body: the manager's changes applied onto `shift` as it is now."""
    changed = _changes(form, only_changed=True)
    body: dict[str, Any] = {"version": version}
    if {"date", "start_time", "end_time"} & set(changed):
        local_start = shift.start_date.astimezone(zone())
        local_end = shift.end_date.astimezone(zone())
        day = form.date.data if "date" in changed else local_start.date()
        begin_t = form.start_time.data if "start_time" in changed else local_start.time()
        end_t = form.end_time.data if "end_time" in changed else local_end.time()
        start, end = _when(day, begin_t, end_t)
        body.update(start_date=start, end_date=end,
                    segments=moved_segments(shift, start, end))
    if "provider" in changed:
        body["provider"] = uuid.UUID(changed["provider"]) if changed["provider"] else None
    if "note" in changed:
        body["note"] = changed["note"] or None
    return ShiftUpdate(**body)


@bp.post("/manage/schedule/shifts/<uuid:shift_id>")
def update(shift_id: uuid.UUID) -> Response:
    """Save a shift with the version the manager loaded (or, re-applying, the latest one)."""
    client = api()
    form = ShiftEditForm()
    week, (shift,) = build_week(request.args, extra=[lambda: client.get_shift(shift_id)])
    if not form.validate():
        return _editor(week, shift, form, status=422)
    changed = _changes(form, only_changed=True)
    if not changed:
        flash("Nothing to save: the shift is as it was.", "success")
        return _back_to(week)
    body = _patch(shift, form, form.version.data)
    if {"date", "start_time", "end_time", "provider"} & set(changed):
        provider = _provider_of(form, shift)
        start, end = body.start_date or shift.start_date, body.end_date or shift.end_date
        warnings = save_warnings(client, week, start, end, provider)
        subject = [str(shift_id), start.isoformat(), end.isoformat(), str(provider or "")]
        if warnings and not confirmed(request.form.get("confirm"), subject, warnings):
            week.warnings, week.confirm = warnings, sign(subject, warnings)
            return _editor(week, shift, form)
    try:
        client.update_shift(shift_id, body)
    except VersionConflict:
        latest = client.get_shift(shift_id)
        return _editor(week, latest, form, status=409, conflict=latest)
    except ApiProblem as problem:
        if problem.status not in (400, 409, 422):
            raise
        apply_problem(form, problem)
        return _editor(week, shift, form, status=422)
    flash(f"Saved {week.person(_provider_of(form, shift))}'s shift.", "success")
    warning = role_warning(week, shift, _provider_of(form, shift))
    if warning:
        flash(f"{warning} The shift is saved; change it if that was not meant.", "warning")
    return _back_to(week)


def _provider_of(form: ShiftEditForm, shift: ShiftRead) -> uuid.UUID | None:
    value = form.provider.data
    try:
        return uuid.UUID(value) if value else None
    except ValueError:
        return shift.provider


def _back_to(week: Week) -> Response:
    return see_other(week.url())


@bp.post("/manage/schedule/shifts")
def create() -> Response:
    """Post an open shift in the team."""
    client = api()
    week, _ = build_week(request.args)
    form = _open_form(week, OpenShiftForm(prefix="open"))
    week.open_form = form
    if week.team is None:
        abort(404)
    if not form.validate():
        return render(TEMPLATE, fragment="open_shift", week=week, status=422)
    start, end = _when(form.date.data, form.start_time.data, form.end_time.data)
    try:
        role = uuid.UUID(form.role.data)
    except ValueError:
        form.role.errors = ["Choose a role."]
        return render(TEMPLATE, fragment="open_shift", week=week, status=422)
    warnings = save_warnings(client, week, start, end, None)
    subject = ["open", str(week.team.id), start.isoformat(), end.isoformat(), str(role)]
    if warnings and not confirmed(request.form.get("confirm"), subject, warnings):
        week.open_warnings, week.open_confirm = warnings, sign(subject, warnings)
        return render(TEMPLATE, fragment="open_shift", week=week)
    body = ShiftCreate(provider=None, team=week.team.id, start_date=start, end_date=end,
                       note=(form.note.data or "").strip() or None, segments=[
                           ShiftSegmentCreate(role=role, type="working", start_date=start,
                                              end_date=end)])
    try:
        client.create_shift(body)
    except ApiProblem as problem:
        if problem.status not in (400, 409, 422):
            raise
        apply_problem(form, problem)
        return render(TEMPLATE, fragment="open_shift", week=week, status=422)
    flash("Open shift posted. Providers of the team can claim it.", "success")
    week.start, week.day = week_start(form.date.data), form.date.data
    return _back_to(week)


# -- warned saves -----------------------------------------------------------------------------

LONG_SHIFT = timedelta(hours=16)


def save_warnings(client: ApiClient, week: Week, start: datetime, end: datetime,
                  provider: uuid.UUID | None) -> list[SaveWarning]:
    """Why saving a shift from `start` to `end` for `provider` deserves a second look: longer
    than 16 hours, starting in the past, or over the provider's approved time off (read from
    the API, so leave approved a moment ago counts)."""
    found: list[SaveWarning] = []
    if end - start > LONG_SHIFT:
        found.append(SaveWarning("long", minutes=int((end - start).total_seconds() // 60)))
    if start < datetime.now(UTC):
        found.append(SaveWarning("past", start=start))
    if provider is not None:
        leave = client.list_time_off_requests(TimeOffRequestListQuery(
            provider_id=provider, status=["approved"], start_date=start, end_date=end,
            page_size=20)).items
        name = next((p.name or p.email for p in week.providers if p.id == provider),
                    week.person(provider))
        found.extend(SaveWarning("time_off", name=name, request=r) for r in leave
                     if r.start_date < end and start < r.end_date)
    return found


def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="manage-schedule-confirm")


def _claim(subject: list[str], warnings: list[SaveWarning]) -> list[str]:
    reasons = [w.kind + (f":{w.request.id}" if w.request else "") for w in warnings]
    return [*subject, *sorted(reasons)]


def sign(subject: list[str], warnings: list[SaveWarning]) -> str:
    """The `confirm` value for saving `subject` (what is saved) despite `warnings`."""
    return str(_signer().dumps(_claim(subject, warnings)))


def confirmed(token: str | None, subject: list[str], warnings: list[SaveWarning]) -> bool:
    """Whether `token` confirms exactly this save with exactly these warnings (the warnings
    are found again for every save, so a changed value or new leave asks again)."""
    if not token:
        return False
    try:
        return bool(_signer().loads(token) == _claim(subject, warnings))
    except BadSignature:
        return False
