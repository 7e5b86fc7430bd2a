"""The pay-rule engine against the published examples: 29 CFR 778.110 (the 46-hour week),
29 CFR 778.601 and WHD Fact Sheet #54 (the hospital "8 and 80" system), 29 CFR 785.48
(rounding), 29 CFR 785.18-19 (rest and meal breaks) and California Labor Code section 510
(daily, double time, the seventh consecutive day, weekly over regular hours only)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction
from zoneinfo import ZoneInfo

import pytest

from app.api.domain.pay_rules import (
    ClassifiedPiece,
    MealRule,
    OvertimeRule,
    RoundingRule,
    WorkPiece,
    WorkRule,
    classify,
    meal_deduction,
    period_start,
    round_instant,
    rule_at,
    unpaid_breaks,
    version_at,
    workday_start,
    workweek_start,
)

NY = ZoneInfo("America/New_York")
OT, DT = "pay:overtime", "pay:double-time"
HOUR = 60

WEEKLY_40 = OvertimeRule("weekly-40", "weekly", 40 * HOUR, OT, Fraction(3, 2), "Over 40 a week")
DAILY_8 = OvertimeRule("daily-8", "daily", 8 * HOUR, OT, Fraction(3, 2), "Over 8 a day")
DAILY_12 = OvertimeRule("daily-12", "daily", 12 * HOUR, DT, Fraction(2), "Over 12 a day")
PERIOD_80 = OvertimeRule("period-80", "period", 80 * HOUR, OT, Fraction(3, 2), "Over 80")
SEVENTH_0 = OvertimeRule("seventh-0", "seventh_day", 0, OT, Fraction(3, 2), "7th day")
SEVENTH_8 = OvertimeRule("seventh-8", "seventh_day", 8 * HOUR, DT, Fraction(2), "7th day > 8")

FEDERAL = WorkRule("federal", NY, overtime=(WEEKLY_40,))
"""US federal: over 40 hours in the workweek (Sunday 00:00 local)."""
EIGHT_AND_80 = WorkRule("8-and-80", NY, overtime=(DAILY_8, PERIOD_80),
                        period_anchor=date(2026, 3, 1))
"""US hospital 8 and 80 (FLSA section 7(j)): the 14-day period starts Sunday 2026-03-01."""
CALIFORNIA = WorkRule("california", NY,
                      overtime=(DAILY_8, DAILY_12, SEVENTH_0, SEVENTH_8, WEEKLY_40))
"""California Labor Code 510 (the zone is New York's to share the DST fixtures)."""

SUNDAY = date(2026, 3, 1)
"""The first day of a workweek and of a 14-day period (the week before the DST change)."""


def local(day: date, hour: float) -> datetime:
    """The instant of `hour` (may exceed 24: the next day) on `day` in New York."""
    whole = int(hour)
    minutes = round((hour - whole) * 60)
    moment = datetime.combine(day, time(0), tzinfo=NY) + timedelta(hours=whole, minutes=minutes)
    return moment.astimezone(UTC)


def days_of(hours: Sequence[float], first: date = SUNDAY, begin: float = 7) -> list[WorkPiece]:
    """One piece per day from `first`, starting at `begin` o'clock, `hours[i]` long (0: off)."""
    pieces = []
    for offset, length in enumerate(hours):
        if length:
            day = first + timedelta(days=offset)
            start = local(day, begin)
            pieces.append(WorkPiece(start, start + timedelta(hours=length), key=offset))
    return pieces


def hours_by_code(pieces: Sequence[ClassifiedPiece]) -> dict[str | None, Fraction]:
    """Hours per pay code (None: regular) of the worked pieces, exact."""
    totals: dict[str | None, Fraction] = defaultdict(Fraction)
    for piece in pieces:
        if piece.counts == "worked":
            seconds = (piece.end - piece.start) // timedelta(seconds=1)
            totals[piece.pay_code_id] += Fraction(seconds, 3600)  # type: ignore[index]
    return dict(totals)


def hours_by_rule(pieces: Sequence[ClassifiedPiece]) -> dict[object, Fraction]:
    """Hours per overtime rule id (None: regular)."""
    totals: dict[object, Fraction] = defaultdict(Fraction)
    for piece in pieces:
        seconds = (piece.end - piece.start) // timedelta(seconds=1)
        totals[piece.rule_id] += Fraction(seconds, 3600)
    return dict(totals)


# 29 CFR 778.110: the 46-hour week ------------------------------------------------------------


def test_778_110_a_46_hour_week_pays_6_hours_over_40_at_time_and_a_half() -> None:
    """29 CFR 778.110(a): an employee paid by the hour who works 46 hours in a workweek is due
    40 hours at the regular rate and 6 hours at one and one-half times it."""
    pieces = classify(days_of([0, 10, 10, 10, 10, 6]), [FEDERAL])
    assert hours_by_code(pieces) == {None: 40, OT: 6}
    overtime = [p for p in pieces if p.rule_id is not None]
    assert [(p.rule_id, p.basis_kind, p.basis_from_seconds // 60, p.basis_to_seconds // 60)
            for p in overtime] == [("weekly-40", "weekly", 2400, 2760)]
    assert overtime[0].start == local(SUNDAY + timedelta(days=5), 7)
    assert overtime[0].multiplier == Fraction(3, 2)


def test_778_104_each_workweek_stands_alone() -> None:
    """29 CFR 778.104: hours are not averaged over two workweeks: 30 and 50 hours are 10 hours of
    overtime in the second week, not 80 hours at the regular rate."""
    pieces = classify(days_of([0, 6, 6, 6, 6, 6, 0, 0, 10, 10, 10, 10, 10]), [FEDERAL])
    assert hours_by_code(pieces) == {None: 70, OT: 10}
    assert [p.workweek for p in pieces if p.rule_id] == [local(SUNDAY + timedelta(days=7), 0)]


# 29 CFR 778.601 and Fact Sheet #54: the 8 and 80 system ---------------------------------------


def test_778_601_eight_and_80_pays_daily_overtime_though_the_period_stays_under_80() -> None:
    """29 CFR 778.601(b), (d) and Fact Sheet #54: under 8 and 80 every hour over 8 in a workday is
    overtime even when the 14-day period holds no more than 80 hours: five 10-hour days (a
    50-hour week) and a 30-hour week are 10 hours of daily overtime, and the period's 70 regular
    hours never reach 80."""
    pieces = classify(days_of([0, 10, 10, 10, 10, 10, 0, 0, 6, 6, 6, 6, 6]), [EIGHT_AND_80])
    assert hours_by_code(pieces) == {None: 70, OT: 10}
    assert set(hours_by_rule(pieces)) == {None, "daily-8"}


def test_778_601_eight_and_80_averages_two_weeks_48_and_32_hours_without_overtime() -> None:
    """FLSA section 7(j), 29 CFR 778.601(a): the fixed 14-day period replaces the workweek, so six
    8-hour days (48 hours) then four (32 hours) are 80 regular hours: no overtime at all, where
    the 40-hour workweek would owe 8."""
    hours = [0, 8, 8, 8, 8, 8, 8, 0, 8, 8, 8, 8]
    assert hours_by_code(classify(days_of(hours), [EIGHT_AND_80])) == {None: 80}
    assert hours_by_code(classify(days_of(hours), [FEDERAL])) == {None: 72, OT: 8}


def test_fact_sheet_54_daily_overtime_is_credited_toward_the_80_hours() -> None:
    """Fact Sheet #54 and 29 CFR 778.601(b): daily overtime premium is credited toward the
    overtime due for hours over 80, so no hour is paid twice: 8,10,8,8,8,8 hours (50) then five
    8-hour days (40): 2 hours of daily overtime and 8 hours over 80 of the 88 regular-basis
    hours, 10 in all (90 worked = 80 regular + 10 overtime)."""
    pieces = classify(days_of([8, 10, 8, 8, 8, 8, 0, 0, 8, 8, 8, 8, 8]), [EIGHT_AND_80])
    assert hours_by_code(pieces) == {None: 80, OT: 10}
    assert hours_by_rule(pieces) == {None: 80, "daily-8": 2, "period-80": 8}
    period = [p for p in pieces if p.rule_id == "period-80"]
    assert (period[0].basis_from_seconds // 3600, period[-1].basis_to_seconds // 3600) == (82, 90)


def test_eight_and_80_period_restarts_at_the_anchor_every_14_days() -> None:
    """29 CFR 778.601(a): a FIXED period of 14 consecutive days: a third week starts a new
    period whose hours do not add to the one before."""
    hours = [0, 8, 8, 8, 8, 8, 0] * 3
    pieces = classify(days_of(hours), [EIGHT_AND_80])
    assert hours_by_code(pieces) == {None: 120}
    third = local(SUNDAY + timedelta(days=14), 0)
    assert period_start(third + timedelta(hours=1), [EIGHT_AND_80]) == third
    assert period_start(third - timedelta(hours=1), [EIGHT_AND_80]) == local(SUNDAY, 0)


# 29 CFR 785.48: rounding --------------------------------------------------------------------


QUARTER = RoundingRule(15, "nearest")


@pytest.mark.parametrize(("raw", "rounded"), [
    ("07:00:00", "07:00"), ("07:07:00", "07:00"), ("07:07:59", "07:00"), ("07:08:00", "07:15"),
    ("07:14:59", "07:15"), ("07:22:30", "07:15"), ("07:23:00", "07:30"), ("06:53:00", "07:00"),
    ("06:52:59", "06:45"), ("23:53:00", "00:00"),
])
def test_785_48_b_rounds_to_the_nearest_quarter_hour(raw: str, rounded: str) -> None:
    """29 CFR 785.48(b): to the nearest quarter hour, 1-7 minutes are rounded down and 8-14 up.
    Seconds are dropped first (07:07:59 is 07:07, so down)."""
    punch = datetime.combine(date(2026, 3, 2), time.fromisoformat(raw), tzinfo=NY)
    result = round_instant(punch.astimezone(UTC), QUARTER, NY).astimezone(NY)
    assert result.strftime("%H:%M") == rounded
    assert result.second == result.microsecond == 0


def test_785_48_b_nearest_quarter_hour_averages_out() -> None:
    """29 CFR 785.48(b): rounding is allowed because it averages out: over every minute of the
    hour, rounding to the nearest quarter hour moves punches forward exactly as much as back."""
    start = datetime(2026, 3, 2, 12, tzinfo=UTC)
    drift = [round_instant(start + timedelta(minutes=m), QUARTER, NY) - (start + timedelta(
        minutes=m)) for m in range(60)]
    assert sum(drift, timedelta(0)) == timedelta(0)
    assert max(abs(d) for d in drift) == timedelta(minutes=7)


@pytest.mark.parametrize(("step", "mode", "minute", "expected"), [
    (15, "down", 14, 0), (15, "up", 1, 15), (15, "up", 0, 0), (6, "nearest", 3, 6),
    (6, "nearest", 2, 0), (5, "nearest", 3, 5), (10, "nearest", 5, 10), (10, "nearest", 4, 0),
])
def test_round_instant_modes_and_tie_goes_to_the_later_time(step: int, mode: str, minute: int,
                                                            expected: int) -> None:
    """29 CFR 785.48: down, up, and nearest (a tie, 3 of 6 or 5 of 10 minutes, rounds up)."""
    base = datetime(2026, 3, 2, 12, tzinfo=UTC)
    rule = RoundingRule(step, mode)  # type: ignore[arg-type]
    assert round_instant(base + timedelta(minutes=minute), rule, NY) == base + timedelta(
        minutes=expected)


def test_round_instant_uses_the_local_minute_grid_of_a_half_hour_zone() -> None:
    """29 CFR 785.48: rounding to the quarter hour means the quarter hour of the wall clock:
    in Asia/Kolkata (+05:30) 09:07 local rounds to 09:00 local, not to UTC's grid."""
    kolkata = ZoneInfo("Asia/Kolkata")
    punch = datetime(2026, 3, 2, 9, 7, tzinfo=kolkata)
    assert round_instant(punch, QUARTER, kolkata) == datetime(2026, 3, 2, 9, 0, tzinfo=kolkata)
    nepal = ZoneInfo("Asia/Kathmandu")  # +05:45
    punch = datetime(2026, 3, 2, 9, 22, tzinfo=nepal)
    assert round_instant(punch, QUARTER, nepal) == datetime(2026, 3, 2, 9, 15, tzinfo=nepal)


# 29 CFR 785.18-19: breaks and meals -----------------------------------------------------------


def test_785_18_short_breaks_are_worked_time_and_785_19_meals_are_not() -> None:
    """29 CFR 785.18: rest periods of short duration (5 to 20 minutes) are hours worked; 785.19:
    a bona fide meal period (ordinarily 30 minutes or more) is not."""
    start = local(SUNDAY, 7)
    breaks = [(start + timedelta(hours=2), start + timedelta(hours=2, minutes=15)),
              (start + timedelta(hours=4), start + timedelta(hours=4, minutes=30)),
              (start + timedelta(hours=6), start + timedelta(hours=6, minutes=29, seconds=59))]
    assert unpaid_breaks(breaks, FEDERAL) == [breaks[1]]


def test_meal_auto_deduct_is_centred_and_only_without_a_punched_meal() -> None:
    """29 CFR 785.19 (a bona fide meal is not worked time): auto-deduct 30 minutes once the span
    reaches 6 hours and no meal was punched, centred on the midpoint of the session."""
    rule = WorkRule("meal", NY, meal=MealRule(deduct_minutes=30, after_minutes=6 * HOUR))
    start = local(SUNDAY, 7)
    twelve = start + timedelta(hours=12)
    assert meal_deduction(start, twelve, [], rule) == (
        start + timedelta(hours=5, minutes=45), start + timedelta(hours=6, minutes=15))
    assert meal_deduction(start, twelve, [(start, start + timedelta(minutes=30))], rule) is None
    assert meal_deduction(start, start + timedelta(hours=5, minutes=59), [], rule) is None
    assert meal_deduction(start, start + timedelta(hours=6), [], rule) is not None
    assert meal_deduction(start, twelve, [], FEDERAL) is None


# California Labor Code 510 --------------------------------------------------------------------


def test_labor_code_510_daily_over_8_and_double_time_over_12() -> None:
    """Labor Code 510(a): work beyond 8 hours in a workday at one and one-half times, beyond 12
    at twice the regular rate: a 14-hour day is 8 regular, 4 overtime and 2 double time."""
    pieces = classify(days_of([0, 14]), [CALIFORNIA])
    assert hours_by_code(pieces) == {None: 8, OT: 4, DT: 2}
    assert [(p.rule_id, p.basis_from_seconds // 3600, p.basis_to_seconds // 3600)
            for p in pieces] == [(None, 0, 0), ("daily-8", 8, 12), ("daily-12", 12, 14)]


def test_labor_code_510_five_10_hour_days_are_40_regular_and_10_overtime_not_double_counted(
) -> None:
    """Labor Code 510(a) with the weekly rule counting only regular hours (DLSE Manual 48.1.3:
    daily overtime hours are not counted again toward the 40): five 10-hour days are 40 regular
    and 10 overtime hours, not 40 + 10 + another 10 weekly."""
    pieces = classify(days_of([0, 10, 10, 10, 10, 10]), [CALIFORNIA])
    assert hours_by_code(pieces) == {None: 40, OT: 10}
    assert set(hours_by_rule(pieces)) == {None, "daily-8"}


def test_labor_code_510_the_seventh_consecutive_day() -> None:
    """Labor Code 510(a): the first 8 hours worked on the seventh day of work in one workweek at
    one and one-half times, beyond 8 on that day at twice the rate. Seven 10-hour days: days 1-5
    are 8 regular + 2 daily overtime (40 regular), day 6 is all over 40 (weekly, its last 2 hours
    daily), day 7 is 8 hours seventh-day overtime and 2 hours double time."""
    pieces = classify(days_of([10] * 7), [CALIFORNIA])
    assert hours_by_code(pieces) == {None: 40, OT: 28, DT: 2}
    assert hours_by_rule(pieces) == {None: 40, "daily-8": 12, "weekly-40": 8,
                                     "seventh-0": 8, "seventh-8": 2}


def test_labor_code_510_seventh_day_needs_all_seven_days_in_one_workweek() -> None:
    """Labor Code 510(a) "the seventh day of work in any one workweek": seven days in a row that
    straddle two workweeks (Wednesday to Tuesday) are no seventh day; a day off in the week
    (six days worked) is none either."""
    straddling = classify(days_of([0, 0, 0, 6, 6, 6, 6, 6, 6, 6]), [CALIFORNIA])
    assert "seventh-0" not in hours_by_rule(straddling)
    six = classify(days_of([6, 6, 6, 0, 6, 6, 6]), [CALIFORNIA])
    assert hours_by_rule(six) == {None: 36}
    seven = classify(days_of([6] * 7), [CALIFORNIA])
    assert hours_by_rule(seven) == {None: 36, "seventh-0": 6}


def test_highest_multiplier_wins_and_ties_go_to_the_lower_threshold() -> None:
    """Labor Code 510(a): an hour that is both over 40 in the week and over 12 in the day is paid
    once, at the higher (double) rate; of two 1.5 rules the lower threshold names the hour."""
    pieces = classify(days_of([0, 10, 10, 10, 10, 14]), [CALIFORNIA])
    assert hours_by_rule(pieces) == {None: 40, "daily-8": 12, "daily-12": 2}


def test_counted_pay_codes_count_toward_thresholds_but_are_never_reclassified() -> None:
    """29 CFR 778.219-778.220 allow excluding paid leave from hours worked; when the work rule
    counts a holiday toward the threshold, a 8-hour holiday and 36 hours of work are 40 regular
    (the holiday among them) and 4 overtime, and the holiday itself stays holiday pay."""
    holiday = days_of([0, 8])[0]
    holiday = WorkPiece(holiday.start, holiday.end, counts="counted", key="holiday")
    work = days_of([0, 0, 9, 9, 9, 9])
    pieces = classify([holiday, *work], [FEDERAL])
    assert hours_by_code(pieces) == {None: 32, OT: 4}
    assert [p.rule_id for p in pieces if p.key == "holiday"] == [None]


def test_a_shift_override_replaces_only_the_daily_rules() -> None:
    """Issue 23: a shift's work rule override changes its daily rules; the weekly basis stays
    the provider's (one person cannot have two workweeks)."""
    no_daily = WorkRule("override", NY, overtime=(WEEKLY_40,))
    first, second = days_of([0, 10, 10])
    pieces = classify([WorkPiece(first.start, first.end, daily_rule=no_daily, key=0), second],
                      [CALIFORNIA])
    assert hours_by_rule(pieces) == {None: 18, "daily-8": 2}


def test_without_rules_everything_is_regular() -> None:
    """Issue 23: an empty rule list is today's behaviour (all regular)."""
    pieces = classify(days_of([0, 16, 16, 16]), [])
    assert hours_by_code(pieces) == {None: 48}


# The calendar and versions -------------------------------------------------------------------


def test_workweek_and_workday_starts_follow_the_rule() -> None:
    """Issue 23: the workweek starts on its weekday at its local time; a workday at its local
    time and at every workweek start."""
    rule = WorkRule("mon7", NY, week_start_day=0, week_start_time=time(7),
                    day_start_time=time(7), overtime=(WEEKLY_40,))
    wednesday_noon = local(date(2026, 3, 4), 12)
    assert workweek_start(wednesday_noon, [rule]) == local(date(2026, 3, 2), 7)
    assert workday_start(wednesday_noon, [rule]) == local(date(2026, 3, 4), 7)
    assert workday_start(local(date(2026, 3, 4), 6), [rule]) == local(date(2026, 3, 3), 7)


def test_a_workweek_is_computed_under_the_version_in_effect_on_its_first_day() -> None:
    """Issue 23: rule versions take effect from their date; a workweek uses the version in
    effect on its first day, so a version from Wednesday applies from the next workweek."""
    old = WorkRule("v1", NY, overtime=(WEEKLY_40,), effective_from=date(2026, 1, 1))
    new = WorkRule("v2", NY, overtime=(DAILY_8, WEEKLY_40), effective_from=date(2026, 3, 4))
    assert version_at([old, new], date(2026, 3, 3)) is old
    assert version_at([old, new], date(2026, 3, 4)) is new
    assert rule_at(local(date(2026, 3, 5), 12), [old, new]) is old
    assert rule_at(local(date(2026, 3, 8), 12), [old, new]) is new
    pieces = classify(days_of([0, 0, 0, 10, 0, 0, 0, 0, 10]), [old, new])
    assert hours_by_rule(pieces) == {None: 18, "daily-8": 2}
    assert rule_at(local(SUNDAY, 12), [new]) is None
    assert hours_by_rule(classify(days_of([10]), [new])) == {None: 10}
