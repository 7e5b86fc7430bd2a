"""The timesheet computation: warnings, errors, pay code totals and pay segments, rule by rule,
across DST changes, and its invariants under random punches."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.domain.intervals import Interval
from app.api.domain.timecards import Punch
from app.api.domain.timesheets import (
    PAY_SEGMENT_NAMESPACE,
    PayCodeTotal,
    ScheduledSegment,
    ScheduledShift,
    TimecardPeriod,
    Timesheet,
    TimesheetError,
    TimesheetInput,
    TimesheetWarning,
    compute_timesheet,
    pay_segment_id,
)

NY = ZoneInfo("America/New_York")
D = datetime(2026, 3, 2, 12, tzinfo=UTC)  # Monday 07:00 in New York
RN = uuid.uuid5(uuid.NAMESPACE_URL, "role:rn")
MD = uuid.uuid5(uuid.NAMESPACE_URL, "role:md")
DEFAULT_ROLE = uuid.uuid5(uuid.NAMESPACE_URL, "role:default")
REG = uuid.uuid5(uuid.NAMESPACE_URL, "pay:reg")
OT = uuid.uuid5(uuid.NAMESPACE_URL, "pay:ot")
CARD = TimecardPeriod(uuid.uuid5(uuid.NAMESPACE_URL, "card"), D - timedelta(days=7),
                      D + timedelta(days=7))
LATER = D + timedelta(days=3)


def at(minutes: float) -> datetime:
    return D + timedelta(minutes=minutes)


def seg(kind: str, start: float, end: float, role: uuid.UUID | None = RN) -> ScheduledSegment:
    return ScheduledSegment(kind, at(start), at(end), role)


def shift(start: float = 0, end: float = 720, segments: list[ScheduledSegment] | None = None,
          pay_code: uuid.UUID | None = None, name: str = "shift") -> ScheduledShift:
    parts = segments if segments is not None else [seg("working", start, end)]
    return ScheduledShift(uuid.uuid5(uuid.NAMESPACE_URL, name), at(start), at(end), tuple(parts),
                          pay_code)


def p(action: str, minutes: float, state: str = "approved",
      card: TimecardPeriod | None = CARD) -> Punch:
    return Punch(id=uuid.uuid4(), action=action, time=at(minutes), state=state,  # type: ignore[arg-type]
                 timecard_id=card.id if card else None)


def compute(punches: list[Punch], shifts: list[ScheduledShift], **kw: Any) -> Timesheet:
    values: dict[str, Any] = {
        "start": D - timedelta(days=1), "end": D + timedelta(days=2), "now": LATER, "zone": NY,
        "timecards": [CARD], "default_pay_code_id": REG, "default_role_id": DEFAULT_ROLE,
    }
    values.update(kw)
    return compute_timesheet(TimesheetInput(shifts=shifts, punches=punches, **values))


def minutes(segment: Any) -> int:
    return int((segment.end - segment.start).total_seconds()) // 60


def world_day() -> tuple[ScheduledShift, list[Punch]]:
    """The shared world's first day: 12 h with a 30-minute unpaid break, punched within grace."""
    day = shift(segments=[seg("working", 0, 360), seg("unpaid_break", 360, 390, None),
                          seg("working", 390, 720)])
    return day, [p("clock_in", -4), p("break_start", 360), p("break_end", 390),
                 p("clock_out", 722)]


# Actual minutes and pay segments -------------------------------------------------------------


def test_compute_counts_clock_in_to_out_minus_breaks_without_warnings_within_grace() -> None:
    day, punches = world_day()
    sheet = compute(punches, [day])
    assert sheet.warnings == []
    assert sheet.errors == []
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, scheduled=690, actual=696)]
    assert [(s.type, s.start, s.end, s.role_id) for s in sheet.pay_segments] == [
        ("working", at(-4), at(360), RN),
        ("unpaid_break", at(360), at(390), None),
        ("working", at(390), at(722), RN),
    ]
    assert {s.shift_id for s in sheet.pay_segments} == {day.id}
    assert {s.timecard_id for s in sheet.pay_segments} == {CARD.id}
    assert [s.pay_codes for s in sheet.pay_segments] == [(REG,), (), (REG,)]
    assert [x.id for x in sheet.punches] == [x.id for x in punches]


def test_compute_attributes_worked_time_to_each_segment_role() -> None:
    two_roles = shift(segments=[seg("working", 0, 360, RN), seg("working", 360, 720, MD)])
    sheet = compute([p("clock_in", 0), p("clock_out", 720)], [two_roles])
    assert sheet.pay_code_totals == sorted(
        [PayCodeTotal(REG, MD, 360, 360), PayCodeTotal(REG, RN, 360, 360)],
        key=lambda t: str(t.role_id))
    assert [(s.role_id, minutes(s)) for s in sheet.pay_segments] == [(RN, 360), (MD, 360)]


def test_compute_pays_punched_break_inside_scheduled_paid_break() -> None:
    paid = shift(segments=[seg("working", 0, 360), seg("paid_break", 360, 390, None),
                           seg("working", 390, 720)])
    sheet = compute([p("clock_in", 0), p("break_start", 360), p("break_end", 400),
                     p("clock_out", 720)], [paid])
    totals = {(t.pay_code_id, t.role_id): (t.scheduled, t.actual) for t in sheet.pay_code_totals}
    assert totals == {(REG, RN): (690, 680), (REG, None): (30, 30)}
    assert [(s.type, minutes(s)) for s in sheet.pay_segments] == [
        ("working", 360), ("paid_break", 30), ("unpaid_break", 10), ("working", 320)]


def test_compute_uses_shift_pay_code_before_default() -> None:
    overtime = shift(pay_code=OT)
    sheet = compute([p("clock_in", 0), p("clock_out", 600)], [overtime])
    assert sheet.pay_code_totals == [PayCodeTotal(OT, RN, 720, 600)]
    assert sheet.pay_segments[0].pay_codes == (OT,)


def test_compute_leaves_totals_out_without_any_pay_code() -> None:
    sheet = compute([p("clock_in", 0), p("clock_out", 600)], [shift()], default_pay_code_id=None)
    assert sheet.pay_code_totals == []
    assert sheet.pay_segments[0].pay_codes == ()


def test_compute_counts_worked_time_outside_segments_under_first_role() -> None:
    late_segment = shift(segments=[seg("working", 60, 720, MD)])
    sheet = compute([p("clock_in", 0), p("clock_out", 720)], [late_segment])
    assert sheet.pay_code_totals == [PayCodeTotal(REG, MD, 660, 720)]


def test_compute_splits_a_session_where_break_pay_or_role_changes_and_nowhere_else() -> None:
    roles = shift(segments=[seg("working", 0, 360, RN), seg("paid_break", 360, 390, None),
                            seg("working", 390, 720, MD)])
    sheet = compute([p("clock_in", -30), p("break_start", 350), p("break_end", 400),
                     p("clock_out", 730)], [roles])
    assert [(s.type, s.start, s.end, s.role_id) for s in sheet.pay_segments] == [
        ("working", at(-30), at(350), RN),  # early minutes take the first role: one piece
        ("unpaid_break", at(350), at(360), None),
        ("paid_break", at(360), at(390), None),
        ("unpaid_break", at(390), at(400), None),
        ("working", at(400), at(720), MD),
        ("working", at(720), at(730), RN),
    ]


@given(st.uuids(), st.sampled_from(["working", "paid_break", "unpaid_break"]),
       st.datetimes(timezones=st.just(UTC)))
def test_pay_segment_id_is_the_uuid5_of_session_type_and_start(
        session: uuid.UUID, kind: str, start: datetime) -> None:
    expected = uuid.uuid5(PAY_SEGMENT_NAMESPACE, f"{session}:{kind}:{start.isoformat()}")
    assert pay_segment_id(session, kind, start) == str(expected)
    assert pay_segment_id(str(session), kind, start) == str(expected)


def test_compute_clips_to_window_and_lists_only_window_punches() -> None:
    day, punches = world_day()
    sheet = compute(punches, [day], start=at(120), end=at(600))
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, 450, 450)]
    assert sheet.pay_segments[0].start == at(120)
    assert sheet.pay_segments[-1].end == at(600)
    assert [x.action for x in sheet.punches] == ["break_start", "break_end"]


def test_compute_cuts_pay_segments_at_local_midnight() -> None:
    night = shift(start=900, end=1380)  # 22:00 → 06:00 local
    sheet = compute([p("clock_in", 900), p("clock_out", 1380)], [night])
    midnight = datetime(2026, 3, 3, 5, tzinfo=UTC)
    assert [(s.start, s.end) for s in sheet.pay_segments] == [(at(900), midnight),
                                                             (midnight, at(1380))]
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, 480, 480)]


def test_compute_cuts_pay_segments_at_timecard_boundary() -> None:
    boundary = datetime(2026, 3, 3, 5, tzinfo=UTC)
    first = TimecardPeriod(uuid.uuid4(), boundary - timedelta(days=14), boundary)
    second = TimecardPeriod(uuid.uuid4(), boundary, boundary + timedelta(days=14))
    night = shift(start=900, end=1380)
    sheet = compute([p("clock_in", 900, card=first), p("clock_out", 1380, card=second)],
                    [night], timecards=[first, second])
    assert [s.timecard_id for s in sheet.pay_segments] == [first.id, second.id]
    assert sheet.errors == []


def test_compute_gives_deterministic_unique_pay_segment_ids() -> None:
    day, punches = world_day()
    ids = [s.id for s in compute(punches, [day]).pay_segments]
    assert ids == [s.id for s in compute(punches, [day]).pay_segments]
    assert len(set(ids)) == len(ids)


# Warnings ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("clock_in", "clock_out", "expected"), [
    (-8, 720, ["clock_in_early"]),
    (-7, 720, []),
    (8, 720, ["clock_in_late"]),
    (7, 720, []),
    (0, 712, ["clock_out_early"]),
    (0, 713, []),
    (0, 728, ["clock_out_late"]),
    (0, 727, []),
    (-30, 750, ["clock_in_early", "clock_out_late"]),
    (30, 700, ["clock_in_late", "clock_out_early"]),
])
def test_compute_warns_beyond_grace_window(clock_in: int, clock_out: int,
                                           expected: list[str]) -> None:
    punches = [p("clock_in", clock_in), p("clock_out", clock_out)]
    sheet = compute(punches, [shift()])
    by_type = {"clock_in": punches[0].id, "clock_out": punches[1].id}
    assert sheet.warnings == [TimesheetWarning(t, by_type[t.rsplit("_", 1)[0]]) for t in expected]


def test_compute_uses_grace_minutes_setting() -> None:
    sheet = compute([p("clock_in", 3), p("clock_out", 720)], [shift()], grace_minutes=2)
    assert [w.type for w in sheet.warnings] == ["clock_in_late"]


def test_compute_warns_missing_shift_beyond_two_hours_before_start() -> None:
    far = p("clock_in", -121)
    sheet = compute([far, p("clock_out", -1)], [shift()])
    assert sheet.warnings == [TimesheetWarning("missing_shift", far.id)]
    assert sheet.pay_code_totals == sorted(
        [PayCodeTotal(REG, DEFAULT_ROLE, 0, 120), PayCodeTotal(REG, RN, 720, 0)],
        key=lambda t: str(t.role_id))
    assert sheet.pay_segments[0].shift_id is None


def test_compute_matches_clock_in_two_hours_early_as_early() -> None:
    near = p("clock_in", -120)
    sheet = compute([near, p("clock_out", 720)], [shift()])
    assert sheet.warnings == [TimesheetWarning("clock_in_early", near.id)]


def test_compute_warns_missing_shift_after_shift_end() -> None:
    after = p("clock_in", 720)
    sheet = compute([after, p("clock_out", 780)], [shift()])
    assert sheet.warnings == [TimesheetWarning("missing_shift", after.id)]


def test_compute_compares_only_first_clock_in_and_last_clock_out_of_a_shift() -> None:
    punches = [p("clock_in", 0), p("clock_out", 240), p("clock_in", 300), p("clock_out", 720)]
    sheet = compute(punches, [shift()])
    assert sheet.warnings == []
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, 720, 660)]


def test_compute_skips_early_late_warnings_for_on_call_shift() -> None:
    on_call = shift(segments=[seg("on_call", 0, 720, MD)])
    sheet = compute([p("clock_in", 180), p("clock_out", 300)], [on_call])
    assert sheet.warnings == []
    assert sheet.errors == []
    assert sheet.pay_code_totals == [PayCodeTotal(REG, MD, 0, 120)]


# Errors --------------------------------------------------------------------------------------


def test_compute_reports_no_clock_out_once_shift_ended() -> None:
    sheet = compute([p("clock_in", 0)], [shift()], now=at(721))
    assert sheet.errors == [TimesheetError("no_clock_out", shift_id=shift().id,
                                           timecard_id=CARD.id)]
    assert sheet.pay_segments == []
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, 720, 0)]


def test_compute_counts_open_session_until_now_while_shift_runs() -> None:
    sheet = compute([p("clock_in", 0), p("break_start", 60)], [shift()], now=at(90))
    assert sheet.errors == []
    assert [(s.type, minutes(s)) for s in sheet.pay_segments] == [("working", 60),
                                                                 ("unpaid_break", 30)]


def test_compute_reports_no_clock_out_when_another_clock_in_follows() -> None:
    first = p("clock_in", 0)
    sheet = compute([first, p("clock_in", 60), p("clock_out", 720)], [shift()])
    assert sheet.errors == [TimesheetError("no_clock_out", shift_id=shift().id,
                                           timecard_id=CARD.id)]
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, 720, 660)]


def test_compute_reports_unmatched_no_clock_out_when_a_day_has_passed() -> None:
    stray = p("clock_in", 2000)
    running = compute([stray], [], now=at(2120))
    assert running.errors == []
    assert running.warnings == [TimesheetWarning("missing_shift", stray.id)]
    assert running.pay_code_totals == [PayCodeTotal(REG, DEFAULT_ROLE, 0, 120)]
    overdue = compute([stray], [], now=at(2000 + 24 * 60))
    assert overdue.errors == [TimesheetError("no_clock_out", timecard_id=CARD.id)]


def test_compute_reports_unmatched_no_clock_out_when_period_is_over() -> None:
    card = TimecardPeriod(CARD.id, CARD.start, at(2060))
    stray = p("clock_in", 2000, card=card)
    sheet = compute([stray], [], timecards=[card], now=at(2060))
    assert sheet.errors == [TimesheetError("no_clock_out", timecard_id=card.id)]


def test_compute_ignores_rejected_punches_but_lists_them() -> None:
    rejected = p("clock_out", 720, state="rejected")
    sheet = compute([p("clock_in", 0, state="pending"), rejected], [shift()])
    assert [e.type for e in sheet.errors] == ["no_clock_out"]
    assert rejected in sheet.punches


@pytest.mark.parametrize("segments", [
    [seg("unpaid_break", 0, 30, None)],
    [seg("working", 0, 800)],
    [seg("working", 0, 400), seg("working", 300, 720)],
    [],
])
def test_compute_reports_invalid_shift_and_schedules_nothing(
        segments: list[ScheduledSegment]) -> None:
    broken = shift(segments=segments)
    sheet = compute([], [broken])
    assert sheet.errors == [TimesheetError("invalid_shift", shift_id=broken.id)]
    assert sheet.pay_code_totals == []


def test_compute_reports_missing_timecard_for_started_shifts_only() -> None:
    started = shift(name="started")
    future = shift(start=2000, end=2600, name="future")
    sheet = compute([], [started, future], timecards=[], now=at(1000))
    assert sheet.errors == [TimesheetError("missing_timecard", shift_id=started.id)]


def test_compute_reports_missing_pay_period_template_first() -> None:
    sheet = compute([], [shift()], timecards=[], has_pay_period_template=False)
    assert [e.type for e in sheet.errors] == ["missing_pay_period_template", "missing_timecard"]


# Time zones ----------------------------------------------------------------------------------


def _local(*args: int) -> datetime:
    return datetime(*args, tzinfo=NY).astimezone(UTC)  # type: ignore[misc]


def _overnight(start: datetime, end: datetime, clock_in: datetime, clock_out: datetime
               ) -> tuple[Timesheet, list[Punch], ScheduledShift]:
    night = ScheduledShift(uuid.uuid4(), start, end, (ScheduledSegment("working", start, end, RN),))
    card = TimecardPeriod(uuid.uuid4(), start - timedelta(days=3), end + timedelta(days=3))
    punches = [Punch(uuid.uuid4(), "clock_in", clock_in, "approved", card.id),
               Punch(uuid.uuid4(), "clock_out", clock_out, "approved", card.id)]
    sheet = compute_timesheet(TimesheetInput(
        start=start - timedelta(days=1), end=end + timedelta(days=1), now=end + timedelta(days=5),
        zone=NY, shifts=[night], punches=punches, timecards=[card], default_pay_code_id=REG))
    return sheet, punches, night


def test_compute_counts_nine_hours_overnight_when_clocks_go_back() -> None:
    start, end = _local(2026, 10, 31, 23), _local(2026, 11, 1, 7)
    sheet, _punches, _night = _overnight(start, end, start, end)
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, scheduled=540, actual=540)]
    assert sheet.warnings == []
    assert sheet.errors == []
    assert [minutes(s) for s in sheet.pay_segments] == [60, 480]
    assert sheet.pay_segments[1].start == _local(2026, 11, 1, 0)


def test_compute_warns_exactly_when_clocks_go_back() -> None:
    start, end = _local(2026, 10, 31, 23), _local(2026, 11, 1, 7)
    sheet, punches, _night = _overnight(start, end, start + timedelta(minutes=5),
                                        end + timedelta(minutes=8))
    assert sheet.warnings == [TimesheetWarning("clock_out_late", punches[1].id)]
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, scheduled=540, actual=543)]


def test_compute_counts_seven_hours_overnight_when_clocks_go_forward() -> None:
    start, end = _local(2026, 3, 7, 23), _local(2026, 3, 8, 7)
    sheet, _punches, _night = _overnight(start, end, start, end)
    assert sheet.pay_code_totals == [PayCodeTotal(REG, RN, scheduled=420, actual=420)]
    assert sheet.warnings == []


# Invariants ----------------------------------------------------------------------------------

ACTIONS = ("clock_in", "clock_out", "break_start", "break_end")


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[list[ScheduledShift], list[Punch], datetime]:
    shifts: list[ScheduledShift] = []
    begin = draw(st.integers(-600, 600))
    for index in range(draw(st.integers(0, 2))):
        length = draw(st.integers(2, 14)) * 60
        start = begin + index * 900
        parts = [seg("working", start, start + length, draw(st.sampled_from([RN, MD])))]
        if draw(st.booleans()):
            middle = start + length // 2
            parts = [seg("working", start, middle), seg("unpaid_break", middle, middle + 30, None),
                     seg("working", middle + 30, start + length, MD)]
        shifts.append(shift(segments=parts, name=f"s{index}"))
    punches: list[Punch] = []
    minute = -900
    for _ in range(draw(st.integers(0, 14))):
        minute += draw(st.integers(1, 300))
        action = draw(st.sampled_from(ACTIONS))
        state = draw(st.sampled_from(["approved", "pending", "rejected"]))
        punches.append(p(action, minute, state=state))
    now = at(draw(st.integers(-900, 4000)))
    return shifts, punches, now


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_compute_actual_minutes_equal_paid_pay_segment_minutes(
        scenario: tuple[list[ScheduledShift], list[Punch], datetime]) -> None:
    shifts, punches, now = scenario
    sheet = compute(punches, shifts, now=now)
    paid = [s for s in sheet.pay_segments if s.type == "working"]
    assert sum(t.actual for t in sheet.pay_code_totals) == sum(minutes(s) for s in paid)
    for role in {t.role_id for t in sheet.pay_code_totals}:
        assert sum(t.actual for t in sheet.pay_code_totals if t.role_id == role) == \
            sum(minutes(s) for s in paid if s.role_id == role)


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_compute_pay_segments_are_disjoint_in_window_and_within_a_local_day(
        scenario: tuple[list[ScheduledShift], list[Punch], datetime]) -> None:
    shifts, punches, now = scenario
    window = Interval(at(-600), at(1500))
    sheet = compute(punches, shifts, now=now, start=window.start, end=window.end)
    ordered = sorted(sheet.pay_segments, key=lambda s: s.start)
    assert all(a.end <= b.start for a, b in pairwise(ordered))
    for piece in ordered:
        assert window.start <= piece.start < piece.end <= window.end
        assert piece.start.astimezone(NY).date() == \
            (piece.end - timedelta(microseconds=1)).astimezone(NY).date()
    assert {x.id for x in sheet.punches} == {x.id for x in punches
                                            if window.contains(x.time)}
    warned = {w.punch_id for w in sheet.warnings}
    assert warned <= {x.id for x in sheet.punches if x.state != "rejected"}


@settings(max_examples=150, deadline=None)
@given(scenarios(), st.integers(-500, 1400))
def test_compute_actual_minutes_add_up_across_split_windows(
        scenario: tuple[list[ScheduledShift], list[Punch], datetime], cut: int) -> None:
    shifts, punches, now = scenario
    start, middle, end = at(-600), at(cut), at(1500)

    def actual(a: datetime, b: datetime) -> int:
        sheet = compute(punches, shifts, now=now, start=a, end=b)
        return sum(t.actual for t in sheet.pay_code_totals)

    def scheduled(a: datetime, b: datetime) -> int:
        sheet = compute(punches, shifts, now=now, start=a, end=b)
        return sum(t.scheduled for t in sheet.pay_code_totals)

    assert actual(start, end) == actual(start, middle) + actual(middle, end)
    assert scheduled(start, end) == scheduled(start, middle) + scheduled(middle, end)
