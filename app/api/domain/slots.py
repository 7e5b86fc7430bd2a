"""Appointment slot search: free, grid-aligned slots of providers' working time, best first.

`find_slots` takes plain values (working segments with their provider's skills, busy intervals,
the type's length, the grid, the search window and the site zone) and returns scored slots. It
also holds the rules slot search shares: whether skills meet a `SkillRequirement`
(`meets`), which instants lie on the local grid (`on_grid`, `grid_starts`) and what time an
approved time off request blocks (`time_off_block`). No Flask, no SQL, no clock.

Rules (docs/architecture.md, "Slot search"):
- A slot lies inside ONE working segment of a provider (never across two), has exactly the
  type's length in elapsed (UTC) minutes, starts on the grid and lies inside the window.
- The segment's role must be allowed (`allowed_roles` None: any role; a segment without a role
  is then the only one refused), the provider must be in `provider_ids` when given (an empty
  list allows no one) and the provider's skills must meet every requirement.
- A slot overlaps no busy interval of its provider (appointments that are not cancelled and
  approved time off; the caller decides which rows are busy).
- The grid: instants whose LOCAL wall-clock time is a whole multiple of `grid` minutes after
  local midnight, so with a grid dividing 60 every local hour starts a slot. Across a DST change
  the grid follows the wall clock (in a zone with a :30 offset, local :00 is UTC :30).
- Score = 100 for a preferred provider + 50 when the preferred skills are met + 20 * how early
  the slot starts in the window (1 at the start, 0 at the end) + 10 / (1 + the provider's
  appointments in the window). Only comparable within one response.
- Order: score descending, then start, then provider id; the first `limit` are returned.
"""

from __future__ import annotations

import heapq
import itertools
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from functools import cache, lru_cache, partial
from typing import Any, Literal
from zoneinfo import ZoneInfo

from app.api.domain.intervals import Interval, clip, make, subtract

SkillSet = frozenset[tuple[str, str]]
"""A provider's skills as `(skill name, value)` pairs (licensed regions and enrollments too)."""

LICENSED_REGION = "licensed_region"
"""Skill name under which a provider's licensed regions are matched."""
ENROLLMENT = "enrollment"
"""Skill name under which the names of a provider's enrollments are matched."""

PREFERRED_PROVIDER_SCORE = 100.0
PREFERRED_SKILL_SCORE = 50.0
EARLINESS_SCORE = 20.0
LOAD_SCORE = 10.0

_MINUTE = timedelta(minutes=1)
_DAY_MINUTES = 24 * 60


@dataclass(frozen=True)
class WorkingSegment:
    """A working segment of a provider's (non-callout) shift, with that provider's skills."""

    provider_id: str
    role_id: str | None
    start: datetime
    end: datetime
    skills: SkillSet = frozenset()


@dataclass(frozen=True)
class Busy:
    """Time a provider cannot take an appointment: an appointment or approved time off."""

    provider_id: str
    start: datetime
    end: datetime
    kind: Literal["appointment", "time_off"] = "appointment"


@dataclass(frozen=True)
class Requirements:
    """Hard filters: allowed roles (None: any), skill requirements (all must be met), providers."""

    allowed_roles: frozenset[str] | None = None
    skills: tuple[Mapping[str, Any], ...] = ()
    provider_ids: frozenset[str] | None = None


@dataclass(frozen=True)
class Preferences:
    """Soft filters: slots of these providers, or of providers with these skills, score higher."""

    provider_ids: frozenset[str] = field(default_factory=frozenset)
    skill: Mapping[str, Any] | None = None


@dataclass(frozen=True, order=True)
class Slot:
    """A free slot of one provider."""

    start: datetime
    end: datetime
    provider_id: str
    score: float


def skill_set(rows: Iterable[tuple[str, str]], *, licensed_regions: Iterable[str] = (),
              enrollments: Iterable[str] = ()) -> SkillSet:
    """Return a provider's skills, adding licensed regions and enrollment names as skills."""
    return frozenset([
        *rows,
        *((LICENSED_REGION, region) for region in licensed_regions),
        *((ENROLLMENT, name) for name in enrollments),
    ])


def meets(requirement: Mapping[str, Any] | None, skills: SkillSet) -> bool:
    """Whether skills satisfy a requirement in its wire shape (None: nothing is required).

    A condition `{type: equal, skill, value}` holds when the provider has that exact pair; a
    group holds when all (`and`) or any (`or`) of its entries hold.
    """
    if requirement is None:
        return True
    kind = requirement.get("type")
    if kind == "equal":
        return (str(requirement.get("skill")), str(requirement.get("value"))) in skills
    entries = requirement.get("entries") or []
    if kind == "and":
        return all(meets(entry, skills) for entry in entries)
    if kind == "or":
        return any(meets(entry, skills) for entry in entries)
    return False  # an unknown shape never matches: refusing is safer than offering


def on_grid(instant: datetime, grid: int, zone: ZoneInfo) -> bool:
    """Whether `instant` starts a grid step of `grid` minutes after local midnight in `zone`."""
    local = instant.astimezone(zone)
    return local.second == 0 and local.microsecond == 0 and \
        (local.hour * 60 + local.minute) % grid == 0


def _ceil_minute(instant: datetime) -> datetime:
    whole = instant.replace(second=0, microsecond=0)
    return whole if whole == instant else whole + _MINUTE


def _next_on_grid(instant: datetime, grid: int, zone: ZoneInfo) -> datetime:
    """The first grid instant at or after `instant`.

    Worked out from the local wall-clock time when the UTC offset is the same there and at the
    answer (the next multiple of `grid` minutes, or local midnight if that comes first); across
    a change of offset, found minute by minute (at most a day).
    """
    candidate = _ceil_minute(instant)
    local = candidate.astimezone(zone)
    minutes = local.hour * 60 + local.minute
    guess = candidate + timedelta(minutes=min(-minutes % grid, _DAY_MINUTES - minutes))
    if guess.astimezone(zone).utcoffset() == local.utcoffset() and on_grid(guess, grid, zone):
        return guess
    while not on_grid(candidate, grid, zone):
        candidate += _MINUTE
    return candidate


def grid_starts(free: Interval[datetime], length: timedelta, grid: int,
                zone: ZoneInfo) -> Iterator[datetime]:
    """Yield, in order, every grid instant at which a slot of `length` fits inside `free`."""
    step = timedelta(minutes=grid)
    start = _next_on_grid(free.start, grid, zone)
    while start + length <= free.end:
        yield start
        following = start + step
        # Across a change of UTC offset, `start + step` may be off the local grid, and a grid
        # instant may come earlier (spring forward with a grid that does not divide the jump).
        start = following if on_grid(following, grid, zone) else \
            _next_on_grid(start + _MINUTE, grid, zone)


@lru_cache(maxsize=4096)  # a search blocks the same few days for many requests
def _local_midnight(day: Any, zone: ZoneInfo) -> datetime:
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def time_off_block(start: datetime, end: datetime, *, is_full_day: bool | None,
                   days: Sequence[datetime], zone: ZoneInfo) -> list[Interval[datetime]]:
    """Return the time an approved time off request blocks.

    Always the request's own `[start, end)`. A full-day request also blocks each of its days
    whole, from local midnight to the next local midnight in `zone`: the days of `days` (their
    date as written, since the wire writes the local date with a `Z`), or, without them, every
    local day from the one holding `start` to the one holding the last instant before `end`.
    """
    blocks = [block] if (block := make(start, end)) is not None else []
    if is_full_day:
        if days:
            local_days = {day.date() for day in days}
        else:
            first = start.astimezone(zone).date()
            last = (end - timedelta(microseconds=1)).astimezone(zone).date()
            local_days = {first + timedelta(days=n) for n in range((last - first).days + 1)}
        for day in local_days:
            blocks.append(Interval(_local_midnight(day, zone),
                                   _local_midnight(day + timedelta(days=1), zone)))
    return sorted(blocks)


def eligible(segment: WorkingSegment, requirements: Requirements,
             qualifies: Callable[[SkillSet], bool] | None = None) -> bool:
    """Whether a segment's role, provider and skills pass every hard filter. `qualifies`, when
    given, tells whether skills meet every skill requirement (say, remembering the answer)."""
    roles = requirements.allowed_roles
    if roles is not None and (segment.role_id is None or segment.role_id not in roles):
        return False
    providers = requirements.provider_ids
    if providers is not None and segment.provider_id not in providers:
        return False
    if qualifies is not None:
        return qualifies(segment.skills)
    return all(meets(requirement, segment.skills) for requirement in requirements.skills)


def find_slots(
    candidates: Iterable[WorkingSegment],
    busy: Iterable[Busy],
    type_length: int,
    grid: int,
    window: Interval[datetime],
    zone: ZoneInfo,
    requirements: Requirements,
    preferences: Preferences,
    limit: int,
) -> list[Slot]:
    """Return the best `limit` free slots of `type_length` minutes (see the module docstring)."""
    if type_length <= 0 or grid <= 0 or limit <= 0:
        raise ValueError("length, grid and limit must be positive")
    length = timedelta(minutes=type_length)
    segments: dict[str, list[WorkingSegment]] = defaultdict(list)
    for segment in candidates:
        if segment.start < segment.end and eligible(segment, requirements):
            segments[segment.provider_id].append(segment)
    blocked: dict[str, list[Interval[datetime]]] = defaultdict(list)
    load: dict[str, int] = defaultdict(int)
    for item in busy:
        interval = make(item.start, item.end)
        if interval is None:
            continue
        blocked[item.provider_id].append(interval)
        if item.kind == "appointment" and interval.overlaps(window):
            load[item.provider_id] += 1

    span = (window.end - window.start).total_seconds()
    slots: list[Slot] = []
    for provider_id in sorted(segments):
        own = segments[provider_id]
        base = LOAD_SCORE / (1 + load[provider_id])
        if provider_id in preferences.provider_ids:
            base += PREFERRED_PROVIDER_SCORE
        if preferences.skill is not None and meets(preferences.skill, own[0].skills):
            base += PREFERRED_SKILL_SCORE
        # A provider's score only falls with time, so their earliest `limit` slots are the only
        # ones that can make the overall top `limit`.
        for start in _earliest_starts(own, blocked[provider_id], length, grid, window, zone,
                                      limit):
            earliness = 1 - (start - window.start).total_seconds() / span
            score = round(base + EARLINESS_SCORE * earliness, 6)
            slots.append(Slot(start=start, end=start + length, provider_id=provider_id,
                              score=score))
    slots.sort(key=lambda s: (-s.score, s.start, s.provider_id))
    return slots[:limit]


def _earliest_starts(segments: Sequence[WorkingSegment], blocked: Sequence[Interval[datetime]],
                     length: timedelta, grid: int, window: Interval[datetime], zone: ZoneInfo,
                     limit: int) -> list[datetime]:
    """The earliest `limit` distinct slot starts of one provider, each inside one segment."""
    starts: set[datetime] = set()
    for segment in sorted(segments, key=lambda s: (s.start, s.end, s.role_id or "")):
        inside = clip([Interval(segment.start, segment.end)], window)
        for free in subtract(inside, blocked):
            for count, start in enumerate(grid_starts(free, length, grid, zone)):
                if count >= limit:
                    break
                starts.add(start)
    return sorted(starts)[:limit]


def base_score(provider_id: str, skills: SkillSet, load: int, preferences: Preferences) -> float:
    """The part of a provider's slot scores that does not depend on the start: fewer
    appointments in the window, a preferred provider and preferred skills score higher."""
    base = LOAD_SCORE / (1 + load)
    if provider_id in preferences.provider_ids:
        base += PREFERRED_PROVIDER_SCORE
    if preferences.skill is not None and meets(preferences.skill, skills):
        base += PREFERRED_SKILL_SCORE
    return base


def _step(start: datetime, step: timedelta, grid: int, zone: ZoneInfo) -> datetime:
    """The grid instant after `start` (as `grid_starts` walks it, across offset changes too)."""
    following = start + step
    return following if on_grid(following, grid, zone) else \
        _next_on_grid(start + _MINUTE, grid, zone)


@dataclass
class _Pending:
    """A segment being read: the next grid instant to try, slots found so far, where it ends."""

    segment: WorkingSegment
    next: datetime
    end: datetime
    count: int = 0


def find_slots_in_order(
    events: Iterable[WorkingSegment | Busy],
    time_off: Iterable[Busy],
    loads: Mapping[str, int],
    possible: Iterable[str] | None,
    type_length: int,
    grid: int,
    window: Interval[datetime],
    zone: ZoneInfo,
    requirements: Requirements,
    preferences: Preferences,
    limit: int,
    skills: Mapping[str, SkillSet] | None = None,
) -> list[Slot]:
    """`find_slots` over a stream read in start order, stopping as soon as nothing unread can
    make the best `limit`; the result is exactly `find_slots`'s on the same data.

    - `events`: working segments and appointments (busy time), ordered by start (ties in any
      order), e.g. one `ORDER BY start_date` query that may then be read only in part;
    - `time_off`: the other busy time (any order), all of it up front;
    - `loads`: each provider's appointments overlapping the window (absent: none);
    - `possible`: every provider that may have an eligible segment in `events` (None: unknown),
      and `skills`: every provider's skills as far as the conditions and the preferred skill
      name them (absent: none; None: unknown); both only tighten the bound used to stop early.

    Once the stream has reached instant `t`, every appointment starting before `t` is known, so
    a slot ending by `t` is decided: each segment read is tried grid instant by grid instant up
    to the stream's position. Untried slots start no earlier than the `frontier` (the position,
    or the next instant a segment read will try), so none of them can score above the best base
    of a provider that may still add a slot plus the earliness at the frontier; once that bound
    falls below the `limit`-th score found, reading stops.
    """
    if type_length <= 0 or grid <= 0 or limit <= 0:
        raise ValueError("length, grid and limit must be positive")
    length = timedelta(minutes=type_length)
    step = timedelta(minutes=grid)
    span = (window.end - window.start).total_seconds()
    # Segments start, and appointments end, at the same few instants for many providers: each
    # grid instant after one is worked out once per search.
    first_on_grid = cache(partial(_next_on_grid, grid=grid, zone=zone))
    step_on_grid = cache(partial(_step, step=step, grid=grid, zone=zone))

    # Each provider's busy time as (start, end) pairs, the empty ones left out.
    blocked: dict[str, list[tuple[datetime, datetime]]] = defaultdict(list)
    for item in time_off:
        if item.start < item.end:
            blocked[item.provider_id].append((item.start, item.end))
    bases: dict[str, float] = {}
    starts: dict[str, list[datetime]] = defaultdict(list)
    found: list[Slot] = []
    best: list[float] = []  # min-heap of the best `limit` scores found
    # A heap of (next instant to try, tie-breaker, segment): see `catch_up`.
    pending: list[tuple[datetime, int, _Pending]] = []
    order = itertools.count()

    # Bound on the base of a provider that may still add a slot: providers by best possible base.
    none: SkillSet = frozenset()
    # Whether a set of skills meets every requirement, and the preferred skill: worked out once
    # per distinct set (many providers share theirs).
    meets_all = cache(lambda own: all(meets(r, own) for r in requirements.skills))
    meets_preferred = cache(partial(meets, preferences.skill))

    def skill_bonus(provider_id: str | None) -> float:
        if preferences.skill is None:
            return 0.0
        if skills is None:
            return PREFERRED_SKILL_SCORE  # unknown skills: assume the best
        own = skills.get(provider_id, none) if provider_id is not None else none
        return PREFERRED_SKILL_SCORE if meets_preferred(own) else 0.0

    def ceiling(provider_id: str) -> float:
        base = LOAD_SCORE / (1 + loads.get(provider_id, 0)) + skill_bonus(provider_id)
        return base + (PREFERRED_PROVIDER_SCORE if provider_id in preferences.provider_ids
                       else 0.0)

    def may_qualify(provider_id: str) -> bool:
        if requirements.provider_ids is not None and provider_id not in requirements.provider_ids:
            return False
        return skills is None or meets_all(skills.get(provider_id, none))

    # Without `possible`, any provider may turn up: those whose preferences score more are
    # bounded one by one, everyone else by `others` (None: no one else may qualify).
    others: float | None = None
    named: Iterable[str] = possible if possible is not None else ()
    if possible is None:
        named = {*preferences.provider_ids,
                 *(p for p in (skills or {}) if skill_bonus(p) > skill_bonus(None))}
        if skills is None or all(meets(r, none) for r in requirements.skills):
            others = LOAD_SCORE + skill_bonus(None)
        else:  # only providers with some named skill qualify, and `skills` lists them all
            named = {*named, *skills}
    candidates = [(-ceiling(p), p) for p in set(named) if may_qualify(p)]
    heapq.heapify(candidates)
    known = {p for _, p in candidates}

    def add(provider_id: str, start: datetime) -> None:
        own = starts[provider_id]
        index = bisect_left(own, start)
        if index < len(own) and own[index] == start:
            return
        own.insert(index, start)
        earliness = 1 - (start - window.start).total_seconds() / span
        score = round(bases[provider_id] + EARLINESS_SCORE * earliness, 6)
        if len(best) == limit and score < best[0]:
            return  # `limit` slots found already score more: its start is all that counts
        found.append(Slot(start=start, end=start + length, provider_id=provider_id, score=score))
        if len(best) < limit:
            heapq.heappush(best, score)
        elif score > best[0]:
            heapq.heapreplace(best, score)

    def advance(item: _Pending, horizon: datetime) -> bool:
        """Try the segment's grid instants whose slot ends by `horizon`; False once done."""
        provider_id = item.segment.provider_id
        until = min(item.end, horizon)
        while item.count < limit and item.next + length <= until:
            start, finish = item.next, item.next + length
            clash = None
            for busy_start, busy_end in blocked.get(provider_id, ()):
                if busy_start < finish and start < busy_end and (clash is None
                                                                 or clash < busy_end):
                    clash = busy_end
            if clash is None:
                add(provider_id, start)
                item.count += 1
                item.next = step_on_grid(start)
            else:  # every instant before the clash's end overlaps it
                item.next = first_on_grid(clash)
        return item.count < limit and item.next + length <= item.end

    def exhausted(provider_id: str, frontier: datetime) -> bool:
        # `limit` slots of this provider start before anything it may still add: none of its
        # later slots can make the best `limit`.
        return bisect_left(starts.get(provider_id, []), frontier) >= limit

    def done(frontier: datetime) -> bool:
        if len(best) < limit:
            return False
        while candidates and exhausted(candidates[0][1], frontier):
            heapq.heappop(candidates)
        tops = [top for top in (others, -candidates[0][0] if candidates else None)
                if top is not None]
        if not tops:
            return True
        top = max(tops)
        earliest = max(frontier, window.start)
        bound = top + EARLINESS_SCORE * (1 - (earliest - window.start).total_seconds() / span)
        return bound + 1e-6 < best[0]

    def catch_up(position: datetime) -> bool:
        """Try the pending segments' slots that end by `position`, earliest first, one grid
        step at a time, and tell whether reading can stop. A stream that jumps hours ahead
        need not fill every segment up to it when its first slots already settle the best.

        `pending` is a heap of segments by the next instant each will try: a step takes those
        due at the frontier, each of which tries that one instant, and puts back those with
        more to try.
        """
        while True:
            frontier = pending[0][0] if pending else position
            if done(min(frontier, position)):
                return True
            if frontier + length > position:
                return False
            due = []
            while pending and pending[0][0] == frontier:
                due.append(heapq.heappop(pending)[2])
            for item in due:
                if advance(item, frontier + length):
                    heapq.heappush(pending, (item.next, next(order), item))

    position: datetime | None = None
    for event in events:
        if position is None or position < event.start:
            position = event.start
            if catch_up(position):
                break
        if isinstance(event, Busy):
            if event.start < event.end:
                blocked[event.provider_id].append((event.start, event.end))
            continue
        if not (event.start < event.end and eligible(event, requirements, meets_all)):
            continue
        # The part inside the window (`clip` of one interval, without building any).
        inside_start = window.start if event.start < window.start else event.start
        inside_end = window.end if window.end < event.end else event.end
        if not inside_start < inside_end:
            continue
        provider_id = event.provider_id
        if provider_id not in bases:
            bases[provider_id] = base_score(provider_id, event.skills,
                                             loads.get(provider_id, 0), preferences)
            if others is None and provider_id not in known:
                known.add(provider_id)
                heapq.heappush(candidates, (-ceiling(provider_id), provider_id))
        first = first_on_grid(inside_start)
        if first + length <= inside_end:  # a slot fits: the segment waits its turn
            heapq.heappush(pending, (first, next(order), _Pending(event, first, inside_end)))
    else:
        catch_up(window.end)

    kept = [slot for slot in found
            if bisect_left(starts[slot.provider_id], slot.start) < limit]
    kept.sort(key=lambda s: (-s.score, s.start, s.provider_id))
    return kept[:limit]
