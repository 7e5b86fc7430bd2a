"""The timecard rules: the next-action state machine and pay periods from a provider's template."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.api.domain.intervals import Interval
from app.api.domain.timecards import (
    MAX_AHEAD,
    NEXT_ACTIONS,
    PayPeriodTemplate,
    Punch,
    allowed_at,
    allowed_next,
    is_valid_next,
    last_at,
    local_midnights,
    parse_pay_period_template,
    pay_period_containing,
    pay_periods_overlapping,
    too_far_ahead,
)

NY = ZoneInfo("America/New_York")
T0 = datetime(2026, 3, 2, 12, tzinfo=UTC)
ACTIONS = ("clock_in", "clock_out", "break_start", "break_end")


def punch(action: str, minutes: int = 0, state: str = "pending") -> Punch:
    return Punch(id=uuid.uuid4(), action=action, time=T0 + timedelta(minutes=minutes),  # type: ignore[arg-type]
                 state=state)


# Next actions ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("history", "expected"), [
    ([], ["clock_in"]),
    (["clock_in"], ["clock_out", "break_start"]),
    (["clock_in", "break_start"], ["break_end"]),
    (["clock_in", "break_start", "break_end"], ["clock_out", "break_start"]),
    (["clock_in", "break_start", "break_end", "clock_out"], ["clock_in"]),
])
def test_allowed_next_follows_the_last_punch(history: list[str], expected: list[str]) -> None:
    punches = [punch(action, minutes=i) for i, action in enumerate(history)]
    assert allowed_next(punches) == expected


def test_allowed_next_ignores_rejected_punches() -> None:
    punches = [punch("clock_in", 0), punch("clock_out", 60, state="rejected")]
    assert allowed_next(punches) == ["clock_out", "break_start"]


def test_allowed_next_counts_pending_and_approved() -> None:
    assert allowed_next([punch("clock_in", 0, state="approved")]) == ["clock_out", "break_start"]
    assert allowed_next([punch("clock_in", 0, state="pending")]) == ["clock_out", "break_start"]


def test_allowed_next_uses_time_order_not_input_order() -> None:
    punches = [punch("clock_out", 60), punch("clock_in", 0)]
    assert allowed_next(punches) == ["clock_in"]


def test_is_valid_next_refuses_second_clock_in_and_stray_break_end() -> None:
    punches = [punch("clock_in")]
    assert is_valid_next(punches, "clock_out")
    assert not is_valid_next(punches, "clock_in")
    assert not is_valid_next(punches, "break_end")
    assert not is_valid_next([], "clock_out")
    assert not is_valid_next([], "teleport")


@given(st.lists(st.integers(0, 3), max_size=30))
def test_allowed_next_never_allows_two_clock_ins_in_a_row(choices: list[int]) -> None:
    punches: list[Punch] = []
    for step, choice in enumerate(choices):
        options = allowed_next(punches)
        punches.append(punch(options[choice % len(options)], minutes=step))
    actions = [p.action for p in punches]
    assert all(not (a == b == "clock_in") for a, b in pairwise(actions))
    if actions and actions[-1] == "clock_in":
        assert "clock_in" not in allowed_next(punches)
    assert actions.count("clock_in") - actions.count("clock_out") in (0, 1)


@given(st.lists(st.tuples(st.sampled_from(ACTIONS), st.integers(0, 500),
                          st.sampled_from(["pending", "approved", "rejected"])), max_size=12))
def test_allowed_next_depends_only_on_the_last_counted_punch(
        raw: list[tuple[str, int, str]]) -> None:
    punches = [punch(a, m, s) for a, m, s in raw]
    counted = sorted((p for p in punches if p.state != "rejected"), key=lambda p: p.time)
    last = counted[-1].action if counted else None
    assert allowed_next(punches) == list(NEXT_ACTIONS[last])


# Punches at a time --------------------------------------------------------------------------


def test_allowed_at_ignores_punches_after_the_time() -> None:
    punches = [punch("clock_in", 0), punch("break_start", 360), punch("break_end", 390),
               punch("clock_out", 720)]
    assert allowed_at(punches, T0 - timedelta(minutes=1)) == ["clock_in"]
    assert allowed_at(punches, T0 + timedelta(minutes=100)) == ["clock_out", "break_start"]
    assert allowed_at(punches, T0 + timedelta(minutes=370)) == ["break_end"]
    assert allowed_at(punches, T0 + timedelta(minutes=800)) == ["clock_in"]


def test_allowed_at_counts_a_punch_at_the_same_instant() -> None:
    # A repeated punch with the same time (a double submit) sees the first one.
    assert allowed_at([punch("clock_in", 0)], T0) == ["clock_out", "break_start"]


def test_last_at_skips_rejected_and_later_punches() -> None:
    first = punch("clock_in", 0)
    punches = [first, punch("clock_out", 10, state="rejected"), punch("clock_out", 30)]
    assert last_at(punches, T0 + timedelta(minutes=20)) is first
    assert last_at(punches, T0 - timedelta(seconds=1)) is None


def test_too_far_ahead_allows_a_small_clock_drift() -> None:
    assert not too_far_ahead(T0 + MAX_AHEAD, T0)
    assert too_far_ahead(T0 + MAX_AHEAD + timedelta(seconds=1), T0)
    assert not too_far_ahead(T0 - timedelta(days=30), T0)


@given(st.lists(st.tuples(st.sampled_from(ACTIONS), st.integers(0, 500),
                          st.sampled_from(["pending", "approved", "rejected"])), max_size=12),
       st.integers(-10, 510))
def test_allowed_at_equals_allowed_next_of_the_punches_until_then(
        raw: list[tuple[str, int, str]], minute: int) -> None:
    punches = [punch(a, m, s) for a, m, s in raw]
    at = T0 + timedelta(minutes=minute)
    assert allowed_at(punches, at) == allowed_next(p for p in punches if p.time <= at)


@given(st.lists(st.integers(0, 3), max_size=20), st.integers(0, 3))
def test_punching_only_allowed_actions_in_time_order_keeps_the_machine_valid(
        choices: list[int], extra: int) -> None:
    punches: list[Punch] = []
    for step, choice in enumerate(choices):
        options = allowed_at(punches, T0 + timedelta(minutes=step))
        punches.append(punch(options[choice % len(options)], minutes=step))
    for before, after in pairwise(punches):
        assert after.action in NEXT_ACTIONS[before.action]
    action = ACTIONS[extra]
    assert (action in allowed_at(punches, T0 + timedelta(minutes=len(choices)))) == \
        is_valid_next(punches, action)


# Pay period templates -------------------------------------------------------------------------


def test_parse_template_reads_local_anchor_day_of_timestamp() -> None:
    raw = {"type": "biweekly", "startDate": "2026-02-23T05:00:00+0000"}
    assert parse_pay_period_template(raw, NY) == PayPeriodTemplate("biweekly", date(2026, 2, 23))


def test_parse_template_accepts_plain_day_and_none() -> None:
    assert parse_pay_period_template({"type": "weekly", "startDate": "2026-01-05"}, NY) == \
        PayPeriodTemplate("weekly", date(2026, 1, 5))
    assert parse_pay_period_template(None, NY) is None


@pytest.mark.parametrize(("raw", "message"), [
    ({"type": "monthly", "startDate": "2026-01-05"}, "weekly or biweekly"),
    ({"type": "weekly"}, "not a timestamp"),
    ({"type": "weekly", "startDate": "yesterday"}, "not a timestamp"),
    ({"type": "weekly", "startDate": "2026-02-30"}, "not a date"),
    (["weekly"], "must be an object"),
])
def test_parse_template_rejects_malformed(raw: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_pay_period_template(raw, NY)  # type: ignore[arg-type]


def test_pay_period_spans_dst_start_with_local_midnight_bounds() -> None:
    template = PayPeriodTemplate("biweekly", date(2026, 2, 23))
    period = pay_period_containing(template, datetime(2026, 3, 3, 12, tzinfo=UTC), NY)
    assert period == Interval(datetime(2026, 2, 23, 5, tzinfo=UTC),
                              datetime(2026, 3, 9, 4, tzinfo=UTC))
    assert period.end - period.start == timedelta(hours=14 * 24 - 1)


def test_pay_period_starts_at_its_first_instant_and_works_before_anchor() -> None:
    template = PayPeriodTemplate("weekly", date(2026, 2, 23))
    boundary = datetime(2026, 3, 2, 5, tzinfo=UTC)
    assert pay_period_containing(template, boundary, NY).start == boundary
    assert pay_period_containing(template, boundary - timedelta(seconds=1), NY).end == boundary
    early = pay_period_containing(template, datetime(2026, 1, 1, 12, tzinfo=UTC), NY)
    assert early == Interval(datetime(2025, 12, 29, 5, tzinfo=UTC),
                             datetime(2026, 1, 5, 5, tzinfo=UTC))


def test_pay_periods_overlapping_lists_consecutive_periods() -> None:
    template = PayPeriodTemplate("weekly", date(2026, 2, 23))
    window = Interval(datetime(2026, 3, 1, tzinfo=UTC), datetime(2026, 3, 10, tzinfo=UTC))
    periods = pay_periods_overlapping(template, window, NY)
    assert [p.start for p in periods] == [datetime(2026, 2, 23, 5, tzinfo=UTC),
                                          datetime(2026, 3, 2, 5, tzinfo=UTC),
                                          datetime(2026, 3, 9, 4, tzinfo=UTC)]
    assert all(a.end == b.start for a, b in pairwise(periods))


ZONES = [ZoneInfo(z) for z in ("America/New_York", "Europe/London", "Australia/Lord_Howe",
                               "America/Santiago", "Asia/Kolkata", "UTC")]


@given(st.sampled_from(ZONES), st.sampled_from(["weekly", "biweekly"]),
       st.dates(date(2020, 1, 1), date(2030, 1, 1)),
       st.integers(-5 * 10**8, 5 * 10**8))
def test_pay_period_contains_instant_and_starts_on_an_anchor_day(
        zone: ZoneInfo, kind: str, anchor: date, offset: int) -> None:
    template = PayPeriodTemplate(kind, anchor)  # type: ignore[arg-type]
    instant = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(seconds=offset)
    period = pay_period_containing(template, instant, zone)
    assert period.contains(instant)
    first_day = period.start.astimezone(zone).date()
    assert (first_day - anchor).days % template.days == 0
    assert abs((period.end - period.start) - timedelta(days=template.days)) <= timedelta(hours=2)


def test_local_midnights_follow_the_zone_across_dst_end() -> None:
    window = Interval(datetime(2026, 10, 31, 5, tzinfo=UTC), datetime(2026, 11, 2, 12, tzinfo=UTC))
    assert local_midnights(window, NY) == [datetime(2026, 11, 1, 4, tzinfo=UTC),
                                           datetime(2026, 11, 2, 5, tzinfo=UTC)]
