"""Time-off rules: hours off per local day (DST-aware), paid hours, the state machine, the time a
request blocks, and the conflict plans; examples and hypothesis properties."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.api.domain import time_off as rules
from app.api.domain.intervals import Interval
from app.api.domain.time_off import DayOff

NY = ZoneInfo("America/New_York")
STATES = ["pending", "approved", "rejected", "cancelled", "pending_sync", "sync_failed"]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


def test_day_window_lasts_25_hours_when_clocks_fall_back_and_23_when_they_spring_forward():
    fall = rules.day_window(date(2026, 11, 1), NY)
    spring = rules.day_window(date(2026, 3, 8), NY)

    assert fall.end - fall.start == timedelta(hours=25)
    assert spring.end - spring.start == timedelta(hours=23)
    assert fall.start == at("2026-11-01T04:00:00+00:00")


def test_daily_hours_splits_at_local_midnight_and_counts_real_hours():
    days = rules.daily_hours(at("2026-11-01T02:00:00+00:00"), at("2026-11-01T10:00:00+00:00"),
                             zone=NY, is_full_day=False, full_day=8.0)

    assert days == [DayOff(date(2026, 10, 31), 2.0), DayOff(date(2026, 11, 1), 6.0)]


def test_daily_hours_caps_partial_days_at_a_full_day():
    days = rules.daily_hours(at("2026-11-01T04:00:00+00:00"), at("2026-11-02T05:00:00+00:00"),
                             zone=NY, is_full_day=False, full_day=30.0)

    assert days == [DayOff(date(2026, 11, 1), 24.0)]


def test_daily_hours_gives_full_days_to_every_touched_day_when_full_day():
    days = rules.daily_hours(at("2026-03-07T23:00:00-05:00"), at("2026-03-09T01:00:00-04:00"),
                             zone=NY, is_full_day=True, full_day=7.5)

    assert days == [DayOff(date(2026, 3, 7), 7.5), DayOff(date(2026, 3, 8), 7.5),
                    DayOff(date(2026, 3, 9), 7.5)]


@pytest.mark.parametrize(("own", "expected"), [(None, 8.0), (0.0, 8.0), (10.0, 10.0),
                                               (30.0, 24.0)])
def test_full_day_hours_prefers_the_providers_own_within_24(own, expected):
    assert rules.full_day_hours(own) == expected


def test_paid_hours_follows_the_policy():
    days = [DayOff(date(2026, 3, 2), 4.0), DayOff(date(2026, 3, 3), 8.0)]

    assert rules.paid_hours(days, policy_type="vacation", accrual_unit="hours",
                            full_day=8.0) == 12.0
    assert rules.paid_hours(days, policy_type="sick", accrual_unit="days", full_day=8.0) == 16.0
    assert rules.paid_hours(days, policy_type="unpaid-day", accrual_unit="hours",
                            full_day=8.0) == 0.0


@pytest.mark.parametrize(("state", "action", "expected"), [
    ("pending", "approve", "approved"), ("pending", "reject", "rejected"),
    ("pending", "cancel", "cancelled"), ("approved", "cancel", "cancelled"),
    ("approved", "approve", None), ("approved", "reject", None), ("rejected", "cancel", None),
    ("cancelled", "cancel", None), ("pending_sync", "approve", None),
])
def test_next_state_allows_only_the_designed_moves(state, action, expected):
    assert rules.next_state(state, action) == expected


@given(st.sampled_from(STATES), st.sampled_from(["approve", "reject", "cancel", "other"]))
def test_next_state_never_leaves_a_final_state(state, action):
    target = rules.next_state(state, action)
    if state in {"rejected", "cancelled", "pending_sync", "sync_failed"}:
        assert target is None
    if target is not None:
        assert target in STATES
        assert target != state


def test_blocked_window_widens_full_day_requests_to_local_days():
    start, end = at("2026-11-01T10:00:00+00:00"), at("2026-11-01T11:00:00+00:00")

    assert rules.blocked_window(start, end, is_full_day=False, zone=NY) == Interval(start, end)
    assert rules.blocked_window(start, end, is_full_day=True, zone=NY) == Interval(
        at("2026-11-01T04:00:00+00:00"), at("2026-11-02T05:00:00+00:00"))


def test_conflicts_skips_callouts_and_touching_shifts():
    window = Interval(at("2026-03-02T05:00:00+00:00"), at("2026-03-03T05:00:00+00:00"))
    shifts = [
        (at("2026-03-02T12:00:00+00:00"), at("2026-03-03T00:00:00+00:00"), False),
        (at("2026-03-02T12:00:00+00:00"), at("2026-03-03T00:00:00+00:00"), True),
        (at("2026-03-03T05:00:00+00:00"), at("2026-03-03T17:00:00+00:00"), False),
        (at("2026-03-01T20:00:00+00:00"), at("2026-03-02T06:00:00+00:00"), False),
    ]

    assert rules.conflicts(window, shifts) == [0, 3]


def test_plans_cover_every_strategy():
    assert set(rules.PLANS) == {"delete", "deleteWithOpen", "callout", "calloutWithOpen", "keep",
                                "keepWithOpen"}
    assert all(plan.open_copy == name.endswith("WithOpen") for name, plan in rules.PLANS.items())
    assert not any(plan.delete and plan.callout for plan in rules.PLANS.values())


def test_given_days_errors_names_outside_and_repeated_days():
    allowed = [date(2026, 3, 2), date(2026, 3, 3)]
    given_days = [DayOff(date(2026, 3, 2), 8), DayOff(date(2026, 3, 4), 8),
                  DayOff(date(2026, 3, 2), 4)]

    errors = rules.given_days_errors(given_days, allowed)

    assert [e.path for e in errors] == ["/dailyHours/1/date", "/dailyHours/2/date"]
    assert rules.given_days_errors([], allowed)[0].path == "/dailyHours"
    assert rules.given_days_errors(given_days[:1], allowed) == []


# Properties -------------------------------------------------------------------------------------

_instants = st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2027, 12, 31),
                         timezones=st.just(UTC))
_spans = st.integers(min_value=1, max_value=5 * 24 * 60)


@given(_instants, _spans, st.sampled_from([NY, ZoneInfo("UTC"), ZoneInfo("Asia/Kolkata")]))
def test_local_days_are_consecutive_and_cover_the_request(start, minutes, zone):
    end = start + timedelta(minutes=minutes)

    days = rules.local_days(start, end, zone)

    assert days[0] == start.astimezone(zone).date()
    assert all(b - a == timedelta(days=1) for a, b in pairwise(days))
    assert rules.day_window(days[0], zone).contains(start)
    assert rules.day_window(days[-1], zone).contains(end - timedelta(microseconds=1))


@given(_instants, _spans)
def test_partial_daily_hours_add_up_to_the_request_in_a_zone_without_dst(start, minutes):
    end = start + timedelta(minutes=minutes)

    days = rules.daily_hours(start, end, zone=ZoneInfo("UTC"), is_full_day=False, full_day=24.0)

    assert sum(d.hours for d in days) == pytest.approx(minutes / 60, abs=1e-3)


@given(_instants, _spans, st.floats(min_value=1, max_value=30))
def test_daily_hours_never_exceed_a_full_day_and_paid_hours_follow(start, minutes, full_day):
    end = start + timedelta(minutes=minutes)

    for is_full_day in (True, False):
        days = rules.daily_hours(start, end, zone=NY, is_full_day=is_full_day, full_day=full_day)
        assert all(0 < d.hours <= min(full_day, 24.0) for d in days)
        hours = rules.paid_hours(days, policy_type="vacation", accrual_unit="hours",
                                 full_day=full_day)
        whole = rules.paid_hours(days, policy_type="sick", accrual_unit="days", full_day=full_day)
        assert hours <= whole + 1e-6
        assert rules.paid_hours(days, policy_type="unpaid-day", accrual_unit="days",
                                full_day=full_day) == 0.0


@given(_instants, _spans, st.booleans())
def test_blocked_window_always_covers_the_request(start, minutes, is_full_day):
    end = start + timedelta(minutes=minutes)

    window = rules.blocked_window(start, end, is_full_day=is_full_day, zone=NY)

    assert window.covers(Interval(start, end))
    if is_full_day:
        assert window.start.astimezone(NY).time().hour == 0
        assert window.end.astimezone(NY).time().hour == 0


def test_window_errors_refuses_long_and_far_away_requests():
    start = at("2026-01-01T00:00:00+00:00")

    assert rules.window_errors(start, start + timedelta(days=366)) == []
    assert [e.path for e in rules.window_errors(start, start + timedelta(days=367))] == \
        ["/endDate"]
    assert [e.path for e in rules.window_errors(at("1800-01-01T00:00:00+00:00"), start)] == \
        ["/startDate"]
