"""The team schedule (blueprint `manage_schedule`): a week grid of a team's shifts, edited in place.

`index` shows providers by days with role colours (`role_colors`, a stylesheet built from the
team's roles, since the CSP allows no inline styles), open shifts and callouts marked and
approved time off shown; `edit` opens a shift in the editor beside the grid; `update` saves it
with its version. A 409 `version-conflict` shows the latest version next to what the manager
tried to save, with "Reload" (a link: discard mine) and "Apply my change to the latest version"
(hidden fields carry the attempted change; only the fields the manager changed are re-sent).
`create` posts an open shift. One round of concurrent API calls per page.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, abort, flash, request, url_for

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
    editing: ShiftRead | None = None
    edit_form: ShiftEditForm | None = None
    conflict: ShiftRead | None = None  # the latest version, after a version conflict
    open_form: OpenShiftForm | None = None
    grid: dict[tuple[str, date], list[ShiftRead]] = field(default_factory=dict)
    rows: list[tuple[str, str]] = field(default_factory=list)
    compare: list[Comparison] = field(default_factory=list)
    off: set[tuple[str, date]] = field(default_factory=set)
    role_warning: str | None = None  # the editor's provider does not hold the shift's roles

    @property
    def days(self) -> list[date]:
        """The seven days of the week."""
        return [self.start + timedelta(days=i) for i in range(7)]

    def url(self, endpoint: str = "manage_schedule.index", **values: Any) -> str:
        """A schedule address keeping the team and week."""
        args = {"team": str(self.team.id) if self.team else None,
                "week": self.start.isoformat()}
        return url_for(endpoint, **values) + "?" + urlencode(
            {k: v for k, v in args.items() if v})

    def week_url(self, offset: int) -> str:
        """The same team, `offset` weeks away."""
        args = {"team": str(self.team.id) if self.team else "",
                "week": (self.start + timedelta(weeks=offset)).isoformat()}
        return url_for("manage_schedule.index") + "?" + urlencode(
            {k: v for k, v in args.items() if v})

    def person(self, provider_id: uuid.UUID | str | None) -> str:
        """A provider's name ("Open shift" for none)."""
        if not provider_id:
            return "Open shift"
        for pid, name in self.rows:
            if pid == str(provider_id):
                return name
        return "Someone outside this team"


def _team_and_week(me: UserMe, args: Any) -> tuple[uuid.UUID | None, date]:
    try:
        team = uuid.UUID(args["team"]) if args.get("team") else None
    except ValueError:
        team = None
    if team is None:
        team = me.team_ids[0] if me.team_ids else None
    return team, week_start(parse_day(args.get("week")) or today())


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
    team_id, start = _team_and_week(me, args)
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
    week = Week(team=team, teams=mine, start=start,
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
    form = form or OpenShiftForm(formdata=None, prefix="open", date=max(week.start, today()),
                                 start_time=time(7), end_time=time(19))
    form.role.choices = options([(str(r.id), r.name) for r in week.roles])
    return form


@bp.get("/manage/schedule")
def index() -> Response:
    """The week grid of one of the manager's teams."""
    week, _ = build_week(request.args)
    if week.team is None and week.teams:
        week.team = week.teams[0]
    week.open_form = _open_form(week)
    return render(TEMPLATE, fragment="schedule_grid", week=week)


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
    return render(TEMPLATE, fragment="shift_editor", week=week, status=status)


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
    if not _changes(form, only_changed=True):
        flash("Nothing to save: the shift is as it was.", "success")
        return _back_to(week)
    try:
        client.update_shift(shift_id, _patch(shift, form, form.version.data))
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
    week.start = week_start(form.date.data)
    return _back_to(week)
