"""The team schedule (blueprint `manage_schedule`): a team's shifts by day or week, edited in place.

`index` shows one day as an agenda of shift cards (`?view=day&day=…`: previous/next day, hours
per person and heads per role) or the week as a grid of providers by days (`?view=week`); with
no `view` the page holds both and the stylesheet shows the day on a phone, the week on a wider
screen. Role colours come from `role_colors` (a stylesheet built from the team's roles, since the
CSP allows no inline styles); open shifts and callouts are marked and approved time off shown.

One shift form (`ShiftForm`) creates and edits: date, times, provider or open, main role,
segments (rows of type, role, local times and labels; a time before the shift's start is past
midnight, DST-correct; no rows is one working segment over the shift), pay code, callout and
note. Without JavaScript "Add another segment" answers the form with one more row; with htmx
the same button swaps it in place. `new` opens it above the schedule ("New shift", or a week
cell's "+" for that provider and day); `create` posts it. `edit` opens a shift's editor at the
shift (in its card, or in a row under its provider's row); `update` saves it with its version.
Moving a shift's times moves its segments along (`moved_segments`) unless the rows changed too.
A 409 `version-conflict` shows the latest version next to what the manager tried to save,
field by field, segments, labels, pay code and callout included, with "Reload" (a link: discard
mine) and "Apply my change to the latest version" (hidden fields carry the attempted change;
only the fields the manager changed are re-sent, the segments as a whole list). API problems
land on their fields (`/segments/N/startDate` on that row's "From"), UTC stamps in them written
as local times. `confirm_delete` asks at the shift; `delete` deletes the version the manager
confirmed (`DELETE /v1/shifts/{id}?version=`), and a `version-conflict` shows the shift as it is
now and asks again; `timesheet-signed-off` is shown in the question. Saving times that look
wrong (over 16 hours, a start in the past, over the provider's approved time off) first answers
the form with the reasons and "Save anyway"; its signed `confirm` field names exactly what was
confirmed, so changed values or a tampered field are checked again. One round of concurrent API
calls per page.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, abort, current_app, flash, request, url_for
from itsdangerous import BadSignature, URLSafeSerializer
from markupsafe import Markup, escape
from wtforms import BooleanField, Field, FieldList, FormField, SelectMultipleField, SubmitField

from app.client import ApiClient, ApiProblem, NotFound, VersionConflict
from app.contract.availability import AvailabilityWindowQuery, AvailabilityWindows
from app.contract.common import Page
from app.contract.forecasting import CoverageQuery, CoverageRead
from app.contract.labels import LabelListQuery, LabelRead
from app.contract.pay_codes import PayCodeListQuery, PayCodeRead
from app.contract.providers import ProviderListQuery, ProviderWithRelations
from app.contract.roles import RoleListQuery, RoleRead
from app.contract.shifts import (
    ShiftCreate,
    ShiftListQuery,
    ShiftPayCode,
    ShiftRead,
    ShiftSegmentCreate,
    ShiftUpdate,
)
from app.contract.teams import TeamListQuery, TeamRead
from app.contract.time_off import TimeOffRequestListQuery, TimeOffRequestRead
from app.contract.users import UserMe
from app.web.auth import api, current_user
from app.web.availability.words import day_windows, reason_words
from app.web.filters import (
    clock_range,
    format_date,
    format_datetime,
    format_time,
    leave_span,
    site_today,
)
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
from app.web.manage_schedule.coverage import RoleStrip, Run, short_runs, strips
from app.web.manage_schedule.forms import (
    BLANK_ROWS,
    SEGMENT_TYPES,
    DeleteShiftForm,
    ShiftForm,
)
from app.web.manage_time_off.forms import options

bp = Blueprint("manage_schedule", __name__)

TEMPLATE = "manage_schedule/index.html"
_STAND_IN = uuid.UUID(int=0)  # the shift id in an editor address built once per page


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
    """A reason to confirm a save: `long` (minutes), `past` (start), `time_off` (name,
    request), `unavailable` (name, reason) or `overlap` (name, shift: another shift of the
    provider's at the same time). The template words it, through the shared date and duration
    filters."""

    kind: str
    minutes: int = 0
    start: datetime | None = None
    name: str = ""
    request: TimeOffRequestRead | None = None
    reason: str = ""  # `unavailable`: why (the provider's note, or their weekly pattern)
    shift: ShiftRead | None = None  # `overlap`: the provider's other shift


@dataclass(frozen=True)
class DayRole:
    """Heads of one role on a day: shifts held, and open shifts still to fill."""

    name: str
    held: int
    open: int


@dataclass(frozen=True)
class Chip:
    """A shift as the schedule shows it: its main role (the first segment that is not an
    unpaid break), its times as markup, whose it is and its day."""

    role_id: str | None
    role_name: str | None
    times: Markup
    who: str
    day: str


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
    editing: ShiftRead | None = None  # the shift whose editor (or delete question) is open
    edit_form: ShiftForm | None = None
    deleting: DeleteShiftForm | None = None  # set: the delete question, not the editor
    conflict: ShiftRead | None = None  # the latest version, after a version conflict
    new_form: ShiftForm | None = None  # the new-shift form, above the schedule
    labels: list[LabelRead] = field(default_factory=list)
    pay_codes: list[PayCodeRead] = field(default_factory=list)
    resend: list[tuple[str, str]] = field(default_factory=list)  # "Apply my change" fields
    _urls: dict[str, str] = field(default_factory=dict)
    _names: dict[str, str] = field(default_factory=dict)  # `rows` by provider id
    _chips: dict[uuid.UUID, Chip] = field(default_factory=dict)  # `chip` of each shift shown
    grid: dict[tuple[str, date], list[ShiftRead]] = field(default_factory=dict)
    rows: list[tuple[str, str]] = field(default_factory=list)
    compare: list[Comparison] = field(default_factory=list)
    off: set[tuple[str, date]] = field(default_factory=set)
    role_warning: str | None = None  # the editor's provider does not hold the shift's roles
    warnings: list[SaveWarning] = field(default_factory=list)  # the form's save, unconfirmed
    confirm: str = ""  # the signed confirmation of those warnings
    coverage: list[RoleStrip] = field(default_factory=list)  # the week against demand, by role
    # (provider id, day) -> the provider's unavailable/preferred times that day, in words
    avail: dict[tuple[str, date], list[tuple[str, str, str]]] = field(default_factory=dict)

    def short_on(self, day: date) -> list[tuple[RoleStrip, list[Run]]]:
        """Per role with a forecast, the day's short stretches (roles short somewhere)."""
        found = []
        for strip in self.coverage:
            held = strip.day(day)
            runs = short_runs(held) if held is not None else []
            if runs:
                found.append((strip, runs))
        return found

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
        """The address of `shift`'s editor in the day agenda or the week grid (the page has one
        per shift: the address is built once with a stand-in id)."""
        day = local_day(shift.start_date) if view == "day" else None
        key = f"edit-{view}-{day}"
        base = self._urls.get(key)
        if base is None:
            base = self._urls[key] = url_for("manage_schedule.edit", shift_id=_STAND_IN) + \
                "?" + self._args(view=view, day=day.isoformat() if day else None,
                                 week=week_start(day).isoformat() if day
                                 else self.start.isoformat())
        return base.replace(str(_STAND_IN), str(shift.id), 1)

    def new_url(self, provider: str = "", day: date | None = None, view: str | None = None,
                ) -> str:
        """The new-shift form's address, for `provider` (open by default) on `day`."""
        if "new" not in self._urls:
            self._urls["new"] = url_for("manage_schedule.new")
        args = {"team": str(self.team.id) if self.team else None,
                "week": week_start(day).isoformat() if day else self.start.isoformat(),
                "view": view or self.view, "day": day.isoformat() if day else None,
                "provider": provider}
        return self._urls["new"] + "?" + urlencode({k: v for k, v in args.items() if v})

    def gap_url(self, role_id: str, start: datetime, end: datetime) -> str:
        """The new-shift form for an open shift of `role_id` over a short stretch."""
        first, last = start.astimezone(zone()), end.astimezone(zone())
        args = {"team": str(self.team.id) if self.team else "", "view": self.view or "",
                "week": week_start(first.date()).isoformat(), "day": first.date().isoformat(),
                "from": f"{first:%H:%M}", "to": f"{last:%H:%M}", "role": role_id}
        return url_for("manage_schedule.new") + "?" + urlencode({k: v for k, v in args.items()
                                                                 if v})

    def cell_new_url(self, provider: str, day: date) -> str:
        """`new_url` for a week-grid cell (many per page: the fixed part is built once)."""
        base = self._urls.get("cell")
        if base is None:
            base = self._urls["cell"] = url_for("manage_schedule.new") + "?" + urlencode(
                {"team": str(self.team.id) if self.team else "",
                 "week": self.start.isoformat(), "view": "week"})
        return f"{base}&day={day.isoformat()}" + (f"&provider={provider}" if provider else "")

    @property
    def has_errors(self) -> bool:
        """Whether a form on the page shows errors (the page title then starts "Error:")."""
        forms = [f for f in (self.edit_form, self.new_form, self.deleting) if f is not None]
        return self.conflict is not None or any(
            f.form_errors or any(x.errors for x in leaves(f)) for f in forms)

    def card_id(self, shift: ShiftRead) -> str:
        """The id of `shift`'s card: `shift-<id>` in the day view; with no view chosen the week's
        chip holds that id and the card another."""
        return f"shift-{shift.id}" if self.view == "day" else f"shift-{shift.id}-day"

    @staticmethod
    def anchor(shift: ShiftRead) -> str:
        """Where `shift`'s editor opens: its card (day view) or chip (week grid), `shift-<id>`
        in either (an editor's page shows one view)."""
        return f"shift-{shift.id}"

    def chart_url(self) -> str:
        """The coverage chart of this team's week."""
        return url_for("manage_schedule.coverage") + "?" + urlencode(
            {"team": str(self.team.id) if self.team else "", "week": self.start.isoformat()})

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

    def chip(self, shift: ShiftRead) -> Chip:
        """What the week grid's chip and the day's card show of `shift`, worked out once per
        shift (a week shows dozens, each in both views)."""
        found = self._chips.get(shift.id)
        if found is None:
            role = next((seg for seg in shift.segments if seg.type != "unpaid_break"), None)
            found = self._chips[shift.id] = Chip(
                role_id=str(role.role) if role is not None and role.role else None,
                role_name=role.role_name if role is not None else None,
                times=clock_range(shift.start_date, shift.end_date, zone()),
                who=self.person(shift.provider),
                day=format_date(shift.start_date, zone(), site_today(zone())))
        return found

    def chip_html(self, shift: ShiftRead) -> Markup:
        """The week grid's chip of `shift`: a link to its editor (built here, not in a macro: a
        week's grid holds dozens of chips and they were a quarter of the page's template time).
        """
        c = self.chip(shift)
        url = escape(f"{self.edit_url(shift, 'week')}#shift-{shift.id}")
        classes = "mgr-chip" + (f" role-{c.role_id}" if c.role_id else "") + \
            (" mgr-callout" if shift.is_callout else "") + \
            ("" if shift.provider else " mgr-open") + \
            (" sched-chip-editing" if self.editing and self.editing.id == shift.id else "")
        flags = (f' <span class="mgr-chip-role">{escape(c.role_name)}</span>' if c.role_name
                 else "") + (' <span class="mgr-chip-flag">Callout</span>' if shift.is_callout
                             else "") + \
            ("" if shift.provider else ' <span class="mgr-chip-flag">Open</span>')
        return Markup(
            f'<a id="shift-{shift.id}" data-record class="{escape(classes)}" href="{url}" '
            f'hx-get="{url}" hx-target="#schedule"><span class="mgr-chip-time">{c.times}</span>'
            f'{flags} <span class="visually-hidden">, {escape(c.who)}, {escape(c.day)}. Edit'
            "</span></a>")

    def person(self, provider_id: uuid.UUID | str | None) -> str:
        """A provider's name ("Open shift" for none)."""
        if not provider_id:
            return "Open shift"
        if len(self._names) != len(self.rows):  # built once, again if rows were added
            self._names = dict(self.rows)
        return self._names.get(str(provider_id), "Someone outside this team")

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

    @property
    def day_availability(self) -> list[tuple[str, str, str, str]]:
        """The agenda's day's unavailable and preferred times: (name, kind, words, reason)."""
        return [(name, kind, words, reason) for pid, name in self.rows
                for kind, words, reason in self.avail.get((pid, self.shown_day), [])]


def leaves(form: Any) -> Iterator[Field]:
    """Every input field of a form, those of its segment rows included."""
    for item in form:
        if isinstance(item, FieldList):
            for entry in item.entries:
                yield from leaves(entry.form)
        elif isinstance(item, FormField):
            yield from leaves(item.form)
        else:
            yield item


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
               first_day: date) -> list[Callable[[], Any]]:
    """The schedule's reads: teams, people, shifts, approved time off and roles of the week,
    its coverage and its providers' availability (`first_day` is the week's first local day).
    Only one team's: with no team (there is none to pick) the week is empty, never every
    team's."""
    if team is None:
        return [lambda: client.list_teams(TeamListQuery(page_size=200)),
                *[lambda: Page[Any](items=[], cursor=None)] * 4, lambda: None, lambda: None]
    return [
        lambda: client.list_teams(TeamListQuery(page_size=200)),
        lambda: client.list_providers(ProviderListQuery(team_id=team, page_size=200)),
        lambda: client.list_shifts(ShiftListQuery(
            team_id=team, start_date=begin, end_date=end, include_callouts=True,
            include_display_names=True, page_size=200)),
        lambda: client.list_time_off_requests(TimeOffRequestListQuery(
            team_id=team, status=["approved"], start_date=begin, end_date=end, page_size=200)),
        lambda: client.list_roles(RoleListQuery(team=team, page_size=200)),
        lambda: _coverage(client, team, begin, end),
        lambda: _availability(client, team, first_day),
    ]


def _availability(client: ApiClient, team: uuid.UUID, first_day: date,
                  ) -> AvailabilityWindows | None:
    """The week's unavailable and preferred times of the team's providers; none for whoever
    may not read them (no shading)."""
    try:
        return client.availability_windows(AvailabilityWindowQuery(
            team_id=team, start_date=first_day, end_date=first_day + timedelta(days=6)))
    except ApiProblem:
        return None


def _coverage(client: ApiClient, team: uuid.UUID, begin: datetime, end: datetime,
              ) -> CoverageRead | None:
    """The week's hourly coverage; none for whoever may not read the forecast (no strip)."""
    try:
        return client.get_coverage(CoverageQuery(team_id=team, start_date=begin, end_date=end))
    except ApiProblem:
        return None


def build_week(args: Any, *, extra: list[Callable[[], Any]] | None = None,
               ) -> tuple[Week, list[Any]]:
    """Read the week the query names; `extra` calls run in the same concurrent round."""
    me = current_user()
    client = api()
    team_id, start, day = _team_and_week(me, args)
    if team_id is None:  # an administrator, in no team: open on the first team there is
        team_id = default_team(me, client.list_teams(TeamListQuery(page_size=200)).items)
    begin, end = local_instant(start), local_instant(start + timedelta(days=7))
    answers = client.concurrently(*week_reads(client, team_id, begin, end, start),
                                  *(extra or []))
    if team_id is not None and all(t.id != team_id for t in answers[0].items):
        # A team that is not there (a stale or mistyped link): the default team's week instead.
        team_id = default_team(me, answers[0].items)
        answers = client.concurrently(*week_reads(client, team_id, begin, end, start),
                                  *(extra or []))
    teams, providers, shifts, time_off, roles, coverage, availability = answers[:7]
    more = answers[7:]
    mine = my_teams(me, teams.items)
    team = next((t for t in teams.items if t.id == team_id), None)
    view = args.get("view") if args.get("view") in ("day", "week") else None
    week = Week(team=team, teams=mine, start=start, day=day, view=view,
                providers=sorted(providers.items, key=lambda p: p.name or p.email),
                shifts=shifts.items, time_off=time_off.items, roles=roles.items)
    week.coverage = strips(coverage, week.days, zone())
    week.rows = [(str(p.id), p.name or p.email) for p in week.providers]
    known = {pid for pid, _ in week.rows}
    for s in week.shifts:
        key = (str(s.provider) if s.provider else "open", local_day(s.start_date))
        week.grid.setdefault(key, []).append(s)
        if s.provider and str(s.provider) not in known:
            # Someone no longer listed (dismissed, or moved team) still holds a shift here.
            known.add(str(s.provider))
            week.rows.append((str(s.provider), s.provider_name or "Former team member"))
    for item in availability.items if availability is not None else ():
        for day in week.days:
            found = day_windows(item.windows, day, zone())
            if found:
                week.avail[(str(item.provider_id), day)] = found
    for r in week.time_off:
        # The local days the leave covers, as the time-off pages count them (a 24-hour step
        # from the start would skip a day after the autumn DST change).
        for day in leave_span(r, zone()).days:
            week.off.add((str(r.provider_id), day))
    return week, more


@bp.get("/manage/schedule")
def index() -> Response:
    """One day (an agenda) or the week (a grid) of one of the manager's teams."""
    week, _ = build_week(request.args)
    if week.team is None and week.teams:
        week.team = week.teams[0]
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


def _provider_choices(week: Week, shift: ShiftRead | None) -> list[Any]:
    def label(p: ProviderWithRelations) -> str:
        unheld = _unheld(week, shift, p) if shift is not None else []
        name = p.name or p.email
        return f"{name} (does not hold {_and(unheld)})" if unheld else name

    return options([("", "Open shift (nobody)")] + [(str(p.id), label(p)) for p in week.providers])


def _dress(week: Week, form: ShiftForm, shift: ShiftRead | None) -> ShiftForm:
    """Give the form its choices: the team's people, roles, labels and pay codes."""
    roles = [(str(r.id), r.name) for r in week.roles]
    form.provider.choices = _provider_choices(week, shift)
    form.role.choices = options([("", "Choose a role"), *roles])
    form.pay_code.choices = options([("", "None")] + [
        (str(p.id), f"{p.name} ({p.shorthand_name})") for p in week.pay_codes])
    for entry in form.segments.entries:
        entry.form.role.choices = options([("", "Main role"), *roles])
        entry.form.labels.choices = options([(str(label.id), label.name)
                                             for label in week.labels])
    return form


def _wall(at: datetime) -> time:
    return at.astimezone(zone()).time().replace(tzinfo=None)


def main_role(shift: ShiftRead) -> str:
    """The id of the role of a shift's first working part (its first segment's otherwise)."""
    for s in shift.segments:
        if s.type != "unpaid_break" and s.role is not None:
            return str(s.role)
    return next((str(s.role) for s in shift.segments if s.role is not None), "")


def _fill(form: ShiftForm, shift: ShiftRead) -> None:
    start = shift.start_date.astimezone(zone())
    form.date.data, form.start_time.data = start.date(), _wall(shift.start_date)
    form.end_time.data = _wall(shift.end_date)
    form.provider.data = str(shift.provider) if shift.provider else ""
    form.role.data = role = main_role(shift)
    form.pay_code.data = str(shift.pay_codes[0].pay_code_id) if shift.pay_codes else ""
    form.is_callout.data = shift.is_callout
    form.note.data = shift.note or ""
    form.version.data = shift.version
    for s in shift.segments:
        form.segments.append_entry({
            "type": s.type, "role": "" if str(s.role) == role else str(s.role or ""),
            "start_time": _wall(s.start_date), "end_time": _wall(s.end_date),
            "labels": [str(label) for label in s.labels]})
    for _ in range(BLANK_ROWS):
        form.segments.append_entry()


def _hhmm(at: time | None) -> str:
    return at.strftime("%H:%M") if at else ""


STATE_KEYS = ("date", "start_time", "end_time", "provider", "role", "segments", "pay_code",
              "is_callout", "note")
"""What a version conflict compares, and what "Apply my change" re-sends when it changed."""


def _segment_text(kind: str, role: str, start: str, end: str, labels: list[str]) -> str:
    return "|".join([kind, role, start, end, "+".join(sorted(labels))])


def shift_state(shift: ShiftRead) -> dict[str, str]:
    """A shift in the editor's words: local date and times, ids as text, segments as one
    line each (type, role, times, labels)."""
    return {
        "date": local_day(shift.start_date).isoformat(),
        "start_time": _hhmm(_wall(shift.start_date)), "end_time": _hhmm(_wall(shift.end_date)),
        "provider": str(shift.provider) if shift.provider else "",
        "role": main_role(shift),
        "segments": ";".join(_segment_text(s.type, str(s.role or ""), _hhmm(_wall(s.start_date)),
                                           _hhmm(_wall(s.end_date)), [str(x) for x in s.labels])
                             for s in shift.segments),
        "pay_code": str(shift.pay_codes[0].pay_code_id) if shift.pay_codes else "",
        "is_callout": "yes" if shift.is_callout else "",
        "note": shift.note or "",
    }


def form_state(form: ShiftForm) -> dict[str, str]:
    """What the form holds, in `shift_state`'s words (segments with the main role filled in;
    no rows at all: one working segment over the shift)."""
    role = form.role.data or ""
    rows = [_segment_text(row.type.data or "", row.role.data or role, _hhmm(row.start_time.data),
                          _hhmm(row.end_time.data), list(row.labels.data or []))
            for row in form.rows]
    if not rows:
        rows = [_segment_text("working", role, _hhmm(form.start_time.data),
                              _hhmm(form.end_time.data), [])]
    return {
        "date": form.date.data.isoformat() if form.date.data else "",
        "start_time": _hhmm(form.start_time.data), "end_time": _hhmm(form.end_time.data),
        "provider": form.provider.data or "", "role": role, "segments": ";".join(rows),
        "pay_code": form.pay_code.data or "", "is_callout": "yes" if form.is_callout.data else "",
        "note": (form.note.data or "").strip(),
    }


def loaded_state(form: ShiftForm) -> dict[str, str]:
    """The shift as the manager loaded it (the `orig_*` fields)."""
    return {key: (form[f"orig_{key}"].data or "").strip() for key in STATE_KEYS}


def _loaded(form: ShiftForm) -> None:
    for key, value in form_state(form).items():
        form[f"orig_{key}"].data = value


def _changes(form: ShiftForm, *, only_changed: bool) -> dict[str, str]:
    """What the form asks for: every field, or those that differ from what was loaded."""
    current = form_state(form)
    if not only_changed:
        return current
    loaded = loaded_state(form)
    return {k: v for k, v in current.items() if v != loaded[k]}


def compare(week: Week, latest: ShiftRead, form: ShiftForm) -> list[Comparison]:
    """The latest version of a shift beside what the manager tried to save, field by field."""
    theirs, mine, loaded = shift_state(latest), form_state(form), loaded_state(form)
    roles = {str(r.id): r.name for r in week.roles}
    for s in latest.segments:
        if s.role is not None and s.role_name:
            roles.setdefault(str(s.role), s.role_name)
    labels = {str(label.id): label.name for label in week.labels}
    pay_codes = {str(p.id): p.name for p in week.pay_codes}
    kinds = dict(SEGMENT_TYPES)

    def clock(value: str) -> str:
        if not value:
            return "(none)"
        return format_time(datetime.combine(date(2000, 1, 1), time.fromisoformat(value), UTC),
                           UTC)

    def segment(line: str) -> str:
        kind, role, start, end, tags = line.split("|")
        names = [roles.get(role, "a role")] + [labels.get(t, "a label") for t in tags.split("+")
                                                if t]
        return f"{kinds.get(kind, kind)} {clock(start)}\u2013{clock(end)} ({', '.join(names)})"

    def shown(key: str, value: str) -> str:
        if key == "date":
            return format_date(date.fromisoformat(value), zone(), relative=False)
        if key in ("start_time", "end_time"):
            return clock(value)
        if key == "provider":
            return week.person(value)
        if key == "role":
            return roles.get(value, "(none)")
        if key == "segments":
            return "; ".join(segment(line) for line in value.split(";") if line)
        if key == "pay_code":
            return pay_codes.get(value, "None") if value else "None"
        if key == "is_callout":
            return "Callout" if value else "No"
        return value or "(none)"

    labels_of = {"date": "Date", "start_time": "Starts", "end_time": "Ends",
                 "provider": "Provider", "role": "Main role", "segments": "Segments",
                 "pay_code": "Pay code", "is_callout": "Callout", "note": "Note"}
    return [Comparison(label, shown(key, theirs[key]), shown(key, mine[key]),
                       theirs[key] != loaded[key], mine[key] != loaded[key])
            for key, label in labels_of.items()]


def resent(form: ShiftForm) -> list[tuple[str, str]]:
    """The manager's submission as hidden (name, value) pairs, for "Apply my change to the
    latest version" (the version is the latest's, added by the template)."""
    pairs: list[tuple[str, str]] = []
    for item in leaves(form):
        if isinstance(item, SubmitField) or item.name in ("version", "csrf_token"):
            continue
        if isinstance(item, BooleanField):
            if item.data:
                pairs.append((item.name, "y"))
        elif isinstance(item, SelectMultipleField):
            pairs.extend((item.name, str(v)) for v in item.data or [])
        else:
            pairs.append((item.name, item._value() if hasattr(item, "_value")
                          else str(item.data or "")))
    return pairs


def _editor(week: Week, shift: ShiftRead, form: ShiftForm | None = None, *,
            status: int = 200, conflict: ShiftRead | None = None) -> Response:
    if form is None:
        form = ShiftForm(formdata=None)
        _fill(form, shift)
        _loaded(form)
    _dress(week, form, shift)
    week.role_warning = role_warning(week, shift, form.provider.data)
    week.editing, week.edit_form, week.conflict = shift, form, conflict
    if conflict is not None:
        week.compare = compare(week, conflict, form)
        week.resend = resent(form)
    if week.view is None:  # the editor opens at the shift, so in one view
        week.view = "week"
    return render(TEMPLATE, fragment="schedule", week=week, status=status)


def editing_week(args: Any, *calls: Callable[[], Any]) -> tuple[Week, list[Any]]:
    """The week with what the shift form needs (labels and pay codes), read in the same round
    as `calls`."""
    client = api()
    week, more = build_week(args, extra=[
        *calls, lambda: client.list_labels(LabelListQuery(page_size=200)),
        lambda: client.list_pay_codes(PayCodeListQuery(page_size=200))])
    *answers, labels, pay_codes = more
    week.labels, week.pay_codes = labels.items, pay_codes.items
    return week, answers


@bp.get("/manage/schedule/shifts/<uuid:shift_id>/edit")
def edit(shift_id: uuid.UUID) -> Response:
    """The shift open in the editor at the shift (its card, or a row under its provider's)."""
    client = api()
    week, (shift,) = editing_week(request.args, lambda: client.get_shift(shift_id))
    return _editor(week, shift)


def _when(day: date, start: time, end: time) -> tuple[datetime, datetime]:
    """Local date and times as UTC instants; an end at or before the start is the next day."""
    begin = local_instant(day, start)
    finish = local_instant(day + timedelta(days=1) if end <= start else day, end)
    return begin, finish


def on_shift(start: datetime, at: time, *, after: datetime | None = None) -> datetime:
    """The instant a segment's local time `at` names on a shift starting at `start`: on the
    shift's day, or the next day for a time before the shift's start (past midnight). With
    `after` (a segment's start), an end not after it is a day later."""
    day = local_day(start)
    if at < _wall(start):
        day += timedelta(days=1)
    instant = local_instant(day, at)
    if after is not None and instant <= after:
        instant = local_instant(day + timedelta(days=1), at)
    return instant


def _uuid(text: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID(text) if text else None
    except ValueError:
        return None


def planned_segments(form: ShiftForm, start: datetime, end: datetime, *,
                     moved_from: tuple[time, time] | None = None,
                     ) -> list[ShiftSegmentCreate] | None:
    """The segments the rows describe on a shift from `start` to `end` (no rows: one working
    segment of the main role over the whole shift), or None after marking rows whose role or
    labels are not ids (a tampered form). With `moved_from` (the shift's loaded times), a row
    starting or ending with the shift moves with it."""
    role = _uuid(form.role.data)
    if role is None:
        form.role.errors = ["Choose a role."]
        return None
    rows = form.rows
    if not rows:
        return [ShiftSegmentCreate(role=role, type="working", start_date=start, end_date=end)]
    found: list[ShiftSegmentCreate] = []
    ok = True
    for row in rows:
        row_role = _uuid(row.role.data) if row.role.data else role
        labels = [_uuid(text) for text in row.labels.data or []]
        if row_role is None:
            row.role.errors = ["Choose a role from the list."]
            ok = False
        if any(label is None for label in labels):
            row.labels.errors = ["Choose labels from the list."]
            ok = False
        if not ok or row_role is None:
            continue
        first, last = row.start_time.data, row.end_time.data
        a = start if moved_from and first == moved_from[0] else on_shift(start, first)
        b = end if moved_from and last == moved_from[1] else on_shift(start, last, after=a)
        found.append(ShiftSegmentCreate(role=row_role, type=row.type.data, start_date=a,
                                        end_date=b, labels=[x for x in labels if x]))
    return found if ok else None


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


PICK_PROVIDER = "Choose a provider from the list, or Open shift."


def _pay_codes(form: ShiftForm) -> list[ShiftPayCode] | None:
    """The pay code chosen (none, or one), or None after marking a value that is no id."""
    if not form.pay_code.data:
        return []
    code = _uuid(form.pay_code.data)
    if code is None:
        form.pay_code.errors = ["Choose a pay code from the list."]
        return None
    return [ShiftPayCode(pay_code_id=code)]


def _patch(shift: ShiftRead, form: ShiftForm, version: int) -> ShiftUpdate | None:
    """The PATCH body: the manager's changes applied onto `shift` as it is now (segments as a
    whole list when the rows changed), or None when the form names ids that are no ids."""
    changed = _changes(form, only_changed=True)
    body: dict[str, Any] = {"version": version}
    timing = {"date", "start_time", "end_time"} & set(changed)
    if timing or "segments" in changed:
        local_start = shift.start_date.astimezone(zone())
        day = form.date.data if "date" in changed else local_start.date()
        begin_t = form.start_time.data if "start_time" in changed else _wall(shift.start_date)
        end_t = form.end_time.data if "end_time" in changed else _wall(shift.end_date)
        start, end = _when(day, begin_t, end_t)
        if timing:
            body.update(start_date=start, end_date=end)
        if "segments" in changed:
            loaded = loaded_state(form)
            moved = (time.fromisoformat(loaded["start_time"]), time.fromisoformat(
                loaded["end_time"])) if timing and loaded["start_time"] and loaded[
                    "end_time"] else None
            segments = planned_segments(form, start, end, moved_from=moved)
            if segments is None:
                return None
            body["segments"] = segments
        else:
            body["segments"] = moved_segments(shift, start, end)
    if "provider" in changed:
        body["provider"] = _uuid(changed["provider"])
        if changed["provider"] and body["provider"] is None:
            form.provider.errors = [PICK_PROVIDER]
            return None
    if "note" in changed:
        body["note"] = changed["note"] or None
    if "pay_code" in changed:
        codes = _pay_codes(form)
        if codes is None:
            return None
        body["pay_codes"] = codes
    if "is_callout" in changed:
        body["is_callout"] = bool(form.is_callout.data)
    return ShiftUpdate(**body)


_STAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)")


def _local_words(form: ShiftForm) -> None:
    """Write the API's UTC timestamps in messages as the site's date and time."""
    def local(match: re.Match[str]) -> str:
        text = match.group(0).replace("Z", "+00:00")
        instant = datetime.fromisoformat(text[:-2] + ":" + text[-2:] if text[-3] != ":"
                                         else text)
        return format_datetime(instant, zone(), relative=False)

    for item in leaves(form):
        if item.errors:
            item.errors = [_STAMP.sub(local, str(e)) for e in item.errors]
    form.form_errors = [_STAMP.sub(local, str(e)) for e in form.form_errors]


def _refused(form: ShiftForm, problem: ApiProblem) -> None:
    apply_problem(form, problem)
    _local_words(form)


@bp.post("/manage/schedule/shifts/<uuid:shift_id>")
def update(shift_id: uuid.UUID) -> Response:
    """Save a shift with the version the manager loaded (or, re-applying, the latest one);
    "Add another segment" answers the form with one more segment row."""
    client = api()
    form = ShiftForm()
    week, (shift,) = editing_week(request.args, lambda: client.get_shift(shift_id))
    if form.add_segment.data:
        form.segments.append_entry()
        return _editor(week, shift, form)
    if not form.validate():
        return _editor(week, shift, form, status=422)
    if form.version.data is None:
        form.form_errors = ["This form lost the shift's version: reload the shift and edit "
                            "it again."]
        return _editor(week, shift, form, status=422)
    changed = _changes(form, only_changed=True)
    if not changed:
        flash("Nothing to save: the shift is as it was.", "success")
        return _back_to(week)
    body = _patch(shift, form, form.version.data)
    if body is None:
        return _editor(week, shift, form, status=422)
    if {"date", "start_time", "end_time", "provider"} & set(changed):
        provider = _provider_of(form, shift)
        start, end = body.start_date or shift.start_date, body.end_date or shift.end_date
        warnings = save_warnings(client, week, start, end, provider, editing=shift_id)
        subject = [str(shift_id), start.isoformat(), end.isoformat(), str(provider or "")]
        if warnings and not confirmed(request.form.get("confirm"), subject, warnings):
            week.warnings, week.confirm = warnings, sign(subject, warnings)
            return _editor(week, shift, form)
    try:
        saved = client.update_shift(shift_id, body)
    except VersionConflict:
        latest = client.get_shift(shift_id)
        return _editor(week, latest, form, status=409, conflict=latest)
    except ApiProblem as problem:
        if problem.status not in (400, 409, 422):
            raise
        _refused(form, problem)
        return _editor(week, shift, form, status=422)
    flash(f"Saved {week.person(saved.provider)}'s shift.", "success")
    warning = role_warning(week, saved, saved.provider)
    if warning:
        flash(f"{warning} The shift is saved; change it if that was not meant.", "warning")
    return _back_to(week)


def _provider_of(form: ShiftForm, shift: ShiftRead | None) -> uuid.UUID | None:
    value = form.provider.data
    try:
        return uuid.UUID(value) if value else None
    except ValueError:
        return shift.provider if shift is not None else None


def _back_to(week: Week) -> Response:
    return see_other(week.url())


# -- creating a shift --------------------------------------------------------------------------

def _new_form(week: Week, args: Any) -> ShiftForm:
    """A blank shift form: on the day asked for (or the agenda's, not before today), 7 AM to
    7 PM, for the provider asked for (open otherwise), with blank segment rows."""
    provider = args.get("provider") or ""
    if not any(pid == provider for pid, _ in week.rows):
        provider = ""
    day = week.day if args.get("day") and week.day else max(week.day or week.start, today())
    # A gap's "Post an open shift" names its hours and role; anything else is ignored.
    starts, ends = _clock(args.get("from")) or time(7), _clock(args.get("to")) or time(19)
    role = args.get("role") or ""
    if not any(str(r.id) == role for r in week.roles):
        role = ""
    form = ShiftForm(formdata=None, date=day, start_time=starts, end_time=ends,
                     provider=provider, **({"role": role} if role else {}))
    for _ in range(BLANK_ROWS):
        form.segments.append_entry()
    return form


def _clock(text: str | None) -> time | None:
    """`HH:MM` as a time of day, else None."""
    if not text or not re.fullmatch(r"\d{2}:\d{2}", text):
        return None
    hour, minute = int(text[:2]), int(text[3:])
    return time(hour, minute) if hour < 24 and minute < 60 else None


def _creator(week: Week, form: ShiftForm, *, status: int = 200) -> Response:
    week.new_form = _dress(week, form, None)
    return render(TEMPLATE, fragment="schedule", week=week, status=status)


@bp.get("/manage/schedule/shifts/new")
def new() -> Response:
    """The new-shift form above the schedule, for the provider and day the link names."""
    week, _ = editing_week(request.args)
    if week.team is None:
        abort(404)
    return _creator(week, _new_form(week, request.args))


@bp.post("/manage/schedule/shifts")
def create() -> Response:
    """Create a shift in the team, for a provider or open; "Add another segment" answers the
    form with one more segment row."""
    client = api()
    week, _ = editing_week(request.args)
    if week.team is None:
        abort(404)
    form = ShiftForm()
    if form.add_segment.data:
        form.segments.append_entry()
        return _creator(week, form)
    if not form.validate():
        return _creator(week, form, status=422)
    start, end = _when(form.date.data, form.start_time.data, form.end_time.data)
    provider = _uuid(form.provider.data)
    if form.provider.data and provider is None:
        form.provider.errors = [PICK_PROVIDER]
    segments = planned_segments(form, start, end)
    pay_codes = _pay_codes(form)
    if segments is None or pay_codes is None or form.provider.errors:
        return _creator(week, form, status=422)
    warnings = save_warnings(client, week, start, end, provider)
    subject = ["new", str(week.team.id), start.isoformat(), end.isoformat(), str(provider or "")]
    if warnings and not confirmed(request.form.get("confirm"), subject, warnings):
        week.warnings, week.confirm = warnings, sign(subject, warnings)
        return _creator(week, form)
    body = ShiftCreate(provider=provider, team=week.team.id, start_date=start, end_date=end,
                       note=(form.note.data or "").strip() or None, segments=segments,
                       pay_codes=pay_codes, is_callout=bool(form.is_callout.data))
    try:
        client.create_shift(body)
    except ApiProblem as problem:
        if problem.status not in (400, 409, 422):
            raise
        _refused(form, problem)
        return _creator(week, form, status=422)
    if provider is None:
        flash("Open shift posted. Providers of the team can claim it.", "success")
    else:
        flash(f"Added {week.person(provider)}'s shift.", "success")
    week.start, week.day = week_start(form.date.data), form.date.data
    return _back_to(week)


# -- deleting a shift --------------------------------------------------------------------------

def _deleter(week: Week, shift: ShiftRead, form: DeleteShiftForm | None = None, *,
             status: int = 200) -> Response:
    week.editing, week.deleting = shift, form or DeleteShiftForm(formdata=None,
                                                                  version=shift.version)
    week.deleting.version.data = shift.version
    if week.view is None:
        week.view = "week"
    return render(TEMPLATE, fragment="schedule", week=week, status=status)


@bp.get("/manage/schedule/shifts/<uuid:shift_id>/delete")
def confirm_delete(shift_id: uuid.UUID) -> Response:
    """Ask before deleting a shift, at the shift."""
    client = api()
    week, (shift,) = build_week(request.args, extra=[lambda: client.get_shift(shift_id)])
    return _deleter(week, shift)


def _already_deleted() -> Response:
    flash("That shift was already deleted.", "success")
    return see_other(url_for("manage_schedule.index") + "?" + urlencode(
        {k: v for k, v in request.args.items() if k in ("team", "week", "day", "view")}))


@bp.post("/manage/schedule/shifts/<uuid:shift_id>/delete")
def delete(shift_id: uuid.UUID) -> Response:
    """Delete the shift the manager confirmed, at the version confirmed: a shift changed since
    (the API's `version-conflict`) is shown as it is now and asked about again."""
    client = api()
    try:
        week, (shift,) = build_week(request.args, extra=[lambda: client.get_shift(shift_id)])
    except NotFound:
        return _already_deleted()
    form = DeleteShiftForm()
    if not form.validate():
        form.form_errors = ["Confirm again: this form lost the shift's version."]
        return _deleter(week, shift, form, status=422)
    try:
        client.delete_shift(shift_id, version=form.version.data)
    except VersionConflict:
        try:
            latest = client.get_shift(shift_id)
        except NotFound:
            return _already_deleted()
        form = DeleteShiftForm(formdata=None, version=latest.version)
        form.form_errors = ["Someone changed this shift since you asked to delete it. Check "
                            "it as it is now, then confirm again."]
        return _deleter(week, latest, form, status=409)
    except ApiProblem as problem:
        if problem.status not in (400, 409, 422):
            raise
        form.form_errors = [problem.problem.detail or problem.title]
        return _deleter(week, shift, form, status=problem.status)
    flash(f"Deleted {week.person(shift.provider)}'s shift of "
          f"{format_date(shift.start_date, zone(), relative=False)}.", "success")
    return _back_to(week)


# -- warned saves -----------------------------------------------------------------------------

LONG_SHIFT = timedelta(hours=16)


def save_warnings(client: ApiClient, week: Week, start: datetime, end: datetime,
                  provider: uuid.UUID | None, editing: uuid.UUID | None = None,
                  ) -> list[SaveWarning]:
    """Why saving a shift from `start` to `end` for `provider` deserves a second look: longer
    than 16 hours, starting in the past, over the provider's approved time off or a time they
    said they are unavailable, or at the same time as another of their shifts (in any team the
    manager sees; `editing` is the shift being saved, no other). All read from the API, so
    leave approved or a shift booked a moment ago counts."""
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
        found.extend(SaveWarning("unavailable", name=name, reason=reason)
                     for reason in _unavailable(client, provider, start, end))
        found.extend(SaveWarning("overlap", name=name, shift=other)
                     for other in _overlapping(client, provider, start, end, editing))
    return found


def _overlapping(client: ApiClient, provider: uuid.UUID, start: datetime, end: datetime,
                 editing: uuid.UUID | None) -> list[ShiftRead]:
    """The provider's shifts other than `editing` that overlap `start` to `end` (one ending
    as it starts does not), callouts aside (nobody works them), as far as the manager may
    read them."""
    try:
        found = client.list_shifts(ShiftListQuery(
            provider_id=provider, start_date=start, end_date=end, page_size=20)).items
    except ApiProblem:
        return []
    return [s for s in found if s.id != editing and s.start_date < end and start < s.end_date]


def _unavailable(client: ApiClient, provider: uuid.UUID, start: datetime, end: datetime,
                 ) -> list[str]:
    """Why the provider is unavailable at some time from `start` to `end`, one reason per
    window the API computes (none when the manager may not read their availability)."""
    first, last = local_day(start), local_day(end)
    last = min(last, first + timedelta(days=30))
    try:
        answer = client.availability_windows(AvailabilityWindowQuery(
            provider_id=provider, start_date=first, end_date=last))
    except ApiProblem:
        return []
    return [reason_words(w, zone()) for item in answer.items for w in item.windows
            if w.kind == "unavailable" and w.start_date < end and start < w.end_date]


def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="manage-schedule-confirm")


def _claim(subject: list[str], warnings: list[SaveWarning]) -> list[str]:
    reasons = [w.kind + (f":{w.request.id}" if w.request else "")
               + (f":{w.reason}" if w.reason else "")
               + (f":{w.shift.id}:{w.shift.version}" if w.shift else "") for w in warnings]
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
