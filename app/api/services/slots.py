"""Appointment slot search in three statements, reading only what can make the best slots.

(1) the appointment type; (2) one UNION ALL of what is known per provider up front: the count of
their appointments in the window (the load in the score), the segments and appointments begun
before the window and still running (looked for only as far back as the longest shift or
appointment lasts: `LONGEST_SHIFT`, `LONGEST_APPOINTMENT`), approved time off with its days, only
the skill, enrollment and licensed-region rows the type's and the request's conditions name, and,
for a type limited to some roles, which providers have a candidate segment at all; (3) one
UNION ALL of candidate working segments and live appointments (for such a type, those of the
providers (2) found, bound as a list) in the window ordered by start
(on PostgreSQL a span of hours at a time, see `_stream_statement`), which
`app.api.domain.slots.find_slots_in_order` reads only as far as a slot there could still make
the top `limit` (then the statement is closed). The number of statements never depends on
the window or the data, and the result is exactly `find_slots`'s. The rules themselves live in
the domain module. Must not commit, write or know Flask.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import lru_cache
from itertools import chain
from operator import itemgetter
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo

from sqlalchemy import (
    ARRAY,
    ColumnElement,
    Select,
    String,
    and_,
    bindparam,
    cast,
    column,
    false,
    func,
    literal,
    null,
    or_,
    select,
    true,
    type_coerce,
    union_all,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from app.api.auth import Actor
from app.api.db import UtcDateTime
from app.api.domain import slots as rules
from app.api.domain.appointments import LONGEST_APPOINTMENT
from app.api.domain.intervals import Interval
from app.api.domain.shifts import LONGEST_SHIFT
from app.api.models import (
    Appointment,
    AppointmentType,
    Enrollment,
    Provider,
    ProviderSkill,
    ShiftSegment,
    TimeOffDay,
    TimeOffRequest,
    provider_enrollments,
)
from app.api.models.shifts import SEGMENT_CALLOUT, SEGMENT_PROVIDER
from app.api.problems import negative_range, not_found, validation
from app.api.wire_text import among, id_text, wire_id
from app.contract.appointments import AppointmentSlot, SlotCriteria, SlotSearch, SlotSearchResult

MAX_WINDOW_DAYS = 62
"""Longest search window (`endDate - startDate`) accepted; beyond it the search is refused."""

FIRST_SPAN = timedelta(hours=6)
"""Length of the first two spans of the stream on PostgreSQL (see `_spans`)."""

STREAM_BATCH = 500
"""Rows of the ordered stream fetched at a time from PostgreSQL's server-side cursor."""

FREEING_STATUSES = ("cancelled",)
"""Appointment statuses that free their time. `occurred`, `no-show` and `re-scheduled` still
occupy it: the record keeps the provider's time as booked, and a slot must never double-book."""

# A full-day time off request blocks whole local days that may begin up to a day before its
# start or end a day after its end (a day's `date` is written in UTC).
_TIME_OFF_MARGIN = timedelta(days=1)


class _unindexed(FunctionElement[Any]):
    """A column's own value, written so that SQLite's planner uses no index for a condition on
    it: `+column` (the unary plus is SQLite's documented no-op for that). Other databases get the
    bare column, keeping their statistics and estimates."""

    inherit_cache = True

    def __init__(self, column: Any) -> None:
        super().__init__(column)
        self.type = column.type  # conditions bind their values as the column's


@compiles(_unindexed)
def _bare(element: _unindexed, compiler: SQLCompiler, **kw: Any) -> str:
    (column,) = element.clauses
    return compiler.process(column, **kw)


@compiles(_unindexed, "sqlite")
def _plus(element: _unindexed, compiler: SQLCompiler, **kw: Any) -> str:
    (column,) = element.clauses
    return f"+{compiler.process(column, **kw)}"


def _uuids(values: Iterable[str]) -> list[uuid.UUID]:
    """The values that are UUIDs; others cannot name a row, so they match nothing."""
    parsed: list[uuid.UUID] = []
    for value in values:
        try:
            parsed.append(uuid.UUID(str(value)))
        except ValueError:
            continue
    return parsed


class _Type(NamedTuple):
    """What a search needs of its appointment type."""

    id: uuid.UUID
    length: int
    allowed_roles: list[str] | None
    skill_requirement: dict[str, Any] | None


_TYPE_STATEMENT = select(AppointmentType.id, AppointmentType.length,
                         AppointmentType.allowed_roles, AppointmentType.skill_requirement,
                         AppointmentType.archived_at).where(
    AppointmentType.id == bindparam("type_id"))
"""The type's columns as a plain row: 0.27 ms of processor time against an ORM `get`'s 0.67,
which builds and tracks an object the search only reads four values of."""


def _load_type(session: Session, appointment_type_id: str) -> _Type:
    """The appointment type to search for; raises `appointment-type-not-found` when unknown or
    archived (an archived type is never offered)."""
    ids = _uuids([appointment_type_id])
    row = (session.connection().execute(_TYPE_STATEMENT, {"type_id": ids[0]}).first()
           if ids else None)
    if row is None or row.archived_at is not None:
        raise not_found("appointment-type", appointment_type_id)
    return _Type(row.id, row.length, row.allowed_roles, row.skill_requirement)


def _check_window(body: SlotSearch) -> Interval[datetime]:
    if body.end_date <= body.start_date:
        raise negative_range("/endDate")
    if body.end_date - body.start_date > timedelta(days=MAX_WINDOW_DAYS):
        raise validation("/endDate",
                         f"the search window may span at most {MAX_WINDOW_DAYS} days; "
                         "search a shorter period")
    return Interval(body.start_date, body.end_date)


@dataclass(frozen=True)
class _Shape:
    """What a search's statements look like. The values they compare with (the window, the
    allowed roles, the providers, the skills) are bound parameters, see `_parameters`."""

    role_limited: bool  # the type allows only some roles
    provider_limited: bool  # `requirements.providerIds` was given
    skill_pairs: int  # how many (skill, value) pairs the conditions name
    enrollments: bool  # an `enrollment` condition: read enrollment names
    regions: bool  # a `licensed_region` condition: read licensed regions
    in_spans: bool  # PostgreSQL: the stream reads the window a span of hours at a time


def _param(name: str, kind: Any, *, expanding: bool = False) -> Any:
    return bindparam(name, type_=kind, expanding=expanding)


_WINDOW_START = _param("window_start", UtcDateTime())
_WINDOW_END = _param("window_end", UtcDateTime())


def _segment_filters(shape: _Shape, *, ordered: bool = False, provider: bool = True,
                     ) -> list[ColumnElement[bool]]:
    """Which segments are candidates, whatever their time (with `provider`, their provider's
    status too). With `ordered`, SQLite is kept from serving the role, callout and status
    conditions from an index: its planner then walks the start-date index in order and the
    stream can be read lazily, instead of sorting every segment first."""
    def plain(column: Any) -> Any:
        return _unindexed(column) if ordered else column

    filters: list[ColumnElement[bool]] = [
        ShiftSegment.type == "working",
        ShiftSegment.is_break == false(),
        ShiftSegment.is_on_call == false(),
        plain(SEGMENT_CALLOUT) == false(),
    ]
    if provider:
        filters.append(plain(Provider.status) == "active")
    if shape.role_limited:
        filters.append(among(plain(ShiftSegment.role_id), "roles"))
    if shape.provider_limited:
        filters.append(among(SEGMENT_PROVIDER, "providers"))
    return filters


def _inside(start: Any, since: Any = _WINDOW_START, until: Any = _WINDOW_END,
            ) -> list[ColumnElement[bool]]:
    """Rows starting inside the window (or from `since` until `until`): one range of a
    start-date index, in order."""
    return [start >= since, start < until]


def _begun_before(start: Any, end: Any, since: str) -> list[ColumnElement[bool]]:
    """Rows begun before the window and still running at its start (few). No such row lasts
    longer than the longest allowed (`since` is the window's start less that), so only the index
    range of starts that far back is read, however long the history."""
    return [start >= _param(since, UtcDateTime()), start < _WINDOW_START, end > _WINDOW_START]


def _segments(filters: list[ColumnElement[bool]], *, provider: bool = True) -> Select[Any]:
    """Segments with their provider (the segment's copy of its shift's), and the provider's
    row unless `provider` is False. The copies spare joining the segments to their shifts: the
    window's shifts outnumber the segments of the roles a type allows many times over."""
    statement = select(SEGMENT_PROVIDER).select_from(ShiftSegment)
    if provider:
        statement = statement.join(Provider, Provider.id == SEGMENT_PROVIDER)
    return statement.where(*filters)


def _equal_conditions(requirement: Any) -> Iterator[tuple[str, str]]:
    """The `(skill, value)` pairs a requirement in its wire shape names (all `meets` looks at)."""
    if not isinstance(requirement, Mapping):
        return
    if requirement.get("type") == "equal":
        yield str(requirement.get("skill")), str(requirement.get("value"))
    for entry in requirement.get("entries") or []:
        yield from _equal_conditions(entry)


def _shape(kind: _Type, required_ids: list[uuid.UUID] | None,
           pairs: list[tuple[str, str]], *, in_spans: bool) -> _Shape:
    return _Shape(role_limited=kind.allowed_roles is not None,
                  provider_limited=required_ids is not None, skill_pairs=len(pairs),
                  enrollments=any(name == rules.ENROLLMENT for name, _value in pairs),
                  regions=any(name == rules.LICENSED_REGION for name, _value in pairs),
                  in_spans=in_spans)


def _spans(window: Interval[datetime]) -> dict[str, list[datetime]]:
    """The window cut into consecutive spans for a stream `in_spans`, their starts and their
    ends: `FIRST_SPAN`, `FIRST_SPAN` again, then each span twice the one before. Most searches
    stop within the first hours (a few hundred rows), and a span is sorted whole before its
    first row; one that reads the whole window sorts a few spans, not one per day."""
    starts: list[datetime] = []
    since, length = window.start, FIRST_SPAN
    while since < window.end:
        starts.append(since)
        since += length
        if len(starts) > 1:
            length *= 2
    return {"span_starts": starts, "span_ends": [*starts[1:], window.end]}


def _parameters(kind: _Type, window: Interval[datetime],
                required_ids: list[uuid.UUID] | None,
                pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """The values the statements of `_shape(kind, required_ids, pairs)` are bound to."""
    values: dict[str, Any] = {
        "window_start": window.start, "window_end": window.end,
        "appointments_since": window.start - LONGEST_APPOINTMENT,
        "segments_since": window.start - LONGEST_SHIFT,
        "time_off_since": window.start - _TIME_OFF_MARGIN,
        "time_off_until": window.end + _TIME_OFF_MARGIN,
        "roles": _uuids(kind.allowed_roles or []), "providers": required_ids or [],
        "enrollments": sorted(value for name, value in pairs if name == rules.ENROLLMENT),
    }
    for index, (name, value) in enumerate(pairs):
        values[f"skill_{index}"], values[f"value_{index}"] = name, value
    return values


def _candidates(shape: _Shape) -> Any:
    """For a type limited to some roles (and not to named providers), the providers who may
    get a slot, as a common table expression of the facts statement: those with a candidate
    segment starting in the window or begun before it and still running (the eligible); else
    None. Their time off, skills and regions are read for them alone, and the stream's
    appointments for the ones the facts answer (bound as `candidates`). Referred to by several
    parts, PostgreSQL works it out once.

    The providers whose segments qualify are found first and only then looked up for their
    status: joining every provider to thousands of segments before keeping a few hundred
    distinct ones took twice as long (6.9 against 3.6 ms at 2,000 providers)."""
    if not shape.role_limited or shape.provider_limited:
        return None
    working = (_segments(_segment_filters(shape, provider=False), provider=False)
               .where(ShiftSegment.start_date >= _param("segments_since", UtcDateTime()),
                      ShiftSegment.start_date < _WINDOW_END,
                      or_(ShiftSegment.start_date >= _WINDOW_START,
                          ShiftSegment.end_date > _WINDOW_START)))
    return (select(Provider.id.label("provider_id"))
            .where(Provider.status == "active", Provider.id.in_(working))
            .cte("candidates"))


# Both statements are built once per shape and kept: building one and deriving its cache key
# cost several milliseconds, more than running it. Only the SQL is kept, never a result.
@lru_cache(maxsize=64)
def _facts_statement(shape: _Shape) -> Any:
    """One UNION ALL of what is known before reading the window in order: each provider's
    count of appointments starting in the window (only the candidates' when the type allows only
    some roles; all in one row), the candidate segments and
    live appointments begun before the window and still running (few), approved time off (with
    its days), the skill, enrollment and licensed-region rows the conditions name, and, when the
    type allows only some roles, which providers have a candidate segment starting in the window
    (one row)."""
    text = String()

    def row(kind_name: str, provider_id: Any, *, start: Any = None,
            end: Any = None, team: Any = None, role: Any = None, full_day: Any = None,
            day: Any = None, request_id: Any = None, skill: Any = None, value: Any = None,
            regions: Any = None) -> list[Any]:
        def typed(value: Any, kind: Any) -> Any:
            # A typed NULL: PostgreSQL types a column of NULLs as text across a UNION.
            return cast(null(), kind) if value is None else value

        return [
            literal(kind_name, text).label("kind"),
            wire_id(typed(provider_id, Provider.id.type)).label("provider_id"),
            typed(start, UtcDateTime()).label("start_date"),
            typed(end, UtcDateTime()).label("end_date"),
            wire_id(typed(team, Provider.team_id.type)).label("team_id"),
            wire_id(typed(role, ShiftSegment.role_id.type)).label("role_id"),
            typed(full_day, TimeOffRequest.is_full_day.type).label("is_full_day"),
            typed(day, UtcDateTime()).label("day"),
            wire_id(typed(request_id, Appointment.id.type)).label("request_id"),
            typed(skill, text).label("skill"), typed(value, text).label("value"),
            typed(regions, Provider.licensed_regions.type).label("regions"),
        ]

    live = Appointment.status.not_in(FREEING_STATUSES)
    # The loads, time off, skills and regions of the candidates only.
    candidates = _candidates(shape)
    if candidates is None:
        loads = (select(Appointment.provider_id, func.count().label("count"))
                 .where(live, *_inside(Appointment.start_date))
                 .group_by(Appointment.provider_id))
    else:
        # Only the candidates' counts matter, each from its own range of the provider and
        # start-date index: at 2,000 providers, some 200 short ranges cost less than counting
        # every appointment of the window by provider (3.9 against 5.3 ms).
        loads = select(candidates.c.provider_id, select(func.count()).where(
            Appointment.provider_id == candidates.c.provider_id, live,
            *_inside(Appointment.start_date),
        ).scalar_subquery().label("count"))
    appointments_before = select(*row(
        "appointment", Appointment.provider_id, start=Appointment.start_date,
        end=Appointment.end_date,
    )).where(live, *_begun_before(Appointment.start_date, Appointment.end_date,
                                  "appointments_since"))
    segments_before = _segments(_segment_filters(shape, ordered=True)).with_only_columns(*row(
        "segment", SEGMENT_PROVIDER, start=ShiftSegment.start_date, end=ShiftSegment.end_date,
        team=Provider.team_id, role=ShiftSegment.role_id,
    )).where(*_begun_before(ShiftSegment.start_date, ShiftSegment.end_date, "segments_since"))
    time_off = select(*row(
        "time_off", TimeOffRequest.provider_id, start=TimeOffRequest.start_date,
        end=TimeOffRequest.end_date, full_day=TimeOffRequest.is_full_day, day=TimeOffDay.date,
        request_id=TimeOffRequest.id,
    )).select_from(TimeOffRequest).outerjoin(
        TimeOffDay, TimeOffDay.request_id == TimeOffRequest.id
    ).where(
        TimeOffRequest.status == "approved",
        TimeOffRequest.start_date < _param("time_off_until", UtcDateTime()),
        TimeOffRequest.end_date > _param("time_off_since", UtcDateTime()),
    )
    if shape.provider_limited:
        loads = loads.where(among(Appointment.provider_id, "providers"))
        appointments_before = appointments_before.where(
            among(Appointment.provider_id, "providers"))
        time_off = time_off.where(among(TimeOffRequest.provider_id, "providers"))

    def limited(part: Any, provider_id: Any) -> Any:
        return (part if candidates is None
                else part.where(provider_id.in_(select(candidates.c.provider_id))))

    # One row for all the counts, a list the database joins into one string: a row each costs
    # more to send and read than the counting.
    counts = loads.subquery("loads")
    loads = select(*row("loads", None, value=_joined(
        wire_id(counts.c.provider_id) + literal(":", text) + cast(counts.c.count, text))))
    time_off = limited(time_off, TimeOffRequest.provider_id)
    parts: list[Any] = [loads, appointments_before, segments_before, time_off]
    if shape.skill_pairs:
        parts.append(limited(select(*row(
            "skill", ProviderSkill.provider_id, skill=ProviderSkill.skill_name,
            value=ProviderSkill.value,
        )).where(or_(*(and_(ProviderSkill.skill_name == _param(f"skill_{index}", text),
                            ProviderSkill.value == _param(f"value_{index}", text))
                       for index in range(shape.skill_pairs)))), ProviderSkill.provider_id))
    if shape.enrollments:
        parts.append(limited(select(*row(
            "skill", provider_enrollments.c.provider_id, skill=literal(rules.ENROLLMENT, text),
            value=Enrollment.name,
        )).select_from(provider_enrollments).join(
            Enrollment, Enrollment.id == provider_enrollments.c.enrollment_id
        ).where(Enrollment.name.in_(_param("enrollments", text, expanding=True))),
            provider_enrollments.c.provider_id))
    if shape.regions:
        parts.append(limited(select(*row("regions", Provider.id,
                                         regions=Provider.licensed_regions))
                             .where(Provider.status == "active"), Provider.id))
    if candidates is not None:
        parts.append(select(*row("eligible", None,
                                 value=_joined(wire_id(candidates.c.provider_id)))))
    return union_all(*parts)


def _joined(values: Any) -> Any:
    """The values of a column joined into one string, `,` between them (NULL for none)."""
    return func.aggregate_strings(type_coerce(values, String()), ",")


@lru_cache(maxsize=64)
def _stream_statement(shape: _Shape) -> Any:
    """Candidate segments (with their provider's team) and live appointments starting inside the
    window, by start: two ranges of start-date indexes, merged lazily, so reading can stop
    early.

    PostgreSQL (15) cannot merge the two ordered ranges of a UNION ALL whose parts join or
    filter: it sorts the whole window before the first row. With `shape.in_spans` the window is
    read a span at a time instead (`_spans`), each span's rows sorted apart (`JOIN LATERAL`, in
    the order of `unnest`): the first rows come after the first span's sort, and the rows stay in
    start order.
    """
    text = String()
    if shape.in_spans:
        spans = func.unnest(_param("span_starts", ARRAY(UtcDateTime())),
                            _param("span_ends", ARRAY(UtcDateTime()))).table_valued(
            column("since", UtcDateTime()), column("until", UtcDateTime())
        ).render_derived(name="spans")
        since, until = spans.c.since, spans.c.until
    else:
        since, until = _WINDOW_START, _WINDOW_END
    segments = _segments(_segment_filters(shape, ordered=True)).with_only_columns(
        literal("segment", text).label("kind"), wire_id(SEGMENT_PROVIDER).label("provider_id"),
        wire_id(Provider.team_id).label("team_id"), wire_id(ShiftSegment.role_id).label("role_id"),
        ShiftSegment.start_date.label("start_date"),
        ShiftSegment.end_date.label("end_date"),
    ).where(*_inside(ShiftSegment.start_date, since, until))
    appointments = select(
        literal("appointment", text), wire_id(Appointment.provider_id),
        type_coerce(null(), text), type_coerce(null(), text),
        Appointment.start_date, Appointment.end_date,
    ).where(Appointment.status.not_in(FREEING_STATUSES),
            *_inside(Appointment.start_date, since, until))
    if shape.provider_limited:
        appointments = appointments.where(among(Appointment.provider_id, "providers"))
    if shape.role_limited and not shape.provider_limited:
        # The facts' eligible providers: the appointments of anyone else cannot touch a slot.
        appointments = appointments.where(among(Appointment.provider_id, "candidates"))
    if not shape.in_spans:
        compound = union_all(segments, appointments)
        return compound.order_by(compound.selected_columns.start_date)
    compound = union_all(segments.correlate(spans), appointments.correlate(spans))
    span = compound.order_by(compound.selected_columns.start_date).lateral("span")
    return select(*span.c).select_from(spans).join(span, true())


@dataclass
class _Facts:
    loads: dict[str, int] = field(default_factory=dict)
    time_off: list[rules.Busy] = field(default_factory=list)
    skills: dict[str, rules.SkillSet] = field(default_factory=dict)
    eligible: set[str] | None = None
    # Rows begun before the window, in the stream's shape (kind, provider, team, role,
    # start, end).
    before: list[tuple[Any, ...]] = field(default_factory=list)


def _facts(rows: Iterable[Any], zone: ZoneInfo, *, role_limited: bool) -> _Facts:
    """Sort the facts statement's rows by kind (its ids are already the wire's text)."""
    facts = _Facts(eligible=set() if role_limited else None)
    loads = facts.loads
    pairs: dict[str, list[tuple[str, str]]] = defaultdict(list)
    regions: dict[str, list[str]] = {}
    requests: dict[Any, tuple[Any, list[datetime]]] = {}
    eligible = facts.eligible
    before = facts.before
    # Rows are unpacked rather than read by name: a search reads hundreds of them. A row begun
    # before the window is kept in the stream's shape (`_stream_statement`'s columns).
    for (kind, provider_id, start, end, team_id, role_id, is_full_day, day, request_id,
         skill, value, provider_regions) in rows:
        if kind == "loads":
            for pair in value.split(",") if value else ():
                counted, _, number = pair.partition(":")
                provider_id = id_text(counted)
                loads[provider_id] = loads.get(provider_id, 0) + int(number)
        elif kind == "appointment":
            loads[provider_id] = loads.get(provider_id, 0) + 1
            before.append((kind, provider_id, None, None, start, end))
        elif kind == "segment":
            before.append((kind, provider_id, team_id, role_id, start, end))
            if eligible is not None:
                eligible.add(provider_id)
        elif kind == "time_off":
            _, days = requests.setdefault(request_id, ((provider_id, start, end, is_full_day),
                                                       []))
            if day is not None:
                days.append(day)
        elif kind == "skill":
            pairs[provider_id].append((skill, value))
        elif kind == "regions":
            regions[provider_id] = list(provider_regions or [])
        elif eligible is not None and value:  # the eligible providers' ids, joined
            eligible.update(id_text(found) for found in value.split(","))
    for (provider_id, start, end, is_full_day), days in requests.values():
        for block in rules.time_off_block(start, end, is_full_day=is_full_day, days=days,
                                          zone=zone):
            facts.time_off.append(rules.Busy(provider_id, block.start, block.end, "time_off"))
    facts.skills = {p: rules.skill_set(pairs.get(p, ()), licensed_regions=regions.get(p, ()))
                    for p in pairs.keys() | regions.keys()}
    before.sort(key=itemgetter(4))
    return facts


def _books_for_anyone(actor: Actor) -> bool:
    """Whether the actor may book an appointment with any provider, whoever they are.

    True for an admin, and when an unconditional allow decides before any deny can: rules are
    tried highest precedence first, and a conditional allow before it only allows sooner. Then
    no provider needs asking about one by one.
    """
    if actor.ability.is_admin:
        return True
    for rule in actor.ability.relevant("create", "Appointment"):
        if rule.inverted:
            return False
        if rule.conditions is None:
            return True
    return False


def _events(rows: Iterable[Any], actor: Actor, skills: Mapping[str, rules.SkillSet]
            ) -> Iterator[rules.WorkingSegment | rules.Busy]:
    """The stream as domain values; segments of providers the actor may not book are left out.

    The search stops early on the stream's start order, which a stream `in_spans` keeps by its
    plan (`JOIN LATERAL` over the spans in turn) rather than by a last `ORDER BY`: a row out of
    order is refused here instead of silently missing slots.
    """
    bookable: dict[str, bool] | None = None if _books_for_anyone(actor) else {}
    empty: rules.SkillSet = frozenset()
    reached: datetime | None = None
    for kind, provider_id, team_id, role_id, start, end in rows:
        if reached is not None and start < reached:
            raise RuntimeError("slot search stream out of start order")
        reached = start
        if kind == "appointment":
            yield rules.Busy(provider_id, start, end)
            continue
        if bookable is not None:
            allowed = bookable.get(provider_id)
            if allowed is None:
                allowed = bookable[provider_id] = actor.can("create", "Appointment", {
                    "providerId": provider_id, "status": "upcoming", "teamId": team_id,
                })
            if not allowed:
                continue
        yield rules.WorkingSegment(provider_id=provider_id, role_id=role_id, start=start,
                                   end=end, skills=skills.get(provider_id, empty))


def _criteria(criteria: SlotCriteria | None) -> tuple[frozenset[str] | None, Any]:
    if criteria is None:
        return None, None
    skill = (criteria.skill.model_dump(mode="json", by_alias=True)
             if criteria.skill is not None else None)
    ids = (frozenset(str(i) for i in _uuids(criteria.provider_ids))
           if criteria.provider_ids is not None else None)
    return ids, skill


def search_slots(session: Session, *, actor: Actor, body: SlotSearch, grid: int,
                 zone: ZoneInfo) -> SlotSearchResult:
    """Return the best free slots for the body's appointment type.

    Raises `unauthorized` (the actor may not create appointments), `appointment-type-not-found`
    (unknown or archived type), `negative-range` and `validation` (window over the limit).
    """
    actor.require("create", "Appointment")
    window = _check_window(body)
    kind = _load_type(session, body.appointment_type_id)
    required_ids, required_skill = _criteria(body.requirements)
    preferred_ids, preferred_skill = _criteria(body.preferences)
    requirements = rules.Requirements(
        allowed_roles=(frozenset(str(i) for i in _uuids(kind.allowed_roles))
                       if kind.allowed_roles is not None else None),
        skills=tuple(r for r in (kind.skill_requirement, required_skill) if r is not None),
        provider_ids=required_ids,
    )
    preferences = rules.Preferences(provider_ids=preferred_ids or frozenset(),
                                    skill=preferred_skill)
    pairs = sorted({pair for requirement in (*requirements.skills, preferred_skill)
                    for pair in _equal_conditions(requirement)})
    required = (_uuids(body.requirements.provider_ids)
                if body.requirements is not None and body.requirements.provider_ids is not None
                else None)
    shape = _shape(kind, required, pairs,
                   in_spans=session.get_bind().dialect.name == "postgresql")
    parameters = _parameters(kind, window, required, pairs)
    if shape.in_spans:
        parameters.update(_spans(window))
    # Rows, not ORM results, fetched all at once: one call to the driver instead of one a row.
    connection = session.connection()
    facts = _facts(connection.execute(_facts_statement(shape), parameters).all(), zone,
                   role_limited=shape.role_limited and not shape.provider_limited)
    possible = facts.eligible if required_ids is None else required_ids
    if facts.eligible is not None:
        parameters["candidates"] = facts.eligible  # bound as the text they were read as
    # A server-side cursor on PostgreSQL: rows come in batches, so that stopping early saves
    # reading (and sorting) the window's later spans. A batch of `STREAM_BATCH` rows: a search
    # reads a few hundred, in one or two round trips instead of the six to eight of batches
    # growing from one row. SQLite reads rows lazily anyway.
    # Read on the connection: rows, not ORM results, which would buffer the whole stream.
    stream = connection.execute(_stream_statement(shape), parameters,
                                execution_options={"yield_per": STREAM_BATCH})
    try:
        # Batch by batch (`partitions`), a list each: one call per batch instead of one per row.
        rows = chain(facts.before, chain.from_iterable(stream.partitions()))
        found = rules.find_slots_in_order(
            _events(rows, actor, facts.skills), facts.time_off,
            facts.loads, possible, kind.length, grid, window, zone, requirements, preferences,
            body.limit, skills=facts.skills)
    finally:
        stream.close()  # the rest of the stream is not needed: stop the query
    type_id = str(kind.id)
    return SlotSearchResult(results=[
        AppointmentSlot(score=slot.score, appointment_type_id=type_id, start_date=slot.start,
                        end_date=slot.end, provider_id=slot.provider_id)
        for slot in found
    ])

