"""Punches grouped into shift rows (`app.web.worked_days`): plain contract objects in, rows out."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from app.contract.shifts import ShiftRead, ShiftSegmentRead
from app.contract.timekeeping import (
    PaySegment,
    TimesheetError,
    TimesheetPunchRead,
    TimesheetRead,
    TimesheetWarning,
)
from app.web.worked_days import page_errors, shift_rows

ZONE = ZoneInfo("America/New_York")
NOW = datetime(2026, 11, 25, 15, tzinfo=UTC)
CARD = uuid.uuid4()


def _shift(start: datetime, hours: float = 12) -> ShiftRead:
    end = start + timedelta(hours=hours)
    segment = ShiftSegmentRead.model_construct(type="working", start_date=start, end_date=end)
    return ShiftRead.model_construct(id=uuid.uuid4(), start_date=start, end_date=end,
                                     segments=[segment], provider=None)


def _punch(action: str, at: datetime, shift: ShiftRead | None = None,
           state: str = "pending") -> TimesheetPunchRead:
    return TimesheetPunchRead.model_construct(
        id=uuid.uuid4(), timecard_id=CARD, action=action, time=at, state=state,
        shift_id=shift.id if shift else None, admin_note=None, provider_note=None)


def _segment(start: datetime, end: datetime, shift: ShiftRead | None = None,
             kind: str = "working") -> PaySegment:
    return PaySegment.model_construct(id=str(uuid.uuid4()), type=kind, start_date=start,
                                      end_date=end, shift_id=str(shift.id) if shift else None,
                                      timecard_id=str(CARD))


def _sheet(punches, segments=(), warnings=(), errors=()) -> TimesheetRead:
    return TimesheetRead.model_construct(punches=list(punches), pay_segments=list(segments),
                                         warnings=list(warnings), errors=list(errors))


def test_a_night_shift_is_one_row_under_the_day_it_began_with_its_minutes():
    start = datetime(2026, 11, 16, 0, tzinfo=UTC)  # Sun 15 Nov, 7 PM in New York
    night = _shift(start)
    punches = [_punch("clock_in", start, night),
               _punch("break_start", start + timedelta(hours=6), night),
               _punch("break_end", start + timedelta(hours=6, minutes=30), night),
               _punch("clock_out", start + timedelta(hours=12), night)]
    segments = [_segment(start, start + timedelta(hours=5), night),  # cut at local midnight
                _segment(start + timedelta(hours=5), start + timedelta(hours=6), night),
                _segment(start + timedelta(hours=6), start + timedelta(hours=6, minutes=30),
                         night, "unpaid_break"),
                _segment(start + timedelta(hours=6, minutes=30), start + timedelta(hours=12),
                         night)]
    [row] = shift_rows(_sheet(punches, segments), [night], ZONE, NOW)
    assert row.day == date(2026, 11, 15)
    assert (row.worked, row.breaks, row.scheduled) == (690, 30, 720)
    assert [s.start.action for s in row.sessions] == ["clock_in"]
    assert row.sessions[0].end is punches[-1]
    assert row.next_day(punches[-1])
    assert not row.next_day(punches[0])
    assert row.clean
    assert row.state == "pending"


def test_a_session_of_no_shift_is_its_own_row_with_its_warning_and_minutes():
    start = datetime(2026, 11, 20, 14, tzinfo=UTC)
    clock_in, clock_out = _punch("clock_in", start), _punch("clock_out", start + timedelta(hours=4))
    sheet = _sheet([clock_in, clock_out], [_segment(start, start + timedelta(hours=4))],
                   [TimesheetWarning.model_construct(type="missing_shift", punch_id=clock_in.id)])
    [row] = shift_rows(sheet, [], ZONE, NOW)
    assert row.key == f"punch-{clock_in.id}"
    assert row.shift is None
    assert row.worked == 240
    assert row.warnings == ["No scheduled shift"]
    assert not row.clean


def test_a_rejected_punch_of_no_shift_stays_with_the_shift_before_it():
    start = datetime(2026, 11, 20, 12, tzinfo=UTC)
    shift = _shift(start)
    punches = [_punch("clock_in", start, shift, "approved"),
               _punch("break_start", start + timedelta(hours=1), None, "rejected"),
               _punch("clock_out", start + timedelta(hours=12), shift, "approved")]
    [row] = shift_rows(_sheet(punches), [shift], ZONE, NOW)
    assert [p.action for p in row.rejected] == ["break_start"]
    assert row.state == "approved"
    assert not row.clean  # nothing waits


def test_a_shift_without_punches_shows_once_started_and_from_since():
    started = _shift(NOW - timedelta(hours=1))
    earlier = _shift(NOW - timedelta(days=3))
    later = _shift(NOW + timedelta(days=1))
    rows = shift_rows(_sheet([]), [started, earlier, later], ZONE, NOW,
                      since=NOW - timedelta(days=1))
    assert [r.shift for r in rows] == [started]
    assert rows[0].state == "none"
    assert rows[0].underway


def test_an_open_clock_in_is_not_clean_and_a_missing_clock_out_goes_to_its_shift():
    start = datetime(2026, 11, 23, 12, tzinfo=UTC)
    shift = _shift(start)
    errors = [TimesheetError.model_construct(type="no_clock_out", shift_id=shift.id,
                                             timecard_id=CARD),
              TimesheetError.model_construct(type="missing_pay_period_template",
                                             shift_id=None, timecard_id=None)]
    sheet = _sheet([_punch("clock_in", start, shift)], errors=errors)
    rows = shift_rows(sheet, [shift], ZONE, NOW)
    assert rows[0].open
    assert rows[0].errors == ["No clock-out"]
    assert not rows[0].clean
    assert page_errors(sheet, rows) == ["No pay period set up"]


def test_first_moves_a_row_begun_before_the_period_onto_its_first_day():
    start = datetime(2026, 11, 16, 0, tzinfo=UTC)  # Sun 15 Nov, 7 PM in New York
    night = _shift(start)
    [row] = shift_rows(_sheet([_punch("clock_out", start + timedelta(hours=12), night)]),
                       [night], ZONE, NOW, first=date(2026, 11, 16))
    assert row.day == date(2026, 11, 16)


def test_each_closed_break_says_how_it_was_paid_from_the_pay_segments():
    start = datetime(2026, 11, 22, 12, tzinfo=UTC)
    day = _shift(start)
    at = [start + timedelta(hours=h) for h in (3, 3.25, 5, 5.5, 7, 7.5, 10)]
    punches = [_punch("clock_in", start, day),
               _punch("break_start", at[0], day), _punch("break_end", at[1], day),  # short
               _punch("break_start", at[2], day), _punch("break_end", at[3], day),  # unpaid
               _punch("break_start", at[4], day), _punch("break_end", at[5], day),  # paid
               _punch("break_start", at[6], day)]  # still open
    segments = [_segment(start, at[2], day),  # the short break is worked time
                _segment(at[2], at[3], day, "unpaid_break"),
                _segment(at[3], at[4], day),
                _segment(at[4], at[5], day, "paid_break"),
                _segment(at[5], at[6], day)]
    [row] = shift_rows(_sheet(punches, segments), [day], ZONE, NOW)
    assert [row.break_pay(b) for b in row.break_stretches] == ["worked", None, "paid", None]
    assert (row.worked, row.breaks) == (540, 60)
