"""The pay-rule engine across the DST changes of America/New_York in 2026 (spring forward on
Sunday 8 March at 02:00, fall back on Sunday 1 November at 02:00), and night shifts across a
workday and a workweek boundary: time is elapsed real time, boundaries are local wall times."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction

from app.api.domain.pay_rules import (
    OvertimeRule,
    RoundingRule,
    WorkPiece,
    WorkRule,
    classify,
    local_instant,
    round_instant,
    workday_start,
    workweek_start,
)
from tests.unit.test_pay_rules_examples import (
    DAILY_8,
    NY,
    OT,
    WEEKLY_40,
    hours_by_code,
    hours_by_rule,
    local,
)

SPRING = date(2026, 3, 8)
FALL = date(2026, 11, 1)

MIDNIGHT_DAYS = WorkRule("midnight", NY, overtime=(DAILY_8, WEEKLY_40))
"""Workdays from local midnight, workweeks from Sunday midnight."""
NIGHT_DAYS = WorkRule("night", NY, day_start_time=time(19), week_start_time=time(19),
                      overtime=(DAILY_8, WEEKLY_40))
"""Workdays (and the Sunday workweek) from 19:00 local, so a night shift is one workday."""


def night(first: date) -> WorkPiece:
    """The twelve-hour (by the wall clock) night 19:00 on `first` to 07:00 the next day."""
    return WorkPiece(local(first, 19), datetime.combine(first + timedelta(days=1), time(7),
                                                        tzinfo=NY).astimezone(UTC))


def test_spring_forward_night_is_11_hours_with_3_over_8_in_one_workday() -> None:
    """29 CFR 778.103 (hours actually worked) across the 2026-03-08 spring-forward: 19:00 to
    07:00 is 11 hours elapsed; a workday from 19:00 holds it whole: 8 regular, 3 overtime."""
    piece = night(SPRING - timedelta(days=1))
    assert piece.end - piece.start == timedelta(hours=11)
    pieces = classify([piece], [NIGHT_DAYS])
    assert hours_by_code(pieces) == {None: 8, OT: 3}
    overtime = [p for p in pieces if p.rule_id]
    assert overtime[0].start == datetime(2026, 3, 8, 8, tzinfo=UTC)  # 04:00 EDT: 8 h elapsed


def test_fall_back_night_is_13_hours_with_5_over_8_in_one_workday() -> None:
    """29 CFR 778.103 across the 2026-11-01 fall-back: 19:00 to 07:00 is 13 hours elapsed (the
    01:00 hour is worked twice); in one workday: 8 regular, 5 overtime."""
    piece = night(FALL - timedelta(days=1))
    assert piece.end - piece.start == timedelta(hours=13)
    pieces = classify([piece], [NIGHT_DAYS])
    assert hours_by_code(pieces) == {None: 8, OT: 5}


def test_spring_forward_night_split_at_local_midnight_is_5_and_6_hours() -> None:
    """29 CFR 778.103 with workdays from midnight: the spring-forward night is 5 hours on
    Saturday and 6 on Sunday (midnight to 07:00 EDT is 6 hours), no day over 8."""
    pieces = classify([night(SPRING - timedelta(days=1))], [MIDNIGHT_DAYS])
    assert [(p.end - p.start) for p in pieces] == [timedelta(hours=5), timedelta(hours=6)]
    assert pieces[1].start == local(SPRING, 0)
    assert hours_by_code(pieces) == {None: 11}


def test_fall_back_night_split_at_local_midnight_is_5_and_8_hours() -> None:
    """29 CFR 778.103 with workdays from midnight: the fall-back night is 5 hours on Saturday and
    8 on Sunday (midnight to 07:00 EST is 8 hours): exactly 8 is not over 8."""
    pieces = classify([night(FALL - timedelta(days=1))], [MIDNIGHT_DAYS])
    assert [(p.end - p.start) for p in pieces] == [timedelta(hours=5), timedelta(hours=8)]
    assert hours_by_code(pieces) == {None: 13}


def test_a_night_shift_across_the_workweek_boundary_is_split_at_it() -> None:
    """29 CFR 778.105 (a workweek is a fixed, regularly recurring period of 168 hours): a
    Saturday night shift after 36 hours in the week is split at Sunday 00:00; 4 hours reach 40
    in the old week, the hour after is overtime of the old week, and the time after midnight
    starts the new week as regular."""
    week = [WorkPiece(local(date(2026, 3, 9) + timedelta(days=n), 7),
                      local(date(2026, 3, 9) + timedelta(days=n), 16), key=n) for n in range(4)]
    saturday = WorkPiece(local(date(2026, 3, 14), 19), local(date(2026, 3, 15), 7), key="night")
    federal = WorkRule("federal", NY, overtime=(WEEKLY_40,))
    pieces = classify([*week[:4], saturday], [federal])
    night_parts = [(p.start, p.end, p.rule_id, p.workweek) for p in pieces if p.key == "night"]
    sunday, before = local(date(2026, 3, 15), 0), local(date(2026, 3, 8), 0)
    assert night_parts == [
        (local(date(2026, 3, 14), 19), local(date(2026, 3, 14), 23), None, before),
        (local(date(2026, 3, 14), 23), sunday, "weekly-40", before),
        (sunday, local(date(2026, 3, 15), 7), None, sunday),
    ]


def test_the_dst_week_is_167_and_the_fall_week_169_hours() -> None:
    """29 CFR 778.105: the workweek is fixed by the local clock; the spring week holds 167 and
    the fall week 169 elapsed hours, and the workday starts stay at local midnight."""
    spring_week = workweek_start(local(SPRING, 12), [MIDNIGHT_DAYS])
    assert spring_week == local(SPRING, 0)
    next_week = workweek_start(local(SPRING + timedelta(days=7), 1), [MIDNIGHT_DAYS])
    assert next_week is not None
    assert spring_week is not None
    assert next_week - spring_week == timedelta(hours=167)
    fall_week = workweek_start(local(FALL, 12), [MIDNIGHT_DAYS])
    after = workweek_start(local(FALL + timedelta(days=7), 1), [MIDNIGHT_DAYS])
    assert after is not None
    assert fall_week is not None
    assert after - fall_week == timedelta(hours=169)
    assert workday_start(datetime(2026, 11, 1, 7, tzinfo=UTC), [MIDNIGHT_DAYS]) == datetime(
        2026, 11, 1, 4, tzinfo=UTC)


def test_a_skipped_wall_time_is_the_instant_the_clocks_jump() -> None:
    """Issue 23: a boundary at a wall time the clocks skip (02:30 on 2026-03-08) is the first
    instant at or after it, 03:00 EDT; one they repeat (01:30 on 2026-11-01) its first
    occurrence (EDT)."""
    assert local_instant(SPRING, time(2, 30), NY) == datetime(2026, 3, 8, 7, tzinfo=UTC)
    assert local_instant(FALL, time(1, 30), NY) == datetime(2026, 11, 1, 5, 30, tzinfo=UTC)
    rule = WorkRule("odd", NY, week_start_time=time(2, 30), day_start_time=time(2, 30),
                    overtime=(WEEKLY_40,))
    assert workweek_start(local(SPRING, 12), [rule]) == datetime(2026, 3, 8, 7, tzinfo=UTC)


def test_rounding_across_the_fall_back_hour_uses_the_wall_clock_grid() -> None:
    """29 CFR 785.48(b) during the repeated hour: 01:53 EST (the second 01:53) rounds to 02:00
    EST, 01:07 EDT to 01:00 EDT."""
    quarter = RoundingRule(15, "nearest")
    second = datetime(2026, 11, 1, 6, 53, tzinfo=UTC)  # 01:53 EST
    assert round_instant(second, quarter, NY) == datetime(2026, 11, 1, 7, tzinfo=UTC)
    first = datetime(2026, 11, 1, 5, 7, tzinfo=UTC)  # 01:07 EDT
    assert round_instant(first, quarter, NY) == datetime(2026, 11, 1, 5, tzinfo=UTC)


def test_daily_double_time_on_the_fall_back_night_counts_the_repeated_hour() -> None:
    """Labor Code 510(a) (over 12 hours at double time) on the fall-back night, one workday from
    19:00: 13 elapsed hours are 8 regular, 4 overtime and 1 double time."""
    double = OvertimeRule("daily-12", "daily", 720, "pay:double-time", Fraction(2))
    rule = WorkRule("ca-night", NY, day_start_time=time(19), week_start_time=time(19),
                    overtime=(DAILY_8, double))
    pieces = classify([night(FALL - timedelta(days=1))], [rule])
    assert hours_by_rule(pieces) == {None: 8, "daily-8": 4, "daily-12": 1}
