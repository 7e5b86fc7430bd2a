"""How the pages word overtime (app.web.overtime): each stretch's rule, basis and multiplier."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.contract.pay_codes import PayCodeRead
from app.contract.timekeeping import OvertimeBasis, PaySegment
from app.contract.work_rules import OvertimeRuleRead
from app.web.overtime import PayRules, basis_words, overtime_lines

T0 = datetime(2026, 4, 9, 19, tzinfo=UTC)
RULE = "8d2f4b7e-0000-4000-8000-000000000001"
CODE = "8d2f4b7e-0000-4000-8000-0000000000dd"


def _rule(kind: str, threshold: int, name: str = "Daily over 8", multiplier: str = "1.50",
          ) -> OvertimeRuleRead:
    return OvertimeRuleRead(id=RULE, created_at=T0, updated_at=T0, version=1, name=name,
                            kind=kind, threshold_minutes=threshold, pay_code_id=CODE,
                            multiplier=multiplier)


def _segment(start: datetime, minutes: int, basis: tuple[str, int, int]) -> PaySegment:
    return PaySegment(id=f"s{start.timestamp()}", type="working", start_date=start,
                      end_date=start + timedelta(minutes=minutes), pay_codes=[CODE],
                      overtime=[RULE], overtime_basis=OvertimeBasis(
                          kind=basis[0], from_minutes=basis[1], to_minutes=basis[2]))


def test_daily_overtime_names_the_hours_of_the_day_and_the_rule() -> None:
    words = basis_words(OvertimeBasis(kind="daily", from_minutes=480, to_minutes=600),
                        _rule("daily", 480))
    assert words == "hours 8\u201310 of the day (daily rule \u201cDaily over 8\u201d)"


def test_weekly_and_period_overtime_say_after_how_many_regular_hours() -> None:
    weekly = basis_words(OvertimeBasis(kind="weekly", from_minutes=3180, to_minutes=3420),
                         _rule("weekly", 2400, "Weekly over 40"))
    assert weekly == ("hours 53\u201357 of the week, after 40 regular hours "
                      "(weekly rule \u201cWeekly over 40\u201d)")
    period = basis_words(OvertimeBasis(kind="period", from_minutes=4800, to_minutes=5040),
                         _rule("period", 4800, "Period over 80"))
    assert period.startswith("hours 80\u201384 of the 14-day period, after 80 regular hours")


def test_a_rule_that_cannot_be_read_leaves_the_kind_alone() -> None:
    assert basis_words(OvertimeBasis(kind="daily", from_minutes=495, to_minutes=600), None) \
        == "hours 8h 15m\u201310 of the day (daily rule)"
    assert basis_words(OvertimeBasis(kind="seventh_day", from_minutes=0, to_minutes=480),
                       None).startswith("the seventh consecutive day worked in the workweek")


def test_pieces_of_one_stretch_are_one_line_and_double_time_is_named() -> None:
    rules = PayRules(overtime={RULE: _rule("daily", 480)})
    lines = overtime_lines([_segment(T0, 60, ("daily", 480, 540)),
                            _segment(T0 + timedelta(hours=1), 60, ("daily", 540, 600))],
                           rules, T0)
    assert [(line.label, line.multiplier, line.minutes) for line in lines] == [
        ("Overtime", "1.5", 120)]
    assert lines[0].why.startswith("hours 8\u201310 of the day")
    double = PayRules(pay_codes={CODE: PayCodeRead(id=CODE, name="Double time",
                                                   shorthand_name="DT", hex_color="#B279A2",
                                                   type="hours", value=2.0)})
    (line,) = overtime_lines([_segment(T0, 60, ("daily", 720, 780))], double, T0)
    assert (line.label, line.multiplier, line.why) == (
        "Double time", "2", "hours 12\u201313 of the day (daily rule)")
