"""The timesheet's pay code minutes by local day (what the payroll export lists): a night split
at local midnight, both DST nights, minutes counted on the running total so that the days add up
to the totals exactly; and the payroll report's pure parts (sign-off coverage, file names)."""

from __future__ import annotations

import uuid
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.domain.intervals import Interval
from app.api.domain.timecards import Punch
from app.api.domain.timesheets import (
    PayCodeDay,
    PayCodeTotal,
    ScheduledSegment,
    ScheduledShift,
    TimecardPeriod,
    Timesheet,
    running_minutes,
)
from app.api.jobs.reports import covering_sign_offs, file_name
from tests.unit.test_timesheets import CARD, NY, REG, RN, compute, p, scenarios, seg, shift

EVENING = datetime(2026, 3, 2, 12, tzinfo=UTC)  # the test_timesheets clock's minute 0


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def punch(action: str, moment: datetime) -> Punch:
    return Punch(id=uuid.uuid4(), action=action, time=moment,  # type: ignore[arg-type]
                 state="approved", timecard_id=CARD.id)


def night(start: datetime, end: datetime) -> ScheduledShift:
    return ScheduledShift(uuid.uuid4(), start, end, (ScheduledSegment("working", start, end, RN),))


def days_of(sheet: Timesheet) -> list[tuple[date, int, int]]:
    return [(d.day, d.scheduled, d.actual) for d in sheet.pay_code_days]


def assert_days_add_up(sheet: Timesheet) -> None:
    summed: dict[tuple[object, object], list[int]] = defaultdict(lambda: [0, 0])
    for d in sheet.pay_code_days:
        summed[(d.pay_code_id, d.role_id)][0] += d.scheduled
        summed[(d.pay_code_id, d.role_id)][1] += d.actual
    for total in sheet.pay_code_totals:
        assert summed.get((total.pay_code_id, total.role_id), [0, 0]) == [total.scheduled,
                                                                          total.actual]
    assert set(summed) <= {(t.pay_code_id, t.role_id) for t in sheet.pay_code_totals}


def test_a_night_shift_splits_at_local_midnight() -> None:
    # 22:00-06:00 in New York (EST), punched 22:00-06:07.
    sheet = compute([p("clock_in", 900), p("clock_out", 1387)], [shift(start=900, end=1380)])
    assert sheet.pay_code_days == [
        PayCodeDay(REG, RN, date(2026, 3, 2), scheduled=120, actual=120),
        PayCodeDay(REG, RN, date(2026, 3, 3), scheduled=360, actual=367),
    ]
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, 480, 487)]


def test_the_spring_forward_night_has_an_hour_less_after_midnight() -> None:
    # 7 March 22:00 EST to 8 March 07:00 EDT: 8 hours, two before midnight.
    start, end = utc("2026-03-08T03:00"), utc("2026-03-08T11:00")
    sheet = compute([punch("clock_in", start), punch("clock_out", end)], [night(start, end)],
                    start=utc("2026-03-07T05:00"), end=utc("2026-03-09T04:00"),
                    now=utc("2026-03-10T00:00"), timecards=[
                        TimecardPeriod(CARD.id, utc("2026-03-01T05:00"), utc("2026-03-15T04:00"))])
    assert days_of(sheet) == [(date(2026, 3, 7), 120, 120), (date(2026, 3, 8), 360, 360)]
    assert_days_add_up(sheet)


def test_the_fall_back_night_has_an_hour_more_after_midnight() -> None:
    # 31 October 22:00 EDT to 1 November 07:00 EST: 10 hours, eight of them on 1 November.
    start, end = utc("2026-11-01T02:00"), utc("2026-11-01T12:00")
    sheet = compute([punch("clock_in", start), punch("clock_out", end)], [night(start, end)],
                    start=utc("2026-10-31T04:00"), end=utc("2026-11-02T05:00"),
                    now=utc("2026-11-03T00:00"), timecards=[
                        TimecardPeriod(CARD.id, utc("2026-10-26T04:00"), utc("2026-11-09T05:00"))])
    assert days_of(sheet) == [(date(2026, 10, 31), 120, 120), (date(2026, 11, 1), 480, 480)]
    assert_days_add_up(sheet)


def test_a_minute_split_by_midnight_is_paid_on_the_day_it_completes() -> None:
    # 23:59:30 to 00:00:30 local, no shift: 30 s on each day, one whole minute in all.
    midnight = utc("2026-03-03T05:00")
    sheet = compute([punch("clock_in", midnight - timedelta(seconds=30)),
                     punch("clock_out", midnight + timedelta(seconds=30))], [])
    assert [t.actual for t in sheet.pay_code_totals] == [1]
    assert [(d.day, d.actual) for d in sheet.pay_code_days] == [(date(2026, 3, 2), 0),
                                                                 (date(2026, 3, 3), 1)]


def test_paid_breaks_have_their_own_days_without_a_role() -> None:
    day = shift(segments=[seg("working", 0, 360), seg("paid_break", 360, 390, None),
                          seg("working", 390, 720)])
    sheet = compute([p("clock_in", 0), p("break_start", 360), p("break_end", 390),
                     p("clock_out", 720)], [day])
    assert sheet.pay_code_days == [PayCodeDay(REG, None, date(2026, 3, 2), 30, 30),
                                   PayCodeDay(REG, RN, date(2026, 3, 2), 690, 690)]


def test_running_minutes_add_up_to_the_whole_minutes_of_the_total() -> None:
    seconds = {date(2026, 3, 1): 59, date(2026, 3, 2): 59, date(2026, 3, 3): 62}
    assert running_minutes(seconds) == {date(2026, 3, 1): 0, date(2026, 3, 2): 1,
                                        date(2026, 3, 3): 2}
    assert running_minutes({}) == {}


@st.composite
def second_scenarios(draw: st.DrawFn) -> tuple[list[ScheduledShift], list[Punch], datetime]:
    """test_timesheets' scenarios with every punch moved by up to a minute, to the second."""
    shifts, punches, now = draw(scenarios())
    moved = [Punch(id=x.id, action=x.action, state=x.state, timecard_id=x.timecard_id,
                   time=x.time + timedelta(seconds=draw(st.integers(-59, 59))))
             for x in punches]
    return shifts, moved, now


@settings(max_examples=150, deadline=None)
@given(second_scenarios())
def test_days_add_up_to_the_totals_exactly(
        scenario: tuple[list[ScheduledShift], list[Punch], datetime]) -> None:
    shifts, punches, now = scenario
    start, end = EVENING - timedelta(hours=10), EVENING + timedelta(hours=25)
    sheet = compute(punches, shifts, now=now, start=start, end=end)
    assert_days_add_up(sheet)
    for d in sheet.pay_code_days:
        assert start.astimezone(NY).date() <= d.day <= end.astimezone(NY).date()
        assert d.scheduled >= 0
        assert d.actual >= 0
    assert [(d.pay_code_id, d.role_id, d.day) for d in sheet.pay_code_days] == sorted(
        {(d.pay_code_id, d.role_id, d.day) for d in sheet.pay_code_days},
        key=lambda k: (str(k[0]), k[1] is not None, str(k[1]), k[2]))


# The payroll report's pure parts --------------------------------------------------------------

A, B = uuid.UUID(int=1), uuid.UUID(int=2)
WEEK = Interval(utc("2026-03-02T05:00"), utc("2026-03-09T04:00"))


def test_covering_sign_offs_name_those_that_cover_the_whole_window() -> None:
    middle = utc("2026-03-05T05:00")
    assert covering_sign_offs(WEEK, [(B, middle, WEEK.end), (A, WEEK.start, middle)]) == [A, B]
    assert covering_sign_offs(WEEK, [(A, WEEK.start - timedelta(days=3), WEEK.end)]) == [A]


def test_covering_sign_offs_refuse_a_gap_or_nothing() -> None:
    middle = utc("2026-03-05T05:00")
    assert covering_sign_offs(WEEK, [(A, WEEK.start, middle),
                                     (B, middle + timedelta(minutes=1), WEEK.end)]) is None
    assert covering_sign_offs(WEEK, [(A, WEEK.start, WEEK.end - timedelta(seconds=1))]) is None
    assert covering_sign_offs(WEEK, []) is None


def test_file_name_carries_the_tag_before_the_stamp() -> None:
    now = utc("2026-03-09T14:05:06")
    assert file_name("payroll", "preliminary", now) == "payroll-preliminary-20260309T140506Z.csv"
    assert file_name("payroll", None, now) == "payroll-20260309T140506Z.csv"
