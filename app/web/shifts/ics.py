"""A small RFC 5545 writer for the provider's shift calendar (`GET /shifts/mine.ics`).

Text values are escaped (§3.3.11), content lines folded at 75 octets without splitting a UTF-8
character (§3.1), lines end in CRLF, and every time is UTC (`…Z`), so calendars need no
VTIMEZONE. Approved full-day time off is an all-day event (`VALUE=DATE`, the end day
exclusive, §3.6.1), part-day time off a timed one. Must not call the API.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo

from app.web.filters import LeaveSpan
from app.web.shifts.summary import ShiftView

DASH = "\u2013"
PRODID = "-//Shiftdesk//Provider shifts//EN"


def escape(text: str) -> str:
    """A TEXT value: backslash, semicolon, comma and newlines escaped."""
    return (text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
            .replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n"))


def fold(line: str) -> str:
    """One content line folded into 75-octet pieces joined by CRLF and a space."""
    raw = line.encode("utf-8")
    if len(raw) <= 75:
        return line
    pieces: list[str] = []
    current = b""
    limit = 75
    for char in line:
        encoded = char.encode("utf-8")
        if len(current) + len(encoded) > limit:
            pieces.append(current.decode("utf-8"))
            current = b""
            limit = 74  # continuation lines start with one space
        current += encoded
    pieces.append(current.decode("utf-8"))
    return "\r\n ".join(pieces)


def utc(value: datetime) -> str:
    """`20260302T120000Z`."""
    return value.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")


def _summary(shift: ShiftView) -> str:
    what = ", ".join(shift.roles) if shift.roles else "Shift"
    if shift.on_call:
        what += " (on call)"
    return f"{what} · {shift.team}" if shift.team else what


def _description(shift: ShiftView, zone: tzinfo) -> str:
    lines = [f"{s.kind}: {s.start.astimezone(zone):%H:%M}{DASH}{s.end.astimezone(zone):%H:%M} "
             f"{s.start.astimezone(zone).tzname()}"
             + (f" ({s.role})" if s.role and not s.is_break else "")
             for s in shift.segments]
    if shift.labels:
        lines.append("Labels: " + ", ".join(label.name for label in shift.labels))
    if shift.note:
        lines.append(f"Note: {shift.note}")
    return "\n".join(lines)


def event(shift: ShiftView, *, now: datetime, domain: str, zone: tzinfo = UTC) -> list[str]:
    """The VEVENT lines of one shift."""
    lines = [
        "BEGIN:VEVENT",
        f"UID:shift-{shift.id}@{domain}",
        f"DTSTAMP:{utc(now)}",
        f"DTSTART:{utc(shift.start)}",
        f"DTEND:{utc(shift.end)}",
        f"SUMMARY:{escape(_summary(shift))}",
    ]
    description = _description(shift, zone)
    if description:
        lines.append(f"DESCRIPTION:{escape(description)}")
    if shift.labels:
        lines.append("CATEGORIES:" + ",".join(escape(label.name) for label in shift.labels))
    lines.append("END:VEVENT")
    return lines


@dataclass(frozen=True)
class Leave:
    """Approved time off: its request id, policy name and range on the site's calendar."""

    id: str
    policy: str
    span: LeaveSpan


def _day(value: date) -> str:
    return value.strftime("%Y%m%d")


def leave_event(leave: Leave, *, now: datetime, domain: str) -> list[str]:
    """The VEVENT lines of approved time off: all-day for whole days, else timed."""
    span = leave.span
    if span.full_day:
        when = [f"DTSTART;VALUE=DATE:{_day(span.first)}",
                f"DTEND;VALUE=DATE:{_day(span.last + timedelta(days=1))}"]
    else:
        when = [f"DTSTART:{utc(span.start)}", f"DTEND:{utc(span.end)}"]
    return ["BEGIN:VEVENT", f"UID:time-off-{leave.id}@{domain}", f"DTSTAMP:{utc(now)}", *when,
            f"SUMMARY:{escape(f'Time off · {leave.policy}')}", "TRANSP:OPAQUE", "END:VEVENT"]


def calendar(shifts: Iterable[ShiftView], *, now: datetime, domain: str, name: str,
             zone: tzinfo = UTC, leave: Iterable[Leave] = ()) -> str:
    """A whole VCALENDAR of `shifts` and approved `leave`, CRLF line endings, folded."""
    lines = ["BEGIN:VCALENDAR", "VERSION:2.0", f"PRODID:{PRODID}", "CALSCALE:GREGORIAN",
             "METHOD:PUBLISH", f"X-WR-CALNAME:{escape(name)}"]
    for shift in shifts:
        lines.extend(event(shift, now=now, domain=domain, zone=zone))
    for off in leave:
        lines.extend(leave_event(off, now=now, domain=domain))
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + "\r\n" for line in lines)
