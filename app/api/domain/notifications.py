"""The words of notifications: each kind's title and body from plain facts.

Pure: no session, no clock. Times are written in the site's zone in the staff UI's language
("Wed 2 Dec, 7:00 AM - 3:00 PM", with an en dash), since a notice is read as it was written
(in the app and in an email) and cannot be re-formatted by its reader. Must not decide who is
told.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

DASH = "\u2013"
MAX_REASON = 500
"""The longest reason or note quoted in a notice (the rest is cut with an ellipsis)."""


@dataclass(frozen=True)
class Words:
    """A notice's title (one line) and body (a sentence or two)."""

    title: str
    body: str


def _day(value: date) -> str:
    return f"{value:%a} {value.day} {value:%b}"


def _clock(value: datetime) -> str:
    hour = value.hour % 12 or 12
    return f"{hour}:{value:%M} {'AM' if value.hour < 12 else 'PM'}"


def span(start: datetime, end: datetime, zone: tzinfo) -> str:
    """`Wed 2 Dec, 7:00 AM - 3:00 PM` (an en dash); `+1` when it ends on a later local day."""
    first, last = start.astimezone(zone), end.astimezone(zone)
    later = (last.date() - first.date()).days
    suffix = f" +{later}" if later > 0 else ""
    return f"{_day(first.date())}, {_clock(first)} {DASH} {_clock(last)}{suffix}"


def moment(at: datetime, zone: tzinfo) -> str:
    """`Wed 2 Dec, 7:05 AM`."""
    local = at.astimezone(zone)
    return f"{_day(local.date())}, {_clock(local)}"


def leave_days(start: datetime, end: datetime, zone: tzinfo) -> str:
    """`Tue 8 Dec`, or `Tue 8 - Wed 9 Dec` (an en dash) for leave over several local days."""
    first = start.astimezone(zone).date()
    last = (max(end, start + timedelta(microseconds=1))
            - timedelta(microseconds=1)).astimezone(zone).date()
    if first == last:
        return _day(first)
    return f"{_day(first)} {DASH} {_day(last)}"


def quoted(text: str | None) -> str | None:
    """A reason or note as a notice quotes it: stripped, cut to `MAX_REASON`, None if blank."""
    if text is None or not text.strip():
        return None
    text = " ".join(text.split())
    return text if len(text) <= MAX_REASON else text[:MAX_REASON - 1] + "…"


def _by(who: str | None) -> str:
    return f" by {who}" if who else ""


def time_off_approved(leave: str, who: str | None) -> Words:
    """Leave approved."""
    return Words("Time off approved", f"Your time off {leave} was approved{_by(who)}.")


def time_off_rejected(leave: str, who: str | None, reason: str | None) -> Words:
    """Leave declined, with the reason."""
    said = quoted(reason)
    return Words("Time off declined", f"Your time off {leave} was declined{_by(who)}"
                 + (f": “{said}”" if said else "."))


def punch_rejected(action: str, when: str, who: str | None, note: str | None) -> Words:
    """A punch rejected, with the reviewer's note."""
    said = quoted(note)
    return Words("Punch rejected", f"Your {action.replace('_', ' ')} punch of {when} was "
                 f"rejected{_by(who)}" + (f": “{said}”" if said else "."))


def shift_assigned(when: str, who: str | None) -> Words:
    """A shift given to the person."""
    return Words("New shift", f"You have a shift on {when}, assigned{_by(who)}.")


def shift_changed(when: str, before: str | None, who: str | None) -> Words:
    """One of the person's shifts changed (`before`: its old times, when they changed)."""
    moved = f" (was {before})" if before and before != when else ""
    return Words("Shift changed", f"Your shift on {when}{moved} was changed{_by(who)}.")


def shift_unassigned(when: str, who: str | None) -> Words:
    """One of the person's shifts given to someone else or made open."""
    return Words("Shift taken off your schedule",
                 f"Your shift on {when} is no longer yours: it was reassigned{_by(who)}.")


def shift_deleted(when: str, who: str | None) -> Words:
    """One of the person's shifts deleted."""
    return Words("Shift cancelled", f"Your shift on {when} was deleted{_by(who)}.")


def open_shift_posted(when: str, roles: str) -> Words:
    """An open shift that fits the person's roles and availability (`roles`: its roles' names)."""
    what = f" ({roles})" if roles else ""
    return Words("Open shift you can pick up",
                 f"There is an open shift on {when}{what}; it fits your roles and "
                 "availability.")


def swap_applied(when: str, who: str | None, offered: str | None) -> Words:
    """Someone applied for the person's listed shift (optionally offering one of theirs)."""
    someone = who or "A colleague"
    offer = f", offering their shift on {offered} in exchange" if offered else ""
    return Words("Someone wants your shift",
                 f"{someone} applied for your shift on {when}{offer}.")


def swap_accepted(when: str, who: str | None, needs_approval: bool) -> Words:
    """The lister accepted the person's application."""
    after = " It now waits for a manager's approval." if needs_approval else ""
    return Words("Swap accepted", f"Your application for the shift on {when} was accepted"
                 f"{_by(who)}.{after}")


def swap_approved(when: str, who: str | None) -> Words:
    """A manager approved the swap: the shifts changed hands."""
    return Words("Swap approved", f"The swap of the shift on {when} was approved{_by(who)}; "
                 "your schedule shows the change.")


def swap_rejected(when: str, who: str | None, reason: str | None) -> Words:
    """A manager (or the lister) turned the swap down, with the reason."""
    said = quoted(reason)
    return Words("Swap declined", f"The swap of the shift on {when} was declined{_by(who)}"
                 + (f": “{said}”" if said else "."))
