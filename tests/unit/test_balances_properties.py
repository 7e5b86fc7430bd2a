"""Hypothesis properties of the time-off ledger: the balance is the sum of its entries; never
above the cap after an accrual; never below the floor after an allowed usage; carry-over keeps
what remained up to the max; re-running an accrual appends nothing."""

from __future__ import annotations

from datetime import date, timedelta
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.domain import balances as b
from app.api.domain.balances import AccrualSettings, Entry

F = Fraction
START = date(2025, 1, 1)

amounts = st.fractions(min_value=0, max_value=80, max_denominator=60)
caps = st.one_of(st.none(), st.fractions(min_value=1, max_value=200, max_denominator=8))


@st.composite
def accrual_settings(draw: st.DrawFn) -> AccrualSettings:
    return AccrualSettings(
        method=draw(st.sampled_from(["per_hour_worked", "per_period", "up_front"])),
        rate=draw(st.fractions(min_value=0, max_value=40, max_denominator=60)),
        start_date=START,
        period=draw(st.sampled_from(["pay_period", "monthly", "yearly"])),
        period_anchor=START - timedelta(days=draw(st.integers(0, 13))),
        balance_cap=draw(caps),
        annual_accrual_cap=draw(caps),
        carry_over_max=draw(st.one_of(st.none(), st.fractions(min_value=0, max_value=100,
                                                             max_denominator=4))),
        carry_over_month=draw(st.integers(1, 12)),
        carry_over_day=draw(st.integers(1, 28)),
        allow_negative=draw(st.booleans()),
        negative_floor=-draw(st.fractions(min_value=0, max_value=40, max_denominator=4)),
    )


worked = st.dictionaries(st.dates(START, date(2026, 12, 31)), st.integers(0, 16 * 3600),
                         max_size=40)
usages = st.lists(st.tuples(st.dates(START, date(2026, 12, 31)), amounts), max_size=5)


def _ledger(config: AccrualSettings, through: date, hours: dict[date, int],
            uses: list[tuple[date, Fraction]]) -> list[Entry]:
    """Accrue in slices, debiting each allowed usage in between, as the API does."""
    ledger: list[Entry] = []
    for index, (day, needed) in enumerate(sorted(uses)):
        ledger += b.accrue(config, policy="p", provider="x", hire_date=None, ledger=ledger,
                           through=min(day, through), worked_seconds=hours)
        if b.usage_refusal(config, entries=ledger, needed=needed, usage_date=day,
                           leave_start=day, hire_date=None, unit="hours") is None:
            ledger.append(Entry("usage", day, -needed, f"usage:{index}"))
    ledger += b.accrue(config, policy="p", provider="x", hire_date=None, ledger=ledger,
                       through=through, worked_seconds=hours)
    return ledger


@settings(max_examples=60, deadline=None)
@given(accrual_settings(), worked, usages, st.dates(START, date(2027, 6, 30)))
def test_balance_is_the_sum_of_its_entries_and_accrual_is_idempotent(config, hours, uses,
                                                                     through):
    ledger = _ledger(config, through, hours, uses)

    assert b.balance(ledger) == sum((e.amount for e in ledger), F(0))
    assert b.accrue(config, policy="p", provider="x", hire_date=None, ledger=ledger,
                    through=through, worked_seconds=hours) == []
    assert len({e.source_key for e in ledger}) == len(ledger)


@settings(max_examples=60, deadline=None)
@given(accrual_settings(), worked, usages, st.dates(START, date(2027, 6, 30)))
def test_never_above_the_cap_after_an_accrual_nor_below_the_floor_after_a_usage(
        config, hours, uses, through):
    ledger = _ledger(config, through, hours, uses)

    running = F(0)
    for entry in ledger:  # in the order appended: each entry saw the balance before it
        before = running
        running += entry.amount
        if entry.kind == "accrual" and config.balance_cap is not None:
            assert entry.amount >= 0
            assert running <= max(config.balance_cap, before)
        if entry.kind == "usage":
            assert running >= config.floor


@settings(max_examples=60, deadline=None)
@given(accrual_settings(), worked, usages, st.dates(START, date(2027, 6, 30)))
def test_carry_over_keeps_what_remained_up_to_the_max(config, hours, uses, through):
    ledger = _ledger(config, through, hours, uses)

    for index, entry in enumerate(ledger):
        if entry.kind != "carry_over":
            continue
        before = b.balance(e for e in ledger[:index] if e.effective_date < entry.effective_date)
        assert config.carry_over_max is not None
        assert entry.target == (min(before, config.carry_over_max) if before > 0 else before)
        forfeits = [e for e in ledger if e.kind == "forfeit"
                    and e.effective_date == entry.effective_date]
        assert sum((e.amount for e in forfeits), F(0)) == entry.target - before


@settings(max_examples=60, deadline=None)
@given(accrual_settings(), worked, st.dates(START, date(2027, 6, 30)))
def test_accruing_in_one_run_equals_accruing_in_slices(config, hours, through):
    whole = b.accrue(config, policy="p", provider="x", hire_date=None, ledger=[],
                     through=through, worked_seconds=hours)
    sliced: list[Entry] = []
    day = START - timedelta(days=1)
    while day < through:
        day = min(day + timedelta(days=45), through)
        sliced += b.accrue(config, policy="p", provider="x", hire_date=None, ledger=sliced,
                           through=day, worked_seconds=hours)

    assert sorted(whole, key=lambda e: e.source_key) == sorted(sliced, key=lambda e: e.source_key)
