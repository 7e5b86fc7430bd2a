"""Timekeeping: reading a provider's timecard for a pay period, the signed-in provider's own
timecard with their current and next shift, and timesheets (one provider's, or a team's page);
writing punches (create, review, delete).

Punch writes of one provider are serialised by `lock_provider`, so that two simultaneous
clock-ins cannot both see "no clock-in yet". Loads in bulk and hands plain data to
`app.api.domain.timecards` and `app.api.domain.timesheets`, which decide everything; converts
the results to the wire. A team's timesheets cost the same statements whatever the page size:
the providers, the default pay code, then one statement each for shifts, segments, punches and
timecards of the whole page. Must not commit, read the clock (callers pass `now`) or know about
Flask requests.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, tzinfo
from functools import lru_cache
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

from sqlalchemy import Select, case, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, lazyload, load_only, selectinload

from app.api.auth import Actor
from app.api.domain import pay_rules
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
from app.api.services import locator, notifications, sign_offs
from app.api.services.work_rules import (
    WorkRuleVersionData,
    rule_versions_by_id,
    rule_versions_for_teams,
)
from app.api.subjects import TIMESHEET
from app.api.wire_text import Document, wire_id, wire_time
from app.contract import timekeeping as wire
from app.contract.common import EARLIEST, LATEST, SUPPORTED_RANGE, format_timestamp
from app.contract.problems import ProblemCode

locate_punch = locator(TimecardPunch, "timecard-punch")


DEFAULT_PAY_CODE_SHORTHAND = "REG"
"""Shifts without a pay code are paid under the pay code with this shorthand (else the first by
name): the organisation's regular hours."""

MAX_TIMESHEET_DAYS = 366
"""The longest window one timesheet request may cover."""

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


def in_order(punches: Iterable[TimecardPunch]) -> list[TimecardPunch]:
    """Punches in time order; punches at the same instant in the order they were made."""
    return sorted(punches, key=lambda p: (p.time, p.created_at, str(p.id)))


def template_period(provider: Provider, at: datetime, zone: tzinfo) -> Interval[datetime]:
    """Return the pay period of the provider's template containing `at`.
    Raises `pay-period-not-found` when the provider has no usable template."""
    template, why = _template(provider, zone)
    if template is None:
        raise ProblemError(
            ProblemCode.PAY_PERIOD_NOT_FOUND,
            f"No pay period of {provider.name or provider.email} contains "
            f"{format_timestamp(at)}: {why}. Ask an administrator to set the provider's "
            "pay period template.",
        )
    return cards.pay_period_containing(template, at, zone)


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
        punches = in_order(timecard.punches)
    else:
        period = template_period(provider, at, zone)
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


# Punch writes --------------------------------------------------------------------------------


def lock_provider(session: Session, *, provider_id: uuid.UUID) -> None:
    """Lock the provider's row until the transaction ends, serialising their punch writes.

    PostgreSQL takes a row lock (`SELECT … FOR UPDATE`), so a second writer waits and then reads
    the first one's punches; SQLite renders no `FOR UPDATE`, but a write unit of work already holds
    the database write lock from `BEGIN IMMEDIATE`. An unknown provider locks nothing.
    """
    session.execute(select(Provider.id).where(Provider.id == provider_id).with_for_update())


def _punch_provider(session: Session, provider_id: uuid.UUID) -> Provider:
    provider = session.get(Provider, provider_id)
    if provider is None:
        raise validation("/provider", f"no provider has the id {provider_id}")
    if provider.status == "dismissed":
        raise validation("/provider", f"{provider.name or provider.email} is dismissed and can "
                                      "no longer punch")
    return provider


def _check_punch_time(at: datetime, now: datetime) -> None:
    check_instant(at, "/time")
    if cards.too_far_ahead(at, now):
        minutes = int(cards.MAX_AHEAD.total_seconds() // 60)
        raise validation("/time", f"{format_timestamp(at)} is more than {minutes} minutes ahead "
                                  f"of now ({format_timestamp(now)}); punch when it happens")


def _refuse(action: str, detail: str) -> ProblemError:
    return ProblemError(ProblemCode.UNAUTHORIZED, detail, action=action, resource="Timecard",
                        reason=detail)


def create_timecard(session: Session, *, provider_id: uuid.UUID,
                    period: Interval[datetime]) -> Timecard:
    """Create the provider's timecard for `period`, or return the one another transaction
    created first (timecards are unique per provider and period start)."""
    card = Timecard(provider_id=provider_id, period_start=period.start, period_end=period.end)
    try:
        with session.begin_nested():
            session.add(card)
    except IntegrityError:
        # The loser of a creation race: the savepoint is rolled back, the winner's card is
        # committed (PostgreSQL makes the insert wait for it), so read it.
        existing = session.scalars(
            select(Timecard).where(Timecard.provider_id == provider_id,
                                   Timecard.period_start == period.start)
        ).first()
        if existing is None:
            raise
        return existing
    return card


def _invalid_action(action: str, at: datetime, last: TimecardPunch | None,
                    allowed: Sequence[str]) -> ProblemError:
    after = (f"the last punch before it is {last.action} at {format_timestamp(last.time)}"
             if last is not None else "there is no punch before it")
    return ProblemError(
        ProblemCode.INVALID_PUNCH_ACTION,
        f"{action} is not allowed at {format_timestamp(at)}: {after}, so the allowed actions "
        f"are {', '.join(allowed)}.",
    )


def create_punch(session: Session, *, actor: Actor, body: wire.PunchCreate, now: datetime,
                 zone: tzinfo) -> TimecardPunch:
    """Punch on the provider's timecard for the pay period containing the punch's time (creating
    the timecard when missing). Call `lock_provider` first.

    Needs `create` Timecard (or `edit` Timecard, as managers have) for the provider. The action
    must follow the last counted punch at or before the punch's time; setting `state` (other than
    pending) or `adminNote` needs `approve` Timecard. Raises `validation`,
    `unauthorized`, `timesheet-signed-off` (the time lies in an active sign-off),
    `pay-period-not-found`, `invalid-punch-action` (first of all, for an action that is none
    of the four).
    """
    if body.action not in wire.PUNCH_ACTIONS:
        raise ProblemError(
            ProblemCode.INVALID_PUNCH_ACTION,
            f"{body.action!r} is not a punch action; punch one of "
            f"{', '.join(wire.PUNCH_ACTIONS)}.",
        )
    provider = _punch_provider(session, body.provider)
    at = body.time if body.time is not None else now
    _check_punch_time(at, now)
    timecard = _stored_timecard(session, provider.id, at)
    fields = timecard_fields(provider, timecard)
    if not actor.can("edit", "Timecard", fields):  # who may correct a timecard may add to it
        actor.require("create", "Timecard", fields)
    if (body.state != "pending" or body.admin_note is not None) \
            and not actor.can("approve", "Timecard", fields):
        raise _refuse("approve", "Only a manager who may approve this timecard can set a punch's "
                                 "state or adminNote; leave them out to punch as pending.")
    sign_offs.refuse_if_signed_off(session, provider_ids=[provider.id], start=at,
                                   what="A punch at " + format_timestamp(at))
    if timecard is not None:
        period = Interval(timecard.period_start, timecard.period_end)
        punches = in_order(timecard.punches)
    else:
        period = template_period(provider, at, zone)
        punches = []
    carried = _carried_punch(session, provider.id, period.start)
    history = [carried, *punches] if carried is not None else punches
    allowed = cards.allowed_at(history, at)
    if body.action not in allowed:
        raise _invalid_action(body.action, at, cards.last_at(history, at), allowed)
    if timecard is None:
        timecard = create_timecard(session, provider_id=provider.id, period=period)
    punch = TimecardPunch(provider_id=provider.id, action=body.action, state=body.state, time=at,
                          provider_note=body.provider_note, admin_note=body.admin_note,
                          created_by=actor.user_id)
    punch.timecard = timecard
    session.add(punch)
    session.flush()
    return punch


def _locked_punch(session: Session, punch_id: uuid.UUID) -> tuple[TimecardPunch, Provider]:
    """The punch and its provider, read after locking the provider's punch writes."""
    found = session.get(TimecardPunch, punch_id)
    if found is None:
        raise not_found("timecard-punch", punch_id)
    lock_provider(session, provider_id=found.provider_id)
    punch = session.scalars(
        select(TimecardPunch).where(TimecardPunch.id == punch_id)
        .execution_options(populate_existing=True)
    ).first()
    if punch is None:  # deleted while we waited for the lock
        raise not_found("timecard-punch", punch_id)
    return punch, get_provider(session, provider_id=punch.provider_id)


def _refuse_if_signed_off(session: Session, punch: TimecardPunch, at: datetime) -> None:
    """Raise `timesheet-signed-off` when `at` lies in an active sign-off of the punch's provider
    (whose row `_locked_punch` locked)."""
    sign_offs.refuse_if_signed_off(session, provider_ids=[punch.provider_id], start=at,
                                   what=f"The punch at {format_timestamp(at)}")


def delete_punch(session: Session, *, actor: Actor, punch_id: uuid.UUID) -> None:
    """Delete a punch: any punch with `edit` Timecard, or the caller's own pending punch with
    `create` Timecard. The next actions then follow the remaining punches.
    Raises `timecard-punch-not-found`, `unauthorized`, `timesheet-signed-off`."""
    punch, provider = _locked_punch(session, punch_id)
    fields = timecard_fields(provider, punch.timecard)
    if not actor.can("edit", "Timecard", fields):
        own = actor.provider_id == punch.provider_id and actor.can("create", "Timecard", fields)
        if not own:
            actor.require("edit", "Timecard", fields)
        if punch.state != "pending":
            raise _refuse("edit", f"This punch is already {punch.state}; only pending punches can "
                                  "be withdrawn by their provider. Ask your manager to correct it.")
    _refuse_if_signed_off(session, punch, punch.time)
    session.delete(punch)
    session.flush()


def update_punch(session: Session, *, actor: Actor, punch_id: uuid.UUID,
                 body: wire.PunchUpdate, now: datetime, zone: tzinfo) -> TimecardPunch:
    """Review a punch: `state` needs `approve` Timecard, `adminNote` and `time` need `edit`.

    A corrected time must stay inside the punch's timecard period and at most `MAX_AHEAD` after
    now. The punch sequence is not re-checked: next actions follow the punches as they now are.
    Raises `timecard-punch-not-found`, `unauthorized`, `timesheet-signed-off` (the punch's
    time, or the corrected one, lies in an active sign-off), `validation`.
    """
    punch, provider = _locked_punch(session, punch_id)
    fields = timecard_fields(provider, punch.timecard)
    if not (actor.can("approve", "Timecard", fields) or actor.can("edit", "Timecard", fields)):
        # even a PATCH that changes nothing answers the punch: only to whom may review it
        actor.require("approve" if body.state is not None else "edit", "Timecard", fields)
    sent = body.model_fields_set
    if body.state is not None:
        actor.require("approve", "Timecard", fields)
    if "admin_note" in sent or body.time is not None:
        actor.require("edit", "Timecard", fields)
    _refuse_if_signed_off(session, punch, punch.time)
    if body.time is not None:
        _refuse_if_signed_off(session, punch, body.time)
    if body.time is not None:
        _check_punch_time(body.time, now)
        card = punch.timecard
        if not Interval(card.period_start, card.period_end).contains(body.time):
            raise validation(
                "/time",
                f"must stay inside the punch's pay period {format_timestamp(card.period_start)} "
                f"to {format_timestamp(card.period_end)}; to move the punch to another period, "
                "delete it and punch again",
            )
        punch.time = body.time
    rejected = body.state == "rejected" and punch.state != "rejected"
    if body.state is not None:
        punch.state = body.state
    if "admin_note" in sent:
        punch.admin_note = body.admin_note
    if body.state is not None or body.time is not None or "admin_note" in sent:
        punch.reviewed_by = actor.user_id
    session.flush()
    if rejected:  # its provider hears why (the admin note)
        notifications.punch_rejected(session, punch=punch, actor_id=actor.user_id, zone=zone)
    return punch


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
        raise validation(path, f"must lie {SUPPORTED_RANGE}")


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


_PUNCH_COLUMNS = (
    wire_id(TimecardPunch.id).label("id"),
    wire_id(TimecardPunch.timecard_id).label("timecard_id"),
    wire_id(TimecardPunch.provider_id).label("provider_id"),
    TimecardPunch.generated,
    wire_time(TimecardPunch.created_at).label("created_at"),
    wire_time(TimecardPunch.updated_at).label("updated_at"),
    TimecardPunch.action,
    TimecardPunch.state,
    wire_time(TimecardPunch.time).label("time_text"),
    TimecardPunch.provider_note,
    TimecardPunch.admin_note,
    wire_id(TimecardPunch.created_by).label("created_by"),
    wire_id(TimecardPunch.reviewed_by).label("reviewed_by"),
)
"""A punch's `TimecardPunchRead` members as wire text, in the contract's order."""

_PUNCH_MEMBERS = ("id", "timecardId", "providerId", "generated", "createdAt", "updatedAt",
                  "action", "state", "time", "providerNote", "adminNote", "createdBy",
                  "reviewedBy")
"""The wire names of `_PUNCH_COLUMNS`, in the same order."""


class _PunchRow(NamedTuple):
    """A punch as `_load` reads it: `_PUNCH_COLUMNS`, then the instant the computation uses.

    A named tuple rather than the Core row it is read from: the computation reads a page's
    punches' attributes some hundred thousand times, and a Core row's attribute look-up costs
    twenty times a named tuple's."""

    id: str
    timecard_id: str
    provider_id: str
    generated: bool
    created_at: str
    updated_at: str
    action: str
    state: str
    time_text: str
    provider_note: str | None
    admin_note: str | None
    created_by: str | None
    reviewed_by: str | None
    time: datetime


@dataclass(frozen=True)
class _Loaded:
    """The rows of a page of timesheets, by provider id text (ids as text: see `_load`)."""

    shifts: dict[str, list[sheets.ScheduledShift]]
    punches: dict[str, list[_PunchRow]]
    periods: dict[str, list[sheets.TimecardPeriod]]
    overrides: dict[str, str]
    """The work rule override of each shift that has one, by shift id (as text)."""


def _load(session: Session, provider_ids: Sequence[uuid.UUID], low: datetime, high: datetime
          ) -> _Loaded:
    """Shifts, punches and timecards of these providers around `[low, high)`: four statements.

    Ids are read as their wire text (`wire_id`) and handed to the domain as such: a page holds
    tens of thousands of them, and each would otherwise become a `uuid.UUID` only to be written
    back as text. Instants the computation needs stay datetimes; a punch's instants are also
    read as wire text (`wire_time`), since the answer repeats them unchanged.
    """
    in_range = (Shift.provider_id.in_(provider_ids), Shift.is_callout.is_(False),
                Shift.end_date > low, Shift.start_date < high)
    connection = session.connection()  # Core rows: no ORM result machinery for plain columns

    def run(statement: Select[Any]) -> Sequence[Any]:
        return connection.execute(statement).all()  # one fetch, not one call per row

    segments: dict[str, list[sheets.ScheduledSegment]] = defaultdict(list)
    for shift_id, kind, start, end, role_id in run(
        select(wire_id(ShiftSegment.shift_id), ShiftSegment.type, ShiftSegment.start_date,
               ShiftSegment.end_date, wire_id(ShiftSegment.role_id))
        .join(Shift, Shift.id == ShiftSegment.shift_id)
        .where(*in_range)
        .order_by(ShiftSegment.start_date, ShiftSegment.id)
    ):
        segments[shift_id].append(sheets.ScheduledSegment(kind, start, end, role_id))
    shifts: dict[str, list[sheets.ScheduledShift]] = defaultdict(list)
    overrides: dict[str, str] = {}
    for shift_id, provider_id, start, end, pay_code_id, override in run(
        select(wire_id(Shift.id), wire_id(Shift.provider_id), Shift.start_date, Shift.end_date,
               wire_id(ShiftPayCode.pay_code_id), wire_id(Shift.work_rule_override))
        .outerjoin(ShiftPayCode, ShiftPayCode.shift_id == Shift.id)
        .where(*in_range)
    ):
        shifts[provider_id].append(sheets.ScheduledShift(
            shift_id, start, end, tuple(segments.get(shift_id, ())), pay_code_id))
        if override is not None:
            overrides[shift_id] = override
    punches: dict[str, list[_PunchRow]] = defaultdict(list)
    for punch in map(_PunchRow._make, run(
        select(*_PUNCH_COLUMNS, TimecardPunch.time)
        .where(TimecardPunch.provider_id.in_(provider_ids), TimecardPunch.time >= low,
               TimecardPunch.time < high)
        .order_by(TimecardPunch.time, TimecardPunch.created_at, TimecardPunch.id)
    )):
        punches[punch.provider_id].append(punch)
    periods: dict[str, list[sheets.TimecardPeriod]] = defaultdict(list)
    for card_id, provider_id, start, end in run(
        select(wire_id(Timecard.id), wire_id(Timecard.provider_id), Timecard.period_start,
               Timecard.period_end)
        .where(Timecard.provider_id.in_(provider_ids), Timecard.period_end > low,
               Timecard.period_start < high)
    ):
        periods[provider_id].append(sheets.TimecardPeriod(card_id, start, end))
    return _Loaded(shifts, punches, periods, overrides)


def _punch_document(row: _PunchRow, shift_id: str | None, rounded: datetime | None
                    ) -> Document:
    """A punch of `_load` as the wire's `TimesheetPunchRead`: its leading columns are the
    members' values in order (zip stops at the last member, before the row's datetime), then
    the shift it was worked for and the instant a rounding rule paid it at."""
    document = dict(zip(_PUNCH_MEMBERS, row, strict=False))
    document["shiftId"] = shift_id
    document["roundedTime"] = format_timestamp(rounded) if rounded is not None else None
    return document


def _pay_segment_document(s: sheets.PaySegment) -> Document:
    """A pay segment as the wire's `PaySegment`; overtime names its rule and why."""
    document: Document = {
        "id": s.id, "type": s.type, "startDate": format_timestamp(s.start), "itemId": None,
        "shiftId": s.shift_id, "timecardId": s.timecard_id,
        "endDate": format_timestamp(s.end), "payCodes": list(s.pay_codes),
        "workRuleOverride": None, "role": s.role_id}
    if s.overtime:
        document["overtime"] = list(s.overtime)
    if s.basis is not None:
        kind, low, high = s.basis
        document["overtimeBasis"] = {"kind": kind, "fromMinutes": low, "toMinutes": high}
    return document


def _error_document(error: sheets.TimesheetError) -> Document:
    """A timesheet error as the wire's `TimesheetError` (absent ids left out)."""
    document: Document = {"type": error.type}
    if error.shift_id is not None:
        document["shiftId"] = error.shift_id
    if error.timecard_id is not None:
        document["timecardId"] = error.timecard_id
    return document


def _timesheet_document(provider_id: str, sheet: sheets.Timesheet, window: tuple[str, str]
                        ) -> Document:
    """A sheet computed from `_load`'s rows as the wire's `TimesheetRead`, members in the
    contract's order.

    Its ids are the text `_load` read, and its punches the punch rows it was given (those in
    the window); only the pay segments' instants are computed, so formatted here.
    """
    return {
        "providerId": provider_id,
        "startDate": window[0],
        "endDate": window[1],
        "punches": [_punch_document(row, sheet.punch_shifts.get(row.id),
                                    sheet.rounded.get(row.id))
                    for row in sheet.punches],
        "warnings": [{"type": w.type, "punchId": w.punch_id} for w in sheet.warnings],
        "errors": [_error_document(e) for e in sheet.errors],
        "payCodeTotals": [
            {"payCodeId": t.pay_code_id, "roleId": t.role_id, "scheduled": t.scheduled,
             "actual": t.actual}
            for t in sheet.pay_code_totals],
        "paySegments": [_pay_segment_document(s) for s in sheet.pay_segments],
        "weeks": [
            {"startDate": format_timestamp(w.start), "regularMinutes": w.regular_minutes,
             "overtimeMinutes": w.overtime_minutes, "doubleTimeMinutes": w.double_time_minutes}
            for w in sheet.weeks],
        "overtimeStartsAt": (format_timestamp(sheet.overtime_starts_at)
                             if sheet.overtime_starts_at is not None else None),
    }


def timesheet_documents(session: Session, *, providers: Sequence[Provider], start: datetime,
                        end: datetime, now: datetime, zone: tzinfo, grace_minutes: int
                        ) -> list[Document]:
    """Return the timesheets of these providers for `[start, end)`, in the providers' order,
    as the wire's `TimesheetRead` documents."""
    if not providers:
        return []
    return _timesheet_documents(session, providers=providers, start=start, end=end, now=now,
                                zone=zone, grace_minutes=grace_minutes)


def timesheets_for(session: Session, *, providers: Sequence[Provider], start: datetime,
                   end: datetime, now: datetime, zone: tzinfo, grace_minutes: int
                   ) -> list[wire.TimesheetRead]:
    """Return the timesheets of these providers for `[start, end)`, in the providers' order, as
    contract models (for reports: validated from the same documents the API answers)."""
    documents = timesheet_documents(session, providers=providers, start=start, end=end, now=now,
                                    zone=zone, grace_minutes=grace_minutes)
    return [wire.TimesheetRead.model_validate(d) for d in documents]


def _timesheet_documents(session: Session, *, providers: Sequence[Provider], start: datetime,
                         end: datetime, now: datetime, zone: tzinfo, grace_minutes: int
                         ) -> list[Document]:
    window = (format_timestamp(start), format_timestamp(end))
    sheets_of = computed_timesheets(session, providers=providers, start=start, end=end, now=now,
                                    zone=zone, grace_minutes=grace_minutes)
    return [_timesheet_document(str(provider.id), sheet, window)
            for provider, sheet in zip(providers, sheets_of, strict=True)]


def computed_timesheets(session: Session, *, providers: Sequence[Provider], start: datetime,
                        end: datetime, now: datetime, zone: tzinfo, grace_minutes: int,
                        rules: Sequence[pay_rules.WorkRule] | None = None,
                        ) -> list[sheets.Timesheet]:
    """Return the computed timesheets (ids as text) of these providers for `[start, end)`, in
    the providers' order: what the timesheet documents are made of, and what the payroll export
    reads the per-day figures (`pay_code_days`) from.

    Each provider's time is paid under the work rule of their team (every version, so each
    workweek takes the version in effect on its first day), and a shift's time under its
    `workRuleOverride`'s version in effect on the shift's first day. With rules, shifts and
    punches are loaded from the start of the workweek (or 14-day period) holding the window's
    start, since overtime depends on the work before the window. Given `rules` (a draft's
    versions, for a preview) replace every provider's team rule.
    """
    if not providers:
        return []
    default = default_pay_code_id(session)
    pay_code = str(default) if default is not None else None
    if rules is not None:
        rules_of = [tuple(rules)] * len(providers)
    else:
        versions = rule_versions_for_teams(
            session, {p.team_id for p in providers if p.team_id is not None})
        team_rules = {team: tuple(engine_rule(v) for v in found)
                      for team, found in versions.items()}
        rules_of = [team_rules.get(p.team_id, ()) for p in providers]
    low = min(sheets.context_start(start, given) for given in rules_of)
    loaded = _load(session, [p.id for p in providers], min(low, start - LOAD_MARGIN),
                   end + LOAD_MARGIN)
    overrides = _override_rules(session, loaded)
    result: list[sheets.Timesheet] = []
    for provider, provider_rules in zip(providers, rules_of, strict=True):
        provider_id = str(provider.id)
        template, _why = _template(provider, zone)
        role = provider.default_role_id
        shifts = loaded.shifts.get(provider_id, [])
        if overrides:
            shifts = [replace(s, work_rule=overrides[s.id]) if s.id in overrides else s
                      for s in shifts]
        result.append(sheets.compute_timesheet(sheets.TimesheetInput(
            start=start, end=end, now=now, zone=zone,
            shifts=shifts,
            punches=loaded.punches.get(provider_id, []),
            timecards=loaded.periods.get(provider_id, []),
            has_pay_period_template=template is not None,
            default_pay_code_id=pay_code,
            default_role_id=str(role) if role is not None else None,
            grace_minutes=grace_minutes,
            rules=provider_rules,
        )))
    return result


@lru_cache(maxsize=512)
def engine_rule(version: WorkRuleVersionData) -> pay_rules.WorkRule:
    """A stored work rule version as the pay engine takes it, ids as text (as the timesheet
    computation holds them). Cached: a team's page names the same few versions."""
    rounding = version.rounding
    return pay_rules.WorkRule(
        id=str(version.work_rule_id),
        zone=ZoneInfo(version.time_zone),
        week_start_day=version.week_start_day,
        week_start_time=version.week_start_time,
        day_start_time=version.day_start_time,
        overtime=tuple(
            pay_rules.OvertimeRule(id=str(o.id), kind=o.kind,  # type: ignore[arg-type]
                                   threshold_minutes=o.threshold_minutes,
                                   pay_code_id=str(o.pay_code_id), multiplier=o.multiplier,
                                   name=o.name)
            for o in version.overtime),
        rounding=None if rounding is None else pay_rules.RoundingRule(
            rounding.interval_minutes, rounding.mode),  # type: ignore[arg-type]
        meal=None if version.meal_deduct_minutes is None else pay_rules.MealRule(
            version.meal_deduct_minutes, version.meal_after_minutes or 0),
        min_unpaid_break_minutes=version.min_unpaid_break_minutes,
        counting_pay_codes=frozenset(str(i) for i in version.counting_pay_code_ids),
        period_anchor=version.period_anchor,
        effective_from=version.effective_from,
    )


def _override_rules(session: Session, loaded: _Loaded) -> dict[str, pay_rules.WorkRule]:
    """The work rule each overriding shift is paid under: its override's version in effect on
    the shift's first local day (in the rule's zone), by shift id. One statement, none without
    overrides."""
    if not loaded.overrides:
        return {}
    versions = rule_versions_by_id(session, {uuid.UUID(o) for o in loaded.overrides.values()})
    found: dict[str, pay_rules.WorkRule] = {}
    for shifts in loaded.shifts.values():
        for shift in shifts:
            override = loaded.overrides.get(str(shift.id))
            rules = tuple(engine_rule(v) for v in versions.get(uuid.UUID(override), ())
                          ) if override is not None else ()
            if rules:
                day = shift.start.astimezone(rules[0].zone).date()
                rule = pay_rules.version_at(rules, day)
                if rule is not None:
                    found[str(shift.id)] = rule
    return found


def get_timesheet(session: Session, *, actor: Actor, provider_id: uuid.UUID, start: datetime,
                  end: datetime, now: datetime, zone: tzinfo, grace_minutes: int
                  ) -> Document:
    """Return one provider's timesheet (a `TimesheetRead` document). Raises `negative-range`,
    `validation`, `provider-not-found`, `unauthorized`."""
    check_window(start, end)
    provider = get_provider(session, provider_id=provider_id)
    actor.require("view", "Timesheet", TIMESHEET.of(provider))
    return timesheet_documents(session, providers=[provider], start=start, end=end, now=now,
                               zone=zone, grace_minutes=grace_minutes)[0]


def list_team_timesheets(session: Session, *, actor: Actor, query: wire.TimesheetQuery,
                         pages: Paginator, now: datetime, zone: tzinfo, grace_minutes: int
                         ) -> Document:
    """Return one page of timesheets (a `TimesheetPage` document), one per provider of the team
    the actor may view, by provider name. Raises `negative-range`, `validation`,
    `team-not-found`."""
    check_window(query.start_date, query.end_date)
    assert query.team is not None  # the query model requires provider or team
    if session.get(Team, query.team) is None:
        raise not_found("team", query.team)
    statement = select(Provider).where(
        Provider.team_id == query.team,
        actor.where("view", "Timesheet", TIMESHEET.columns),
    ).options(load_only(Provider.id, Provider.name, Provider.team_id, Provider.default_role_id,
                        Provider.pay_period_template, raiseload=True))
    rows, cursor = pages.page(session, statement, scope="timesheets", query=query,
                              order=[SortKey(Provider.name), SortKey(Provider.id)])
    items = timesheet_documents(session, providers=rows, start=query.start_date,
                                end=query.end_date, now=now, zone=zone,
                                grace_minutes=grace_minutes)
    return {"items": items, "cursor": cursor}
