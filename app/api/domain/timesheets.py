"""The timesheet of one provider for a window `[start, end)`: punches against the schedule.

Input is plain data (shifts with segments, punches, timecard periods, settings); output is the
punches in the window, warnings, errors, scheduled-versus-actual minutes per pay code and role,
and the pay segments actually worked. Rules (docs/architecture.md, "Timesheets"):

- Rejected punches are ignored; pending and approved ones count. Punches pair into sessions by
  the timecard state machine: clock_in … [break_start … break_end]* … clock_out.
- A session belongs to the shift whose start is nearest its clock-in, among the shifts that start
  at most `missing_shift_tolerance` (2 h) after the clock-in and have not ended by it; none is a
  `missing_shift` warning. Every punch of the session (clock-in, breaks, clock-out) was worked
  for that shift (`punch_shifts`), even one after midnight or past the window's end. The first
  clock-in and the last clock-out of a shift with working time are compared with its start and
  end: beyond `grace_minutes` they are `clock_in_early`/`_late` and `clock_out_early`/`_late`.
- A clock-in without a clock-out is `no_clock_out` once overdue: when another clock-in follows it,
  when its shift has ended, or — without a shift — when its pay period is over, and at the latest
  `MAX_SESSION` after clocking in. An overdue session counts no time (its end is unknown); a
  session still running counts until `now`.
- A shift in the window is `invalid_shift` when it has no working or on-call segment, a segment
  outside it, or overlapping segments (it is then scheduled as nothing); `missing_timecard` when
  it has started and no timecard's period holds its start. `missing_pay_period_template` when the
  provider has none.
- Actual time is clock-in to clock-out minus punched breaks; the part of a punched break inside a
  scheduled `paid_break` is paid (`paid_break`, role null), the rest is `unpaid_break`. Worked time
  takes the role of the shift's working/on-call segment it falls in, else the shift's first role
  (unmatched sessions: the provider's default role), and the shift's pay code (else the default).
- Scheduled time is the working (per role) and paid-break (role null) segments of the valid
  shifts in the window. Minutes are whole minutes of each total's exact seconds.
- Everything is computed on UTC instants; the site zone only places the local midnights at which
  pay segments and scheduled segments are cut (one pay segment never spans two local days).
- The same seconds are also kept per local day (`pay_code_days`, what the payroll export
  lists), and the totals are their sums. A day's whole minutes are counted on the running total
  of its pay code and role: a minute belongs to the day in which its sixtieth second falls, so
  the days' minutes add up to the total's exactly (per-day flooring would lose a minute for
  every day ending on a partial one).

With pay rules (`TimesheetInput.rules`, the versions of the provider's work rule; issue 23,
`pay_rules`), the caller loads shifts and punches from `context_start(start, rules)` (the
workweek, or 14-day period, holding `start - MAX_SESSION`), and:

- clock-ins and clock-outs are rounded (by the rule of the session's workweek, or its shift's
  `work_rule` override); the raw punches are reported unchanged and `rounded` maps each rounded
  punch of the window to its rounded instant. Warnings compare the raw punches.
- a closed punched break shorter than the rule's shortest unpaid break is worked time; an
  auto-deducted meal is an `unpaid_break` segment centred on the session.
- the paid time since the context start is classified (`pay_rules.classify`): worked time and
  paid breaks are hours worked (a paid break beyond a threshold is overtime too, role null);
  time under a pay code the rule counts (`counting_pay_codes`) counts toward the thresholds but
  is never overtime. Only the window's part is reported: an overtime pay segment has
  `pay_codes=(rule's pay code,)`, `overtime=(rule id,)` and `basis=(kind, minutes from, minutes
  to)`; segments are also cut at workday starts. The totals and days then hold the overtime
  pay codes: each minute once.
- `weeks` gives each workweek's regular, overtime and double-time minutes in the window, and
  `overtime_starts_at` when weekly or period overtime starts given the work so far and the
  shifts to come (only for a window holding `now`).

Without rules nothing of this applies and the sheet is computed exactly as before, but for the
shifts with a `work_rule` override: their sessions are paid by it (`_override_basis`), on its
workdays, and with no `weeks` nor `overtime_starts_at` (the caller loads from `start -
MAX_SESSION`: a seventh-day rule there sees the days since then only).

Ids are opaque here: `UUID`s or their text, as the caller holds them. They are only compared,
hashed, ordered by their text and written into pay segment ids, so either gives the same sheet
(the team timesheets pass text, which spares turning every id into a `UUID` and back).

Pure code: no Flask, no SQL, no clock (`now` is part of the input).
"""

from __future__ import annotations

import uuid
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from functools import cached_property
from hashlib import sha1
from itertools import pairwise
from typing import Literal, NamedTuple, Protocol
from uuid import UUID

from app.api.domain import intervals as iv
from app.api.domain import pay_rules as rules_
from app.api.domain.intervals import Interval
from app.api.domain.pay_rules import ClassifiedPiece, WorkPiece, WorkRule
from app.api.domain.timecards import MAX_SESSION, effective, local_midnights
from app.contract.timekeeping import TimesheetErrorType, TimesheetWarningType

DEFAULT_GRACE_MINUTES = 7
MISSING_SHIFT_TOLERANCE = timedelta(hours=2)
"""How long before a shift's start a clock-in still belongs to it."""

ROLE_SEGMENTS = ("working", "on_call")
"""Segment types that give worked time its role."""

PAY_SEGMENT_NAMESPACE = uuid.UUID("0b6c3f0e-4f6e-4d55-9a51-6f1c0a3d2e71")
"""Namespace of the deterministic pay segment ids."""
_NAMESPACE_BYTES = PAY_SEGMENT_NAMESPACE.bytes

PieceType = Literal["working", "paid_break", "unpaid_break"]

Id = UUID | str
"""An id as the caller holds it: a `UUID` or its text (see the module docstring)."""


class SheetPunch(Protocol):
    """What the timesheet reads of a punch: `timecards.Punch`, or a row with these columns."""

    @property
    def id(self) -> Id: ...

    @property
    def action(self) -> str: ...

    @property
    def time(self) -> datetime: ...

    @property
    def state(self) -> str: ...

    @property
    def timecard_id(self) -> Id | None: ...


@dataclass(frozen=True)
class ScheduledSegment:
    """A part of a scheduled shift."""

    type: str
    start: datetime
    end: datetime
    role_id: Id | None = None

    @cached_property
    def span(self) -> Interval[datetime]:
        """The segment's time."""
        return Interval(self.start, self.end)


@dataclass(frozen=True)
class ScheduledShift:
    """A shift of the provider (callouts already left out by the caller)."""

    id: Id
    start: datetime
    end: datetime
    segments: tuple[ScheduledSegment, ...] = ()
    pay_code_id: Id | None = None
    work_rule: WorkRule | None = None
    """The shift's work rule override: its rounding, meal, break, daily and seventh-day rules
    apply to the shift's sessions (the workweek, period and their rules stay the provider's)."""

    @cached_property
    def span(self) -> Interval[datetime]:
        """The shift's time."""
        return Interval(self.start, self.end)

    @cached_property
    def has_working_time(self) -> bool:
        """Whether any segment is working time (early/late warnings need one)."""
        return any(s.type == "working" for s in self.segments)

    @cached_property
    def invalid_reason(self) -> str | None:
        """Why the shift cannot be paid as scheduled, or None when it can."""
        if not any(s.type in ROLE_SEGMENTS for s in self.segments):
            return "it has no working or on-call segment"
        if any(s.start < self.start or self.end < s.end for s in self.segments):
            return "a segment lies outside the shift"
        ordered = sorted(self.segments, key=lambda s: s.start)
        if any(b.start < a.end for a, b in pairwise(ordered)):
            return "segments overlap"
        return None

    @cached_property
    def primary_role(self) -> Id | None:
        """The role of the first working (else on-call) segment."""
        for kind in ROLE_SEGMENTS:
            for segment in self.segments:
                if segment.type == kind:
                    return segment.role_id
        return None


@dataclass(frozen=True)
class TimecardPeriod:
    """A timecard of the provider and the pay period it covers."""

    id: Id
    start: datetime
    end: datetime

    @cached_property
    def span(self) -> Interval[datetime]:
        """The pay period."""
        return Interval(self.start, self.end)


@dataclass(frozen=True)
class TimesheetInput:
    """Everything a timesheet is computed from."""

    start: datetime
    end: datetime
    now: datetime
    zone: tzinfo
    shifts: Sequence[ScheduledShift] = ()
    punches: Sequence[SheetPunch] = ()
    timecards: Sequence[TimecardPeriod] = ()
    has_pay_period_template: bool = True
    default_pay_code_id: Id | None = None
    default_role_id: Id | None = None
    grace_minutes: int = DEFAULT_GRACE_MINUTES
    missing_shift_tolerance: timedelta = MISSING_SHIFT_TOLERANCE
    rules: Sequence[WorkRule] = ()
    """The versions of the provider's work rule (empty: no pay rules, every minute regular).
    With rules the shifts and punches must reach back to `context_start(start, rules)`."""


@dataclass(frozen=True)
class TimesheetWarning:
    """A punch that does not match the schedule."""

    type: TimesheetWarningType
    punch_id: Id


@dataclass(frozen=True)
class TimesheetError:
    """Something that keeps the timesheet from being complete."""

    type: TimesheetErrorType
    shift_id: Id | None = None
    timecard_id: Id | None = None


@dataclass(frozen=True)
class PayCodeTotal:
    """Scheduled and actual whole minutes under one pay code and role."""

    pay_code_id: Id
    role_id: Id | None
    scheduled: int
    actual: int


@dataclass(frozen=True)
class PayCodeDay:
    """Scheduled and actual whole minutes under one pay code and role on one local day."""

    pay_code_id: Id
    role_id: Id | None
    day: date
    scheduled: int
    actual: int


@dataclass(frozen=True)
class PaySegment:
    """A contiguous piece of punched time within one local day."""

    id: str
    type: PieceType
    start: datetime
    end: datetime
    shift_id: Id | None
    timecard_id: Id | None
    pay_codes: tuple[Id, ...]
    role_id: Id | None
    day: date
    """The site-local date the piece was worked on."""
    overtime: tuple[Id, ...] = ()
    """The overtime rule the piece is paid under (empty: regular time)."""
    basis: tuple[str, int, int] | None = None
    """Why it is overtime: the rule's kind and its basis in minutes at the segment's start and
    end (`("weekly", 2400, 2760)`: hours 40-46 of the workweek)."""

    @property
    def seconds(self) -> int:
        """Length in whole seconds."""
        return _seconds(self.start, self.end)


def _seconds(start: datetime, end: datetime) -> int:
    """Whole seconds from `start` to `end` (as `iv.total_seconds` counts one interval)."""
    return (end - start) // timedelta(seconds=1)


@dataclass(frozen=True)
class Timesheet:
    """The computed timesheet."""

    punches: list[SheetPunch]
    """The input's punch objects inside the window, in time order."""
    warnings: list[TimesheetWarning]
    errors: list[TimesheetError]
    pay_code_totals: list[PayCodeTotal]
    pay_segments: list[PaySegment]
    punch_shifts: dict[Id, Id] = field(default_factory=dict)
    """The shift each punch was worked for: every punch of a session matched to a shift (its
    clock-in, breaks and clock-out) by punch id; punches of no shift are absent."""
    pay_code_days: list[PayCodeDay] = field(default_factory=list)
    """`pay_code_totals` by local day: the days with time under each pay code and role, by
    pay code, role and day; each total's days add up to it exactly."""
    rounded: dict[Id, datetime] = field(default_factory=dict)
    """With a rounding rule: the rounded instant of each clock-in and clock-out in the window
    whose rounded time differs from the raw one, by punch id (the raw punch is unchanged)."""
    weeks: list[WeekHours] = field(default_factory=list)
    """With rules: each workweek overlapping the window, with its paid hours in the window."""
    overtime_starts_at: datetime | None = None
    """With weekly or period rules: when weekly or period overtime starts in the workweek (or
    period) holding `now`, given the work so far and the scheduled shifts still to come (an
    instant before `now` when it has started); None when it would not, or when `now` lies
    outside the window (a past or future sheet)."""


@dataclass(frozen=True)
class WeekHours:
    """A workweek's paid whole minutes inside the window: regular (counted pay codes included),
    overtime (multiplier below 2) and double time (2 or more)."""

    start: datetime
    regular_minutes: int
    overtime_minutes: int
    double_time_minutes: int


def pay_segment_id(session: Id, kind: str, start: datetime) -> str:
    """The id of the pay segment of `kind` starting at `start` in the session opened by the
    clock-in `session`: `str(uuid.uuid5(PAY_SEGMENT_NAMESPACE, "<session>:<kind>:<start>"))`.

    Spelled out with hashlib as RFC 4122 defines version 5, because building the `uuid.UUID`
    object costs as much as the hash again (a team's page names ten thousand segments). The
    unit tests hold it to `uuid.uuid5`.
    """
    name = f"{session}:{kind}:{start.isoformat()}".encode()
    digest = bytearray(sha1(_NAMESPACE_BYTES + name).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50  # version 5
    digest[8] = (digest[8] & 0x3F) | 0x80  # the RFC 4122 variant
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


@dataclass
class _Session:
    """A clock-in and what followed it until the clock-out (if any)."""

    clock_in: SheetPunch
    clock_out: SheetPunch | None = None
    breaks: list[Interval[datetime]] = field(default_factory=list)
    punches: list[SheetPunch] = field(default_factory=list)
    """Every counted punch of the session, its clock-in first."""
    break_start: datetime | None = None
    superseded: bool = False

    def close_break(self, at: datetime) -> None:
        if self.break_start is not None and self.break_start < at:
            self.breaks.append(Interval(self.break_start, at))
        self.break_start = None


def sessions_of(punches: Sequence[SheetPunch]) -> list[_Session]:
    """Pair the counted punches into sessions; stray breaks and clock-outs are skipped."""
    sessions: list[_Session] = []
    current: _Session | None = None
    for punch in effective(punches):
        if punch.action == "clock_in":
            if current is not None:
                current.superseded = True
                sessions.append(current)
            current = _Session(punch, punches=[punch])
            continue
        if current is None:
            continue
        current.punches.append(punch)
        if punch.action == "break_start":
            if current.break_start is None:
                current.break_start = punch.time
        elif punch.action == "break_end":
            current.close_break(punch.time)
        elif punch.action == "clock_out":
            current.close_break(punch.time)
            current.clock_out = punch
            sessions.append(current)
            current = None
    if current is not None:
        sessions.append(current)
    return sessions


def match_shift(clock_in: datetime, shifts: Sequence[ScheduledShift],
                tolerance: timedelta = MISSING_SHIFT_TOLERANCE) -> ScheduledShift | None:
    """The shift a clock-in belongs to: nearest start among those it may belong to, or None."""
    candidates = [s for s in shifts if s.start - tolerance <= clock_in < s.end]
    return min(candidates, key=lambda s: (abs(clock_in - s.start), s.start, str(s.id)),
               default=None)


def _timecard_at(moment: datetime, timecards: Sequence[TimecardPeriod]) -> TimecardPeriod | None:
    covering = [t for t in timecards if t.start <= moment < t.end]
    return max(covering, key=lambda t: (t.start, str(t.id)), default=None)


def _session_end(session: _Session, shift: ScheduledShift | None,
                 data: TimesheetInput) -> tuple[datetime | None, bool]:
    """When the session's counted time ends, and whether it is overdue (`no_clock_out`)."""
    if session.clock_out is not None:
        return session.clock_out.time, False
    if session.superseded:
        return None, True
    began = session.clock_in.time
    deadline = began + MAX_SESSION
    if shift is not None:
        deadline = min(deadline, shift.end)
    else:
        card = _timecard_at(began, data.timecards)
        if card is not None:
            deadline = min(deadline, card.end)
    if data.now >= deadline:
        return None, True
    return data.now, False


class _Piece(NamedTuple):
    """A labelled stretch `[start, end)` of a session; touching pieces with equal labels are
    joined (`_segments`). A named tuple, not a dataclass: a team's page makes tens of thousands
    of them. Under pay rules a piece also carries the overtime rule paying it, the workday it
    lies in (pieces of two workdays are never joined) and its overtime basis (not a label: a
    joined piece's basis spans both)."""

    start: datetime
    end: datetime
    type: PieceType
    role_id: Id | None
    shift_id: Id | None
    timecard_id: Id | None
    pay_codes: tuple[Id, ...]
    day: date
    session: Id
    overtime: tuple[Id, ...] = ()
    workday: datetime | None = None
    basis: tuple[str, int, int] | None = None

    @property
    def labels(self) -> tuple[object, ...]:
        """Everything but the bounds and the basis."""
        return self[2:11]


def _segments(pieces: list[_Piece]) -> list[PaySegment]:
    """The pay segments of `pieces`: in time order, touching pieces with equal labels joined
    (their bases joined too)."""
    pieces.sort(key=lambda p: p.start)
    joined: list[_Piece] = []
    for piece in pieces:
        last = joined[-1] if joined else None
        if last is not None and last.end == piece.start and last.labels == piece.labels:
            basis = last.basis
            if basis is not None and piece.basis is not None:
                basis = (basis[0], basis[1], piece.basis[2])
            joined[-1] = last._replace(end=piece.end, basis=basis)
        else:
            joined.append(piece)
    return [
        PaySegment(
            id=pay_segment_id(p.session, p.type, p.start),
            type=p.type, start=p.start, end=p.end, shift_id=p.shift_id,
            timecard_id=p.timecard_id, pay_codes=p.pay_codes, role_id=p.role_id, day=p.day,
            overtime=p.overtime,
            basis=(p.basis[0], p.basis[1] // 60, p.basis[2] // 60) if p.basis else None,
        )
        for p in joined
    ]


def _raw_pieces(session: _Session, shift: ScheduledShift | None, end: datetime,
                data: TimesheetInput, begin: datetime | None = None,
                rule: WorkRule | None = None
                ) -> list[tuple[datetime, datetime, PieceType, Id | None]]:
    """The session's time `[start, end)` split into worked time per role, paid and unpaid break.

    Punched breaks are paid where a scheduled paid break holds them; worked time takes the role
    of the first working or on-call segment holding it, else the shift's first role (without a
    shift, the provider's default role). One sweep: between two neighbouring bounds of the
    session, its breaks and the shift's segments nothing changes, so each stretch takes what
    holds at its start, and touching stretches alike are one piece.

    With a work `rule` the session starts at `begin` (its rounded clock-in), a closed punched
    break shorter than the rule's shortest unpaid break is worked time (a break still open is
    a break), and an auto-deducted meal (`pay_rules.meal_deduction`) is unpaid break time.
    """
    span = iv.make(session.clock_in.time if begin is None else begin, end)
    if span is None:
        return []
    punched_breaks = list(session.breaks)
    if rule is not None:
        shortest = timedelta(minutes=rule.min_unpaid_break_minutes)
        punched_breaks = [b for b in punched_breaks if b.end - b.start >= shortest]
    if session.break_start is not None and session.break_start < end:
        punched_breaks.append(Interval(session.break_start, end))
    breaks = iv.clip(punched_breaks, span)
    deducted: list[Interval[datetime]] = []
    if rule is not None:
        meal = rules_.meal_deduction(span.start, span.end,
                                     [(b.start, b.end) for b in breaks], rule)
        if meal is not None and meal[0] < meal[1]:
            deducted = [Interval(*meal)]
    segments = shift.segments if shift is not None else ()
    roles = [s for s in segments if s.type in ROLE_SEGMENTS]
    paid = [s for s in segments if s.type == "paid_break"]
    fallback = shift.primary_role if shift is not None else data.default_role_id
    inner = [b for s in segments for b in (s.start, s.end) if span.start < b < span.end]
    bounds = sorted({span.start, span.end, *inner,
                     *(b for i in (*breaks, *deducted) for b in (i.start, i.end))})
    pieces: list[tuple[datetime, datetime, PieceType, Id | None]] = []
    for start, stop in pairwise(bounds):
        kind: PieceType
        if deducted and any(b.start <= start < b.end for b in deducted):
            kind, role = "unpaid_break", None
        elif any(b.start <= start < b.end for b in breaks):
            paid_here = any(s.start <= start < s.end for s in paid)
            kind, role = ("paid_break" if paid_here else "unpaid_break"), None
        else:
            kind = "working"
            role = next((s.role_id for s in roles if s.start <= start < s.end), fallback)
        if pieces and pieces[-1][2:] == (kind, role):
            pieces[-1] = (pieces[-1][0], stop, kind, role)
        else:
            pieces.append((start, stop, kind, role))
    return pieces


def _rounded_span(session: _Session, end: datetime, rule: WorkRule | None,
                  window: Interval[datetime], rounded: dict[Id, datetime],
                  ) -> tuple[datetime, datetime]:
    """The session's clock-in and `end` as `rule`'s rounding pays them; a clock-in or clock-out
    in the window that rounding moved goes into `rounded`."""
    begin = session.clock_in.time
    if rule is not None and rule.rounding is not None:
        begin = rules_.round_instant(begin, rule.rounding, rule.zone)
        if begin != session.clock_in.time and window.contains(session.clock_in.time):
            rounded[session.clock_in.id] = begin
        if session.clock_out is not None:
            end = rules_.round_instant(end, rule.rounding, rule.zone)
            if end != session.clock_out.time and window.contains(session.clock_out.time):
                rounded[session.clock_out.id] = end
    return begin, end


def _override_basis(shifts: Sequence[ScheduledShift]) -> tuple[WorkRule, ...]:
    """For a provider without work rules, a plain rule on the calendar of the first shift's
    override (no overtime, rounding or meal; every punched break unpaid, as without rules), so
    that each override's own rounding, breaks, meals, daily and seventh-day rules still pay its
    shift; none when no shift has an override."""
    override = next((s.work_rule for s in shifts if s.work_rule is not None), None)
    if override is None:
        return ()
    return (WorkRule(id=override.id, zone=override.zone, week_start_day=override.week_start_day,
                     week_start_time=override.week_start_time,
                     day_start_time=override.day_start_time, min_unpaid_break_minutes=0),)


def _pay_segments(sessions: Sequence[tuple[_Session, ScheduledShift | None, datetime]],
                  window: Interval[datetime], midnights: Sequence[datetime],
                  data: TimesheetInput) -> list[PaySegment]:
    """Cut the sessions' pieces at the window, local midnights and timecards; join the rest."""
    # Every cut a piece may need: the window's local midnights and the timecards' bounds (the
    # pieces lie inside the window, so its midnights are theirs).
    cuts = sorted({*midnights, *(b for t in data.timecards for b in (t.start, t.end))})
    pieces: list[_Piece] = []
    for session, shift, end in sessions:
        shift_id = shift.id if shift is not None else None
        pay_code = (shift.pay_code_id if shift is not None else None) or data.default_pay_code_id
        for first, last, kind, role in _raw_pieces(session, shift, end, data):
            first, last = max(first, window.start), min(last, window.end)
            if last <= first:  # outside the window
                continue
            codes = (pay_code,) if pay_code is not None and kind != "unpaid_break" else ()
            # iv.split at the sorted, distinct cuts, by bisection
            inside = cuts[bisect_right(cuts, first):bisect_left(cuts, last)]
            for start, stop in pairwise([first, *inside, last]):
                card = _timecard_at(start, data.timecards)
                pieces.append(_Piece(
                    start, stop, kind, role, shift_id,
                    card.id if card is not None else session.clock_in.timecard_id,
                    codes, start.astimezone(data.zone).date(), session.clock_in.id,
                ))
    return _segments(pieces)


Key = tuple[Id, Id | None]
"""A pay code and a role (None: paid break time)."""


def _scheduled_seconds(shifts: Sequence[ScheduledShift], window: Interval[datetime],
                       midnights: Sequence[datetime], data: TimesheetInput
                       ) -> dict[Key, dict[date, int]]:
    """Seconds of the valid shifts' working and paid-break segments in the window, by pay code,
    role and local day. A segment outside the window still names its total (with no days)."""
    # The window's local days in order: an instant's day is the one after the midnights before
    # it (bisection, rather than converting every piece's start to the site zone).
    first = window.start.astimezone(data.zone).date()
    local_days = [first + timedelta(days=n) for n in range(len(midnights) + 1)]
    scheduled: dict[Key, dict[date, int]] = {}
    for shift in shifts:
        pay_code = shift.pay_code_id or data.default_pay_code_id
        if pay_code is None or shift.invalid_reason is not None:
            continue
        for segment in shift.segments:
            if segment.type not in ("working", "paid_break"):
                continue
            role = segment.role_id if segment.type == "working" else None
            days = scheduled.setdefault((pay_code, role), defaultdict(int))
            start, end = max(segment.start, window.start), min(segment.end, window.end)
            if end <= start:
                continue
            after = bisect_right(midnights, start)
            inside = midnights[after:bisect_left(midnights, end)]
            for index, (low, high) in enumerate(pairwise([start, *inside, end]), after):
                days[local_days[index]] += _seconds(low, high)
    return scheduled


def _actual_seconds(segments: Sequence[PaySegment]) -> dict[Key, dict[date, int]]:
    """Seconds of the paid pay segments, by pay code, role and local day."""
    actual: dict[Key, dict[date, int]] = {}
    for piece in segments:
        if piece.type == "unpaid_break" or not piece.pay_codes:
            continue
        role = piece.role_id if piece.type == "working" else None
        days = actual.setdefault((piece.pay_codes[0], role), defaultdict(int))
        days[piece.day] += _seconds(piece.start, piece.end)
    return actual


def running_minutes(seconds_by_day: dict[date, int]) -> dict[date, int]:
    """Whole minutes per day that add up to the whole minutes of the days' total: each day gets
    the minutes its seconds complete on the running total, in day order."""
    minutes: dict[date, int] = {}
    done = 0
    for day in sorted(seconds_by_day):
        before = done
        done += seconds_by_day[day]
        minutes[day] = iv.whole_minutes(done) - iv.whole_minutes(before)
    return minutes


def _totals(shifts: Sequence[ScheduledShift], segments: Sequence[PaySegment],
            window: Interval[datetime], midnights: Sequence[datetime], data: TimesheetInput
            ) -> tuple[list[PayCodeTotal], list[PayCodeDay]]:
    """The pay code totals and the same figures by local day, from one count of seconds."""
    scheduled = _scheduled_seconds(shifts, window, midnights, data)
    actual = _actual_seconds(segments)
    keys = sorted(scheduled.keys() | actual.keys(),
                  key=lambda k: (str(k[0]), k[1] is not None, str(k[1])))
    totals: list[PayCodeTotal] = []
    days: list[PayCodeDay] = []
    for pay_code, role in keys:
        planned = scheduled.get((pay_code, role), {})
        worked = actual.get((pay_code, role), {})
        totals.append(PayCodeTotal(pay_code_id=pay_code, role_id=role,
                                   scheduled=iv.whole_minutes(sum(planned.values())),
                                   actual=iv.whole_minutes(sum(worked.values()))))
        planned_minutes, worked_minutes = running_minutes(planned), running_minutes(worked)
        days.extend(PayCodeDay(pay_code_id=pay_code, role_id=role, day=day,
                               scheduled=planned_minutes.get(day, 0),
                               actual=worked_minutes.get(day, 0))
                    for day in sorted(planned.keys() | worked.keys()))
    return totals, days


def _warnings(sessions: Sequence[tuple[_Session, ScheduledShift | None]],
              window: Interval[datetime], grace: timedelta) -> list[TimesheetWarning]:
    first: dict[Id, int] = {}
    last: dict[Id, int] = {}
    for index, (_session, shift) in enumerate(sessions):
        if shift is not None:
            first.setdefault(shift.id, index)
            last[shift.id] = index
    found: list[tuple[datetime, TimesheetWarning]] = []

    def warn(kind: TimesheetWarningType, punch: SheetPunch) -> None:
        found.append((punch.time, TimesheetWarning(type=kind, punch_id=punch.id)))

    for index, (session, shift) in enumerate(sessions):
        clock_in, clock_out = session.clock_in, session.clock_out
        if window.contains(clock_in.time):
            if shift is None:
                warn("missing_shift", clock_in)
            elif shift.has_working_time and first[shift.id] == index:
                if clock_in.time < shift.start - grace:
                    warn("clock_in_early", clock_in)
                elif clock_in.time > shift.start + grace:
                    warn("clock_in_late", clock_in)
        if (clock_out is not None and window.contains(clock_out.time) and shift is not None
                and shift.has_working_time and last[shift.id] == index):
            if clock_out.time < shift.end - grace:
                warn("clock_out_early", clock_out)
            elif clock_out.time > shift.end + grace:
                warn("clock_out_late", clock_out)
    found.sort(key=lambda pair: pair[0])
    return [w for _time, w in found]


# Pay rules -------------------------------------------------------------------------------------


def context_start(start: datetime, rules: Sequence[WorkRule]) -> datetime:
    """From when a timesheet for a window starting at `start` needs the provider's shifts and
    punches: without pay rules, `start` minus `MAX_SESSION` (a session crossing the window's
    start); with them, `MAX_SESSION` before the start of the workweek holding `start`, or of
    the 14-day period holding it when a version has period rules, whichever is earlier.
    Overtime depends on the work before the window in its workweek and period, and a session
    crossing that week's or period's start must pair up too: its part after the start counts
    toward the thresholds."""
    earliest = start
    if rules:
        cal = rules_.calendar(rules, start, start)
        week = cal.week_at(start)
        if week >= 0:
            earliest = min(earliest, cal.weeks[week])
        if any(r.rules_of("period") and r.period_anchor is not None for r in rules):
            period = cal.period_at(start)
            if period >= 0:
                earliest = min(earliest, cal.periods[period])
    return earliest - MAX_SESSION


class _Source(NamedTuple):
    """What a piece sent to the classification came from."""

    type: PieceType
    role_id: Id | None
    shift_id: Id | None
    pay_code: Id | None
    session: Id
    card: Id | None


def _ruled_sessions(sessions: Sequence[tuple[_Session, ScheduledShift | None, datetime]],
                    window: Interval[datetime], context: datetime, cal: rules_.Calendar,
                    data: TimesheetInput
                    ) -> tuple[list[WorkPiece], list[_Source], list[tuple[datetime, datetime, int]],
                               dict[Id, datetime]]:
    """The sessions ending after `context`, rounded and split like `_raw_pieces` under the
    rule of their workweek (or their shift's override): the paid pieces to classify, what each
    came from, the unpaid pieces (bounds and source index), and the rounded punches."""
    work: list[WorkPiece] = []
    sources: list[_Source] = []
    unpaid: list[tuple[datetime, datetime, int]] = []
    rounded: dict[Id, datetime] = {}
    for session, shift, end in sessions:
        if end <= context:
            continue
        override = shift.work_rule if shift is not None else None
        rule = override or cal.rule_at(session.clock_in.time)
        begin, end = _rounded_span(session, end, rule, window, rounded)
        shift_id = shift.id if shift is not None else None
        pay_code = (shift.pay_code_id if shift is not None else None) or data.default_pay_code_id
        counting = rule.counting_pay_codes if rule is not None else frozenset()
        if end <= window.start:  # context only: its paid time counts, its details do not
            counts_as: rules_.Counts = "counted" if pay_code in counting else "worked"
            work.extend(WorkPiece(a, b, counts_as, override, None)
                        for a, b in _context_paid(session, shift, begin, end, rule))
            continue
        for first, last, kind, role in _raw_pieces(session, shift, end, data, begin, rule):
            index = len(sources)
            sources.append(_Source(kind, role, shift_id, pay_code, session.clock_in.id,
                                   session.clock_in.timecard_id))
            if kind == "unpaid_break":
                unpaid.append((first, last, index))
                continue
            counts: rules_.Counts = "counted" if pay_code in counting else "worked"
            work.append(WorkPiece(first, last, counts, override, index))
    return work, sources, unpaid, rounded


def _context_paid(session: _Session, shift: ScheduledShift | None, begin: datetime,
                  end: datetime, rule: WorkRule | None) -> list[tuple[datetime, datetime]]:
    """The paid time of a session before the window, as `_raw_pieces` would pay it (worked
    time and paid breaks alike: both are hours worked)."""
    span = iv.make(begin, end)
    if span is None:
        return []
    punched = list(session.breaks)
    if rule is not None:
        shortest = timedelta(minutes=rule.min_unpaid_break_minutes)
        punched = [b for b in punched if b.end - b.start >= shortest]
    if session.break_start is not None and session.break_start < end:
        punched.append(Interval(session.break_start, end))
    breaks = iv.clip(punched, span)
    paid = [s.span for s in shift.segments if s.type == "paid_break"] if shift else []
    unpaid = iv.subtract(breaks, paid) if paid else breaks
    if rule is not None:
        meal = rules_.meal_deduction(span.start, span.end,
                                     [(b.start, b.end) for b in breaks], rule)
        if meal is not None and meal[0] < meal[1]:
            unpaid = iv.merge([*unpaid, Interval(*meal)])
    if not unpaid:
        return [(span.start, span.end)]
    return [(i.start, i.end) for i in iv.subtract([span], unpaid)]


def _ruled_pay_segments(classified: Sequence[ClassifiedPiece], sources: Sequence[_Source],
                        unpaid: Sequence[tuple[datetime, datetime, int]],
                        window: Interval[datetime], midnights: Sequence[datetime],
                        data: TimesheetInput) -> list[PaySegment]:
    """`_pay_segments` for classified pieces: overtime pieces are paid under their rule's pay
    code and carry the rule and basis; segments are also cut at workday starts."""
    cuts = sorted({*midnights, *(b for t in data.timecards for b in (t.start, t.end))})
    # The local day of an instant in the window: the one after the midnights before it; its
    # timecard: the same between two cuts (timecard bounds are cuts), so found once per gap.
    first_day = window.start.astimezone(data.zone).date()
    local_days = [first_day + timedelta(days=n) for n in range(len(midnights) + 1)]
    cards: dict[int, Id | None] = {}
    items: list[tuple[datetime, datetime, int, ClassifiedPiece | None]] = [
        (c.start, c.end, c.key, c) for c in classified
        if c.end > window.start and c.start < window.end and isinstance(c.key, int)]
    items.extend((a, b, index, None) for a, b, index in unpaid
                 if b > window.start and a < window.end)
    pieces: list[_Piece] = []
    for first, last, index, paid in items:
        first, last = max(first, window.start), min(last, window.end)
        source = sources[index]
        if paid is not None and paid.rule_id is not None and paid.pay_code_id is not None:
            codes: tuple[Id, ...] = (paid.pay_code_id,)
            overtime: tuple[Id, ...] = (paid.rule_id,)
        else:
            codes = ((source.pay_code,) if source.pay_code is not None
                     and source.type != "unpaid_break" else ())
            overtime = ()
        workday = paid.workday if paid is not None else None
        gap = bisect_right(cuts, first)
        inside = cuts[gap:bisect_left(cuts, last)]
        for offset_gap, (start, stop) in enumerate(pairwise([first, *inside, last]), gap):
            basis = None
            if overtime and paid is not None and paid.basis_kind is not None:
                offset = _seconds(paid.start, start)
                basis = (paid.basis_kind, paid.basis_from_seconds + offset,
                         paid.basis_from_seconds + offset + _seconds(start, stop))
            if offset_gap in cards:
                card_id = cards[offset_gap]
            else:
                card = _timecard_at(start, data.timecards)
                card_id = cards[offset_gap] = card.id if card is not None else None
            pieces.append(_Piece(
                start, stop, source.type, source.role_id, source.shift_id,
                card_id if card_id is not None else source.card, codes,
                local_days[bisect_right(midnights, start)], source.session, overtime, workday,
                basis))
    return _segments(pieces)


def _week_hours(classified: Sequence[ClassifiedPiece], window: Interval[datetime],
                cal: rules_.Calendar) -> list[WeekHours]:
    """The paid minutes in the window of each workweek overlapping it."""
    first = max(cal.week_at(window.start), 0)
    starts = [w for i, w in enumerate(cal.weeks) if i >= first and w < window.end]
    seconds = {w: [0, 0, 0] for w in starts}
    for piece in classified:
        counts = seconds.get(piece.workweek) if piece.workweek is not None else None
        if counts is None:
            continue
        start, end = max(piece.start, window.start), min(piece.end, window.end)
        if end <= start:
            continue
        column = 0 if piece.rule_id is None else (2 if piece.multiplier >= 2 else 1)
        counts[column] += _seconds(start, end)
    return [WeekHours(w, *(iv.whole_minutes(n) for n in seconds[w])) for w in starts]


def _overtime_starts_at(work: Sequence[WorkPiece], shifts: Sequence[ScheduledShift],
                        window: Interval[datetime], cal: rules_.Calendar, data: TimesheetInput
                        ) -> datetime | None:
    """When weekly or period overtime starts in the workweek (or period) holding `now`: the
    work so far, then the valid shifts' working and on-call time still to come."""
    now = data.now
    if not window.contains(now):
        return None
    week = cal.week_at(now)
    if week < 0:
        return None
    week_start = cal.weeks[week]
    rule = cal.week_rules[week]
    period = cal.period_at(now)
    period_start = cal.periods[period] if period >= 0 else None
    if period_start is not None and not cal.period_rules[period].rules_of("period"):
        period_start = None
    if not rule.rules_of("weekly") and period_start is None:
        return None
    since = week_start if period_start is None else min(week_start, period_start)
    done = [WorkPiece(max(p.start, since), min(p.end, now), p.counts, p.daily_rule, "done")
            for p in work if p.start < now and since < p.end]
    covered = [Interval(p.start, p.end) for p in done if p.start < p.end]
    planned: list[WorkPiece] = []
    for shift in shifts:
        if shift.invalid_reason is not None or shift.end <= now:
            continue
        times = [Interval(max(s.start, now), s.end) for s in shift.segments
                 if s.type in ROLE_SEGMENTS and now < s.end]
        planned.extend(WorkPiece(i.start, i.end, "worked", shift.work_rule, "planned")
                       for i in iv.subtract(times, covered))
    found: list[datetime] = []
    for piece in rules_.classify([*done, *planned], data.rules, cal=cal):
        weekly = piece.basis_kind == "weekly" and piece.workweek == week_start
        if weekly or (piece.basis_kind == "period" and period_start is not None
                      and piece.start >= period_start):
            found.append(piece.start)
    return min(found, default=None)


def compute_timesheet(data: TimesheetInput) -> Timesheet:
    """Compute a provider's timesheet for `[data.start, data.end)`.

    `data.shifts` and `data.punches` may reach beyond the window (the caller loads a margin of
    `MAX_SESSION` around it) so that sessions crossing the window's edges pair up; only the
    window's part of them is counted and only the window's punches are reported.
    """
    window = Interval(data.start, data.end)
    shifts = sorted(data.shifts, key=lambda s: (s.start, str(s.id)))
    in_window = [s for s in shifts if s.start < window.end and window.start < s.end]
    errors: list[TimesheetError] = []
    if not data.has_pay_period_template:
        errors.append(TimesheetError(type="missing_pay_period_template"))
    for shift in in_window:
        if shift.invalid_reason is not None:
            errors.append(TimesheetError(type="invalid_shift", shift_id=shift.id))
        if shift.start <= data.now and _timecard_at(shift.start, data.timecards) is None:
            errors.append(TimesheetError(type="missing_timecard", shift_id=shift.id))

    matched = [(s, match_shift(s.clock_in.time, shifts, data.missing_shift_tolerance))
               for s in sessions_of(data.punches)]
    counted: list[tuple[_Session, ScheduledShift | None, datetime]] = []
    for session, shift in matched:
        end, overdue = _session_end(session, shift, data)
        if overdue and window.contains(session.clock_in.time):
            errors.append(TimesheetError(type="no_clock_out",
                                         shift_id=shift.id if shift else None,
                                         timecard_id=session.clock_in.timecard_id))
        if end is not None:
            counted.append((session, shift, end))

    midnights = local_midnights(window, data.zone)
    rounded: dict[Id, datetime] = {}
    weeks: list[WeekHours] = []
    overtime_starts_at: datetime | None = None
    ruled = data.rules or _override_basis(shifts)
    if ruled:
        context = context_start(window.start, ruled)
        cal = rules_.calendar(ruled, context, window.end)
        work, sources, unpaid, rounded = _ruled_sessions(counted, window, context, cal, data)
        classified = rules_.classify(work, ruled, cal=cal)
        segments = _ruled_pay_segments(classified, sources, unpaid, window, midnights, data)
        if data.rules:  # the provider's own workweeks
            weeks = _week_hours(classified, window, cal)
            overtime_starts_at = _overtime_starts_at(work, shifts, window, cal, data)
    else:
        segments = _pay_segments(counted, window, midnights, data)
    totals, days = _totals(in_window, segments, window, midnights, data)
    return Timesheet(
        punches=[p for p in sorted(data.punches, key=lambda p: p.time)
                 if window.contains(p.time)],
        warnings=_warnings(matched, window, timedelta(minutes=data.grace_minutes)),
        errors=errors,
        pay_code_totals=totals,
        pay_segments=segments,
        punch_shifts={punch.id: shift.id for session, shift in matched if shift is not None
                      for punch in session.punches},
        pay_code_days=days,
        rounded=rounded,
        weeks=weeks,
        overtime_starts_at=overtime_starts_at,
    )
