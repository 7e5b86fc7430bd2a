"""The day a punch is shown under: the day its shift started, as the timesheet says.

The API attributes every punch of a clock-in session to the shift it was worked for (a
timesheet punch's `shiftId`), so a night shift's clock-out after midnight belongs to the evening
the shift began; the pages only place punches on the calendar by that answer. A punch of no
shift goes under the day of its session's clock-in (the last clock-in before it, of no shift
either), else its own day. Must not call the API.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from datetime import date, tzinfo

from app.contract.shifts import ShiftRead
from app.contract.timekeeping import TimesheetPunchRead


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
