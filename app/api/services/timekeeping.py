"""Reading timekeeping: a provider's timecard for a pay period, the signed-in provider's own
timecard with their current and next shift, and timesheets (one provider's, or a team's page).

Loads in bulk and hands plain data to `app.api.domain.timecards` and `app.api.domain.timesheets`,
which decide everything; converts the results to the wire. A team's timesheets cost the same
statements whatever the page size: the providers, the default pay code, then one statement each
for shifts, segments, punches and timecards of the whole page. Must not commit, write, read the
clock (callers pass `now`) or know about Flask requests.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo

from sqlalchemy import case, select
from sqlalchemy.orm import Session, lazyload, selectinload

from app.api.auth import Actor
from app.api.domain import timecards as cards
from app.api.domain import timesheets as sheets
from app.api.domain.intervals import Interval
from app.api.models import (
    PayCode,
    Provider,
    Shift,
    ShiftPayCode,
    ShiftSegment,
    Team,
    Timecard,
    TimecardPunch,
)
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, not_found, validation
from app.api.subjects import TIMESHEET
from app.contract import timekeeping as wire
from app.contract.common import format_timestamp
from app.contract.problems import ProblemCode

DEFAULT_PAY_CODE_SHORTHAND = "REG"
"""Shifts without a pay code are paid under the pay code with this shorthand (else the first by
name): the organisation's regular hours."""

MAX_TIMESHEET_DAYS = 366
"""The longest window one timesheet request may cover."""

EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)
"""Instants timekeeping accepts: far enough from the calendar's ends for margins and periods."""

LOAD_MARGIN = cards.MAX_SESSION
"""Punches and shifts are loaded this far beyond the window, so that sessions crossing its edges
pair up and clock-ins near its start find their shift."""


@dataclass(frozen=True)
class TimecardView:
    """A provider's timecard for one pay period (the stored card, if one exists yet)."""

    provider: Provider
    period: Interval[datetime]
    timecard: Timecard | None
    punches: list[TimecardPunch]
    next_actions: list[wire.PunchAction]


def get_provider(session: Session, *, provider_id: uuid.UUID) -> Provider:
    """Return the provider with this id. Raises `provider-not-found`."""
    provider = session.get(Provider, provider_id)
    if provider is None:
        raise not_found("provider", provider_id)
    return provider


def timecard_fields(provider: Provider, timecard: Timecard | None) -> dict[str, object]:
    """The `Timecard` permission fields of a provider's timecard (stored or not yet)."""
    return {"id": timecard.id if timecard else None, "providerId": provider.id,
            "teamId": provider.team_id}


def _template(provider: Provider, zone: tzinfo) -> tuple[cards.PayPeriodTemplate | None, str]:
    """The provider's pay-period template, or None and why."""
    try:
        template = cards.parse_pay_period_template(provider.pay_period_template, zone)
    except ValueError as exc:
        return None, str(exc)
    return template, "no pay period template is set"


def _stored_timecard(session: Session, provider_id: uuid.UUID, at: datetime) -> Timecard | None:
    return session.scalars(
        select(Timecard)
        .where(Timecard.provider_id == provider_id, Timecard.period_start <= at,
               Timecard.period_end > at)
        .order_by(Timecard.period_start.desc(), Timecard.id)
        .limit(1)
    ).first()


def _carried_punch(session: Session, provider_id: uuid.UUID,
                   period_start: datetime) -> TimecardPunch | None:
    """The last counted punch in the `MAX_SESSION` before a period: a shift open across the
    period boundary keeps its state (clock-out allowed), a forgotten one from long ago does not."""
    return session.scalars(
        select(TimecardPunch)
        .where(TimecardPunch.provider_id == provider_id, TimecardPunch.state != "rejected",
               TimecardPunch.time < period_start,
               TimecardPunch.time >= period_start - cards.MAX_SESSION)
        .order_by(TimecardPunch.time.desc(), TimecardPunch.created_at.desc(),
                  TimecardPunch.id.desc())
        .limit(1)
    ).first()


def timecard_at(session: Session, *, actor: Actor, provider: Provider, at: datetime,
                zone: tzinfo) -> TimecardView:
    """Return the provider's timecard for the pay period containing `at`, if the actor may view it.

    The stored timecard covering `at` wins; otherwise the period comes from the provider's
    pay-period template and the timecard has no punches yet. Next actions follow the timecard's
    punches, preceded by the last counted punch of the `MAX_SESSION` before the period.
    Raises `unauthorized`, then `pay-period-not-found` when there is neither a stored timecard
    nor a usable template.
    """
    timecard = _stored_timecard(session, provider.id, at)
    actor.require("view", "Timecard", timecard_fields(provider, timecard))
    if timecard is not None:
        period = Interval(timecard.period_start, timecard.period_end)
        punches = list(timecard.punches)
    else:
        template, why = _template(provider, zone)
        if template is None:
            raise ProblemError(
                ProblemCode.PAY_PERIOD_NOT_FOUND,
                f"No pay period of {provider.name or provider.email} contains "
                f"{format_timestamp(at)}: {why}. Ask an administrator to set the provider's "
                "pay period template.",
            )
        period = cards.pay_period_containing(template, at, zone)
        punches = []
    carried = _carried_punch(session, provider.id, period.start)
    history = [carried, *punches] if carried is not None else punches
    return TimecardView(provider=provider, period=period, timecard=timecard, punches=punches,
                        next_actions=cards.allowed_next(history))


def punch_read(punch: TimecardPunch) -> wire.TimecardPunchRead:
    """The wire form of a punch."""
    return wire.TimecardPunchRead.model_validate(punch)


def timecard_read(view: TimecardView) -> wire.TimecardRead:
    """The wire form of a timecard."""
    return wire.TimecardRead(punches=[punch_read(p) for p in view.punches],
                             next_actions=view.next_actions)


def _on_call(shift: Shift) -> bool:
    """An on-call shift: on-call time and no working time."""
    kinds = {s.type for s in shift.segments}
    return "on_call" in kinds and "working" not in kinds


def _shift_brief(shift: Shift | None) -> wire.TimecardShift | None:
    if shift is None:
        return None
    return wire.TimecardShift(id=shift.id, start_date=shift.start_date, end_date=shift.end_date,
                              on_call=_on_call(shift))


def current_and_next_shift(session: Session, *, provider_id: uuid.UUID, now: datetime
                           ) -> tuple[Shift | None, Shift | None]:
    """Return the provider's non-callout shift covering `now` and the next one starting later."""
    rows = session.scalars(
        select(Shift)
        .where(Shift.provider_id == provider_id, Shift.is_callout.is_(False),
               Shift.end_date > now)
        .order_by(Shift.start_date, Shift.id)
        .limit(2)
        .options(selectinload(Shift.segments).options(lazyload(ShiftSegment.labels)))
    ).all()
    current = next((s for s in rows if s.start_date <= now), None)
    upcoming = next((s for s in rows if s.start_date > now), None)
    return current, upcoming


def my_timecard(session: Session, *, actor: Actor, now: datetime, zone: tzinfo) -> wire.TimecardMe:
    """Return the signed-in provider's timecard for the current pay period, with their current
    and next shift. Raises `provider-not-found` (caller is not a provider), `unauthorized`,
    `pay-period-not-found`."""
    if actor.provider_id is None:
        raise ProblemError(
            ProblemCode.PROVIDER_NOT_FOUND,
            f"{actor.email} is not a provider, so there is no timecard of yours; timecards belong "
            "to providers. Open a provider's timecard by their id instead.",
        )
    provider = get_provider(session, provider_id=actor.provider_id)
    view = timecard_at(session, actor=actor, provider=provider, at=now, zone=zone)
    current, upcoming = current_and_next_shift(session, provider_id=provider.id, now=now)
    return wire.TimecardMe(punches=[punch_read(p) for p in view.punches],
                           next_action=view.next_actions,
                           current_shift=_shift_brief(current), next_shift=_shift_brief(upcoming))


def default_pay_code_id(session: Session) -> uuid.UUID | None:
    """Return the pay code of shifts that name none: shorthand `REG`, else the first by name."""
    return session.scalar(
        select(PayCode.id)
        .order_by(case((PayCode.shorthand_name == DEFAULT_PAY_CODE_SHORTHAND, 0), else_=1),
                  PayCode.name, PayCode.id)
        .limit(1)
    )


def check_instant(value: datetime, path: str) -> None:
    """Raise `validation` on `path` for an instant outside the years timekeeping can compute."""
    if not EARLIEST <= value <= LATEST:
        raise validation(path, f"must lie between {EARLIEST.year} and {LATEST.year}")


def check_window(start: datetime, end: datetime) -> None:
    """Raise `validation` for instants out of range, `negative-range` unless `end` is after
    `start`, and `validation` on `endDate` when the window is longer than `MAX_TIMESHEET_DAYS`."""
    check_instant(start, "startDate")
    check_instant(end, "endDate")
    if end <= start:
        raise ProblemError(
            ProblemCode.NEGATIVE_RANGE,
            "endDate must come after startDate; pick a later endDate or an earlier startDate.",
            path="endDate",
        )
    if end - start > timedelta(days=MAX_TIMESHEET_DAYS):
        raise validation("endDate", f"a timesheet covers at most {MAX_TIMESHEET_DAYS} days; "
                                    "ask for a shorter window")


def _load(session: Session, provider_ids: Sequence[uuid.UUID], low: datetime, high: datetime
          ) -> tuple[dict[uuid.UUID, list[sheets.ScheduledShift]],
                     dict[uuid.UUID, list[TimecardPunch]],
                     dict[uuid.UUID, list[sheets.TimecardPeriod]]]:
    """Shifts, punches and timecards of these providers around `[low, high)`: four statements."""
    in_range = (Shift.provider_id.in_(provider_ids), Shift.is_callout.is_(False),
                Shift.end_date > low, Shift.start_date < high)
    segments: dict[uuid.UUID, list[sheets.ScheduledSegment]] = defaultdict(list)
    for shift_id, kind, start, end, role_id in session.execute(
        select(ShiftSegment.shift_id, ShiftSegment.type, ShiftSegment.start_date,
               ShiftSegment.end_date, ShiftSegment.role_id)
        .join(Shift, Shift.id == ShiftSegment.shift_id)
        .where(*in_range)
        .order_by(ShiftSegment.start_date, ShiftSegment.id)
    ):
        segments[shift_id].append(sheets.ScheduledSegment(kind, start, end, role_id))
    shifts: dict[uuid.UUID, list[sheets.ScheduledShift]] = defaultdict(list)
    for shift_id, provider_id, start, end, pay_code_id in session.execute(
        select(Shift.id, Shift.provider_id, Shift.start_date, Shift.end_date,
               ShiftPayCode.pay_code_id)
        .outerjoin(ShiftPayCode, ShiftPayCode.shift_id == Shift.id)
        .where(*in_range)
    ):
        shifts[provider_id].append(sheets.ScheduledShift(
            shift_id, start, end, tuple(segments.get(shift_id, ())), pay_code_id))
    punches: dict[uuid.UUID, list[TimecardPunch]] = defaultdict(list)
    for punch in session.scalars(
        select(TimecardPunch)
        .where(TimecardPunch.provider_id.in_(provider_ids), TimecardPunch.time >= low,
               TimecardPunch.time < high)
        .order_by(TimecardPunch.time, TimecardPunch.created_at, TimecardPunch.id)
    ):
        punches[punch.provider_id].append(punch)
    periods: dict[uuid.UUID, list[sheets.TimecardPeriod]] = defaultdict(list)
    for card_id, provider_id, start, end in session.execute(
        select(Timecard.id, Timecard.provider_id, Timecard.period_start, Timecard.period_end)
        .where(Timecard.provider_id.in_(provider_ids), Timecard.period_end > low,
               Timecard.period_start < high)
    ):
        periods[provider_id].append(sheets.TimecardPeriod(card_id, start, end))
    return shifts, punches, periods


def _domain_punch(punch: TimecardPunch) -> cards.Punch:
    return cards.Punch(id=punch.id, action=punch.action,  # type: ignore[arg-type]
                       time=punch.time, state=punch.state, timecard_id=punch.timecard_id)


def _timesheet_read(provider: Provider, sheet: sheets.Timesheet, start: datetime, end: datetime,
                    orm_punches: dict[uuid.UUID, TimecardPunch]) -> wire.TimesheetRead:
    def text(value: uuid.UUID | None) -> str | None:
        return str(value) if value is not None else None

    return wire.TimesheetRead(
        provider_id=provider.id,
        start_date=start,
        end_date=end,
        punches=[punch_read(orm_punches[p.id]) for p in sheet.punches],
        warnings=[wire.TimesheetWarning(type=w.type, punch_id=w.punch_id)
                  for w in sheet.warnings],
        errors=[wire.TimesheetError(type=e.type, shift_id=e.shift_id, timecard_id=e.timecard_id)
                for e in sheet.errors],
        pay_code_totals=[wire.PayCodeTotal(pay_code_id=t.pay_code_id, role_id=t.role_id,
                                           scheduled=t.scheduled, actual=t.actual)
                         for t in sheet.pay_code_totals],
        pay_segments=[wire.PaySegment(id=s.id, type=s.type, start_date=s.start, end_date=s.end,
                                      shift_id=text(s.shift_id), timecard_id=text(s.timecard_id),
                                      pay_codes=[str(c) for c in s.pay_codes],
                                      role=text(s.role_id))
                      for s in sheet.pay_segments],
    )


def timesheets_for(session: Session, *, providers: Sequence[Provider], start: datetime,
                   end: datetime, now: datetime, zone: tzinfo, grace_minutes: int
                   ) -> list[wire.TimesheetRead]:
    """Return the timesheets of these providers for `[start, end)`, in the providers' order."""
    if not providers:
        return []
    pay_code = default_pay_code_id(session)
    shifts, punches, periods = _load(session, [p.id for p in providers],
                                     start - LOAD_MARGIN, end + LOAD_MARGIN)
    result: list[wire.TimesheetRead] = []
    for provider in providers:
        template, _why = _template(provider, zone)
        own = punches.get(provider.id, [])
        sheet = sheets.compute_timesheet(sheets.TimesheetInput(
            start=start, end=end, now=now, zone=zone,
            shifts=shifts.get(provider.id, []),
            punches=[_domain_punch(p) for p in own],
            timecards=periods.get(provider.id, []),
            has_pay_period_template=template is not None,
            default_pay_code_id=pay_code,
            default_role_id=provider.default_role_id,
            grace_minutes=grace_minutes,
        ))
        result.append(_timesheet_read(provider, sheet, start, end, {p.id: p for p in own}))
    return result


def get_timesheet(session: Session, *, actor: Actor, provider_id: uuid.UUID, start: datetime,
                  end: datetime, now: datetime, zone: tzinfo, grace_minutes: int
                  ) -> wire.TimesheetRead:
    """Return one provider's timesheet. Raises `negative-range`, `validation`,
    `provider-not-found`, `unauthorized`."""
    check_window(start, end)
    provider = get_provider(session, provider_id=provider_id)
    actor.require("view", "Timesheet", TIMESHEET.of(provider))
    return timesheets_for(session, providers=[provider], start=start, end=end, now=now,
                          zone=zone, grace_minutes=grace_minutes)[0]


def list_team_timesheets(session: Session, *, actor: Actor, query: wire.TimesheetQuery,
                         pages: Paginator, now: datetime, zone: tzinfo, grace_minutes: int
                         ) -> wire.TimesheetPage:
    """Return one page of timesheets, one per provider of the team the actor may view, by
    provider name. Raises `negative-range`, `validation`, `team-not-found`."""
    check_window(query.start_date, query.end_date)
    assert query.team is not None  # the query model requires provider or team
    if session.get(Team, query.team) is None:
        raise not_found("team", query.team)
    statement = select(Provider).where(
        Provider.team_id == query.team,
        actor.where("view", "Timesheet", TIMESHEET.columns),
    )
    rows, cursor = pages.page(session, statement, scope="timesheets", query=query,
                              order=[SortKey(Provider.name), SortKey(Provider.id)])
    items = timesheets_for(session, providers=rows, start=query.start_date, end=query.end_date,
                           now=now, zone=zone, grace_minutes=grace_minutes)
    return wire.TimesheetPage(items=items, cursor=cursor)
