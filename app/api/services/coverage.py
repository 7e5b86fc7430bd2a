"""Staffing coverage of a team (`GET /v1/forecasting/coverage`): its roles' demand against the
staff scheduled and the open shifts offered, interval by interval (`app.api.domain.coverage`).

Three reads: the forecast rows of the team's roles overlapping the window (those the actor may
view), the working segments of the team's shifts overlapping it, and the approved time off of
the people on those shifts. Needs `view` on `DemandForecast`, and `view` on `Shift` in the
team. Must not commit or read the request.

`needed_minutes` derives one figure per open shift from the same counts for the claim checks
(`GET /v1/shifts/claim-checks`): how much of it is short of staff. It reads the forecast for
whoever may view the shifts, and answers with nothing but those minutes.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Callable
from datetime import datetime, timedelta, tzinfo
from fractions import Fraction
from typing import Any

from sqlalchemy import ColumnElement, Select, Uuid, false, select, type_coerce
from sqlalchemy.orm import Session
from sqlalchemy.types import NullType

from app.api.auth import Actor
from app.api.db import UtcDateTime
from app.api.domain import coverage as rules
from app.api.domain.intervals import Interval
from app.api.domain.shifts import LONGEST_SHIFT
from app.api.domain.slots import time_off_block
from app.api.models import (
    DemandForecastRow,
    Role,
    Shift,
    ShiftSegment,
    Team,
    TimeOffDay,
    TimeOffRequest,
)
from app.api.problems import ProblemError, not_found, validation
from app.api.services import time_off
from app.api.subjects import DEMAND_FORECAST
from app.api.wire_text import Document
from app.contract.common import EARLIEST, LATEST, SUPPORTED_RANGE, format_timestamp
from app.contract.forecasting import MAX_COVERAGE_DAYS, CoverageQuery
from app.contract.problems import ProblemCode

_PLACES = 4
"""Decimal places of the figures on the wire (they are computed exactly)."""


def _window(query: CoverageQuery) -> Interval[datetime]:
    for value, path in ((query.start_date, "startDate"), (query.end_date, "endDate")):
        if not EARLIEST <= value <= LATEST:
            raise validation(path, f"must lie {SUPPORTED_RANGE}")
    if query.end_date <= query.start_date:
        raise ProblemError(
            ProblemCode.NEGATIVE_RANGE,
            "endDate must come after startDate; pick a later endDate or an earlier startDate.",
            path="endDate")
    if query.end_date - query.start_date > timedelta(days=MAX_COVERAGE_DAYS):
        raise validation("endDate", f"coverage spans at most {MAX_COVERAGE_DAYS} days; ask for "
                                    "a shorter window")
    return Interval(query.start_date, query.end_date)


def _roles(session: Session, team: Team, role_id: uuid.UUID | None) -> list[Role]:
    """The team's roles by name (or the one asked for, which must be the team's)."""
    statement = select(Role).where(Role.team_id == team.id).order_by(Role.name, Role.id)
    if role_id is not None:
        role = session.get(Role, role_id)
        if role is None or role.team_id != team.id:
            raise not_found("role", role_id)
        return [role]
    return list(session.scalars(statement))


def _converter(column: ColumnElement[Any], dialect: Any) -> Callable[[Any], Any]:
    """The column type's own conversion of a driver value, memoised per value."""
    process = column.type.dialect_impl(dialect).result_processor(dialect, None)
    memo: dict[Any, Any] = {}

    def convert(value: Any) -> Any:
        try:
            return memo[value]
        except KeyError:
            memo[value] = found = process(value) if process is not None else value
            return found

    return convert


def _memoised(column: ColumnElement[Any]) -> bool:
    """Whether the column's values repeat enough to convert once per value (ids, instants)."""
    return isinstance(column.type, (Uuid, UtcDateTime))


def _rows(session: Session, columns: list[ColumnElement[Any]],
          shape: Callable[[Select[Any]], Select[Any]]) -> list[tuple[Any, ...]]:
    """The rows of `columns` (filtered by `shape`), each value converted as its column type
    converts it, ids and instants once per distinct value: a team's fortnight is thousands of
    segment rows sharing a few hundred ids and instants, and converting every uuid and
    timestamp anew cost more than the rest of the request."""
    connection = session.connection()
    statement = shape(select(*[type_coerce(c, NullType()).label(f"c{n}") if _memoised(c)
                               else c.label(f"c{n}") for n, c in enumerate(columns)]))
    converters = [_converter(c, connection.dialect) if _memoised(c) else None for c in columns]
    raw = connection.execute(statement).all()
    if not raw:
        return []
    return list(zip(*[list(map(convert, values)) if convert is not None else values
                      for convert, values in zip(converters, zip(*raw, strict=True),
                                                 strict=True)], strict=True))


def _demand(session: Session, actor: Actor | None, roles: list[uuid.UUID],
            window: Interval[datetime]) -> list[rules.Load]:
    """The forecast rows of `roles` overlapping the window: those `actor` may view, or every
    one with no actor (for a figure derived from them that reveals no demand)."""
    allowed = [] if actor is None else [
        actor.where("view", "DemandForecast", DEMAND_FORECAST.columns)]
    rows = _rows(
        session, [DemandForecastRow.role_id, DemandForecastRow.start_date,
                  DemandForecastRow.end_date, DemandForecastRow.demand],
        lambda statement: statement.where(
            DemandForecastRow.role_id.in_(roles), DemandForecastRow.start_date < window.end,
            DemandForecastRow.end_date > window.start, *allowed))
    # The stored float as written (2.5, not its binary neighbour), then exact; once per value
    # (forecasts repeat a handful of values, and parsing one costs more than the rest of a row).
    exact: dict[float, Fraction] = {}
    loads = []
    for role_id, start, end, demand in rows:
        count = exact.get(demand)
        if count is None:
            count = exact[demand] = Fraction(repr(demand))
        loads.append(rules.Load(role_id, start, end, count))
    return loads


def _away(session: Session, people: set[uuid.UUID], window: Interval[datetime],
          zone: tzinfo, assumed: TimeOffRequest | None = None,
          ) -> dict[uuid.UUID, list[Interval[datetime]]]:
    """Each person's approved time off near the window (a full day blocks its local day), and
    the `assumed` request as if approved. Read as columns (two reads: the requests, then the
    days of the full-day ones), not as objects: a team's fortnight holds dozens of them."""
    if not people:
        return {}
    margin = timedelta(days=2)
    requests = session.execute(
        select(TimeOffRequest.id, TimeOffRequest.provider_id, TimeOffRequest.start_date,
               TimeOffRequest.end_date, TimeOffRequest.is_full_day)
        .where(TimeOffRequest.provider_id.in_(people), TimeOffRequest.status == "approved",
               TimeOffRequest.start_date < window.end + margin,
               TimeOffRequest.end_date > window.start - margin)).all()
    full_days = [row.id for row in requests if row.is_full_day]
    days: dict[uuid.UUID, list[datetime]] = defaultdict(list)
    if full_days:
        for request_id, day in session.execute(
                select(TimeOffDay.request_id, TimeOffDay.date)
                .where(TimeOffDay.request_id.in_(full_days))):
            days[request_id].append(day)
    spans = [(row.provider_id, row.start_date, row.end_date, row.is_full_day, days.get(row.id, []))
             for row in requests]
    if assumed is not None and assumed.provider_id in people:
        spans.append((assumed.provider_id, assumed.start_date, assumed.end_date,
                      assumed.is_full_day, [day.date for day in assumed.daily_hours]))
    found: dict[uuid.UUID, list[Interval[datetime]]] = defaultdict(list)
    for person, start, end, is_full_day, its_days in spans:
        found[person].extend(time_off_block(start, end, is_full_day=is_full_day,
                                            days=its_days, zone=zone))
    return found


def _staff(session: Session, team_id: uuid.UUID, roles: list[uuid.UUID],
           window: Interval[datetime], zone: tzinfo, assumed: TimeOffRequest | None = None,
           ) -> tuple[list[rules.Load], list[rules.Load]]:
    """The scheduled loads (per person, less their approved time off) and the open ones."""
    rows = _rows(
        session, [Shift.provider_id, ShiftSegment.role_id, ShiftSegment.start_date,
                  ShiftSegment.end_date],
        lambda statement: statement
        .select_from(ShiftSegment).join(Shift, Shift.id == ShiftSegment.shift_id)
        .where(Shift.team_id == team_id,  # the (team, start) index: one range of it
               Shift.start_date >= window.start - LONGEST_SHIFT, Shift.start_date < window.end,
               Shift.is_callout == false(),
               ShiftSegment.type == "working", ShiftSegment.is_break == false(),
               ShiftSegment.is_on_call == false(), ShiftSegment.role_id.in_(roles),
               ShiftSegment.start_date < window.end, ShiftSegment.end_date > window.start))
    offered: list[rules.Load] = []
    worked: dict[tuple[uuid.UUID, uuid.UUID], list[Interval[datetime]]] = defaultdict(list)
    for person, role, start, end in rows:
        if end <= start:
            continue
        if person is None:
            offered.append(rules.Load(role, start, end))
        else:
            worked[(person, role)].append(Interval(start, end))
    away = _away(session, {person for person, _role in worked}, window, zone, assumed)
    scheduled = [load for (person, role), spans in worked.items()
                 for load in rules.working(role, spans, away.get(person, []))]
    return scheduled, offered


def _number(total: int, per: int) -> float:
    """`total / per` to `_PLACES` decimal places (one correctly rounded division of integers;
    never -0.0)."""
    return round(total / per, _PLACES) + 0.0


def _interval(cell: rules.Cell, stamps: dict[datetime, str]) -> Document:
    """The cell as the wire writes it (`CoverageInterval`), built as a plain document: a month
    of hours for every role is thousands of them, and every value is made here. `stamps` holds
    the wire form of every bound (each role's cells share them)."""
    per = cell.scale * cell.seconds
    return {"startDate": stamps[cell.start], "endDate": stamps[cell.end],
            "demand": _number(cell.demand_sum, per),
            "scheduled": _number(cell.scheduled_sum, per),
            "open": _number(cell.open_sum, per), "gap": _number(cell.gap_sum, per)}


def _short_hours(cells: list[rules.Cell]) -> float:
    if not cells:
        return 0.0
    return _number(sum(max(c.gap_sum, 0) for c in cells), cells[0].scale * 3600)


def team_coverage(session: Session, *, actor: Actor, query: CoverageQuery,
                  zone: tzinfo) -> Document:
    """The team's coverage over the query's window, as a `CoverageRead` document. Raises
    `unauthorized`, `team-not-found`, `role-not-found` (not a role of the team),
    `time-off-request-not-found` (`assumeApproved`), `negative-range`, `validation`."""
    actor.require("view", "DemandForecast")
    team = session.get(Team, query.team_id)
    if team is None:
        raise not_found("team", query.team_id)
    actor.require("view", "Shift", {"team": team.id})
    window = _window(query)
    roles = _roles(session, team, query.role_id)
    ids = [role.id for role in roles]
    demand = _demand(session, actor, ids, window) if ids else []
    assumed = None
    if query.assume_approved is not None:
        assumed = time_off.get_request(session, actor=actor, request_id=query.assume_approved)
    scheduled, offered = (_staff(session, team.id, ids, window, zone, assumed) if ids
                          else ([], []))
    bounds = rules.grid(window, query.interval, zone)
    cells = rules.coverage(bounds, ids, demand=demand, scheduled=scheduled, offered=offered)
    forecast = {load.role_id for load in demand}
    stamps = {bound: format_timestamp(bound) for bound in bounds}
    return {
        "teamId": str(team.id), "startDate": format_timestamp(window.start),
        "endDate": format_timestamp(window.end), "interval": query.interval,
        "timeZone": str(zone),
        "roles": [{"roleId": str(role.id), "roleName": role.name,
                   "hasForecast": role.id in forecast,
                   "shortHours": _short_hours(cells[role.id]),
                   "intervals": [_interval(c, stamps) for c in cells[role.id]]}
                  for role in roles],
    }


def needed_minutes(session: Session, *, shift_ids: list[uuid.UUID], zone: tzinfo,
                   ) -> dict[uuid.UUID, int]:
    """Per shift of `shift_ids`, the whole minutes of its working time during which its role
    on its team is scheduled below demand (0 without a forecast), counting the staff of the
    team's assigned shifts as the coverage does (open shifts, callouts, breaks and on-call
    time aside; approved time off taken off).

    Read for whoever may view the shifts, demand included: the answer is one figure per shift
    and reveals no demand number. Two reads per team of the shifts, one for the segments.
    """
    if not shift_ids:
        return {}
    rows = session.execute(
        select(Shift.id, Shift.team_id, ShiftSegment.role_id, ShiftSegment.start_date,
               ShiftSegment.end_date)
        .select_from(ShiftSegment).join(Shift, Shift.id == ShiftSegment.shift_id)
        .where(Shift.id.in_(shift_ids), ShiftSegment.type == "working",
               ShiftSegment.is_break == false(), ShiftSegment.is_on_call == false(),
               ShiftSegment.role_id.is_not(None), ShiftSegment.end_date > ShiftSegment.start_date))
    by_team: dict[uuid.UUID, list[tuple[uuid.UUID, uuid.UUID, Interval[datetime]]]] = \
        defaultdict(list)
    for row in rows:
        by_team[row.team_id].append((row.id, row.role_id,
                                     Interval(row.start_date, row.end_date)))
    found = dict.fromkeys(shift_ids, 0)
    for team_id, parts in by_team.items():
        roles = sorted({role for _shift, role, _span in parts})
        window = Interval(min(span.start for *_, span in parts),
                          max(span.end for *_, span in parts))
        demand = _demand(session, None, roles, window)
        if not demand:
            continue
        scheduled, _offered = _staff(session, team_id, roles, window, zone)
        seconds = rules.short_seconds([(role, span) for _shift, role, span in parts],
                                      demand=demand, scheduled=scheduled)
        for (shift, _role, _span), short in zip(parts, seconds, strict=True):
            found[shift] += short
    return {shift: total // 60 for shift, total in found.items()}

