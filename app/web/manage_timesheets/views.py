"""Timesheet review (blueprint `manage_timesheets`): managers check their teams' punches.

`index` shows a team's pay period: every provider with their pending punches, warnings and
errors, and the chosen provider's punches day by day against the scheduled shifts, warnings
(late, early, missing shift) and errors (no clock-out) highlighted, scheduled against actual
minutes per pay code. `review` approves or rejects one punch with an admin note, or fixes its
time; `approve_clean` approves every pending punch without a warning at once. Two rounds of
concurrent API calls: the people (whose pay-period template fixes the period), then the period's
timesheets and shifts.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from flask import Blueprint, Response, flash, request, url_for
from wtforms import DateTimeLocalField, StringField
from wtforms.validators import Length, Optional

from app.client import ApiClient, ApiProblem
from app.contract.pay_codes import PayCodeListQuery, PayCodeRead
from app.contract.providers import ProviderListQuery, ProviderWithRelations
from app.contract.roles import RoleListQuery, RoleRead
from app.contract.shifts import ShiftListQuery, ShiftRead
from app.contract.teams import TeamListQuery, TeamRead
from app.contract.timekeeping import (
    PunchUpdate,
    TimecardPunchRead,
    TimesheetQuery,
    TimesheetRead,
)
from app.web.auth import api, current_user
from app.web.filters import format_minutes
from app.web.forms import BaseForm
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
from app.web.security import safe_next
from app.web.worked_days import punch_days, shift_days

bp = Blueprint("manage_timesheets", __name__)

TEMPLATE = "manage_timesheets/index.html"
WARNINGS = {
    "clock_in_early": "Clocked in early", "clock_out_early": "Clocked out early",
    "clock_in_late": "Clocked in late", "clock_out_late": "Clocked out late",
    "missing_shift": "No scheduled shift",
}
ERRORS = {
    "no_clock_out": "No clock-out", "invalid_shift": "Shift data is invalid",
    "missing_timecard": "No timecard for this period",
    "missing_pay_period_template": "No pay period set up",
}
ACTIONS = {"clock_in": "Clock in", "clock_out": "Clock out", "break_start": "Break start",
           "break_end": "Break end"}


class PunchReviewForm(BaseForm):
    """A manager's review of one punch: a note, and a corrected time when fixing it."""

    admin_note = StringField("Note for the provider", validators=[Optional(), Length(max=500)])
    time = DateTimeLocalField("Corrected time", format="%Y-%m-%dT%H:%M",
                              validators=[Optional()])


@dataclass
class Sheet:
    """One provider's timesheet as the page shows it."""

    provider: ProviderWithRelations
    sheet: TimesheetRead | None
    warnings: dict[uuid.UUID, list[str]] = field(default_factory=dict)

    @property
    def pending(self) -> int:
        """Punches waiting for review."""
        return sum(1 for p in self.sheet.punches if p.state == "pending") if self.sheet else 0

    @property
    def clean(self) -> list[TimecardPunchRead]:
        """Pending punches without a warning."""
        if not self.sheet:
            return []
        return [p for p in self.sheet.punches
                if p.state == "pending" and not self.warnings.get(p.id)]

    @property
    def problems(self) -> int:
        """Warnings and errors together."""
        if not self.sheet:
            return 0
        return len(self.sheet.warnings) + len(self.sheet.errors)


@dataclass
class Period:
    """Everything the timesheet page shows."""

    team: TeamRead | None
    teams: list[TeamRead]
    start: date
    length: int
    sheets: list[Sheet]
    chosen: Sheet | None
    shifts: list[ShiftRead]
    pay_codes: dict[uuid.UUID, PayCodeRead]
    roles: dict[uuid.UUID, RoleRead]
    punch_errors: dict[uuid.UUID, list[str]] = field(default_factory=dict)
    forms: dict[uuid.UUID, PunchReviewForm] = field(default_factory=dict)

    @property
    def end(self) -> date:
        """The last day of the period."""
        return self.start + timedelta(days=self.length - 1)

    def url(self, **changes: Any) -> str:
        """This page's address with changes (None removes a value)."""
        args = {"team": str(self.team.id) if self.team else None,
                "period": self.start.isoformat(),
                "provider": str(self.chosen.provider.id) if self.chosen else None}
        args.update({k: (str(v) if v is not None else None) for k, v in changes.items()})
        return url_for("manage_timesheets.index") + "?" + urlencode(
            {k: v for k, v in args.items() if v})

    def days(self) -> list[tuple[date, list[ShiftRead], list[TimecardPunchRead]]]:
        """The chosen provider's days that have shifts or punches, each with both. A punch is
        shown under the day its shift started (the API says which shift it was worked for), so
        a night shift's punches after midnight stay with the evening it began."""
        if not self.chosen or not self.chosen.sheet:
            return []
        pid = self.chosen.provider.id
        mine = [s for s in self.shifts if s.provider == pid]
        starts = shift_days(mine, zone())
        placed = punch_days(self.chosen.sheet.punches, starts, zone())
        first = self.start
        out = []
        for i in range(self.length):
            day = self.start + timedelta(days=i)
            punches = sorted((p for p in self.chosen.sheet.punches
                              if max(placed.get(p.id, local_day(p.time)), first) == day),
                             key=lambda p: p.time)
            # A shift begun the day before the period shows on its first day with its punches.
            worked_for = {str(p.shift_id) for p in punches}
            shifts = [s for s in mine
                      if starts[str(s.id)] == day or (day == first and starts[str(s.id)] < first
                                                       and str(s.id) in worked_for)]
            if shifts or punches:
                out.append((day, shifts, punches))
        return out

    def form_for(self, punch: TimecardPunchRead) -> PunchReviewForm:
        """The review form of a punch (the submitted one after an error)."""
        if punch.id not in self.forms:
            form = PunchReviewForm(formdata=None, admin_note=punch.admin_note or "",
                                   time=punch.time.astimezone(zone()).replace(tzinfo=None))
            self.forms[punch.id] = form
        form = self.forms[punch.id]
        for name in ("admin_note", "time"):
            bound = form[name]
            bound.id = bound.label.field_id = f"{name}-{punch.id}"
        return form


def _team_of(me: Any, args: Any) -> uuid.UUID | None:
    try:
        return uuid.UUID(args["team"]) if args.get("team") else (
            me.team_ids[0] if me.team_ids else None)
    except ValueError:
        return me.team_ids[0] if me.team_ids else None


def period_of(provider: ProviderWithRelations | None, day: date) -> tuple[date, int]:
    """The first day and length of the pay period containing `day`: the provider's template
    (weekly or biweekly from its start), else the calendar week."""
    template = provider.pay_period_template if provider else None
    if template is None:
        return week_start(day), 7
    length = 14 if template.type == "biweekly" else 7
    offset = (day - local_day(template.start_date)).days % length
    return day - timedelta(days=offset), length


def people_reads(client: ApiClient, team: uuid.UUID | None) -> list[Callable[[], Any]]:
    """The first round: teams, the team's providers (their pay-period templates), pay codes and
    roles."""
    return [
        lambda: client.list_teams(TeamListQuery(page_size=200)),
        lambda: client.list_providers(ProviderListQuery(team_id=team, page_size=200)),
        lambda: client.list_pay_codes(PayCodeListQuery(page_size=200)),
        lambda: client.list_roles(RoleListQuery(team=team, page_size=200)),
    ]


def sheet_reads(client: ApiClient, team: uuid.UUID | None, begin: datetime, end: datetime,
                ) -> list[Callable[[], Any]]:
    """The second round: the team's timesheets and shifts of the pay period."""
    return [
        lambda: client.team_timesheets(TimesheetQuery(team=team, start_date=begin,
                                                      end_date=end, page_size=200)),
        lambda: client.list_shifts(ShiftListQuery(team_id=team, start_date=begin, end_date=end,
                                                  page_size=200)),
    ]


def build_period(args: Any) -> Period:
    """Read and assemble the page for the query: the people first (the pay period follows the
    chosen provider's template), then the period's timesheets and shifts."""
    me = current_user()
    client = api()
    team_id = _team_of(me, args)
    if team_id is None:  # an administrator, in no team: open on the first team there is
        team_id = default_team(me, client.list_teams(TeamListQuery(page_size=200)).items)
    if team_id is None:  # no team to review
        start = week_start(parse_day(args.get("period")) or today())
        return Period(team=None, teams=[], start=start, length=7, sheets=[], chosen=None,
                      shifts=[], pay_codes={}, roles={})
    teams, providers, pay_codes, roles = client.concurrently(*people_reads(client, team_id))
    people = sorted(providers.items, key=lambda p: p.name or p.email)
    chosen_id = _uuid(args.get("provider"))
    pattern = next((p for p in people if p.id == chosen_id), None) or next(
        (p for p in people if p.pay_period_template), None)
    start, length = period_of(pattern, parse_day(args.get("period")) or today())
    begin, end = local_instant(start), local_instant(start + timedelta(days=length))
    sheets, shifts = client.concurrently(*sheet_reads(client, team_id, begin, end))
    by_provider = {s.provider_id: s for s in sheets.items}
    rows = []
    for person in people:
        sheet = by_provider.get(person.id)
        warned: dict[uuid.UUID, list[str]] = {}
        for w in sheet.warnings if sheet else []:
            warned.setdefault(w.punch_id, []).append(WARNINGS[w.type])
        rows.append(Sheet(provider=person, sheet=sheet, warnings=warned))
    chosen = next((r for r in rows if r.provider.id == chosen_id), None)
    if chosen is None:
        chosen = next((r for r in rows if r.pending or r.problems), rows[0] if rows else None)
    return Period(team=next((t for t in teams.items if t.id == team_id), None),
                  teams=my_teams(me, teams.items), start=start, length=length, sheets=rows,
                  chosen=chosen, shifts=shifts.items,
                  pay_codes={p.id: p for p in pay_codes.items},
                  roles={r.id: r for r in roles.items})


def _uuid(text: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID(text) if text else None
    except ValueError:
        return None


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return {"minutes": minutes, "action_name": ACTIONS.get, "error_name": ERRORS.get,
            "timedelta_days": lambda n: timedelta(days=n)}


def minutes(value: int) -> str:
    """Minutes as `7h 30m` (the one duration style of app/web/filters.py)."""
    return format_minutes(value)


@bp.get("/manage/timesheets")
def index() -> Response:
    """A team's pay period and the chosen provider's timesheet."""
    period = build_period(request.args)
    return render(TEMPLATE, fragment="timesheet", period=period)


def _back() -> str:
    default = url_for("manage_timesheets.index")
    target = safe_next(request.form.get("back"), default)
    return target if target.startswith(default) else default


def _again(punch_id: uuid.UUID, messages: list[str], form: PunchReviewForm,
           status: int) -> Response:
    period = build_period(dict(parse_qsl(urlsplit(_back()).query)))
    period.punch_errors[punch_id] = messages
    period.forms[punch_id] = form
    return render(TEMPLATE, fragment="timesheet", period=period, status=status)


@bp.post("/manage/timesheets/punches/<uuid:punch_id>")
def review(punch_id: uuid.UUID) -> Response:
    """Approve, reject (with a note) or fix the time of one punch."""
    form = PunchReviewForm()
    decision = request.form.get("decision", "")
    if decision not in {"approve", "reject", "fix"}:
        return _again(punch_id, ["Choose approve, reject or save time."], form, 422)
    if not form.validate():
        messages = [m for f in form for m in f.errors]
        return _again(punch_id, messages, form, 422)
    note = (form.admin_note.data or "").strip()
    if decision == "reject" and not note:
        form.admin_note.errors = ["Tell the provider why the punch is rejected."]
        return _again(punch_id, form.admin_note.errors, form, 422)
    body: dict[str, Any] = {"admin_note": note or None}
    if decision == "fix":
        if form.time.data is None:
            form.time.errors = ["Enter the corrected time."]
            return _again(punch_id, form.time.errors, form, 422)
        body["time"] = form.time.data.replace(tzinfo=zone())
    else:
        body["state"] = "approved" if decision == "approve" else "rejected"
    try:
        api().update_punch(punch_id, PunchUpdate(**body))
    except ApiProblem as problem:
        if problem.status >= 500:
            raise
        messages = [e.message for e in problem.field_errors] or [problem.detail]
        return _again(punch_id, messages, form, problem.status if problem.status != 400
                      else 422)
    done = {"approve": "Punch approved.", "reject": "Punch rejected; the provider sees your "
            "note.", "fix": "Punch time corrected."}[decision]
    flash(done, "success")
    return see_other(_back())


@bp.post("/manage/timesheets/approve-clean")
def approve_clean() -> Response:
    """Approve every pending punch of the provider's period that has no warning."""
    back = _back()
    period = build_period(dict(parse_qsl(urlsplit(back).query)))
    chosen = period.chosen
    clean = chosen.clean if chosen else []
    note = (request.form.get("admin_note") or "").strip()[:500] or None
    client = api()
    if not clean:
        flash("No clean punches are waiting.", "success")
        return see_other(back)
    try:
        client.concurrently(*[lambda p=p: client.update_punch(
            p.id, PunchUpdate(state="approved", admin_note=note or p.admin_note))
            for p in clean])
    except ApiProblem as problem:
        flash(problem.detail, "error")
        return see_other(back)
    flash(f"Approved {len(clean)} clean punch{'es' if len(clean) != 1 else ''}.", "success")
    return see_other(back)
