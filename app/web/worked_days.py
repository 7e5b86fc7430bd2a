"""Punches grouped into the shifts they were worked for: the rows of timecards and timesheets.

The API attributes every punch of a clock-in session to the shift it was worked for (a
timesheet punch's `shiftId`), so a night shift's clock-out after midnight belongs to the evening
the shift began; the pages only group punches by that answer. A punch of no shift goes with its
session's clock-in (the last clock-in before it, of no shift either), and such a session is a row
of its own under the day it began. Worked and break minutes are the timesheet's pay segments of
each row, never recomputed here. Must not call the API.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from functools import cached_property

from app.contract.shifts import ShiftRead
from app.contract.timekeeping import TimesheetPunchRead, TimesheetRead

WARNINGS = {
    "clock_in_early": "Clocked in early", "clock_out_early": "Clocked out early",
    "clock_in_late": "Clocked in late", "clock_out_late": "Clocked out late",
    "missing_shift": "No scheduled shift",
}
ERRORS = {
    "no_clock_out": "No clock-out", "invalid_shift": "Shift set up wrongly",
    "missing_timecard": "No timecard for this shift",
    "missing_pay_period_template": "No pay period set up",
}
SCHEDULED_TYPES = ("working", "paid_break")
"""Segment types that count as scheduled time (the timesheet's rule)."""


def shift_days(shifts: Iterable[ShiftRead], zone: tzinfo) -> dict[str, date]:
    """Each shift's local start day, by id text (pay segments name shifts as text)."""
    return {str(s.id): s.start_date.astimezone(zone).date() for s in shifts}


def punch_days(punches: Iterable[TimesheetPunchRead], starts: Mapping[str, date],
               zone: tzinfo) -> dict[uuid.UUID, date]:
    """The day each timesheet punch is shown under, by punch id (`starts`: `shift_days`)."""
    days: dict[uuid.UUID, date] = {}
    session_day: date | None = None  # the open clock-in of no shift, if any
    for punch in sorted(punches, key=lambda p: p.time):
        own = punch.time.astimezone(zone).date()
        if punch.shift_id is not None:
            days[punch.id] = starts.get(str(punch.shift_id), own)
            if punch.action == "clock_in":
                session_day = None
            continue
        if punch.state == "rejected":
            days[punch.id] = own
            continue
        if punch.action == "clock_in":
            session_day = own
        days[punch.id] = session_day or own
        if punch.action == "clock_out":
            session_day = None
    return days


def scheduled_minutes(shift: ShiftRead) -> int:
    """The shift's scheduled minutes: its working and paid-break segments."""
    seconds = sum((s.end_date - s.start_date).total_seconds() for s in shift.segments
                  if s.type in SCHEDULED_TYPES)
    return int(seconds // 60)


@dataclass
class Stretch:
    """A clock-in to its clock-out (None while open), or a break start to its end."""

    start: TimesheetPunchRead
    end: TimesheetPunchRead | None = None


@dataclass
class ShiftRow:
    """One shift's punches (or one session of no shift) as a row of the timesheet.

    Its figures are computed once, on first use: read them only after `shift_rows` built it."""

    key: str
    day: date
    shift: ShiftRead | None
    punches: list[TimesheetPunchRead] = field(default_factory=list)
    worked: int = 0
    breaks: int = 0
    break_pieces: list[tuple[datetime, datetime, str]] = field(default_factory=list)
    """The row's break pay segments: start, end (now while open) and type."""
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    zone: tzinfo | None = None
    now: datetime | None = None

    @property
    def underway(self) -> bool:
        """Whether the row's shift has started and not yet ended."""
        return (self.shift is not None and self.now is not None
                and self.shift.start_date <= self.now < self.shift.end_date)

    @cached_property
    def scheduled(self) -> int:
        """Scheduled minutes of the row's shift (0 without one)."""
        return scheduled_minutes(self.shift) if self.shift else 0

    @cached_property
    def counted(self) -> list[TimesheetPunchRead]:
        """The punches that count (rejected ones do not), in time order."""
        return [p for p in self.punches if p.state != "rejected"]

    @cached_property
    def rejected(self) -> list[TimesheetPunchRead]:
        """Rejected punches, which the row lists apart."""
        return [p for p in self.punches if p.state == "rejected"]

    @cached_property
    def sessions(self) -> list[Stretch]:
        """Clock-in to clock-out stretches of the counted punches."""
        found: list[Stretch] = []
        for punch in self.counted:
            if punch.action == "clock_in":
                found.append(Stretch(punch))
            elif punch.action == "clock_out":
                if found and found[-1].end is None:
                    found[-1].end = punch
                else:
                    found.append(Stretch(punch, None))
        return found

    @cached_property
    def break_stretches(self) -> list[Stretch]:
        """Break start to end stretches of the counted punches."""
        found: list[Stretch] = []
        for punch in self.counted:
            if punch.action == "break_start":
                found.append(Stretch(punch))
            elif punch.action == "break_end" and found and found[-1].end is None:
                found[-1].end = punch
        return found

    def break_pay(self, stretch: Stretch) -> str | None:
        """How a closed punched break was paid, from the timesheet's pay segments: "paid"
        where a scheduled paid break holds it, "worked" where no break segment does (a break
        shorter than the work rule's shortest unpaid break is time worked), None when it is
        unpaid (what a break is unless told otherwise) or still open."""
        if stretch.end is None:
            return None
        start, end = stretch.start.time, stretch.end.time
        kinds = {kind for s, e, kind in self.break_pieces if s < end and start < e}
        if not kinds:
            return "worked"
        return "paid" if kinds == {"paid_break"} else None

    def next_day(self, punch: TimesheetPunchRead) -> bool:
        """Whether `punch` falls on a later local day than the row's day ("+1")."""
        return self.zone is not None and punch.time.astimezone(self.zone).date() > self.day

    @cached_property
    def pending(self) -> list[TimesheetPunchRead]:
        """Punches waiting for review."""
        return [p for p in self.punches if p.state == "pending"]

    @cached_property
    def open(self) -> bool:
        """Whether a clock-in of the row has no clock-out yet."""
        return any(s.start.action == "clock_in" and s.end is None for s in self.sessions)

    @cached_property
    def clean(self) -> bool:
        """Pending, complete, and with no warning and no error: safe to approve in bulk."""
        return bool(self.pending) and not self.warnings and not self.errors and not self.open

    @cached_property
    def state(self) -> str:
        """One word for the row: pending while any punch waits, else approved or rejected."""
        if not self.punches:
            return "none"
        if self.pending:
            return "pending"
        return "approved" if any(p.state == "approved" for p in self.punches) else "rejected"


def shift_rows(sheet: TimesheetRead | None, shifts: Sequence[ShiftRead], zone: tzinfo,
               now: datetime, *, first: date | None = None, since: datetime | None = None,
               timecards: set[str] | None = None) -> list[ShiftRow]:
    """The rows of one provider's timesheet, by start: each shift worked or started by `now`
    (from `shifts`, this provider's) with its punches, and each session of no shift.

    `first` moves rows that began before it (a night shift begun before the period) onto it;
    shifts without punches show from `since` on (default: all of `shifts`); `timecards` keeps
    only punches and pay segments of those timecards (a provider's own timecard page)."""
    punches = [p for p in (sheet.punches if sheet else [])
               if timecards is None or str(p.timecard_id) in timecards]
    by_shift = {str(s.id): s for s in shifts}
    starts = shift_days(shifts, zone)
    rows: dict[str, ShiftRow] = {}
    session: ShiftRow | None = None  # the open session of no shift
    last: ShiftRow | None = None  # the row of the punch before
    for punch in sorted(punches, key=lambda p: p.time):
        if punch.shift_id is not None:
            key = str(punch.shift_id)
            if key not in rows:
                day = starts.get(key) or punch.time.astimezone(zone).date()
                rows[key] = ShiftRow(key, day, by_shift.get(key), zone=zone, now=now)
            rows[key].punches.append(punch)
            last = rows[key]
            continue
        if punch.state == "rejected" and session is None and last is not None:
            last.punches.append(punch)  # the API names no shift for a rejected punch
            continue
        if (punch.state != "rejected" and punch.action == "clock_in") or session is None:
            key = f"punch-{punch.id}"
            session = rows[key] = ShiftRow(key, punch.time.astimezone(zone).date(), None,
                                           zone=zone, now=now)
        session.punches.append(punch)
        last = session
        if punch.state != "rejected" and punch.action == "clock_out":
            session = None
    for shift in shifts:
        key = str(shift.id)
        if key not in rows and shift.start_date <= now and (
                since is None or shift.start_date >= since):
            rows[key] = ShiftRow(key, starts[key], shift, zone=zone, now=now)
    _place_segments(sheet, rows, timecards, now)
    _place_findings(sheet, rows)
    ordered = sorted(rows.values(), key=_row_start)
    if first is not None:
        for row in ordered:
            row.day = max(row.day, first)
    return ordered


def _row_start(row: ShiftRow) -> datetime:
    if row.shift is not None and (not row.punches or row.shift.start_date < row.punches[0].time):
        return row.shift.start_date
    return row.punches[0].time


def _place_segments(sheet: TimesheetRead | None, rows: dict[str, ShiftRow],
                    timecards: set[str] | None, now: datetime) -> None:
    """Worked and break minutes of each row from the timesheet's pay segments: a segment names
    its shift; one of no shift belongs to the session of no shift it lies in."""
    loose = sorted((r for r in rows.values() if r.shift is None and r.key.startswith("punch-")),
                   key=lambda r: r.punches[0].time)
    seconds: dict[str, list[float]] = {}
    for segment in sheet.pay_segments if sheet else []:
        if segment.type == "time_off":
            continue
        if timecards is not None and segment.timecard_id not in timecards:
            continue
        row = rows.get(segment.shift_id) if segment.shift_id else None
        if row is None and not segment.shift_id:
            for candidate in loose:  # the last session of no shift begun by the segment
                if candidate.punches[0].time <= segment.start_date:
                    row = candidate
        if row is None:
            continue
        kind = 1 if segment.type in ("paid_break", "unpaid_break") else 0
        end = segment.end_date or now
        if kind:
            row.break_pieces.append((segment.start_date, end, segment.type))
        totals = seconds.setdefault(row.key, [0.0, 0.0])
        totals[kind] += (end - segment.start_date).total_seconds()
    for key, (worked, breaks) in seconds.items():
        rows[key].worked, rows[key].breaks = int(worked // 60), int(breaks // 60)


def _place_findings(sheet: TimesheetRead | None, rows: dict[str, ShiftRow]) -> None:
    """Warnings go to the row of their punch, errors to the row of their shift (a missing
    clock-out of no shift: the open session of no shift)."""
    if sheet is None:
        return
    of_punch = {p.id: r for r in rows.values() for p in r.punches}
    for warning in sheet.warnings:
        row = of_punch.get(warning.punch_id)
        text = WARNINGS.get(warning.type, "Does not match the schedule")
        if row is not None and text not in row.warnings:
            row.warnings.append(text)
    for error in sheet.errors:
        text = ERRORS.get(error.type, "Needs fixing")
        if error.shift_id is not None:
            targets = [rows[str(error.shift_id)]] if str(error.shift_id) in rows else []
        elif error.type == "no_clock_out":
            targets = [r for r in rows.values() if r.shift is None and r.open]
        else:
            targets = []
        for row in targets:
            if text not in row.errors:
                row.errors.append(text)


def page_errors(sheet: TimesheetRead | None, rows: Sequence[ShiftRow]) -> list[str]:
    """The timesheet's errors that belong to no row, in words."""
    placed = {(r.key) for r in rows}
    texts: list[str] = []
    for error in sheet.errors if sheet else []:
        if error.shift_id is not None and str(error.shift_id) in placed:
            continue
        if error.type == "no_clock_out" and error.shift_id is None and any(
                r.shift is None and r.open for r in rows):
            continue
        text = ERRORS.get(error.type, "Needs fixing")
        if text not in texts:
            texts.append(text)
    return texts
