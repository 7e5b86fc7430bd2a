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
timesheets, shifts and sign-offs (and the export run named by `export=`); the names of whoever
signed off or reopened, when that is someone else, come last, together with the pay rules that
explain the period (`app.web.overtime`: the overtime rules its pay segments name, the pay codes,
and the team's work rule when a punch was rounded; nothing when there is neither).

Under a work rule (issue 23) each section has "Hours by week" (regular, overtime and double time
of each workweek) and its overtime total in the summary line; each row lists its overtime
stretches with why ("hours 40-46 of the week, after 40 regular hours (weekly rule ...)"), and a
rounded clock-in or clock-out shows the time it is paid from or to beside the raw time.

The pay-period panel at the top says whether the period is open or signed off (by whom, when),
counts each provider's pending punches, errors and warnings with links to their rows, and offers
`sign_off` only when nothing blocks it (the API's `timesheet-not-ready` list is shown inline if
that changed meanwhile). A signed-off provider's rows offer no editing. `confirm_reopen` and
`reopen` reopen a sign-off (administrators: `manage` Timesheet). `export` starts the payroll
report for the period (final when signed off, else preliminary); its run id travels in the
address (`export=<run>`), the panel polls it while it runs (htmx, every second; a Refresh link
without JavaScript), and `download_export` fetches the file through the signed link, so the
browser never needs the API's token. A run must be the signed-in user's own payroll export.

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
from app.contract.common import format_timestamp
from app.contract.providers import ProviderListQuery, ProviderWithRelations
from app.contract.reports import ReportRunCreate, ReportRunRead
from app.contract.shifts import ShiftListQuery, ShiftRead
from app.contract.sign_offs import (
    TimesheetSignOffCreate,
    TimesheetSignOffQuery,
    TimesheetSignOffRead,
)
from app.contract.teams import TeamListQuery, TeamRead
from app.contract.timekeeping import (
    PunchUpdate,
    TimesheetPunchRead,
    TimesheetQuery,
    TimesheetRead,
    TimesheetWeek,
)
from app.web import run_files
from app.web.auth import api, current_user
from app.web.forms import BaseForm
from app.web.htmx import is_partial, render, render_macro, see_other, target
from app.web.links import fixed_url
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
from app.web.nav import can
from app.web.overtime import (
    OvertimeLine,
    PayRules,
    overtime_lines,
    read_pay_rules,
    remember,
    rounding_note,
    rule_cache,
    segments_by_row,
    weekly_totals,
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
EXPORT_REPORT = "payroll"
"""The report the panel's export runs: `teamId`, `startDate`, `endDate` (the period)."""
BLOCKING = {"pending_punch": ("punch pending", "punches pending"),
            "no_clock_out": ("missing clock-out", "missing clock-outs"),
            "invalid_shift": ("shift set up wrongly", "shifts set up wrongly")}
"""What keeps a period from being signed off (the API's `blocking` types), in words."""


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
    pay: PayRules | None = None

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

    @cached_property
    def blocking(self) -> dict[str, int]:
        """What keeps this timesheet from being signed off, by the API's `blocking` type: its
        pending punches and its `no_clock_out` and `invalid_shift` errors."""
        counts = dict.fromkeys(BLOCKING, 0)
        if self.sheet is None:
            return counts
        counts["pending_punch"] = sum(1 for p in self.sheet.punches if p.state == "pending")
        for error in self.sheet.errors:
            if error.type in counts:
                counts[error.type] += 1
        return counts

    @property
    def error_count(self) -> int:
        """The timesheet's errors."""
        return len(self.sheet.errors) if self.sheet else 0

    @property
    def warning_count(self) -> int:
        """The timesheet's warnings."""
        return len(self.sheet.warnings) if self.sheet else 0

    @property
    def needs_review(self) -> bool:
        """Whether the panel lists the provider: a pending punch, an error or a warning."""
        return bool(self.blocking["pending_punch"] or self.error_count or self.warning_count)

    @property
    def weeks(self) -> list[TimesheetWeek]:
        """The workweeks of the period with their regular, overtime and double-time minutes
        (none when the team has no work rule)."""
        return self.sheet.weeks if self.sheet else []

    @property
    def overtime(self) -> int:
        """Overtime minutes in the period (double time apart)."""
        return weekly_totals(self.weeks).overtime

    @property
    def double_time(self) -> int:
        """Double-time minutes in the period."""
        return weekly_totals(self.weeks).double_time

    @cached_property
    def _overtime_segments(self) -> dict[str, Any]:
        return segments_by_row(self.sheet, self.rows)

    def overtime_of(self, row: ShiftRow) -> list[OvertimeLine]:
        """The row's overtime stretches in words, each with why it is overtime."""
        return overtime_lines(self._overtime_segments.get(row.key, []), self.pay, self.now)

    def first_row(self, kind: str) -> str | None:
        """The key of the first row with a pending punch, an error or a warning (`kind`)."""
        for row in self.rows:
            if (kind == "pending" and row.pending) or (kind == "errors" and row.errors) \
                    or (kind == "warnings" and row.warnings):
                return row.key
        return None


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
    sign_offs: list[TimesheetSignOffRead] = field(default_factory=list)
    names: dict[uuid.UUID, str] = field(default_factory=dict)
    may_reopen: bool = False
    export: Export | None = None
    panel_problems: list[str] = field(default_factory=list)
    blocked: list[Blocked] = field(default_factory=list)
    urls: dict[tuple[tuple[str, Any], ...], str] = field(default_factory=dict, repr=False)

    @property
    def end(self) -> date:
        """The last day of the period."""
        return self.start + timedelta(days=self.length - 1)

    @property
    def begin_at(self) -> datetime:
        """The instant the period begins (the site's midnight of its first day)."""
        return local_instant(self.start)

    @property
    def end_at(self) -> datetime:
        """The instant after the period (the site's midnight after its last day)."""
        return local_instant(self.start + timedelta(days=self.length))

    @cached_property
    def active_sign_offs(self) -> list[TimesheetSignOffRead]:
        """The sign-offs in force that overlap the period."""
        return [s for s in self.sign_offs if s.reopened_at is None]

    @property
    def signed_off(self) -> TimesheetSignOffRead | None:
        """The sign-off in force covering the whole period, if any."""
        return next((s for s in self.active_sign_offs
                     if s.start_date <= self.begin_at and s.end_date >= self.end_at), None)

    @property
    def partly_signed(self) -> list[TimesheetSignOffRead]:
        """Sign-offs in force covering only part of the period (another period's range)."""
        whole = self.signed_off
        return [s for s in self.active_sign_offs if s is not whole]

    @property
    def last_reopened(self) -> TimesheetSignOffRead | None:
        """The latest reopened sign-off of the period, while none is in force."""
        if self.active_sign_offs:
            return None
        reopened = [s for s in self.sign_offs if s.reopened_at is not None]
        return max(reopened, key=lambda s: s.reopened_at or s.signed_at, default=None)

    @cached_property
    def locked_ids(self) -> set[uuid.UUID]:
        """Providers with a sign-off in force in the period: the API refuses their edits."""
        return {p for s in self.active_sign_offs for p in s.provider_ids}

    def locked(self, sheet: Sheet) -> bool:
        """Whether `sheet`'s provider is signed off in the period (no editing offered)."""
        return sheet.provider.id in self.locked_ids

    @staticmethod
    def last_day(signed: TimesheetSignOffRead) -> datetime:
        """An instant on the last day a sign-off covers."""
        return last_day(signed)

    def name_of(self, user_id: uuid.UUID) -> str:
        """How the panel names a user who signed off or reopened."""
        return self.names.get(user_id, "another user")

    @cached_property
    def blocking(self) -> dict[str, int]:
        """What keeps the period from being signed off, by type, over the team."""
        return {kind: sum(s.blocking[kind] for s in self.sheets) for kind in BLOCKING}

    @property
    def blocking_words(self) -> str:
        """The blockers in words ("3 punches pending, 2 missing clock-outs"); empty if none."""
        return blocking_words(self.blocking)

    @property
    def to_review(self) -> list[Sheet]:
        """The providers the panel lists: anything pending, in error or warned."""
        return [s for s in self.sheets if s.needs_review]

    def link(self, sheet: Sheet, kind: str | None = None) -> str:
        """The address of a provider's first row of `kind` (else their section), opened."""
        key = sheet.first_row(kind) if kind else None
        anchor = f"row-{key}" if key else f"sheet-{sheet.provider.id}"
        return f"{self.url(provider=sheet.provider.id, export=None)}#{anchor}"

    @property
    def current(self) -> bool:
        """Whether the period holds today."""
        return self.start <= local_day(self.now) <= self.end

    def total(self, name: str) -> int:
        """A sum over the team's sheets (`worked`, `scheduled_to_date`, `scheduled_total`)."""
        return sum(getattr(s, name) for s in self.sheets)

    @cached_property
    def clean_rows(self) -> list[ShiftRow]:
        """Every row of the team safe to approve in bulk (none of a signed-off provider)."""
        return [r for s in self.sheets if not self.locked(s) for r in s.rows if r.clean]

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
        return sum(1 for s in self.sheets if not self.locked(s)
                   for r in s.rows if r.pending and not r.clean)

    def url(self, **changes: Any) -> str:
        """This page's address with changes (None removes a value); each distinct address is
        built once (a page asks for the same few on every row)."""
        args: dict[str, Any] = {"team": self.team.id if self.team else None,
                                "period": self.start, "provider": self.chosen,
                                "export": self.export.run_id if self.export else None}
        args.update(changes)
        key = tuple(args.items())
        found = self.urls.get(key)
        if found is None:
            found = self.urls[key] = fixed_url("manage_timesheets.index") + "?" + urlencode(
                {k: v.isoformat() if isinstance(v, date) else str(v)
                 for k, v in args.items() if v})
        return found

    def shifted(self, periods: int) -> str:
        """The address of the period `periods` away, same team and provider."""
        return self.url(period=(self.start + timedelta(days=self.length * periods)).isoformat(),
                        export=None)

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


@dataclass
class Export:
    """The payroll export the address names (`export=<run>`), as the panel shows it: its run,
    or why it cannot be shown; `url` is the page's address that polls and refreshes it."""

    run_id: str
    url: str = ""
    run: ReportRunRead | None = None
    problem: str | None = None

    @property
    def running(self) -> bool:
        """Whether the run is still being made (the panel polls it)."""
        return self.run is not None and self.run.status == "running"


@dataclass
class Blocked:
    """One provider's items of a `timesheet-not-ready` answer: in words, linked to the first."""

    name: str
    words: str
    link: str | None


def last_day(signed: TimesheetSignOffRead) -> datetime:
    """An instant on the last day a sign-off covers (its end is the midnight after it)."""
    return signed.end_date - timedelta(seconds=1)


def blocking_words(counts: dict[str, int]) -> str:
    """Blockers by type in words: "3 punches pending, 2 missing clock-outs" (empty if none)."""
    return ", ".join(f"{counts[kind]} {one if counts[kind] == 1 else many}"
                     for kind, (one, many) in BLOCKING.items() if counts.get(kind))


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
    """The second round: the team's timesheets, shifts and sign-offs of the pay period."""
    return [
        lambda: list(client.iterate(client.team_timesheets, TimesheetQuery(
            team=team, start_date=begin, end_date=end, page_size=200))),
        lambda: list(client.iterate(client.list_shifts, ShiftListQuery(
            team_id=team, start_date=begin, end_date=end, page_size=200))),
        lambda: list(client.iterate(client.list_sign_offs, TimesheetSignOffQuery(
            team_id=team, start_date=begin, end_date=end, page_size=200))),
    ]


def read_export(client: ApiClient, me: uuid.UUID, text: str) -> Export:
    """The export run `text` names, if it is `me`'s own payroll export; else why not.

    The API lets anyone who may view reports read any run, so the page itself keeps to the
    user's own exports: a run id from someone else's address is refused here."""
    export = Export(run_id=text)
    run_id = _uuid(text)
    if run_id is None:
        export.problem = "That export link is not valid. Start the export again."
        return export
    try:
        run = client.get_report_run(run_id)
    except ApiProblem as problem:
        if problem.status >= 500:
            raise
        export.problem = problem.detail
        return export
    if run.created_by.id != me or run.report_id != EXPORT_REPORT:
        export.problem = "That export is not one of your payroll exports. Start your own."
        return export
    export.run = run
    return export


def user_names(client: ApiClient, me: Any, ids: Iterable[uuid.UUID | None],
               ) -> dict[uuid.UUID, str]:
    """The names of users (the signed-in one without asking); those the API refuses are left
    out."""
    names = {me.id: me.name}

    def one(user_id: uuid.UUID) -> tuple[uuid.UUID, str | None]:
        try:
            return user_id, client.get_user(user_id).name
        except ApiProblem as problem:
            if problem.status >= 500:
                raise
            return user_id, None

    wanted = sorted({i for i in ids if i is not None and i not in names}, key=str)
    found = client.concurrently(*[lambda i=i: one(i) for i in wanted])
    names.update({i: n for i, n in found if n})
    return names


def _team_of(me: Any, args: Any) -> uuid.UUID | None:
    chosen = _uuid(args.get("team"))
    return chosen or (me.team_ids[0] if me.team_ids else None)


@dataclass
class People:
    """The first round's answer: who asks, which team, its people and the period's days."""

    me: Any
    team_id: uuid.UUID | None
    teams: list[TeamRead]
    people: list[ProviderWithRelations]
    chosen: uuid.UUID | None
    start: date
    length: int


def read_people(args: Any) -> People:
    """The user, the team and its providers; the pay period follows the chosen provider's
    template (else the first provider's with one)."""
    me = current_user()
    client = api()
    team_id = _team_of(me, args)
    if team_id is None:  # an administrator, in no team: open on the first team there is
        team_id = default_team(me, client.list_teams(TeamListQuery(page_size=200)).items)
    asked = parse_day(args.get("period"))
    if team_id is None:  # no team to review
        return People(me, None, [], [], None, week_start(asked or today()), 7)
    teams, providers = client.concurrently(*people_reads(client, team_id))
    people = sorted(providers.items, key=lambda p: (p.name or p.email).lower())
    chosen = _uuid(args.get("provider"))
    pattern = next((p for p in people if p.id == chosen), None) or next(
        (p for p in people if p.pay_period_template), None)
    start, length = period_of(pattern, asked or today())
    return People(me, team_id, teams.items, people, chosen, start, length)


def build_period(args: Any) -> Period:
    """Read and assemble the page for the query: the people first (the pay period follows the
    chosen provider's template), then the period's timesheets, shifts and sign-offs (and the
    export run of `export=`), then the names of whoever else signed off or reopened."""
    found = read_people(args)
    me, team_id, start, length = found.me, found.team_id, found.start, found.length
    if team_id is None:
        return Period(team=None, teams=[], start=start, length=length, sheets=[])
    client = api()
    begin, end = local_instant(start), local_instant(start + timedelta(days=length))
    reads = sheet_reads(client, team_id, begin, end)
    wanted = args.get("export")
    if wanted:
        reads.append(lambda: read_export(client, me.id, wanted))
    sheets, shifts, sign_offs, *export = client.concurrently(*reads)
    team = next((t for t in found.teams if t.id == team_id), None)
    cache, site = rule_cache(), zone()
    names, pay = client.concurrently(
        lambda: user_names(client, me, [u for s in sign_offs
                                        for u in (s.signed_by, s.reopened_by)]),
        lambda: read_pay_rules(client, sheets, team.work_rule_id if team else None, site,
                               cache))
    remember(pay)
    now = datetime.now(UTC)
    chosen = found.chosen
    period = Period(team=team,
                    teams=my_teams(me, found.teams), start=start, length=length,
                    sheets=assemble(found.people, sheets, shifts, start, now, pay),
                    chosen=chosen if any(p.id == chosen for p in found.people) else None,
                    editing=args.get("edit") or None, now=now, sign_offs=sign_offs,
                    names=names, may_reopen=can(me, "manage", "Timesheet"),
                    export=export[0] if export else None)
    if period.export is not None:
        period.export.url = period.url()
    editing = period.sheet_of(period.editing) if period.editing else None
    if editing is not None and period.locked(editing[0]):
        period.editing = None  # signed off: the API would refuse every change
    return period


def assemble(people: Iterable[ProviderWithRelations], sheets: Iterable[TimesheetRead],
             shifts: Iterable[ShiftRead], first: date, now: datetime,
             pay: PayRules | None = None) -> list[Sheet]:
    """Each provider's rows by shift and totals (`pay`: the rules that explain overtime)."""
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
                         errors=page_errors(sheet, rows), pay=pay))
    return out


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return {"action_name": ACTIONS.get, "action_words": ACTIONS.get,
            "rounding_note": rounding_note}


@bp.get("/manage/timesheets")
def index() -> Response:
    """A team's pay period by shift, the chosen provider's section open; with `edit=<row>` that
    row's punch editor open (htmx: the row alone; a section htmx loads: that section alone);
    with `export=<run>` the panel shows that payroll export (htmx polling it: its status alone,
    which reads nothing else)."""
    wanted = request.args.get("export")
    if wanted and is_partial() and target() == "ts-export-run":
        export = read_export(api(), current_user().id, wanted)
        export.url = url_for("manage_timesheets.index", **request.args.to_dict())
        return render(TEMPLATE, fragment="export_run", export=export)
    period = build_period(request.args)
    if is_partial() and period.chosen and target() == f"sheet-{period.chosen}":
        sheet = next(s for s in period.sheets if s.provider.id == period.chosen)
        return render_macro(ROWS, "person_section", sheet, period)
    if is_partial() and request.args.get("edit") and not period.editing:
        # Signed off meanwhile: no editor; the whole timesheet says why.
        return render(TEMPLATE, fragment="timesheet", period=period, retarget="#timesheet")
    if period.editing and is_partial():
        found = period.sheet_of(period.editing)
        if found is not None:
            return render_macro(ROWS, "shift_row", found[1], period, found[0])
        # The row is gone (its punches were deleted meanwhile): the whole timesheet instead.
        return render(TEMPLATE, fragment="timesheet", period=period, retarget="#timesheet")
    return render(TEMPLATE, fragment="timesheet", period=period)


def _back(value: str | None = None) -> str:
    """The timesheet address to go back to (the form's `back`, else `value`), never elsewhere."""
    default = url_for("manage_timesheets.index")
    wanted = safe_next(request.form.get("back") or value, default)
    return wanted if wanted.startswith(default) and not wanted.startswith(default + "/") \
        else default


def _back_args(value: str | None = None) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(_back(value)).query))


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


# -- the pay-period panel: sign off, reopen, payroll export ------------------------------------


def _fresh(back: str) -> str:
    """`back` without its export: after a sign-off or a reopening an earlier file is stale."""
    args = dict(parse_qsl(urlsplit(back).query))
    args.pop("export", None)
    return url_for("manage_timesheets.index") + "?" + urlencode(args)


def _status(problem: ApiProblem) -> int:
    """The status a page re-rendered with the API's problem answers with."""
    return problem.status if problem.status in (403, 409) else 422


def _panel(args: dict[str, str], problem: ApiProblem,
           blocked: Callable[[Period], list[Blocked]] | None = None) -> Response:
    """The page again (htmx: the timesheet, so the panel's counts and the rows agree) with the
    API's problem in the panel."""
    if problem.status >= 500:
        raise problem
    period = build_period(args)
    period.panel_problems = _problem_words(problem)
    if blocked is not None:
        period.blocked = blocked(period)
    return render(TEMPLATE, fragment="timesheet", period=period, status=_status(problem),
                  retarget="#timesheet" if is_partial() else None)


def describe_blocking(period: Period, items: Any) -> list[Blocked]:
    """A `timesheet-not-ready` problem's `blocking` by provider, in words, each linked to the
    row of its first item (else the provider's section)."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            grouped.setdefault(str(item.get("providerId")), []).append(item)
    sheets = {str(s.provider.id): s for s in period.sheets}
    out = []
    for provider, found in grouped.items():
        counts = {kind: sum(1 for i in found if i.get("type") == kind) for kind in BLOCKING}
        words = blocking_words(counts) or "needs attention"
        sheet = sheets.get(provider)
        if sheet is None:
            out.append(Blocked("A provider not on this page", words, None))
            continue
        first = found[0]
        key = next((r.key for r in sheet.rows if r.key == first.get("shiftId")
                    or any(str(p.id) == first.get("punchId") for p in r.punches)), None)
        anchor = f"row-{key}" if key else f"sheet-{provider}"
        out.append(Blocked(sheet.name, words,
                           f"{period.url(provider=sheet.provider.id)}#{anchor}"))
    return out


@bp.post("/manage/timesheets/sign-off")
def sign_off() -> Response:
    """Sign off the team's pay period; while something blocks it, the API's list inline."""
    args = _back_args()
    found = read_people(args)
    if found.team_id is None:
        flash("There is no team to sign off.", "error")
        return see_other(_back())
    start, end = found.start, found.start + timedelta(days=found.length)
    try:
        api().create_sign_off(TimesheetSignOffCreate(
            team_id=found.team_id, start_date=local_instant(start), end_date=local_instant(end)))
    except ApiProblem as problem:
        items = problem.extensions.get("blocking") \
            if problem.code == "timesheet-not-ready" else None
        return _panel(args, problem, lambda p: describe_blocking(p, items))
    days = current_app.jinja_env.filters["local_date"]
    flash(f"Signed off the pay period {days(start, relative=False)} \u2013 "
          f"{days(end - timedelta(days=1), relative=False)}: its punches and shifts are locked "
          "for payroll.", "success")
    return see_other(_fresh(_back()))


@bp.get("/manage/timesheets/sign-offs/<uuid:sign_off_id>/reopen")
def confirm_reopen(sign_off_id: uuid.UUID) -> Response:
    """Ask before reopening a sign-off: it unlocks data payroll may already have."""
    back = _back(request.args.get("back"))
    client = api()
    try:
        signed = client.get_sign_off(sign_off_id)
    except ApiProblem as problem:
        return _panel(_back_args(back), problem)
    names = user_names(client, current_user(), [signed.signed_by])
    return render("manage_timesheets/reopen.html", signed=signed, back=back,
                  signer=names.get(signed.signed_by, "another user"),
                  last_day=last_day(signed))


@bp.post("/manage/timesheets/sign-offs/<uuid:sign_off_id>/reopen")
def reopen(sign_off_id: uuid.UUID) -> Response:
    """Reopen a sign-off (administrators): its punches and shifts may change again."""
    back = _back(request.args.get("back"))
    try:
        api().reopen_sign_off(sign_off_id)
    except ApiProblem as problem:
        return _panel(_back_args(back), problem)
    flash("Reopened the pay period: its punches and shifts can change again, and payroll "
          "exports are preliminary until it is signed off again.", "success")
    return see_other(_fresh(back))


@bp.post("/manage/timesheets/exports")
def export() -> Response:
    """Start the payroll export of the team's pay period; the page then follows its run."""
    args = _back_args()
    args.pop("export", None)
    found = read_people(args)
    if found.team_id is None:
        flash("There is no team to export.", "error")
        return see_other(_back())
    end = found.start + timedelta(days=found.length)
    try:
        run = api().create_report_run(ReportRunCreate(report_id=EXPORT_REPORT, parameters={
            "teamId": str(found.team_id),
            "startDate": format_timestamp(local_instant(found.start)),
            "endDate": format_timestamp(local_instant(end))}))
    except ApiProblem as problem:
        return _panel(args, problem)
    args["export"] = str(run.id)
    return see_other(url_for("manage_timesheets.index") + "?" + urlencode(args))


@bp.get("/manage/timesheets/exports/<uuid:run_id>/download")
def download_export(run_id: uuid.UUID) -> Response:
    """The export's file, fetched through the API's signed link (the browser has no token)."""
    back = _back(request.args.get("back"))
    client = api()
    export = read_export(client, current_user().id, str(run_id))
    problem = export.problem
    if problem is None and export.run is not None and export.run.status != "completed":
        problem = "The export is not ready yet; wait until it says it is complete."
    answer = problem if problem is not None else run_files.fetch(client, run_id, "payroll.csv")
    if isinstance(answer, Response):
        return answer
    flash(answer, "error")
    return see_other(back)
