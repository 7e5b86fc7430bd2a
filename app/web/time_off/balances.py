"""Time-off balances as the provider reads them: each balance in words, its history (the ledger
with the balance after each entry), and what a request would leave — with the reason in words
when the policy would not let it be approved, so the form refuses it before anything is sent.

The API decides again at approval (`insufficient-balance`, `annual-use-limit-reached`,
`waiting-period`); this module only predicts it from the API's own figures. A request's cost is
computed as the API computes it when it stores the request: its hours off on each local day of
the site zone (a whole day counts the provider's daily hours, else 8, at most 24; part of a day
counts its real hours, rounded to 4 places, capped the same way), and under a policy counted in
days, one day for each day with time off. Amounts are exact (`fractions.Fraction`).

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction
from typing import Any
from zoneinfo import ZoneInfo

from app.contract.balances import Amount, BalanceRead, BalancesRead, LedgerEntryRead

FULL_DAY_HOURS = Fraction(8)
"""The hours of a whole day off for a provider without daily hours (as the API counts)."""
MAX_DAY_HOURS = Fraction(24)
FIRST_DAY = date(1900, 1, 1)
LAST_DAY = date(2999, 12, 31)
"""The days the balances endpoint answers for."""

KIND_WORDS = {
    "accrual": "Accrued",
    "usage": "Used",
    "reversal": "Given back",
    "carry_over": "Carried over",
    "forfeit": "Forfeited",
    "expiry": "Expired",
    "reset": "Reset",
    "adjustment": "Adjustment",
}


def fraction(amount: Amount | str) -> Fraction:
    """The exact amount ("12.5", "-16", "208/3")."""
    return Fraction(amount.exact if isinstance(amount, Amount) else amount)


def amount_text(value: Fraction) -> str:
    """An exact amount as a number: `37.5`, `3`, `-0.25`; a fraction without a finite decimal
    reads rounded to 2 places with its exact value beside it: `69.33 (208/3)`."""
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    if denominator == 1:  # a finite decimal: write it exactly, without trailing zeros
        places = 0
        while (value * 10 ** places).denominator != 1:
            places += 1
        text = f"{value.numerator * 10 ** places // value.denominator:d}"
        if places:
            negative = text.startswith("-")
            digits = text.lstrip("-").rjust(places + 1, "0")
            text = ("-" if negative else "") + digits[:-places] + "." + digits[-places:]
        return text
    rounded = round(value, 2)
    return f"{float(rounded):.2f} ({value.numerator}/{value.denominator})"


def quantity(value: Fraction, unit: str) -> str:
    """`37.5 hours`, `1 hour`, `3 days`, `1 day`, `-2 days`."""
    word = unit.rstrip("s") if abs(value) == 1 else unit
    return f"{amount_text(value)} {word}"


def signed_quantity(value: Fraction, unit: str) -> str:
    """A change: `+8 hours`, or `-16 hours` written with a true minus sign (U+2212)."""
    text = quantity(abs(value), unit)
    return ("+" if value >= 0 else "\u2212") + text


@dataclass(frozen=True)
class LedgerLine:
    """One ledger entry in words, with the balance it left."""

    day: date
    kind: str  # in words
    change: str  # "+8 hours"
    after: str  # "40 hours"
    note: str | None  # a carry-over's amount carried, a reset's new balance


@dataclass(frozen=True)
class BalanceView:
    """A balance as the time-off page shows it."""

    policy_id: str
    name: str
    unit: str
    balance: str  # "37.5 hours"
    available: str | None  # shown when a floor or pending requests change it
    floor: str | None  # "may go down to -16 hours", when the balance may go negative
    pending: str | None  # what pending requests would use, when any
    limit: str | None  # the annual use limit and what is left of it, in words
    history: list[LedgerLine]
    more_history: bool
    raw: BalanceRead


def _ledger(entries: Sequence[LedgerEntryRead], total: Fraction, unit: str) -> list[LedgerLine]:
    """Entries newest first, each with the balance after it (walking back from `total`)."""
    lines: list[LedgerLine] = []
    after = total
    for e in entries:
        change = fraction(e.amount)
        note = None
        if e.target is not None and e.kind == "reset":
            note = f"balance set to {quantity(fraction(e.target), unit)}"
        elif e.target is not None and e.kind == "carry_over":
            note = f"{quantity(fraction(e.target), unit)} carried into the new year"
        lines.append(LedgerLine(e.effective_date, KIND_WORDS.get(e.kind, e.kind),
                                signed_quantity(change, unit), quantity(after, unit), note))
        after -= change
    return lines


def balance_views(read: BalancesRead) -> list[BalanceView]:
    """Each balance of `read` with its history."""
    views = []
    for b in read.balances:
        total, available, pending = fraction(b.balance), fraction(b.available), fraction(b.pending)
        shown_available = None
        if available != total or pending:  # a floor or pending requests change it
            shown_available = quantity(available - pending, b.unit) + " available"
        floor = fraction(b.floor)
        floor_note = (f"may go down to {quantity(floor, b.unit)}" if floor < 0 else None)
        limit = None
        if b.annual_use_limit is not None:
            cap, used = fraction(b.annual_use_limit), fraction(b.used_this_year)
            limit = (f"{quantity(used, b.unit)} of this year's {quantity(cap, b.unit)} used")
        mine = [e for e in read.entries if e.policy_id == b.policy_id]
        views.append(BalanceView(
            policy_id=str(b.policy_id), name=b.policy_name, unit=b.unit,
            balance=quantity(total, b.unit), available=shown_available, floor=floor_note,
            pending=quantity(pending, b.unit) if pending else None, limit=limit,
            history=_ledger(mine, total, b.unit), more_history=read.more_entries, raw=b))
    return views


# What a request costs, and whether the policy would let it be approved ------------------------


def _hours(span: timedelta) -> Fraction:
    """Hours of a span, rounded to 4 places as the API stores them."""
    return Fraction(repr(round(span / timedelta(hours=1), 4)))


def _local_days(start: datetime, end: datetime, zone: ZoneInfo) -> list[date]:
    if end <= start:
        return []
    first = start.astimezone(zone).date()
    last = (end - timedelta(microseconds=1)).astimezone(zone).date()
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def request_cost(start: datetime, end: datetime, *, zone: ZoneInfo, is_full_day: bool,
                 daily_hours: float | None, unit: str) -> Fraction:
    """What a request for `[start, end)` uses under a policy counted in `unit`."""
    full = Fraction(repr(daily_hours)) if daily_hours and daily_hours > 0 else FULL_DAY_HOURS
    cap = min(full, MAX_DAY_HOURS)
    days: list[Fraction] = []
    for day in _local_days(start, end, zone):
        if is_full_day:
            days.append(cap)
            continue
        day_start = datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)
        day_end = datetime.combine(day + timedelta(days=1), time(0),
                                   tzinfo=zone).astimezone(UTC)
        inside = min(end, day_end) - max(start, day_start)
        days.append(min(_hours(inside), cap) if inside > timedelta(0) else Fraction(0))
    if unit == "days":
        return Fraction(sum(1 for d in days if d > 0))
    return sum(days, Fraction(0))


@dataclass(frozen=True)
class Preview:
    """The chosen policy's balance before and after the request, and why not, if refused."""

    name: str
    before: str  # "40 hours"
    cost: str  # "24 hours"
    after: str  # "16 hours"
    refusal: str | None  # the reason in words, when the policy would not allow it
    warning: str | None  # pending requests would leave too little if all were approved


def preview(*, balance: BalanceRead, balance_all: BalanceRead | None, used: BalanceRead | None,
            cost: Fraction, leave_start: date, hire_date: date | None,
            waiting_period_days: int) -> Preview:
    """Before and after of a request costing `cost` under `balance`'s policy.

    `balance` is as of today (what the provider sees); `balance_all` counts every entry, also
    those dated later (what approval checks); `used` is as of the usage's day (its year's use).
    """
    unit = balance.unit
    before = fraction(balance.balance)
    held = fraction(balance_all.balance) if balance_all is not None else before
    floor = fraction(balance.floor)
    available = held - floor
    refusal = None
    if hire_date is not None and waiting_period_days > 0:
        eligible = hire_date + timedelta(days=waiting_period_days)
        if leave_start < eligible:
            refusal = (f"{balance.policy_name} can be used from {_day(eligible)}, "
                       f"{waiting_period_days} days after you started; this time off starts "
                       f"{_day(leave_start)}. Choose later days or another kind of time off.")
    limit_row = used or balance
    if refusal is None and limit_row.annual_use_limit is not None:
        cap, spent = fraction(limit_row.annual_use_limit), fraction(limit_row.used_this_year)
        if spent + cost > cap:
            left = max(cap - spent, Fraction(0))
            refusal = (f"This needs {quantity(cost, unit)}, but only {quantity(left, unit)} of "
                       f"the year's {quantity(cap, unit)} of {balance.policy_name} may still "
                       "be used.")
    if refusal is None and cost > available:
        refusal = (f"This needs {quantity(cost, unit)}, but your {balance.policy_name} balance "
                   f"has {quantity(max(available, Fraction(0)), unit)} available"
                   + (f" (it may go down to {quantity(floor, unit)})" if floor < 0 else "")
                   + ". Ask for fewer days, or choose another kind of time off.")
    warning = None
    pending = fraction(balance.pending)
    if refusal is None and pending and cost + pending > available:
        warning = (f"You also have requests waiting that use {quantity(pending, unit)}: your "
                   "manager can't approve all of them with this balance.")
    return Preview(balance.policy_name, quantity(before, unit), quantity(cost, unit),
                   quantity(before - cost, unit), refusal, warning)


def _day(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def local_day(moment: datetime | None, zone: ZoneInfo) -> date | None:
    """The site-local day of an instant (a hire date), or None."""
    return moment.astimezone(zone).date() if moment is not None else None


def in_range(*days: date) -> bool:
    """Whether every day is one the balances endpoint answers for."""
    return all(FIRST_DAY <= d <= LAST_DAY for d in days)


def find(read: BalancesRead | None, policy_id: Any) -> BalanceRead | None:
    """The balance of `policy_id` in `read`, if it keeps one."""
    if read is None:
        return None
    return next((b for b in read.balances if str(b.policy_id) == str(policy_id)), None)
