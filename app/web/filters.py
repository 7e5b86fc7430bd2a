"""Template filters that show instants in the site's time zone (`SHIFTDESK_TIMEZONE`).

The wire and the database speak UTC; people read local wall-clock time. Conversion happens here
only, through `zoneinfo`, so daylight-saving changes are right on either side of the switch.
Naive datetimes are refused: a time without an offset is a bug, not something to guess about.
Must not call the API.
"""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from flask import Flask

from app.contract.common import parse_timestamp


def to_local(value: datetime | str, zone: ZoneInfo) -> datetime:
    """The instant `value` (aware datetime or wire timestamp) on the site's wall clock."""
    instant = parse_timestamp(value)  # refuses naive datetimes and offset-less strings
    return instant.astimezone(zone)


def format_time(value: datetime | str, zone: ZoneInfo) -> str:
    """`7:05 AM` on the site's clock."""
    local = to_local(value, zone)
    return local.strftime("%I:%M %p").lstrip("0")


def format_date(value: datetime | date | str, zone: ZoneInfo) -> str:
    """`Sun 8 Mar 2026`: the site's calendar day of an instant (a plain date as it is)."""
    day = value if isinstance(value, date) and not isinstance(value, datetime) \
        else to_local(value, zone)
    return f"{day:%a} {day.day} {day:%b %Y}"


def format_datetime(value: datetime | str, zone: ZoneInfo) -> str:
    """`Sun 8 Mar 2026, 3:00 AM EDT`: day, time and the zone's abbreviation (EST or EDT)."""
    local = to_local(value, zone)
    return f"{format_date(local, zone)}, {format_time(local, zone)} {local.tzname()}"


def iso_instant(value: datetime | str) -> str:
    """The instant in ISO 8601 with its UTC offset, for `<time datetime>`."""
    return parse_timestamp(value).isoformat()


def install(app: Flask, zone: ZoneInfo) -> None:
    """Register the time filters on `app`'s templates."""
    app.jinja_env.filters.update(
        local_time=lambda value: format_time(value, zone),
        local_date=lambda value: format_date(value, zone),
        local_datetime=lambda value: format_datetime(value, zone),
        iso_instant=iso_instant,
    )
