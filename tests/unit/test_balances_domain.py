"""Time-off balances, pure: exact accrual (1 hour per 30 worked over a 2,080-hour year), days
and hours policies, periods, caps, carry-over before the same day's accrual, the waiting period
and the annual limits, and how amounts are read and written."""

from __future__ import annotations

from datetime import date, timedelta
from fractions import Fraction

import pytest

from app.api.domain import balances as b
from app.api.domain.balances import AccrualSettings, Entry

F = Fraction


def _settings(**kw: object) -> AccrualSettings:
    values: dict[str, object] = {"method": "per_period", "rate": F(8),
                                 "start_date": date(2026, 1, 1), "period": "monthly"}
    values.update(kw)
    return AccrualSettings(**values)  # type: ignore[arg-type]


def _run(settings: AccrualSettings, through: date, ledger: list[Entry] | None = None,
         **kw: object) -> list[Entry]:
    hire = kw.pop("hire", None)
    return b.accrue(settings, policy="p", provider="x", hire_date=hire,  # type: ignore[arg-type]
                    ledger=ledger or [], through=through, **kw)  # type: ignore[arg-type]


def test_accrue_one_hour_per_thirty_worked_is_exact_over_2080_hours():
    settings = _settings(method="per_hour_worked", rate=F(1, 30), period="pay_period",
                         period_anchor=date(2026, 1, 1))
    # 2,080 hours: 8 hours on each of 260 weekdays, and one odd 7 minutes 13 seconds nowhere.
    worked: dict[date, int] = {}
    day = date(2026, 1, 1)
    while len(worked) < 260:
        if day.weekday() < 5:
            worked[day] = 8 * 3600
        day += timedelta(days=1)
    entries = _run(settings, date(2027, 1, 1), worked_seconds=worked)

    assert b.balance(entries) == F(208, 3)  # 69 1/3 hours, no drift
    assert b.format_amount(b.balance(entries)) == "208/3"
    assert b.display_value(b.balance(entries)) == 69.3333


def test_accrue_per_period_posts_on_the_day_after_each_period_and_never_twice():
    settings = _settings()
    first = _run(settings, date(2026, 4, 1))

    assert [(e.effective_date, e.amount) for e in first] == [
        (date(2026, 2, 1), 8), (date(2026, 3, 1), 8), (date(2026, 4, 1), 8)]
    assert first[0].source_key == "accrual:p:x:2026-01-01"
    assert _run(settings, date(2026, 4, 1), first) == []
    more = _run(settings, date(2026, 5, 15), first)
    assert [e.effective_date for e in more] == [date(2026, 5, 1)]


def test_accrue_pay_periods_follow_their_anchor():
    settings = _settings(period="pay_period", period_anchor=date(2025, 12, 29))
    entries = _run(settings, date(2026, 2, 1))

    # The first whole period from the start date begins on the anchor's rhythm: 12 January.
    assert [e.source_key.rsplit(":", 1)[1] for e in entries] == ["2026-01-12"]
    assert entries[0].effective_date == date(2026, 1, 26)


def test_accrue_cuts_an_accrual_to_reach_the_balance_cap_exactly():
    settings = _settings(balance_cap=F(20))
    entries = _run(settings, date(2026, 6, 1))

    assert [e.amount for e in entries] == [8, 8, 4, 0, 0]
    assert b.balance(entries) == 20


def test_accrue_respects_the_annual_accrual_cap():
    settings = _settings(annual_accrual_cap=F(30))
    entries = _run(settings, date(2027, 3, 1))

    by_year: dict[int, Fraction] = {}
    for e in entries:
        by_year[b.year_start(settings, e.effective_date).year] = \
            by_year.get(b.year_start(settings, e.effective_date).year, F(0)) + e.amount
    # December's accrual is posted on 1 January, so it counts in the new year.
    assert by_year == {2026: 30, 2027: 24}


def test_carry_over_keeps_what_remained_up_to_the_max_before_that_days_grant():
    settings = _settings(method="up_front", rate=F(40), balance_cap=F(60),
                         carry_over_max=F(16))
    used = Entry("usage", date(2026, 6, 1), F(-30), "usage:r1")
    first = _run(settings, date(2026, 12, 31))
    entries = _run(settings, date(2027, 1, 1), [*first, used])

    assert [e.amount for e in first] == [40]
    # 10 remained, below the max of 16: all of it carries over, never the max or the cap.
    assert [(e.kind, e.amount, e.target) for e in entries] == [
        ("carry_over", 0, 10), ("accrual", 40, None)]


def test_carry_over_forfeits_what_is_above_the_max():
    settings = _settings(method="up_front", rate=F(40), carry_over_max=F(16))
    entries = _run(settings, date(2027, 1, 1))

    assert [(e.kind, e.amount, e.target) for e in entries] == [
        ("accrual", 40, None), ("carry_over", 0, 16), ("forfeit", -24, None),
        ("accrual", 40, None)]
    assert b.balance(entries) == 56


def test_days_and_hours_policies_keep_their_own_unit():
    days = _settings(rate=F(1, 2))
    hours = _settings(rate=F(4))

    assert b.balance(_run(days, date(2026, 3, 1))) == 1
    assert b.balance(_run(hours, date(2026, 3, 1))) == 8


def test_usage_refused_inside_the_waiting_period():
    settings = _settings(waiting_period_days=90)
    ledger = [Entry("accrual", date(2026, 2, 1), F(40), "a")]

    refusal = b.usage_refusal(settings, entries=ledger, needed=F(8), usage_date=date(2026, 2, 2),
                              leave_start=date(2026, 3, 1), hire_date=date(2026, 1, 1),
                              unit="hours")
    assert refusal is not None
    assert refusal.code == "waiting-period"
    assert "2026-04-01" in refusal.detail
    assert b.usage_refusal(settings, entries=ledger, needed=F(8), usage_date=date(2026, 2, 2),
                           leave_start=date(2026, 4, 1), hire_date=date(2026, 1, 1),
                           unit="hours") is None


def test_usage_refused_beyond_the_annual_use_limit():
    settings = _settings(annual_use_limit=F(40))
    ledger = [Entry("accrual", date(2026, 2, 1), F(100), "a"),
              Entry("usage", date(2026, 3, 1), F(-36), "u")]

    refusal = b.usage_refusal(settings, entries=ledger, needed=F(8), usage_date=date(2026, 4, 1),
                              leave_start=date(2026, 4, 1), hire_date=None, unit="hours")
    assert refusal is not None
    assert refusal.code == "annual-use-limit-reached"
    assert refusal.detail.startswith("needs 8 hours, but only 4 of the year's 40")
    # A new accrual year starts afresh.
    assert b.usage_refusal(settings, entries=ledger, needed=F(8), usage_date=date(2027, 1, 2),
                           leave_start=date(2027, 1, 2), hire_date=None, unit="hours") is None


def test_usage_refused_beyond_the_balance_says_what_it_needs_and_what_is_available():
    settings = _settings()
    ledger = [Entry("accrual", date(2026, 2, 1), F(16), "a")]

    refusal = b.usage_refusal(settings, entries=ledger, needed=F(24), usage_date=date(2026, 3, 1),
                              leave_start=date(2026, 3, 1), hire_date=None, unit="hours")
    assert refusal is not None
    assert refusal.code == "insufficient-balance"
    assert refusal.detail == "needs 24 hours, 16 available."


def test_usage_may_reach_the_negative_floor_and_not_beyond():
    settings = _settings(allow_negative=True, negative_floor=F(-16))
    ledger = [Entry("accrual", date(2026, 2, 1), F(8), "a")]

    assert b.usage_refusal(settings, entries=ledger, needed=F(24), usage_date=date(2026, 3, 1),
                           leave_start=date(2026, 3, 1), hire_date=None, unit="hours") is None
    refusal = b.usage_refusal(settings, entries=ledger, needed=F(25), usage_date=date(2026, 3, 1),
                              leave_start=date(2026, 3, 1), hire_date=None, unit="hours")
    assert refusal is not None
    assert refusal.available == 24


def test_per_period_accrual_waits_for_the_first_period_after_hire():
    entries = _run(_settings(), date(2026, 5, 1), hire=date(2026, 2, 10))

    assert [e.amount for e in entries] == [0, 0, 8, 8]


@pytest.mark.parametrize(("text", "value"), [
    ("8", F(8)), ("12.5", F(25, 2)), ("1/30", F(1, 30)), ("-16", F(-16)),
    (" 0.000001 ", F(1, 10**6)),
])
def test_parse_amount_reads_decimals_and_fractions_exactly(text, value):
    assert b.parse_amount(text) == value


@pytest.mark.parametrize("text", ["", "abc", "1/0", "1/-3", "nan", "inf", "1e400", "2000000",
                                  "1e999999999", "-1E+999999999",
                                  "0.0000001", "1/10000000", "1//2"])
def test_parse_amount_refuses_what_is_not_an_exact_bounded_number(text):
    with pytest.raises(ValueError, match=r"."):
        b.parse_amount(text)


@pytest.mark.parametrize(("value", "text"), [
    (F(25, 2), "12.5"), (F(-16), "-16"), (F(37, 3), "37/3"), (F(1, 8), "0.125"), (F(0), "0"),
])
def test_format_amount_writes_exact_decimals_or_lowest_terms(value, text):
    assert b.format_amount(value) == text
