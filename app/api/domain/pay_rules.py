"""Pay rules: punch rounding, meal deduction, and the classification of worked time into regular
time and overtime by daily, weekly, 14-day period and seventh-day rules.

Input is plain data: the versions of a provider's `WorkRule` and the provider's time as
`WorkPiece`s (UTC instants); output is the same time cut into `ClassifiedPiece`s, each paid as
regular time or under one overtime rule's pay code. The rules (issue 23, docs/pay-rules.md):

- **Rounding** (29 CFR 785.48) applies to clock-in and clock-out punches only, never to breaks.
  Seconds are dropped first, then the instant is rounded on the minute grid of its local wall
  clock (`interval_minutes` divides 60, so the grid is the hour's: :00, :15, :30, :45).
  `nearest` rounds half up: a tie (a remainder of exactly half the interval) goes to the later
  time. Rounding is monotone, so rounded punches keep their order (ties aside).
- **Breaks** (29 CFR 785.18, 785.19): a punched break shorter than `min_unpaid_break_minutes` is
  worked time; a longer one is an unpaid meal. **Meal auto-deduct**: a session whose span (after
  rounding) reaches `after_minutes` without a qualifying punched meal has `deduct_minutes`
  deducted, centred on the session's midpoint (so the deduction never eats into the overtime at
  the end of a long shift).
- **The calendar**: workweeks start at `week_start_day` + `week_start_time`, workdays at
  `day_start_time` (and at every workweek start: a workday never spans two workweeks), 14-day
  periods at `period_anchor` + 14·k days at `day_start_time`, all in the rule's zone and in
  elapsed real time (a fall-back night is an hour longer). A wall time the clocks skip is the
  first instant at or after it (the instant the clocks jump); a wall time they repeat is its
  first occurrence (`fold=0`), as `timecards.local_midnights` places midnights.
- **Versions**: a workweek starts at every week start of the version in effect on that local
  date (the latest `effective_from` on or before it; None = always), and the whole workweek —
  its workdays, rounding, meals, daily, weekly and seventh-day rules — is computed under that
  version. A 14-day period is likewise computed under the version in effect on its first day.
  Before the first version's first workweek there are no rules (everything is regular).
- **Classification**, in time order, exact to the microsecond (boundaries never fall between
  rules' crossing points, so there is no per-minute loop):
  - `daily`: the time worked so far in the workday (regular or not) exceeds the threshold;
  - `weekly` / `period`: the REGULAR time so far in the workweek / 14-day period reaches it;
  - `seventh_day`: this workday and the six before it, all in one workweek, have work, and the
    day's time so far reaches the threshold (0: from the day's first second);
  - each instant is paid under the applicable rule with the highest multiplier (ties: the lower
    threshold, then the rule id's text); none: regular. Only regular time counts toward weekly
    and period thresholds, so no second is paid twice (daily overtime is not also weekly).
  - `counted` pieces (non-worked pay codes that count toward thresholds: holiday, PTO) advance the
    counters exactly as worked time of the same instant would, and are never reclassified.
- A piece may carry its own rule (`daily_rule`, a shift's override): its daily and seventh-day
  rules replace the week's; the weekly and period rules, the calendar and the anchors are always
  the provider's.

Determinism and locality: a piece's classification depends only on the pieces before it, so
changing later time never changes earlier pieces, and classifying a month at once equals
classifying it week by week with the earlier work of the current 14-day period as context.

Pure code: no Flask, no SQL, no clock.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from fractions import Fraction
from functools import lru_cache
from typing import Literal, NamedTuple
from uuid import UUID

Id = UUID | str
"""An id as the caller holds it (see `timesheets`)."""

OvertimeKind = Literal["daily", "weekly", "period", "seventh_day"]
Counts = Literal["worked", "counted"]

PERIOD_DAYS = 14
"""The length of an FLSA section 7(j) work period ("8 and 80")."""

_ZERO = timedelta(0)
_START_OF_TIME = datetime.min.replace(tzinfo=UTC)
_END_OF_TIME = datetime.max.replace(tzinfo=UTC)
_SECOND = timedelta(seconds=1)
_MARGIN_DAYS = 16
"""How far beyond the classified time the calendar is built (more than a period)."""


@dataclass(frozen=True)
class OvertimeRule:
    """One overtime rule: the time beyond `threshold_minutes` is paid under `pay_code_id`.

    daily: minutes worked in the workday; weekly: regular minutes in the workweek; period:
    regular minutes in the 14-day period; seventh_day: minutes worked on the seventh consecutive
    workday of a workweek (0 = from its first minute). `multiplier` ranks the rules (1.5, 2):
    the highest applicable wins.
    """

    id: Id
    kind: OvertimeKind
    threshold_minutes: int
    pay_code_id: Id
    multiplier: Fraction
    name: str = ""


@dataclass(frozen=True)
class RoundingRule:
    """Round clock-in and clock-out to `interval_minutes` (a divisor of 60)."""

    interval_minutes: int
    mode: Literal["nearest", "down", "up"]


@dataclass(frozen=True)
class MealRule:
    """Auto-deduct `deduct_minutes` when a session's worked span reaches `after_minutes` and no
    qualifying meal (an unpaid break of at least the rule's `min_unpaid_break_minutes`) was
    punched."""

    deduct_minutes: int
    after_minutes: int


@dataclass(frozen=True)
class WorkRule:
    """A version of a work rule: zone, calendar, overtime, rounding, meals and breaks."""

    id: Id
    zone: tzinfo
    week_start_day: int = 6
    """0 = Monday … 6 = Sunday."""
    week_start_time: time = time(0)
    day_start_time: time = time(0)
    overtime: tuple[OvertimeRule, ...] = ()
    rounding: RoundingRule | None = None
    meal: MealRule | None = None
    """None: meals are punched (nothing is deducted)."""
    min_unpaid_break_minutes: int = 30
    """A punched break shorter than this is worked time."""
    counting_pay_codes: frozenset[Id] = frozenset()
    """Non-worked pay codes whose time counts toward the thresholds."""
    period_anchor: date | None = None
    """The first day of some 14-day period (period rules need it; without it they are unused)."""
    effective_from: date | None = None
    """The first local date this version is in effect (None: from the beginning)."""

    def rules_of(self, *kinds: OvertimeKind) -> tuple[OvertimeRule, ...]:
        """The overtime rules of these kinds."""
        return tuple(r for r in self.overtime if r.kind in kinds)


class WorkPiece(NamedTuple):
    """A stretch `[start, end)` of a provider's time to classify.

    `counts`: "worked" time is classified; "counted" time (holiday, PTO) only
    advances the counters. `daily_rule` is a shift's override (its daily and seventh-day rules
    apply). `key` is the caller's, handed back on every piece cut from this one. (Named
    tuples, not dataclasses: a team's sheets make tens of thousands.)
    """

    start: datetime
    end: datetime
    counts: Counts = "worked"
    daily_rule: WorkRule | None = None
    key: object = None


class ClassifiedPiece(NamedTuple):
    """A part of a `WorkPiece` paid one way: regular (`pay_code_id` None) or under `rule_id`.

    The basis says why: the rule's kind and its counter (the workday's time for daily and
    seventh-day rules, the workweek's or period's time for weekly and period rules) in seconds
    at the piece's start and end ("weekly, 144000→165600": hours 40-46 of the week).
    """

    start: datetime
    end: datetime
    pay_code_id: Id | None
    rule_id: Id | None
    basis_kind: OvertimeKind | None
    basis_from_seconds: int
    basis_to_seconds: int
    key: object
    multiplier: Fraction = Fraction(1)
    counts: Counts = "worked"
    workday: datetime | None = None
    """The start of the workday the piece lies in (None: no rule in effect)."""
    workweek: datetime | None = None
    """The start of the workweek the piece lies in (None: no rule in effect)."""

    @property
    def is_overtime(self) -> bool:
        """Whether the piece is paid under an overtime rule."""
        return self.rule_id is not None


# Rounding and breaks -----------------------------------------------------------------------


def round_instant(at: datetime, rule: RoundingRule, zone: tzinfo) -> datetime:
    """`at` with its seconds dropped, rounded to the rule's interval on the local wall clock's
    minute grid. `nearest` rounds a tie up (to the later time)."""
    at = at - timedelta(seconds=at.second, microseconds=at.microsecond)
    step = rule.interval_minutes
    if step <= 1:
        return at
    remainder = at.astimezone(zone).minute % step
    if remainder == 0:
        return at
    down = at - timedelta(minutes=remainder)
    up = down + timedelta(minutes=step)
    if rule.mode == "down":
        return down
    if rule.mode == "up":
        return up
    return up if 2 * remainder >= step else down


def unpaid_breaks(breaks: Sequence[tuple[datetime, datetime]], rule: WorkRule
                  ) -> list[tuple[datetime, datetime]]:
    """The punched breaks that are unpaid meals: those at least `min_unpaid_break_minutes`
    long (29 CFR 785.18: shorter rest breaks are worked time)."""
    shortest = timedelta(minutes=rule.min_unpaid_break_minutes)
    return [(a, b) for a, b in breaks if b - a >= shortest]


def meal_deduction(start: datetime, end: datetime, meals: Sequence[tuple[datetime, datetime]],
                   rule: WorkRule) -> tuple[datetime, datetime] | None:
    """The auto-deducted meal of a session spanning `[start, end)` (after rounding) with these
    qualifying punched meals, or None: `deduct_minutes` centred on the session's midpoint, when
    the span reaches `after_minutes` and no meal was punched. It starts a whole number of
    minutes after the clock-in (the centre rounded down), so a session of whole minutes keeps
    whole-minute pieces: a half minute would make each day's whole minutes depend on where
    the timesheet's window starts."""
    meal = rule.meal
    if meal is None or meal.deduct_minutes <= 0 or meals:
        return None
    span = end - start
    if span < timedelta(minutes=meal.after_minutes) or span <= _ZERO:
        return None
    deduct = min(timedelta(minutes=meal.deduct_minutes), span)
    offset = timedelta(minutes=((span - deduct) // 2) // timedelta(minutes=1))
    first = start + offset
    return first, min(end, first + deduct)


# The calendar ------------------------------------------------------------------------------


def local_instant(day: date, at: time, zone: tzinfo) -> datetime:
    """The UTC instant of wall time `at` on `day` in `zone`: its first occurrence when the
    clocks repeat it, the first instant after it (the jump) when they skip it."""
    naive = datetime.combine(day, at)
    first = naive.replace(tzinfo=zone).astimezone(UTC)
    if first.astimezone(zone).replace(tzinfo=None) == naive:
        return first
    # In a gap fold=0 reads the wall time with the offset before the jump (an instant after
    # it) and fold=1 with the one after (an instant before it): the jump lies between.
    low, high = naive.replace(tzinfo=zone, fold=1).astimezone(UTC), first
    while high - low > _SECOND:
        middle = low + (high - low) // 2
        if middle.astimezone(zone).replace(tzinfo=None) >= naive:
            high = middle
        else:
            low = middle
    return high


def version_at(rules: Sequence[WorkRule], day: date) -> WorkRule | None:
    """The version in effect on `day`: the latest `effective_from` on or before it."""
    found: WorkRule | None = None
    for rule in rules:
        begins = rule.effective_from or date.min
        if begins <= day and (found is None or (found.effective_from or date.min) <= begins):
            found = rule
    return found


def _days(first: date, last: date) -> list[date]:
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def _shift_date(day: date, days: int) -> date:
    try:
        return day + timedelta(days=days)
    except OverflowError:
        return date.max if days > 0 else date.min


def _local_date(at: datetime, zone: tzinfo) -> date:
    try:
        return at.astimezone(zone).date()
    except OverflowError:
        return at.date()


def _instant(day: date, at: time, zone: tzinfo) -> datetime | None:
    try:
        return local_instant(day, at, zone)
    except OverflowError:
        return None


@dataclass(frozen=True)
class Calendar:
    """The workweek, workday and 14-day period starts of a rule's versions over a span, each
    with the version it is computed under."""

    weeks: tuple[datetime, ...]
    week_rules: tuple[WorkRule, ...]
    days: tuple[datetime, ...]
    """Workday starts (every workweek start is one)."""
    periods: tuple[datetime, ...]
    period_rules: tuple[WorkRule, ...]

    def week_at(self, at: datetime) -> int:
        """The index of the workweek holding `at` (-1: none)."""
        return bisect_right(self.weeks, at) - 1

    def day_at(self, at: datetime) -> int:
        """The index of the workday holding `at` (-1: none)."""
        return bisect_right(self.days, at) - 1

    def period_at(self, at: datetime) -> int:
        """The index of the 14-day period holding `at` (-1: none)."""
        return bisect_right(self.periods, at) - 1

    def rule_at(self, at: datetime) -> WorkRule | None:
        """The version the workweek holding `at` is computed under."""
        index = self.week_at(at)
        return self.week_rules[index] if index >= 0 else None


def calendar(rules: Sequence[WorkRule], low: datetime, high: datetime) -> Calendar:
    """The calendar of these versions around `[low, high)` (with a margin of a period or more
    either side, so every instant of the span has its workweek and period start)."""
    low_day = low.astimezone(UTC).date()
    high_day = high.astimezone(UTC).date()
    # The versions are the same objects for every provider of a team: look them up by
    # identity first (hashing the rules is what a team's sheets would otherwise repeat).
    key = (tuple(map(id, rules)), low_day, high_day)
    known = _CALENDARS.get(key)
    if known is not None and all(a is b for a, b in zip(known[0], rules, strict=True)):
        return known[1]
    found = _calendar(tuple(rules), low_day, high_day)
    if len(_CALENDARS) >= 256:
        _CALENDARS.clear()
    _CALENDARS[key] = (tuple(rules), found)
    return found


_CALENDARS: dict[tuple[tuple[int, ...], date, date], tuple[tuple[WorkRule, ...], Calendar]] = {}
"""Calendars by the identities of their versions (holding the versions, so no id is reused
while its entry lives)."""


@lru_cache(maxsize=256)
def _calendar(rules: tuple[WorkRule, ...], low_day: date, high_day: date) -> Calendar:
    first, last = _shift_date(low_day, -_MARGIN_DAYS), _shift_date(high_day, _MARGIN_DAYS)
    weeks: dict[datetime, WorkRule] = {}
    periods: dict[datetime, WorkRule] = {}
    for rule in rules:
        zone_first = _shift_date(first, -1)
        for day in _days(zone_first, _shift_date(last, 1)):
            if version_at(rules, day) is not rule:
                continue
            if day.weekday() == rule.week_start_day:
                moment = _instant(day, rule.week_start_time, rule.zone)
                if moment is not None:
                    weeks.setdefault(moment, rule)
            anchor = rule.period_anchor
            if anchor is not None and (day - anchor).days % PERIOD_DAYS == 0:
                moment = _instant(day, rule.day_start_time, rule.zone)
                if moment is not None:
                    periods.setdefault(moment, rule)
    week_starts = sorted(weeks)
    days: set[datetime] = set(week_starts)
    for index, start in enumerate(week_starts):
        rule = weeks[start]
        end = week_starts[index + 1] if index + 1 < len(week_starts) else None
        local = _local_date(start, rule.zone)
        for offset in range(15):
            moment = _instant(_shift_date(local, offset), rule.day_start_time, rule.zone)
            if moment is None or moment <= start:
                continue
            if end is not None and moment >= end:
                break
            if end is None and offset > 7:
                break
            days.add(moment)
    period_starts = sorted(periods)
    return Calendar(
        weeks=tuple(week_starts), week_rules=tuple(weeks[w] for w in week_starts),
        days=tuple(sorted(days)),
        periods=tuple(period_starts), period_rules=tuple(periods[p] for p in period_starts),
    )


def workweek_start(at: datetime, rules: Sequence[WorkRule]) -> datetime | None:
    """The start of the workweek holding `at`, or None when no version is in effect."""
    cal = calendar(rules, at, at)
    index = cal.week_at(at)
    return cal.weeks[index] if index >= 0 else None


def workday_start(at: datetime, rules: Sequence[WorkRule]) -> datetime | None:
    """The start of the workday holding `at`, or None when no version is in effect."""
    cal = calendar(rules, at, at)
    if cal.week_at(at) < 0:
        return None
    return cal.days[cal.day_at(at)]


def period_start(at: datetime, rules: Sequence[WorkRule]) -> datetime | None:
    """The start of the 14-day period holding `at`, or None when no version has an anchor."""
    cal = calendar(rules, at, at)
    index = cal.period_at(at)
    return cal.periods[index] if index >= 0 else None


def rule_at(at: datetime, rules: Sequence[WorkRule]) -> WorkRule | None:
    """The version the workweek holding `at` is computed under (None: no rule yet)."""
    return calendar(rules, at, at).rule_at(at)


# Classification ----------------------------------------------------------------------------


def _rank(rule: OvertimeRule) -> tuple[Fraction, int, str]:
    """Sort key: the best rule first (highest multiplier, then lowest threshold, then id)."""
    return (-Fraction(rule.multiplier), rule.threshold_minutes, str(rule.id))


_DAY, _WEEK, _PERIOD = 0, 1, 2
"""Which counter a rule's threshold reads: the workday's time, the workweek's or the period's
regular time."""

_Candidate = tuple[OvertimeRule, int, timedelta]
"""A rule, its counter and its threshold, in the order rules win."""


def _candidates(day_rules: tuple[OvertimeRule, ...], week_rules: tuple[OvertimeRule, ...],
                period_rules: tuple[OvertimeRule, ...]) -> tuple[_Candidate, ...]:
    found = [(r, _DAY, timedelta(minutes=r.threshold_minutes)) for r in day_rules]
    found.extend((r, _WEEK, timedelta(minutes=r.threshold_minutes)) for r in week_rules)
    found.extend((r, _PERIOD, timedelta(minutes=r.threshold_minutes)) for r in period_rules)
    found.sort(key=lambda c: _rank(c[0]))
    return tuple(found)


@dataclass
class _Counters:
    """Where the classification stands: the indices of the current workday, workweek and
    period, and the time counted in each."""

    day: int = -2
    week: int = -2
    period: int = -2
    day_total: timedelta = _ZERO
    week_total: timedelta = _ZERO
    week_regular: timedelta = _ZERO
    period_total: timedelta = _ZERO
    period_regular: timedelta = _ZERO
    worked_days: set[int] = field(default_factory=set)
    week_first_day: int = 0
    since: datetime = _END_OF_TIME
    until: datetime = _START_OF_TIME
    """The stretch in which the indices hold (from the later of the workday's and period's
    starts to the earlier of their ends)."""


def _seconds(delta: timedelta) -> int:
    return delta // _SECOND


def classify(pieces: Sequence[WorkPiece], rules: Sequence[WorkRule], *,
             cal: Calendar | None = None) -> list[ClassifiedPiece]:
    """Cut the pieces at workday, workweek and period starts and at every overtime crossing,
    and say how each part is paid. `rules` are the versions of the provider's work rule; `cal`
    their calendar over the pieces when the caller has it already.

    Pieces are taken in time order (they should not overlap: overlapping time counts twice).
    """
    ordered = sorted((p for p in pieces if p.start < p.end), key=lambda p: (p.start, p.end))
    if not ordered:
        return []
    if not rules:
        return [ClassifiedPiece(p.start, p.end, None, None, None, 0, 0, p.key, counts=p.counts)
                for p in ordered]
    if cal is None:
        cal = calendar(rules, ordered[0].start, max(p.end for p in ordered))
    state = _Counters()
    result: list[ClassifiedPiece] = []
    cache: dict[tuple[int, int, bool, int], tuple[_Candidate, ...]] = {}
    for piece in ordered:
        cursor, end = piece.start, piece.end
        while cursor < end:
            if not state.since <= cursor < state.until:
                _enter(cal, state, cursor)
            stop = end if end < state.until else state.until
            _classify_stretch(cal, state, piece, cursor, stop, result, cache)
            cursor = stop
    return result


def _enter(cal: Calendar, state: _Counters, at: datetime) -> None:
    """Move the counters to the workday, workweek and period holding `at`."""
    days, periods = cal.days, cal.periods
    index = bisect_right(days, at)
    state.since = days[index - 1] if index > 0 else at
    state.until = days[index] if index < len(days) else _END_OF_TIME
    index = bisect_right(periods, at)
    if index > 0 and periods[index - 1] > state.since:
        state.since = periods[index - 1]
    if index < len(periods) and periods[index] < state.until:
        state.until = periods[index]
    week = cal.week_at(at)
    if week != state.week:
        state.week = week
        state.week_total = state.week_regular = _ZERO
        state.worked_days = set()
        state.week_first_day = cal.day_at(cal.weeks[week]) if week >= 0 else 0
    day = cal.day_at(at)
    if day != state.day:
        state.day = day
        state.day_total = _ZERO
    period = cal.period_at(at)
    if period != state.period:
        state.period = period
        state.period_total = state.period_regular = _ZERO


def _is_seventh_day(state: _Counters) -> bool:
    """Whether the current workday and the six before it, in one workweek, have work."""
    day, worked = state.day, state.worked_days
    if day - 6 < state.week_first_day:
        return False
    return all(day - n in worked for n in range(1, 7))


def _classify_stretch(cal: Calendar, state: _Counters, piece: WorkPiece, start: datetime,
                      stop: datetime, out: list[ClassifiedPiece],
                      cache: dict[tuple[int, int, bool, int], tuple[_Candidate, ...]]) -> None:
    """Classify `[start, stop)`, which holds no workday or period start."""
    week_rule = cal.week_rules[state.week] if state.week >= 0 else None
    if week_rule is None:
        out.append(ClassifiedPiece(start, stop, None, None, None, 0, 0, piece.key,
                                   counts=piece.counts))
        return
    workday, workweek = cal.days[state.day], cal.weeks[state.week]
    day_source = piece.daily_rule or week_rule
    seventh = _is_seventh_day(state)
    period_rule = cal.period_rules[state.period] if state.period >= 0 else None
    key = (id(day_source), id(week_rule), seventh, id(period_rule))
    candidates = cache.get(key)
    if candidates is None:
        candidates = cache[key] = _candidates(
            day_source.rules_of("daily", "seventh_day") if seventh
            else day_source.rules_of("daily"),
            week_rule.rules_of("weekly"),
            period_rule.rules_of("period") if period_rule is not None else ())
    worked = piece.counts == "worked"
    cursor = start
    while cursor < stop:
        winner: OvertimeRule | None = None
        winner_counter = _DAY
        step = stop - cursor
        for rule, counter, threshold in candidates:  # best first: the first reached wins
            if counter == _DAY:
                left = threshold - state.day_total
            elif counter == _WEEK:
                left = threshold - state.week_regular
            else:
                left = threshold - state.period_regular
            if left <= _ZERO:
                if winner is None:
                    winner, winner_counter = rule, counter
            elif left < step and (counter == _DAY or winner is None):
                step = left
        if winner is not None:
            # Only regular time advances weekly and period counters: a rule of those reached
            # while an overtime rule wins is no crossing; shorten only for the daily ones.
            step = stop - cursor
            for _rule, counter, threshold in candidates:
                if counter == _DAY:
                    left = threshold - state.day_total
                    if _ZERO < left < step:
                        step = left
        basis_from = _basis(winner_counter, state) if winner is not None else _ZERO
        state.day_total += step
        state.week_total += step
        state.period_total += step
        if winner is None:
            state.week_regular += step
            state.period_regular += step
        if worked:
            state.worked_days.add(state.day)
        end = cursor + step
        paid = winner if worked else None
        if paid is None:
            item = ClassifiedPiece(cursor, end, None, None, None, 0, 0, piece.key,
                                   counts=piece.counts, workday=workday, workweek=workweek)
        else:
            item = ClassifiedPiece(
                cursor, end, paid.pay_code_id, paid.id, paid.kind, _seconds(basis_from),
                _seconds(_basis(winner_counter, state)), piece.key, paid.multiplier,
                piece.counts, workday, workweek)
        last = out[-1] if out else None
        if (last is not None and last.end == cursor and last.key == piece.key
                and last.rule_id == item.rule_id and last.counts == item.counts
                and last.workday == workday and last.workweek == workweek):
            out[-1] = ClassifiedPiece(
                last.start, end, last.pay_code_id, last.rule_id, last.basis_kind,
                last.basis_from_seconds, item.basis_to_seconds, last.key,
                last.multiplier, last.counts, workday, workweek)
        else:
            out.append(item)
        cursor = end


def _basis(counter: int, state: _Counters) -> timedelta:
    """The winning rule's basis: the workday's, workweek's or period's time so far."""
    if counter == _DAY:
        return state.day_total
    if counter == _WEEK:
        return state.week_total
    return state.period_total
