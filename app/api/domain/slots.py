"""Appointment slot search: free, grid-aligned slots of providers' working time, best first.

`find_slots` takes plain values (working segments with their provider's skills, busy intervals,
the type's length, the grid, the search window and the site zone) and returns scored slots. It
also holds the rules slot search shares: whether skills meet a `SkillRequirement`
(`meets`), which instants lie on the local grid (`on_grid`, `grid_starts`) and what time an
approved time off request blocks (`time_off_block`). No Flask, no SQL, no clock.

Rules (DESIGN.md "Slot search"):
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

from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
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
    """The first grid instant at or after `instant` (found minute by minute: at most a day)."""
    candidate = _ceil_minute(instant)
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


def eligible(segment: WorkingSegment, requirements: Requirements) -> bool:
    """Whether a segment's role, provider and skills pass every hard filter."""
    roles = requirements.allowed_roles
    if roles is not None and (segment.role_id is None or segment.role_id not in roles):
        return False
    providers = requirements.provider_ids
    if providers is not None and segment.provider_id not in providers:
        return False
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
