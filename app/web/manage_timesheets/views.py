"""Timesheet review (blueprint `manage_timesheets`): a team's pay period, shift by shift.

`index` shows a team's pay period (which dates, previous/next) with one collapsible section per
provider, totals in its summary line, and in it one row per shift worked (punches grouped by the
shift the API says they were worked for): in and out, breaks, worked against scheduled minutes,
warnings and errors in words, and one review state. Totals count scheduled time *to date* (shifts
started by now) and, apart, the whole period. A row's punch editor opens on demand (`edit=` in
the address; htmx loads the row alone). `review` approves, rejects (with a note) or fixes the
time of one punch; `approve_shift` approves one row's pending punches; `approve_clean` approves
every pending punch of every clean shift of the team (no warning, no error, clocked out) in one
post, as concurrent PATCHes in batches (the API has no bulk punch endpoint). Two rounds of
concurrent API calls: the people (whose pay-period template fixes the period), then the period's
timesheets and shifts.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, tzinfo
from functools import cached_property
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from flask import Blueprint, Response, current_app, flash, request, url_for
from wtforms import DateTimeLocalField, StringField
from wtforms.validators import Length, Optional

from app.client import ApiClient, ApiProblem
from app.contract.providers import ProviderListQuery, ProviderWithRelations
from app.contract.shifts import ShiftListQuery, ShiftRead
from app.contract.teams import TeamListQuery, TeamRead
from app.contract.timekeeping import PunchUpdate, TimesheetPunchRead, TimesheetQuery, TimesheetRead
from app.web.auth import api, current_user
from app.web.forms import BaseForm
from app.web.htmx import is_partial, render, render_macro, see_other, target
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
from app.web.worked_days import ShiftRow, page_errors, scheduled_minutes, shift_rows

bp = Blueprint("manage_timesheets", __name__)

TEMPLATE = "manage_timesheets/index.html"
ROWS = "manage_timesheets/_rows.html"
ACTIONS = {"clock_in": "Clock in", "clock_out": "Clock out", "break_start": "Break start",
           "break_end": "Break end"}
BATCH = 16
"""PATCHes sent at once by the bulk approval (the client runs at most 8 at a time)."""


class PunchReviewForm(BaseForm):
    """A manager's review of one punch: a note, and a corrected time when fixing it."""

    admin_note = StringField("Note for the provider", validators=[Optional(), Length(max=500)])
    time = DateTimeLocalField("Corrected time", format="%Y-%m-%dT%H:%M",
                              validators=[Optional()])


@dataclass
class Sheet:
    """One provider's pay period as the page shows it: rows by shift and totals."""

    provider: ProviderWithRelations
    sheet: TimesheetRead | None
    rows: list[ShiftRow]
    shifts: list[ShiftRead]
    now: datetime
    errors: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """How the page names the provider."""
        return self.provider.name or self.provider.email

    @cached_property
    def worked(self) -> int:
        """Minutes worked in the period."""
        return sum(r.worked for r in self.rows)

    @cached_property
    def scheduled_to_date(self) -> int:
        """Scheduled minutes of the shifts that have started by now."""
        return sum(scheduled_minutes(s) for s in self.shifts if s.start_date <= self.now)

    @cached_property
    def scheduled_total(self) -> int:
        """Scheduled minutes of the whole period."""
        return sum(scheduled_minutes(s) for s in self.shifts)

    @cached_property
    def pending(self) -> int:
        """Punches waiting for review."""
        return sum(len(r.pending) for r in self.rows)

    @cached_property
    def flagged(self) -> int:
        """Rows with a warning or an error."""
        return sum(1 for r in self.rows if r.warnings or r.errors)


@dataclass
class Period:
    """Everything the timesheet page shows."""

    team: TeamRead | None
    teams: list[TeamRead]
    start: date
    length: int
    sheets: list[Sheet]
    chosen: uuid.UUID | None = None
    editing: str | None = None
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    row_problems: dict[str, list[str]] = field(default_factory=dict)
    forms: dict[uuid.UUID, PunchReviewForm] = field(default_factory=dict)

    @property
    def end(self) -> date:
        """The last day of the period."""
        return self.start + timedelta(days=self.length - 1)

    @property
    def current(self) -> bool:
        """Whether the period holds today."""
        return self.start <= local_day(self.now) <= self.end

    def total(self, name: str) -> int:
        """A sum over the team's sheets (`worked`, `scheduled_to_date`, `scheduled_total`)."""
        return sum(getattr(s, name) for s in self.sheets)

    @cached_property
    def clean_rows(self) -> list[ShiftRow]:
        """Every row of the team safe to approve in bulk."""
        return [r for s in self.sheets for r in s.rows if r.clean]

    @property
    def clean_punches(self) -> int:
        """Pending punches of the clean rows."""
        return sum(len(r.pending) for r in self.clean_rows)

    def is_open(self, sheet: Sheet) -> bool:
        """Whether the provider's section opens: the chosen provider, the one whose row is being
        edited, or the only one."""
        if len(self.sheets) == 1 or sheet.provider.id == self.chosen:
            return True
        return bool(self.editing) and any(r.key == self.editing for r in sheet.rows)

    @cached_property
    def flagged_pending(self) -> int:
        """Rows waiting for review that have a warning or an error (left for the manager)."""
        return sum(1 for s in self.sheets for r in s.rows if r.pending and not r.clean)

    def url(self, **changes: Any) -> str:
        """This page's address with changes (None removes a value)."""
        args: dict[str, Any] = {"team": self.team.id if self.team else None,
                                "period": self.start.isoformat(), "provider": self.chosen}
        args.update(changes)
        return url_for("manage_timesheets.index") + "?" + urlencode(
            {k: str(v) for k, v in args.items() if v})

    def shifted(self, periods: int) -> str:
        """The address of the period `periods` away, same team and provider."""
        return self.url(period=(self.start + timedelta(days=self.length * periods)).isoformat())

    def sheet_of(self, key: str) -> tuple[Sheet, ShiftRow] | None:
        """The sheet and row of a row key."""
        for sheet in self.sheets:
            for row in sheet.rows:
                if row.key == key:
                    return sheet, row
        return None

    def form_for(self, punch: TimesheetPunchRead) -> PunchReviewForm:
        """The review form of a punch (the submitted one after an error)."""
        if punch.id not in self.forms:
            self.forms[punch.id] = PunchReviewForm(
                formdata=None, admin_note=punch.admin_note or "",
                time=punch.time.astimezone(zone()).replace(tzinfo=None))
        form = self.forms[punch.id]
        for name in ("admin_note", "time"):
            bound = form[name]
            bound.id = bound.label.field_id = f"{name}-{punch.id}"
        return form


def _uuid(text: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID(text) if text else None
    except ValueError:
        return None


def period_of(provider: ProviderWithRelations | None, day: date,
              site: tzinfo | None = None) -> tuple[date, int]:
    """The first day and length of the pay period containing `day`: the provider's template
    (weekly or biweekly from its start, a day of `site`, default the site's zone), else the
    calendar week."""
    template = provider.pay_period_template if provider else None
    if template is None:
        return week_start(day), 7
    length = 14 if template.type == "biweekly" else 7
    first = template.start_date.astimezone(site or zone()).date()
    offset = (day - first).days % length
    return day - timedelta(days=offset), length


def people_reads(client: ApiClient, team: uuid.UUID | None) -> list[Callable[[], Any]]:
    """The first round: teams, and the team's providers (their pay-period templates)."""
    return [
        lambda: client.list_teams(TeamListQuery(page_size=200)),
        lambda: client.list_providers(ProviderListQuery(team_id=team, page_size=200)),
    ]


def sheet_reads(client: ApiClient, team: uuid.UUID | None, begin: datetime, end: datetime,
                ) -> list[Callable[[], Any]]:
    """The second round: the team's timesheets and shifts of the pay period."""
    return [
        lambda: list(client.iterate(client.team_timesheets, TimesheetQuery(
            team=team, start_date=begin, end_date=end, page_size=200))),
        lambda: list(client.iterate(client.list_shifts, ShiftListQuery(
            team_id=team, start_date=begin, end_date=end, page_size=200))),
    ]


def _team_of(me: Any, args: Any) -> uuid.UUID | None:
    chosen = _uuid(args.get("team"))
    return chosen or (me.team_ids[0] if me.team_ids else None)


def build_period(args: Any) -> Period:
    """Read and assemble the page for the query: the people first (the pay period follows the
    chosen provider's template), then the period's timesheets and shifts."""
    me = current_user()
    client = api()
    team_id = _team_of(me, args)
    if team_id is None:  # an administrator, in no team: open on the first team there is
        team_id = default_team(me, client.list_teams(TeamListQuery(page_size=200)).items)
    asked = parse_day(args.get("period"))
    if team_id is None:  # no team to review
        return Period(team=None, teams=[], start=week_start(asked or today()), length=7,
                      sheets=[])
    teams, providers = client.concurrently(*people_reads(client, team_id))
    people = sorted(providers.items, key=lambda p: (p.name or p.email).lower())
    chosen = _uuid(args.get("provider"))
    pattern = next((p for p in people if p.id == chosen), None) or next(
        (p for p in people if p.pay_period_template), None)
    start, length = period_of(pattern, asked or today())
    begin, end = local_instant(start), local_instant(start + timedelta(days=length))
    sheets, shifts = client.concurrently(*sheet_reads(client, team_id, begin, end))
    now = datetime.now(UTC)
    return Period(team=next((t for t in teams.items if t.id == team_id), None),
                  teams=my_teams(me, teams.items), start=start, length=length,
                  sheets=assemble(people, sheets, shifts, start, now),
                  chosen=chosen if any(p.id == chosen for p in people) else None,
                  editing=args.get("edit") or None, now=now)


def assemble(people: Iterable[ProviderWithRelations], sheets: Iterable[TimesheetRead],
             shifts: Iterable[ShiftRead], first: date, now: datetime) -> list[Sheet]:
    """Each provider's rows by shift and totals."""
    by_provider = {s.provider_id: s for s in sheets}
    theirs: dict[uuid.UUID | None, list[ShiftRead]] = {}
    for shift in shifts:
        theirs.setdefault(shift.provider, []).append(shift)
    site = zone()
    out = []
    for person in people:
        sheet = by_provider.get(person.id)
        mine = theirs.get(person.id, [])
        rows = shift_rows(sheet, mine, site, now, first=first)
        out.append(Sheet(provider=person, sheet=sheet, rows=rows, shifts=mine, now=now,
                         errors=page_errors(sheet, rows)))
    return out


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return {"action_name": ACTIONS.get, "action_words": ACTIONS.get}


@bp.get("/manage/timesheets")
def index() -> Response:
    """A team's pay period by shift, the chosen provider's section open; with `edit=<row>` that
    row's punch editor open (htmx: the row alone; a section htmx loads: that section alone)."""
    period = build_period(request.args)
    if is_partial() and period.chosen and target() == f"sheet-{period.chosen}":
        sheet = next(s for s in period.sheets if s.provider.id == period.chosen)
        return render_macro(ROWS, "person_section", sheet, period)
    if period.editing and is_partial():
        found = period.sheet_of(period.editing)
        if found is not None:
            return render_macro(ROWS, "shift_row", found[1], period, found[0])
        # The row is gone (its punches were deleted meanwhile): the whole timesheet instead.
        return render(TEMPLATE, fragment="timesheet", period=period, retarget="#timesheet")
    return render(TEMPLATE, fragment="timesheet", period=period)


def _back() -> str:
    default = url_for("manage_timesheets.index")
    wanted = safe_next(request.form.get("back"), default)
    return wanted if wanted.startswith(default) else default


def _back_args() -> dict[str, str]:
    return dict(parse_qsl(urlsplit(_back()).query))


def _again(key: str | None, messages: list[str], status: int,
           form: tuple[uuid.UUID, PunchReviewForm] | None = None) -> Response:
    """The page again (htmx: the row) with `messages` at the row, its editor open."""
    args = _back_args()
    if key:
        args["edit"] = key
    period = build_period(args)
    if form is not None:
        period.forms[form[0]] = form[1]
    found = period.sheet_of(key) if key else None
    if found is None:
        for message in messages:
            flash(message, "error")
        return render(TEMPLATE, fragment="timesheet", period=period, status=status,
                      retarget="#timesheet" if is_partial() else None)
    period.row_problems[found[1].key] = messages
    if is_partial():
        return render_macro(ROWS, "shift_row", found[1], period, found[0], status=status)
    return render(TEMPLATE, period=period, status=status)


def _problem_words(problem: ApiProblem) -> list[str]:
    return [e.message for e in problem.field_errors] or [problem.detail]


@bp.post("/manage/timesheets/punches/<uuid:punch_id>")
def review(punch_id: uuid.UUID) -> Response:
    """Approve, reject (with a note) or fix the time of one punch."""
    form = PunchReviewForm()
    key = request.form.get("row") or None
    decision = request.form.get("decision", "")
    if decision not in {"approve", "reject", "fix"}:
        return _again(key, ["Choose approve, reject or save time."], 422, (punch_id, form))
    if not form.validate():
        return _again(key, [m for f in form for m in f.errors], 422, (punch_id, form))
    note = (form.admin_note.data or "").strip()
    if decision == "reject" and not note:
        form.admin_note.errors = ["Tell the provider why the punch is rejected."]
        return _again(key, form.admin_note.errors, 422, (punch_id, form))
    body: dict[str, Any] = {"admin_note": note or None}
    if decision == "fix":
        if form.time.data is None:
            form.time.errors = ["Enter the corrected time."]
            return _again(key, form.time.errors, 422, (punch_id, form))
        body["time"] = form.time.data.replace(tzinfo=zone())
    else:
        body["state"] = "approved" if decision == "approve" else "rejected"
    try:
        api().update_punch(punch_id, PunchUpdate(**body))
    except ApiProblem as problem:
        if problem.status >= 500:
            raise
        return _again(key, _problem_words(problem),
                      problem.status if problem.status not in (400, 404) else 422,
                      (punch_id, form))
    done = {"approve": "Punch approved.", "reject": "Punch rejected; the provider sees your "
            "note.", "fix": "Punch time corrected."}[decision]
    flash(done, "success")
    return see_other(_back())


def approve_punches(client: ApiClient, punches: list[TimesheetPunchRead], note: str | None,
                    ) -> list[tuple[TimesheetPunchRead, ApiProblem]]:
    """Approve `punches` with concurrent PATCHes, `BATCH` at a time; the ones refused, with
    the API's problem (the others are approved all the same)."""

    def one(punch: TimesheetPunchRead) -> ApiProblem | None:
        try:
            client.update_punch(punch.id, PunchUpdate(state="approved",
                                                      admin_note=note or punch.admin_note))
        except ApiProblem as problem:
            return problem
        return None

    refused = []
    for at in range(0, len(punches), BATCH):
        batch = punches[at:at + BATCH]
        answers = client.concurrently(*[lambda p=p: one(p) for p in batch])
        refused += [(p, a) for p, a in zip(batch, answers, strict=True) if a is not None]
    return refused


def _plural(count: int, word: str, many: str | None = None) -> str:
    return f"{count} {word if count == 1 else many or word + 's'}"


@bp.post("/manage/timesheets/approve-shift")
def approve_shift() -> Response:
    """Approve the pending punches of one shift row."""
    key = request.form.get("row", "")
    period = build_period(_back_args())
    found = period.sheet_of(key)
    if found is None:
        flash("That shift is no longer on this timesheet; nothing was approved.", "error")
        return see_other(_back())
    sheet, row = found
    if not row.pending:
        flash("Nothing in that shift waits for approval.", "success")
        return see_other(_back())
    refused = approve_punches(api(), row.pending, None)
    if refused:
        return _again(key, [f"{ACTIONS[p.action]} at {_clock(p.time)}: {a.detail}"
                            for p, a in refused], 409)
    flash(f"Approved {_plural(len(row.pending), 'punch', 'punches')} of {sheet.name}'s shift.",
          "success")
    return see_other(_back())


def _clock(instant: datetime) -> str:
    """A time as every page writes it (the shared filter)."""
    return str(current_app.jinja_env.filters["local_time"](instant))


@bp.post("/manage/timesheets/approve-clean")
def approve_clean() -> Response:
    """Approve every pending punch of every clean shift of the team's period at once."""
    back = _back()
    period = build_period(_back_args())
    rows = period.clean_rows
    left = period.flagged_pending
    note = (request.form.get("admin_note") or "").strip()[:500] or None
    if not rows:
        flash("No clean shifts wait for approval"
              + (f"; {_plural(left, 'shift')} with warnings left for you." if left else "."),
              "success")
        return see_other(back)
    punches = [p for r in rows for p in r.pending]
    refused = approve_punches(api(), punches, note)
    done = len(punches) - len(refused)
    failed = {p.id for p, _ in refused}
    done_rows = sum(1 for r in rows if not any(p.id in failed for p in r.pending))
    flash(f"Approved {_plural(done, 'punch', 'punches')} in {_plural(done_rows, 'shift')}"
          + (f"; {_plural(left, 'shift')} with warnings left for you." if left else "."),
          "success")
    if refused:
        flash(f"{_plural(len(refused), 'punch', 'punches')} could not be approved: "
              + "; ".join(dict.fromkeys(a.detail for _, a in refused)), "error")
    return see_other(back)
