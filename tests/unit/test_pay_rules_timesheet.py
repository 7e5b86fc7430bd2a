"""The timesheet computation with pay rules (issue 23): overtime pay segments with their rule and
basis, pay code totals including overtime, rounded punches beside the raw ones, short breaks and
auto-deducted meals, the context before the window, weeks, and when overtime would start."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from app.api.domain.pay_rules import MealRule, RoundingRule, WorkRule
from app.api.domain.timecards import MAX_SESSION, Punch
from app.api.domain.timesheets import (
    PayCodeTotal,
    ScheduledSegment,
    ScheduledShift,
    TimecardPeriod,
    Timesheet,
    TimesheetInput,
    WeekHours,
    compute_timesheet,
    context_start,
)
from tests.unit.test_pay_rules_examples import (
    CALIFORNIA,
    DAILY_8,
    DT,
    EIGHT_AND_80,
    FEDERAL,
    NY,
    OT,
    SUNDAY,
    WEEKLY_40,
    local,
)

REG = "pay:regular"
RN = "role:rn"
CARD = TimecardPeriod("card", local(SUNDAY - timedelta(days=14), 0),
                      local(SUNDAY + timedelta(days=28), 0))
WEEK = (local(SUNDAY, 0), local(SUNDAY + timedelta(days=7), 0))


def punch(action: str, moment: datetime) -> Punch:
    return Punch(id=uuid.uuid4(), action=action, time=moment,  # type: ignore[arg-type]
                 state="approved", timecard_id=CARD.id)  # type: ignore[arg-type]


def day_punches(offset: int, begin: float = 7, hours: float = 10) -> list[Punch]:
    day = SUNDAY + timedelta(days=offset)
    return [punch("clock_in", local(day, begin)), punch("clock_out", local(day, begin + hours))]


def day_shift(offset: int, begin: float = 7, hours: float = 10, rule: WorkRule | None = None
              ) -> ScheduledShift:
    day = SUNDAY + timedelta(days=offset)
    start, end = local(day, begin), local(day, begin + hours)
    return ScheduledShift(f"shift-{offset}", start, end,
                          (ScheduledSegment("working", start, end, RN),), REG, rule)


def compute(punches: list[Punch], rules: tuple[WorkRule, ...] = (FEDERAL,),
            window: tuple[datetime, datetime] = WEEK, **kw: Any) -> Timesheet:
    values: dict[str, Any] = {
        "start": window[0], "end": window[1], "now": local(SUNDAY + timedelta(days=30), 0),
        "zone": NY, "timecards": [CARD], "default_pay_code_id": REG, "default_role_id": RN,
        "rules": rules,
    }
    values.update(kw)
    return compute_timesheet(TimesheetInput(punches=punches, **values))


def fifty_hours() -> list[Punch]:
    return [p for offset in range(1, 6) for p in day_punches(offset)]


def test_weekly_overtime_is_its_own_pay_segment_with_rule_basis_and_total() -> None:
    """29 CFR 778.110: five 10-hour days are 40 regular and 10 overtime hours; Friday is paid
    under the overtime pay code, names the weekly rule and "hours 40-50 of the week"."""
    sheet = compute(fifty_hours())
    assert sheet.pay_code_totals == [PayCodeTotal(OT, RN, 0, 600), PayCodeTotal(REG, RN, 0, 2400)]
    friday = [s for s in sheet.pay_segments if s.overtime]
    assert [(s.start, s.end, s.pay_codes, s.overtime, s.basis) for s in friday] == [
        (local(date(2026, 3, 6), 7), local(date(2026, 3, 6), 17), (OT,), ("weekly-40",),
         ("weekly", 2400, 3000))]
    assert all(s.pay_codes == (REG,) and s.basis is None for s in sheet.pay_segments
               if not s.overtime)
    assert sheet.weeks == [WeekHours(WEEK[0], 2400, 600, 0)]
    assert sum(d.actual for d in sheet.pay_code_days if d.pay_code_id == OT) == 600


def test_without_rules_the_same_punches_are_all_regular() -> None:
    """Issue 23: no rules, today's timesheet: every minute regular, no weeks."""
    sheet = compute(fifty_hours(), rules=())
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, 0, 3000)]
    assert sheet.weeks == []
    assert sheet.rounded == {}
    assert all(s.overtime == () and s.basis is None for s in sheet.pay_segments)


def test_a_window_inside_the_week_counts_the_week_before_it_as_context() -> None:
    """Issue 23: overtime depends on the whole workweek: a window of Friday alone, computed
    from the punches since the week's start, pays Friday as overtime like the whole week."""
    friday = (local(date(2026, 3, 6), 0), local(date(2026, 3, 7), 0))
    assert context_start(friday[0], [FEDERAL]) == WEEK[0] - MAX_SESSION
    punches = fifty_hours()
    sheet = compute(punches, window=friday)
    assert sheet.pay_code_totals == [PayCodeTotal(OT, RN, 0, 600)]
    whole = compute(punches)
    assert sheet.pay_segments == [s for s in whole.pay_segments if s.overtime]
    assert sheet.weeks == [WeekHours(WEEK[0], 0, 600, 0)]


def test_context_start_reaches_back_to_the_period_start_with_a_period_rule() -> None:
    """FLSA 7(j): the 80 hours are counted from the 14-day period's first day; the work is
    loaded from `MAX_SESSION` before it, so that a night shift crossing into the period pairs
    up and its hours after the period's start count toward the 80."""
    second_week = local(SUNDAY + timedelta(days=9), 0)
    assert context_start(second_week, [EIGHT_AND_80]) == local(SUNDAY, 0) - MAX_SESSION
    assert context_start(second_week, [FEDERAL]) == (
        local(SUNDAY + timedelta(days=7), 0) - MAX_SESSION)
    assert context_start(second_week, []) == second_week - MAX_SESSION


def test_rounded_punches_are_reported_beside_the_raw_ones_and_breaks_are_not_rounded() -> None:
    """29 CFR 785.48(b): clock-in 06:53 counts from 07:00 and clock-out 17:07 until 17:00; the
    raw punches stay as punched, the rounded instants are listed by punch id; a 07:37-08:07
    meal keeps its minutes."""
    day = SUNDAY + timedelta(days=1)
    rounding = WorkRule("round", NY, rounding=RoundingRule(15, "nearest"),
                        overtime=(WEEKLY_40,))
    clock_in, clock_out = punch("clock_in", local(day, 6 + 53 / 60)), punch(
        "clock_out", local(day, 17 + 7 / 60))
    meal = [punch("break_start", local(day, 7 + 37 / 60)), punch("break_end",
                                                                 local(day, 8 + 7 / 60))]
    sheet = compute([clock_in, *meal, clock_out], rules=(rounding,))
    assert sheet.rounded == {clock_in.id: local(day, 7), clock_out.id: local(day, 17)}
    assert [(s.type, s.start, s.end) for s in sheet.pay_segments] == [
        ("working", local(day, 7), meal[0].time),
        ("unpaid_break", meal[0].time, meal[1].time),
        ("working", meal[1].time, local(day, 17)),
    ]
    assert [p.time for p in sheet.punches] == [clock_in.time, meal[0].time, meal[1].time,
                                               clock_out.time]


def test_short_breaks_are_worked_and_meals_are_auto_deducted_when_none_was_punched() -> None:
    """29 CFR 785.18-19: a 15-minute break is worked time (no unpaid segment), and a 12-hour
    session with no punched meal has 30 minutes deducted at its middle."""
    rule = WorkRule("meals", NY, overtime=(WEEKLY_40,),
                    meal=MealRule(deduct_minutes=30, after_minutes=360))
    monday, tuesday = SUNDAY + timedelta(days=1), SUNDAY + timedelta(days=2)
    punches = [punch("clock_in", local(monday, 7)), punch("break_start", local(monday, 10)),
               punch("break_end", local(monday, 10.25)), punch("clock_out", local(monday, 12)),
               *day_punches(2, hours=12)]
    sheet = compute(punches, rules=(rule,))
    assert [(s.type, s.start, s.end) for s in sheet.pay_segments] == [
        ("working", local(monday, 7), local(monday, 12)),
        ("working", local(tuesday, 7), local(tuesday, 12.75)),
        ("unpaid_break", local(tuesday, 12.75), local(tuesday, 13.25)),
        ("working", local(tuesday, 13.25), local(tuesday, 19)),
    ]
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, 0, 300 + 690)]


def test_california_segments_name_daily_overtime_and_double_time() -> None:
    """Labor Code 510(a): a 14-hour day is cut where it turns overtime and double time."""
    sheet = compute(day_punches(1, hours=14), rules=(CALIFORNIA,))
    monday = SUNDAY + timedelta(days=1)
    assert [(s.start, s.end, s.overtime, s.basis) for s in sheet.pay_segments] == [
        (local(monday, 7), local(monday, 15), (), None),
        (local(monday, 15), local(monday, 19), ("daily-8",), ("daily", 480, 720)),
        (local(monday, 19), local(monday, 21), ("daily-12",), ("daily", 720, 840)),
    ]
    assert sheet.weeks == [WeekHours(WEEK[0], 480, 240, 120)]
    assert {t.pay_code_id: t.actual for t in sheet.pay_code_totals} == {
        REG: 480, OT: 240, DT: 120}


def test_a_shift_override_applies_its_own_rounding_and_daily_rules() -> None:
    """Issue 23: a shift's work rule override replaces rounding and daily rules for its
    sessions; the provider's weekly rule still counts them."""
    override = WorkRule("override", NY, rounding=RoundingRule(30, "down"))
    shifts = [day_shift(1, hours=12, rule=override), day_shift(2, hours=12)]
    punches = [punch("clock_in", local(SUNDAY + timedelta(days=1), 7.25)),
               punch("clock_out", local(SUNDAY + timedelta(days=1), 19)),
               *day_punches(2, hours=12)]
    rule = WorkRule("daily", NY, overtime=(DAILY_8, WEEKLY_40))
    sheet = compute(punches, rules=(rule,), shifts=shifts)
    monday = SUNDAY + timedelta(days=1)
    assert sheet.rounded == {punches[0].id: local(monday, 7)}
    assert sheet.weeks == [WeekHours(WEEK[0], 720 + 480, 240, 0)]


def test_a_shift_override_pays_its_shift_by_its_rules_without_the_providers_rules() -> None:
    """A shift's override applies to its session when the provider's team has no work rule:
    the clock-in rounded, a 20-minute break paid as work (its shortest unpaid break is 30),
    a meal deducted after 6 hours, daily overtime over 8 hours; another shift's session stays
    as punched, and with no workweek of the provider's there are no weeks."""
    override = WorkRule("override", NY, overtime=(DAILY_8,), rounding=RoundingRule(15, "nearest"),
                        meal=MealRule(30, 360), min_unpaid_break_minutes=30)
    monday, tuesday = SUNDAY + timedelta(days=1), SUNDAY + timedelta(days=2)
    shifts = [day_shift(1, rule=override), day_shift(2)]
    punches = [punch("clock_in", local(monday, 7 + 5 / 60)),
               punch("break_start", local(monday, 10)),
               punch("break_end", local(monday, 10 + 20 / 60)),
               punch("clock_out", local(monday, 17)),
               punch("clock_in", local(tuesday, 7 + 5 / 60)),
               punch("break_start", local(tuesday, 10)),
               punch("break_end", local(tuesday, 10 + 20 / 60)),
               punch("clock_out", local(tuesday, 17))]
    sheet = compute(punches, rules=(), shifts=shifts)
    assert sheet.rounded == {punches[0].id: local(monday, 7)}
    unpaid = [(s.start, s.end) for s in sheet.pay_segments if s.type == "unpaid_break"]
    assert len(unpaid) == 2
    assert unpaid[0][1] - unpaid[0][0] == timedelta(minutes=30)  # Monday: the meal only
    assert unpaid[1] == (local(tuesday, 10), local(tuesday, 10 + 20 / 60))
    assert {t.pay_code_id: t.actual for t in sheet.pay_code_totals} == {
        REG: 480 + 595 - 20, OT: 600 - 30 - 480}
    assert sheet.weeks == []
    assert sheet.overtime_starts_at is None


def test_a_night_shift_on_the_fall_back_night_is_13_hours_cut_at_midnight() -> None:
    """29 CFR 778.103 on 2026-11-01: 19:00-07:00 is 13 hours worked; with workdays from 19:00
    and daily over 8: 8 regular and 5 overtime hours, the pay segments still cut at local
    midnight for the payroll days."""
    rule = WorkRule("night", NY, day_start_time=time(19), week_start_time=time(19),
                    overtime=(DAILY_8,))
    saturday = date(2026, 10, 31)
    card = TimecardPeriod("fall", local(saturday, 0), local(saturday, 72))
    punches = [punch("clock_in", local(saturday, 19)),
               punch("clock_out", datetime(2026, 11, 1, 7, tzinfo=NY).astimezone(UTC))]
    sheet = compute(punches, rules=(rule,), window=(local(saturday, 0), local(saturday, 48)),
                    timecards=[card])
    assert {t.pay_code_id: t.actual for t in sheet.pay_code_totals} == {REG: 480, OT: 300}
    assert [(s.day, s.overtime) for s in sheet.pay_segments] == [
        (saturday, ()), (date(2026, 11, 1), ()), (date(2026, 11, 1), ("daily-8",))]
    assert sheet.pay_segments[-1].basis == ("daily", 480, 780)


def test_overtime_starts_at_from_the_work_so_far_and_the_shifts_to_come() -> None:
    """Issue 23 (the provider's "when overtime would start"): 30 hours Monday to Wednesday,
    clocked in since 07:00 on Thursday at noon, shifts until 17:00 Thursday and Friday:
    40 hours are reached at Thursday 17:00, so overtime starts with Friday's shift."""
    shifts = [day_shift(offset) for offset in range(1, 6)]
    thursday = SUNDAY + timedelta(days=4)
    punches = [*(p for offset in range(1, 4) for p in day_punches(offset)),
               punch("clock_in", local(thursday, 7))]
    sheet = compute(punches, shifts=shifts, now=local(thursday, 12))
    assert sheet.overtime_starts_at == local(thursday + timedelta(days=1), 7)
    assert sheet.weeks == [WeekHours(WEEK[0], 35 * 60, 0, 0)]
    fewer = compute(punches, shifts=shifts[:4], now=local(thursday, 12))
    assert fewer.overtime_starts_at is None
    later = compute(fifty_hours(), shifts=shifts, now=local(SUNDAY + timedelta(days=6), 12))
    assert later.overtime_starts_at == local(SUNDAY + timedelta(days=5), 7)
    elsewhere = compute(fifty_hours(), shifts=shifts,
                        now=local(SUNDAY + timedelta(days=20), 12))
    assert elsewhere.overtime_starts_at is None


def test_a_paid_break_past_40_hours_is_overtime_and_a_counted_pay_code_never_is() -> None:
    """29 CFR 778.320 (paid time counted as hours worked) and issue 23 (counted non-worked pay
    codes): a paid meal on Friday after 40 hours is paid as overtime (role null); a Monday paid
    under a holiday pay code the rule counts moves the 40 hours earlier but stays holiday pay."""
    holiday = "pay:holiday"
    friday = SUNDAY + timedelta(days=5)
    start, end = local(friday, 7), local(friday, 17)
    meal_shift = ScheduledShift("friday", start, end, (
        ScheduledSegment("working", start, local(friday, 12), RN),
        ScheduledSegment("paid_break", local(friday, 12), local(friday, 12.5)),
        ScheduledSegment("working", local(friday, 12.5), end, RN)), REG)
    monday = SUNDAY + timedelta(days=1)
    holiday_shift = ScheduledShift("monday", local(monday, 7), local(monday, 17), (
        ScheduledSegment("working", local(monday, 7), local(monday, 17), RN),), holiday)
    punches = [p for offset in range(1, 5) for p in day_punches(offset)]
    punches += [punch("clock_in", start), punch("break_start", local(friday, 12)),
                punch("break_end", local(friday, 12.5)), punch("clock_out", end)]
    rule = WorkRule("counting", NY, overtime=(WEEKLY_40,), counting_pay_codes=frozenset({holiday}))
    sheet = compute(punches, rules=(rule,), shifts=[holiday_shift, meal_shift])
    actual = {(t.pay_code_id, t.role_id): t.actual for t in sheet.pay_code_totals}
    assert actual == {(holiday, RN): 600, (REG, RN): 1800, (OT, RN): 570, (OT, None): 30,
                      (REG, None): 0}  # the scheduled paid break, paid as overtime
    breaks = [s for s in sheet.pay_segments if s.type == "paid_break"]
    assert [(s.pay_codes, s.overtime, s.role_id) for s in breaks] == [((OT,), ("weekly-40",), None)]
