"""The report catalog, parameter checks, the CSV builders and the job that executes a run.

Five reports (docs/architecture.md, "Reports"), each over a window `[startDate, endDate)` and
one team (`teamId`, optional but for `payroll`):

- `timesheet-summary`: per provider, scheduled versus actual minutes by pay code and role, from
  the same timesheet computation as `GET /v1/timekeeping/timesheet`.
- `payroll`: one team's payroll file, one row per provider, site-local day, pay code and role,
  from that computation's per-day figures (`pay_code_days`), so that a provider's rows sum to
  the timesheet's pay code totals exactly. Final (`signed-off`) only when active sign-offs cover
  every provider's whole window; otherwise every row is `preliminary` and so is the file's name.
- `time-off-summary`: requests overlapping the window by provider, policy and status, with their
  paid hours.
- `appointments-by-provider`: appointments overlapping the window by provider and status.
- `shift-coverage`: per role and hour (UTC) or day (site time zone), the average number of
  providers scheduled to work against the demand forecast, both time-weighted over the bucket.

Rows follow the run creator's `view` rules on the underlying subject (Timesheet, TimeOffRequest,
Appointment, Shift, DemandForecast), evaluated when the run executes. Builders only read; the job
(`execute_report_run`) alone writes, to the run's own row. No Flask here.
"""

from __future__ import annotations

import csv
import io
import logging
import time
import uuid
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from itertools import pairwise
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.api import metrics
from app.api import models as m
from app.api.auth import Actor, load_actor
from app.api.db import Database
from app.api.domain import intervals as iv
from app.api.domain.intervals import Interval
from app.api.domain.timecards import local_midnights
from app.api.domain.timesheets import PayCodeDay
from app.api.jobs.context import JobContext
from app.api.problems import ProblemError
from app.api.services.timekeeping import computed_timesheets, timesheets_for
from app.api.subjects import APPOINTMENT, DEMAND_FORECAST, SHIFT, TIME_OFF_REQUEST, TIMESHEET
from app.contract.common import format_timestamp, parse_timestamp
from app.contract.problems import ProblemCode
from app.contract.reports import ReportParameterType

log = logging.getLogger(__name__)

MAX_WINDOW_DAYS = 366
"""The longest window one report covers."""

PROVIDER_CHUNK = 200
"""Timesheets are computed this many providers at a time, to bound memory."""

MEDIA_TYPE = "text/csv"

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
"""Text cells starting like this would run as formulas in a spreadsheet (CSV injection)."""


@dataclass(frozen=True)
class Parameter:
    """One parameter a report takes."""

    name: str
    type: ReportParameterType
    required: bool
    description: str
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class BuildInput:
    """What a CSV builder reads: the checked parameters, the run's creator and the clock."""

    session: Session
    actor: Actor
    start: datetime
    end: datetime
    team_id: uuid.UUID | None
    parameters: Mapping[str, Any]
    zone: tzinfo
    now: datetime
    grace_minutes: int


@dataclass(frozen=True)
class Table:
    """A CSV's header and rows, and a word the file's name carries (`preliminary`), if any."""

    header: list[str]
    rows: list[list[Any]]
    tag: str | None = None


@dataclass(frozen=True)
class Report:
    """A report of the catalog: its parameters and how its CSV is built."""

    id: str
    name: str
    description: str
    parameters: tuple[Parameter, ...]
    build: Callable[[BuildInput], Table]


WINDOW = (
    Parameter("startDate", "timestamp", True, "Start of the window (inclusive)."),
    Parameter("endDate", "timestamp", True,
              f"End of the window (exclusive); at most {MAX_WINDOW_DAYS} days after startDate."),
    Parameter("teamId", "uuid", False, "Only this team's providers (or roles)."),
)


def report_error(name: str, message: str) -> ProblemError:
    """A 400 `report-parameter-validation` on `/parameters/<name>`."""
    path = f"/parameters/{name}"
    return ProblemError(ProblemCode.REPORT_PARAMETER_VALIDATION, f"{path}: {message}",
                        path=path, message=message)


def _parse_value(parameter: Parameter, value: Any) -> Any:
    if parameter.type == "timestamp":
        if not isinstance(value, str):
            raise report_error(parameter.name, "must be a timestamp string such as "
                                               "2026-03-02T00:00:00+0000")
        try:
            return parse_timestamp(value)
        except ValueError as exc:
            raise report_error(parameter.name, "must be a timestamp such as "
                                               "2026-03-02T00:00:00+0000") from exc
    if parameter.type == "uuid":
        try:
            return uuid.UUID(value) if isinstance(value, str) else _bad_uuid()
        except ValueError as exc:
            raise report_error(parameter.name, "must be a UUID") from exc
    if parameter.type == "string":
        if not isinstance(value, str):
            raise report_error(parameter.name, "must be a string")
        if parameter.choices and value not in parameter.choices:
            raise report_error(parameter.name, "must be one of " + ", ".join(parameter.choices))
        return value
    raise report_error(parameter.name, f"unsupported parameter type {parameter.type}")


def _bad_uuid() -> uuid.UUID:
    raise ValueError("not a string")


def check_parameters(report: Report, raw: Mapping[str, Any]) -> dict[str, Any]:
    """Parse a run's parameters against the report's declaration.

    Returns name → parsed value (absent optional ones left out). Raises
    `report-parameter-validation` with the first wrong parameter's path.
    """
    known = {p.name: p for p in report.parameters}
    for name in raw:
        if name not in known:
            raise report_error(name, f"{report.id} takes no parameter {name!r}; it takes "
                                     + ", ".join(known))
    parsed: dict[str, Any] = {}
    for parameter in report.parameters:
        value = raw.get(parameter.name)
        if value is None:
            if parameter.required:
                raise report_error(parameter.name, "is required")
            continue
        parsed[parameter.name] = _parse_value(parameter, value)
    start, end = parsed.get("startDate"), parsed.get("endDate")
    if start is not None and end is not None:
        if end <= start:
            raise report_error("endDate", "must come after startDate")
        if end - start > timedelta(days=MAX_WINDOW_DAYS):
            raise report_error("endDate", f"a report covers at most {MAX_WINDOW_DAYS} days")
    return parsed


def wire_parameters(parsed: Mapping[str, Any]) -> dict[str, Any]:
    """The parsed parameters as stored with the run: timestamps in wire format, ids as text."""
    result: dict[str, Any] = {}
    for name, value in parsed.items():
        if isinstance(value, datetime):
            result[name] = format_timestamp(value)
        elif isinstance(value, uuid.UUID):
            result[name] = str(value)
        else:
            result[name] = value
    return result


# -- CSV -------------------------------------------------------------------------------------


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime):
        return format_timestamp(value)
    if isinstance(value, float):
        rounded = round(value, 2)
        return str(int(rounded)) if rounded.is_integer() else f"{rounded:.2f}".rstrip("0")
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return str(value)


def render_csv(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    """The CSV file (RFC 4180, CRLF line ends, UTF-8) of a header and rows."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    for row in rows:
        writer.writerow([_cell(v) for v in row])
    return buffer.getvalue().encode()


# -- shift coverage (pure) --------------------------------------------------------------------


def buckets(window: Interval[datetime], size: str, zone: tzinfo) -> list[Interval[datetime]]:
    """The window cut into UTC hours (`hour`) or site-zone days (`day`), clipped to the window."""
    if size == "day":
        cuts = local_midnights(window, zone)
    else:
        first = window.start.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
        cuts = []
        moment = first + timedelta(hours=1)
        while moment < window.end:
            cuts.append(moment)
            moment += timedelta(hours=1)
    edges = [window.start, *cuts, window.end]
    return [Interval(a, b) for a, b in pairwise(edges)]


def coverage(
    slots: Sequence[Interval[datetime]],
    scheduled: Iterable[tuple[uuid.UUID, Interval[datetime]]],
    demand: Iterable[tuple[uuid.UUID, Interval[datetime], float]],
) -> dict[tuple[uuid.UUID, int], tuple[float, float]]:
    """Per (role, bucket index): time-weighted staff scheduled and demand over the bucket.

    A provider working half of an hour counts 0.5 for that hour; a demand of 4 over half of it
    counts 2. Buckets with neither are left out.
    """
    starts = [s.start for s in slots]
    staff: dict[tuple[uuid.UUID, int], float] = defaultdict(float)
    needed: dict[tuple[uuid.UUID, int], float] = defaultdict(float)

    def spread(role: uuid.UUID, span: Interval[datetime], weight: float,
               into: dict[tuple[uuid.UUID, int], float]) -> None:
        index = max(bisect_right(starts, span.start) - 1, 0)
        while index < len(slots) and slots[index].start < span.end:
            slot = slots[index]
            overlap = (min(slot.end, span.end) - max(slot.start, span.start)).total_seconds()
            if overlap > 0:
                into[(role, index)] += weight * overlap / (slot.end - slot.start).total_seconds()
            index += 1

    for role, span in scheduled:
        spread(role, span, 1.0, staff)
    for role, span, value in demand:
        spread(role, span, value, needed)
    return {key: (staff.get(key, 0.0), needed.get(key, 0.0))
            for key in sorted(set(staff) | set(needed), key=lambda k: (str(k[0]), k[1]))}


# -- builders ---------------------------------------------------------------------------------


def _timesheet_summary(given: BuildInput) -> Table:
    statement = select(m.Provider).where(given.actor.where("view", "Timesheet", TIMESHEET.columns))
    if given.team_id is not None:
        statement = statement.where(m.Provider.team_id == given.team_id)
    providers = list(given.session.scalars(statement.order_by(m.Provider.name, m.Provider.id)))
    pay_codes = dict(given.session.execute(select(m.PayCode.id, m.PayCode.shorthand_name)).all())
    roles = dict(given.session.execute(select(m.Role.id, m.Role.name)).all())
    rows: list[list[Any]] = []
    for offset in range(0, len(providers), PROVIDER_CHUNK):
        chunk = providers[offset:offset + PROVIDER_CHUNK]
        sheets = timesheets_for(given.session, providers=chunk, start=given.start, end=given.end,
                                now=given.now, zone=given.zone,
                                grace_minutes=given.grace_minutes)
        for provider, sheet in zip(chunk, sheets, strict=True):
            for total in sheet.pay_code_totals:
                rows.append([provider.id, provider.name, provider.team_id, total.pay_code_id,
                             pay_codes.get(total.pay_code_id), total.role_id,
                             roles.get(total.role_id) if total.role_id else None,
                             total.scheduled, total.actual])
    return Table(["providerId", "providerName", "teamId", "payCodeId", "payCode", "roleId",
                  "roleName", "scheduledMinutes", "actualMinutes"], rows)


PAYROLL_HEADER = ["importedId", "providerId", "provider", "date", "payCode", "payCodeId", "role",
                  "roleId", "scheduledMinutes", "actualMinutes", "status", "signOffIds"]
"""The payroll file's columns: who (the provider's id in the payroll system first), the local
day, what (pay code and role, by name and id; paid break time has no role), the minutes, and
whether the figures are final (`signed-off`, by the sign-offs listed) or `preliminary`."""

SIGNED_OFF, PRELIMINARY = "signed-off", "preliminary"


def covering_sign_offs(window: Interval[datetime],
                       spans: Sequence[tuple[uuid.UUID, datetime, datetime]]
                       ) -> list[uuid.UUID] | None:
    """The ids of the sign-offs `(id, start, end)` that together cover the whole window, in
    order of their start; None when some of the window is left uncovered."""
    ordered = sorted(spans, key=lambda span: (span[1], str(span[0])))
    if iv.subtract([window], [Interval(start, end) for _, start, end in ordered]):
        return None
    return [ident for ident, start, end in ordered if start < window.end and window.start < end]


def _sign_offs_by_provider(session: Session, provider_ids: Sequence[uuid.UUID],
                           window: Interval[datetime]
                           ) -> dict[uuid.UUID, list[tuple[uuid.UUID, datetime, datetime]]]:
    """The active (not reopened) sign-offs overlapping the window of each of these providers."""
    sign_off, link = m.TimesheetSignOff, m.timesheet_sign_off_providers
    found: dict[uuid.UUID, list[tuple[uuid.UUID, datetime, datetime]]] = defaultdict(list)
    for offset in range(0, len(provider_ids), PROVIDER_CHUNK):
        for provider_id, ident, start, end in session.execute(
            select(link.c.provider_id, sign_off.id, sign_off.start_date, sign_off.end_date)
            .join(sign_off, sign_off.id == link.c.sign_off_id)
            .where(link.c.provider_id.in_(provider_ids[offset:offset + PROVIDER_CHUNK]),
                   sign_off.reopened_at.is_(None),
                   sign_off.start_date < window.end, sign_off.end_date > window.start)
        ).tuples():
            found[provider_id].append((ident, start, end))
    return found


def _payroll(given: BuildInput) -> Table:
    """One row per provider, local day, pay code and role with whole minutes (see PAYROLL_HEADER).

    No total rows: an importer sums the rows, and a provider's rows per pay code and role add up
    to the timesheet's `payCodeTotals` exactly. Rows with no whole minute are left out. The file
    is final only when it has providers and active sign-offs cover each one's whole window, the
    same sign-offs before the timesheets are computed and after: reopening is for good, so a
    sign-off active at both reads was active, and its providers' punches and shifts frozen,
    while they were computed (PostgreSQL reads each statement afresh; SQLite from one snapshot).
    """
    window = Interval(given.start, given.end)
    providers = list(given.session.scalars(
        select(m.Provider)
        .where(m.Provider.team_id == given.team_id,
               given.actor.where("view", "Timesheet", TIMESHEET.columns))
        .order_by(m.Provider.name, m.Provider.id)))

    def coverage() -> dict[uuid.UUID, list[uuid.UUID] | None]:
        spans = _sign_offs_by_provider(given.session, [p.id for p in providers], window)
        return {p.id: covering_sign_offs(window, spans.get(p.id, [])) for p in providers}

    before = coverage()
    pay_codes = {str(i): name for i, name in given.session.execute(
        select(m.PayCode.id, m.PayCode.shorthand_name)).tuples()}
    roles = {str(i): name for i, name in given.session.execute(
        select(m.Role.id, m.Role.name)).tuples()}

    def order(day: PayCodeDay) -> tuple[Any, ...]:
        code, role = str(day.pay_code_id), str(day.role_id)
        return (day.day, pay_codes.get(code) or "", code, day.role_id is not None,
                roles.get(role) or "", role)

    days: list[tuple[m.Provider, list[PayCodeDay]]] = []
    for offset in range(0, len(providers), PROVIDER_CHUNK):
        chunk = providers[offset:offset + PROVIDER_CHUNK]
        sheets = computed_timesheets(given.session, providers=chunk, start=given.start,
                                     end=given.end, now=given.now, zone=given.zone,
                                     grace_minutes=given.grace_minutes)
        days.extend((provider, sorted((d for d in sheet.pay_code_days if d.scheduled or d.actual),
                                      key=order))
                    for provider, sheet in zip(chunk, sheets, strict=True))
    after = coverage()
    settled = {i: ids if after[i] == ids else None for i, ids in before.items()}
    final = bool(providers) and all(ids is not None for ids in settled.values())
    status = SIGNED_OFF if final else PRELIMINARY
    rows = [
        [provider.imported_id, provider.id, provider.name, d.day.isoformat(),
         pay_codes.get(str(d.pay_code_id)), d.pay_code_id,
         roles.get(str(d.role_id)) if d.role_id is not None else None, d.role_id,
         d.scheduled, d.actual, status, " ".join(str(i) for i in settled[provider.id] or ())]
        for provider, provider_days in days for d in provider_days
    ]
    return Table(PAYROLL_HEADER, rows, tag=None if final else PRELIMINARY)


def _time_off_summary(given: BuildInput) -> Table:
    request = m.TimeOffRequest
    statement = (
        select(request.provider_id, m.Provider.name, request.policy_id, m.TimeOffPolicy.name,
               request.status, func.count(request.id), func.sum(request.paid_hours))
        .join(m.Provider, m.Provider.id == request.provider_id)
        .join(m.TimeOffPolicy, m.TimeOffPolicy.id == request.policy_id)
        .where(request.start_date < given.end, request.end_date > given.start,
               given.actor.where("view", "TimeOffRequest", TIME_OFF_REQUEST.columns))
        .group_by(request.provider_id, m.Provider.name, request.policy_id, m.TimeOffPolicy.name,
                  request.status)
        .order_by(m.Provider.name, request.provider_id, m.TimeOffPolicy.name, request.policy_id,
                  request.status)
    )
    if given.team_id is not None:
        statement = statement.where(m.Provider.team_id == given.team_id)
    rows = [[*row[:5], int(row[5]), float(row[6] or 0)] for row in given.session.execute(statement)]
    return Table(["providerId", "providerName", "policyId", "policyName", "status", "requests",
                  "paidHours"], rows)


def _appointments_by_provider(given: BuildInput) -> Table:
    appointment = m.Appointment
    statement = (
        select(appointment.provider_id, m.Provider.name, appointment.status,
               func.count(appointment.id))
        .join(m.Provider, m.Provider.id == appointment.provider_id)
        .where(appointment.start_date < given.end, appointment.end_date > given.start,
               given.actor.where("view", "Appointment", APPOINTMENT.columns))
        .group_by(appointment.provider_id, m.Provider.name, appointment.status)
        .order_by(m.Provider.name, appointment.provider_id, appointment.status)
    )
    if given.team_id is not None:
        statement = statement.where(m.Provider.team_id == given.team_id)
    rows = [[*row[:3], int(row[3])] for row in given.session.execute(statement)]
    return Table(["providerId", "providerName", "status", "appointments"], rows)


def _shift_coverage(given: BuildInput) -> Table:
    segment, shift = m.ShiftSegment, m.Shift
    roles_statement = select(m.Role.id, m.Role.name, m.Role.team_id)
    if given.team_id is not None:
        roles_statement = roles_statement.where(m.Role.team_id == given.team_id)
    roles = {row[0]: row for row in given.session.execute(roles_statement)}
    scheduled = [
        (role_id, Interval(max(start, given.start), min(end, given.end)))
        for role_id, start, end in given.session.execute(
            select(segment.role_id, segment.start_date, segment.end_date)
            .join(shift, shift.id == segment.shift_id)
            .where(shift.provider_id.is_not(None), shift.is_callout.is_(False),
                   segment.type == "working", segment.role_id.in_(list(roles)),
                   segment.start_date < given.end, segment.end_date > given.start,
                   given.actor.where("view", "Shift", SHIFT.columns))
        )
    ]
    row = m.DemandForecastRow
    demand = [
        (role_id, Interval(max(start, given.start), min(end, given.end)), float(value))
        for role_id, start, end, value in given.session.execute(
            select(row.role_id, row.start_date, row.end_date, row.demand)
            .where(row.role_id.in_(list(roles)), row.start_date < given.end,
                   row.end_date > given.start,
                   given.actor.where("view", "DemandForecast", DEMAND_FORECAST.columns))
        )
    ]
    slots = buckets(Interval(given.start, given.end), given.parameters.get("bucket", "hour"),
                    given.zone)
    table = coverage(slots, scheduled, demand)
    ordered = sorted(table.items(), key=lambda item: (roles[item[0][0]][1], str(item[0][0]),
                                                      item[0][1]))
    rows = [[role_id, roles[role_id][1], roles[role_id][2], slots[index].start, slots[index].end,
             staff, needed, staff - needed]
            for (role_id, index), (staff, needed) in ordered]
    return Table(["roleId", "roleName", "teamId", "bucketStart", "bucketEnd", "scheduledStaff",
                  "demand", "gap"], rows)


CATALOG: dict[str, Report] = {r.id: r for r in (
    Report("timesheet-summary", "Timesheet summary",
           "Per provider: scheduled versus actual minutes by pay code and role in the window.",
           WINDOW, _timesheet_summary),
    Report("time-off-summary", "Time off summary",
           "Time off requests overlapping the window, by provider, policy and status, with paid "
           "hours.", WINDOW, _time_off_summary),
    Report("appointments-by-provider", "Appointments by provider",
           "Appointments overlapping the window, counted per provider and status.",
           WINDOW, _appointments_by_provider),
    Report("shift-coverage", "Shift coverage",
           "Per role and hour (UTC) or day (site time zone): providers scheduled to work against "
           "the demand forecast, both averaged over the bucket.",
           (*WINDOW, Parameter("bucket", "string", False,
                               "Bucket size: hour (default) or day.", ("hour", "day"))),
           _shift_coverage),
    Report("payroll", "Payroll export",
           "One team's payroll file: a row per provider, local day, pay code and role with "
           "scheduled and actual whole minutes and the provider's importedId; a provider's rows "
           "add up to their timesheet's pay code totals. The rows read signed-off when active "
           "sign-offs cover every provider's whole window. Otherwise the file is preliminary: "
           "every row reads preliminary, the file name starts payroll-preliminary, and the "
           "figures may still change (pending punches count, running sessions count until the "
           "run).",
           (*WINDOW[:2], Parameter("teamId", "uuid", True, "The team whose providers are paid.")),
           _payroll),
)}
"""Every report, by id (the ids the demo's runs use)."""


def build_report(report: Report, given: BuildInput) -> tuple[bytes, str | None]:
    """The CSV file of one report, and the word its file name carries (if any)."""
    table = report.build(given)
    return render_csv(table.header, table.rows), table.tag


# -- the job ----------------------------------------------------------------------------------


def execute_report_run(context: JobContext, run_id: uuid.UUID,
                       now: datetime | None = None) -> str | None:
    """Compute a `running` run's CSV and store it (`completed`), or record the error (`failed`).

    Returns the final status, or None when there was nothing to do (the run is gone or no longer
    running: a job delivered twice runs once). Its duration goes to the job metrics.
    """
    started = time.perf_counter()
    outcome = "crashed"
    try:
        status = _execute_report_run(context, run_id, now)
        outcome = status or "skipped"
        return status
    finally:
        metrics.observe_job("report-run", outcome, time.perf_counter() - started)


def _execute_report_run(context: JobContext, run_id: uuid.UUID,
                        now: datetime | None) -> str | None:
    now = now or datetime.now(UTC)
    database, settings = context.database, context.settings
    with database.unit_of_work() as session:
        run = session.get(m.ReportRun, run_id)
        if run is None or run.status != "running":
            return None
        report_id, raw, creator = run.report_id, dict(run.parameters or {}), run.created_by_id
    try:
        report = CATALOG.get(report_id)
        if report is None:
            raise LookupError(f"the catalog has no report {report_id!r}")
        parsed = check_parameters(report, raw)
        with database.unit_of_work() as session:
            actor = load_actor(session, creator)
            if actor is None:
                raise LookupError("the user who started the run no longer exists or is inactive")
            content, tag = build_report(report, BuildInput(
                session=session, actor=actor, start=parsed["startDate"], end=parsed["endDate"],
                team_id=parsed.get("teamId"), parameters=parsed, zone=settings.zone, now=now,
                grace_minutes=settings.grace_minutes,
            ))
    except Exception as exc:
        log.exception("report run %s failed", run_id)
        message = exc.detail if isinstance(exc, ProblemError) else str(exc)
        return _finish(database, run_id, now, status="failed",
                       error=f"{type(exc).__name__}: {message}"[:2000])
    return _finish(database, run_id, now, status="completed", content=content,
                   name=file_name(report_id, tag, now))


def file_name(report_id: str, tag: str | None, now: datetime) -> str:
    """A run's file name: `<report>-[<tag>-]<UTC stamp>.csv`, e.g. `payroll-preliminary-…`."""
    return "-".join([report_id, *([tag] if tag else []), now.strftime("%Y%m%dT%H%M%SZ")]) + ".csv"


def fail_run(database: Database, run_id: uuid.UUID, reason: str) -> str | None:
    """End a `running` run as `failed` with `reason` (a run already ended is left alone)."""
    return _finish(database, run_id, datetime.now(UTC), status="failed", error=reason[:2000])


def _finish(database: Database, run_id: uuid.UUID, now: datetime, *, status: str,
            content: bytes | None = None, name: str | None = None,
            error: str | None = None) -> str | None:
    with database.unit_of_work(write=True) as session:
        run = session.get(m.ReportRun, run_id, with_for_update=True)
        if run is None or run.status != "running":
            return None
        run.status = status
        run.completed_at = now
        run.error = error
        if content is not None:
            run.file_content = content
            run.file_name = name
            run.file_media_type = MEDIA_TYPE
            run.file_size_bytes = len(content)
    return status
