"""Where a notification leads: the page of its record, for the kind of user reading it.

A link is only given to a page whose endpoint exists and whose area the reader may use
(`app.web.nav`), so a notice never links to a page the reader would be refused. A swap step
leads to the swaps page; an approved swap to the week that changed.
Must not call the API.
"""

from __future__ import annotations

from collections.abc import Container
from datetime import date, timedelta, tzinfo

from flask import url_for

from app.contract.notifications import NotificationRead
from app.contract.users import UserMe
from app.web import nav

# The area (menu endpoint) each kind of notice belongs to.
AREA = {
    "time-off-approved": "time_off.index", "time-off-rejected": "time_off.index",
    "punch-rejected": "timecard.index",
    "shift-assigned": "shifts.mine", "shift-changed": "shifts.mine",
    "shift-unassigned": "shifts.mine", "shift-deleted": "shifts.mine",
    "open-shift-posted": "shifts.open",
    "swap-applied": "swaps.index", "swap-accepted": "swaps.index",
    "swap-approved": "shifts.mine", "swap-rejected": "swaps.index",
}

LABELS = {
    "time_off.index": "See the request", "timecard.index": "See your timecard",
    "shifts.mine": "See your week", "shifts.open": "See open shifts",
    "swaps.index": "See your swaps",
}


def _day(notice: NotificationRead, zone: tzinfo) -> date | None:
    return None if notice.record_time is None else notice.record_time.astimezone(zone).date()


def link(notice: NotificationRead, me: UserMe, endpoints: Container[str],
         zone: tzinfo) -> tuple[str, str] | None:
    """The address and words of the notice's record page, or None when the reader has none."""
    area = AREA.get(notice.kind)
    usable = {item.endpoint for item in nav.menu(me, endpoints)}
    if area is None or area not in usable:
        return None
    day = _day(notice, zone)
    if area == "time_off.index" and "time_off.show" in endpoints:
        return url_for("time_off.show", request_id=notice.record_id), LABELS[area]
    if area == "timecard.index" and day is not None:
        return url_for(area, period=day.isoformat()), LABELS[area]
    if area == "shifts.mine" and day is not None:
        monday = day - timedelta(days=day.weekday())
        return url_for(area, week=monday.isoformat()), LABELS[area]
    return url_for(area), LABELS[area]
