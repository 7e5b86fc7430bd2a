"""Page benchmarks of the manager pages (issue 6), for `python -m tests.bench.pages`.

The time-off queue reads the user, then one concurrent round (the page of pending requests, the
pending count, teams, providers, policies), then, concurrently, the shifts of each provider on
the page around their pending requests (for the conflict hints). The team schedule reads the
user, then one concurrent round of six (teams, providers, the week's shifts, approved time off,
roles, and the week's hourly coverage for the strip under the grid); its target ratio is 1.2.
The team timesheet (the manager's team, the whole current pay period, by shift) reads the
user, then the teams and the team's providers, then the period's timesheets, shifts and
sign-offs (the pay-period panel's); it is measured with every section folded and with the
busiest provider's section open.
`api_calls` makes exactly those calls, concurrently where the views do.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from app.config import Settings
from app.contract.time_off import TimeOffRequestListQuery
from app.web.manage_schedule.views import week_reads
from app.web.manage_time_off.views import PAGE_SIZE, first_round, overlap_reads
from app.web.manage_timesheets.views import people_reads, period_of, sheet_reads
from tests.bench.pages import PageCase

MANAGER = "manager@example.com"


def _queue_calls(client: Any) -> object:
    client.me()
    page, *_ = first_round(client, TimeOffRequestListQuery(status=["pending"],
                                                           page_size=PAGE_SIZE))
    return client.concurrently(*overlap_reads(client, page.items))


def _week() -> tuple[datetime, datetime, date]:
    zone = Settings().zone
    today = datetime.now(UTC).astimezone(zone).date()
    monday = today - timedelta(days=today.weekday())
    begin = datetime.combine(monday, time(0), tzinfo=zone).astimezone(UTC)
    end = datetime.combine(monday + timedelta(days=7), time(0), tzinfo=zone).astimezone(UTC)
    return begin, end, monday


def _schedule_calls(client: Any) -> object:
    me = client.me()
    team = me.team_ids[0] if me.team_ids else None
    begin, end, first_day = _week()
    return client.concurrently(*week_reads(client, team, begin, end, first_day))


def _timesheet_calls(client: Any, chosen: Any = None) -> object:
    me = client.me()
    team = me.team_ids[0] if me.team_ids else None
    _teams, providers = client.concurrently(*people_reads(client, team))
    zone = Settings().zone
    today = datetime.now(UTC).astimezone(zone).date()
    people = sorted(providers.items, key=lambda p: (p.name or p.email).lower())
    pattern = next((p for p in people if p.id == chosen), None) or next(
        (p for p in people if p.pay_period_template), None)
    start, length = period_of(pattern, today, zone)
    begin = datetime.combine(start, time(0), tzinfo=zone).astimezone(UTC)
    end = datetime.combine(start + timedelta(days=length), time(0), tzinfo=zone).astimezone(UTC)
    return client.concurrently(*sheet_reads(client, team, begin, end))


def _busiest(client: Any) -> Any:
    """The manager's provider with the most shifts this period (whose section the page opens)."""
    me = client.me()
    team = me.team_ids[0] if me.team_ids else None
    sheets, _shifts, _sign_offs = _timesheet_calls(client)
    return max(sheets, key=lambda s: len(s.punches)).provider_id if team else None


CASES = [
    PageCase(name="time-off queue", email=MANAGER, path="/manage/time-off",
             api_calls=_queue_calls, compressed_bytes=True),
    PageCase(name="team schedule (with the coverage strip)", email=MANAGER,
             path="/manage/schedule", api_calls=_schedule_calls, compressed_bytes=True,
             ratio_target=1.2, shows='<section class="cov" aria-labelledby="cov-title"'),
    PageCase(name="team timesheet (by shift, whole period)", email=MANAGER,
             path="/manage/timesheets", api_calls=_timesheet_calls, compressed_bytes=True,
             ratio_target=1.2, page_bytes_target=35_000),
    PageCase(name="team timesheet, the busiest provider's section open", email=MANAGER,
             path=lambda client: f"/manage/timesheets?provider={_busiest(client)}",
             api_calls=lambda client: _timesheet_calls(client, _busiest_once(client)),
             compressed_bytes=True, ratio_target=1.2, page_bytes_target=35_000),
]

_BUSIEST: dict[int, Any] = {}


def _busiest_once(client: Any) -> Any:
    """`_busiest`, asked once per client (the page knows it from its address)."""
    if id(client) not in _BUSIEST:
        _BUSIEST[id(client)] = _busiest(client)
    return _BUSIEST[id(client)]
