"""Page benchmarks of the provider pages (issue 5), for `python -m tests.bench.pages`.

Each provider page makes one concurrent round of API calls (the timecard page: the user, then
one round of three: the timesheet and shifts around the day, and the provider's pay period).
`api_calls` calls the views' own `fetch` functions with the same queries, so the API side is
exactly what the page asks for. The clock page, the provider's home on a phone,
also reports its transferred bytes.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any

from app.config import Settings
from app.web.clock.views import fetch as clock_fetch
from app.web.shifts.views import fetch as shifts_fetch
from app.web.shifts.views import leave_query, open_fetch, week_query
from app.web.time_off.views import fetch as time_off_fetch
from app.web.timecard.views import fetch as timecard_fetch
from tests.bench.pages import PageCase

PROVIDER = "provider@example.com"


def _now() -> datetime:
    return datetime.now(UTC)


_PROVIDER_IDS: dict[int, Any] = {}


def _provider_id(client: Any) -> Any:
    """The provider id the UI keeps in the session after the first page (asked once here)."""
    if id(client) not in _PROVIDER_IDS:
        _PROVIDER_IDS[id(client)] = client.me().provider_id
    return _PROVIDER_IDS[id(client)]


def _timecard(client: Any) -> object:
    me = client.me()
    return timecard_fetch(client, me.provider_id, _now())


def _week(client: Any) -> object:
    zone = Settings().zone
    today = _now().astimezone(zone).date()
    monday = today - timedelta(days=today.weekday())
    provider = _provider_id(client)
    start = datetime.combine(monday, time(0), tzinfo=zone)
    end = datetime.combine(monday + timedelta(days=7), time(0), tzinfo=zone)
    return shifts_fetch(client, week_query(monday, zone, provider),
                        time_off=leave_query(start, end, provider))


CASES = [
    PageCase(name="clock page", email=PROVIDER, path="/clock",
             api_calls=lambda client: clock_fetch(client, _now(), _provider_id(client)),
             compressed_bytes=True),
    PageCase(name="my timecard", email=PROVIDER, path="/timecard", api_calls=_timecard),
    PageCase(name="my shifts (week)", email=PROVIDER, path="/shifts/mine", api_calls=_week),
    PageCase(name="open shifts", email=PROVIDER, path="/shifts/open",
             api_calls=lambda client: open_fetch(client, _now()),
             compressed_bytes=True),
    PageCase(name="time off", email=PROVIDER, path="/time-off",
             api_calls=lambda client: time_off_fetch(client)),
]
