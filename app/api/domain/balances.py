"""Time-off balances: accrual settings, the ledger's arithmetic, what an accrual run appends and
whether a request may be debited.

Exact throughout: every amount is a `fractions.Fraction` in the policy's unit (`hours` or
`days`); nothing is rounded, so 2,080 hours worked at 1 hour per 30 accrue exactly 69 1/3 hours.
On the wire an amount is a string (`format_amount`): a decimal when the fraction has a finite
decimal expansion ("12.5", "-16"), else the fraction in lowest terms ("208/3"); a `value` number
rounded to 4 places rides along for display only.

The ledger is append-only. A provider's balance in a policy as of a day is the sum of the
entries dated on or before it (`balance`). A `reset` entry stores the difference that brings the
balance to its target on its date, so the sum stays the balance.

Accrual (`accrue`), walked day by day from the settings' `start_date` up to the run's
`through` day:
- Periods: `pay_period` (14 days from `period_anchor`), `monthly` (from the 1st), `yearly` (from
  the carry-over date). A period `[start, end)` accrues on its `end` day, once it has ended:
  `per_period` grants `rate` units; `per_hour_worked` grants `rate` times the hours worked in the
  period (worked seconds are exact). A `per_period` accrual is due only for a period that begins
  on or after the hire date (no proration). `up_front` grants `rate` on each year's start (the
  carry-over date).
- The accrual year runs from the carry-over date (month-day, default 1 January) to the next.
  On that day, before that day's accrual, a positive balance above `carry_over_max` is forfeited:
  a `carry_over` entry (amount 0) records what remained up to the max (its `target`), and a
  `forfeit` entry takes the excess away. Without a `carry_over_max` nothing is forfeited.
- Caps: an accrual is cut so the balance after it is at most `balance_cap` (never negative:
  a balance already above the cap accrues nothing), and so the year's accruals stay within
  `annual_accrual_cap`. An accrual cut to zero is still written (amount 0), so a re-run does
  not reconsider it.
- Every entry has a source key (`accrual:<policy>:<provider>:<period start>` …); entries whose
  key the ledger already holds are skipped, so running an accrual again appends nothing.
- Waiting period: accrual counts from hire; usage is refused before
  hire + `waiting_period_days` (`usage_refusal`).

Usage (`usage_refusal`): a request needs `needed` units; the available amount is the balance
minus the floor (0, or `negative_floor` when `allow_negative`). Refused, first reason first:
inside the waiting period, over the annual use limit, beyond the available amount.

Pure code: no Flask, no SQL, no clock.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Literal

Method = Literal["per_hour_worked", "per_period", "up_front"]
Period = Literal["pay_period", "monthly", "yearly"]
DebitOn = Literal["approval", "leave_date"]
Kind = Literal["accrual", "usage", "reversal", "carry_over", "forfeit", "expiry", "reset",
               "adjustment"]

METHODS: tuple[str, ...] = ("per_hour_worked", "per_period", "up_front")
PERIODS: tuple[str, ...] = ("pay_period", "monthly", "yearly")
DEBIT_ON: tuple[str, ...] = ("approval", "leave_date")
KINDS: tuple[str, ...] = ("accrual", "usage", "reversal", "carry_over", "forfeit", "expiry",
                          "reset", "adjustment")

PAY_PERIOD_DAYS = 14
MAX_MAGNITUDE = Fraction(10**6)
"""The largest amount (in either sign) a setting or an uploaded balance may name."""
MAX_DENOMINATOR = 10**6
"""The largest denominator a rate or amount written as a fraction may have."""


@dataclass(frozen=True)
class AccrualSettings:
    """How a policy accrues and what it lets a provider use (see the module docstring)."""

    method: Method
    rate: Fraction
    start_date: date
    period: Period = "pay_period"
    period_anchor: date | None = None
    balance_cap: Fraction | None = None
    annual_accrual_cap: Fraction | None = None
    annual_use_limit: Fraction | None = None
    carry_over_max: Fraction | None = None
    carry_over_month: int = 1
    carry_over_day: int = 1
    waiting_period_days: int = 0
    allow_negative: bool = False
    negative_floor: Fraction = Fraction(0)
    debit_on: DebitOn = "approval"

    @property
    def floor(self) -> Fraction:
        """The lowest the balance may go after a usage."""
        return self.negative_floor if self.allow_negative else Fraction(0)


@dataclass(frozen=True)
class Entry:
    """One ledger entry: what happened, from which day, by how much (and a reset's target)."""

    kind: str
    effective_date: date
    amount: Fraction
    source_key: str
    target: Fraction | None = None


@dataclass(frozen=True)
class Refusal:
    """Why a usage may not be debited, in words and figures."""

    code: Literal["waiting-period", "annual-use-limit-reached", "insufficient-balance"]
    detail: str
    needed: Fraction
    available: Fraction | None = None


# Amounts ----------------------------------------------------------------------------------------


def parse_amount(text: str) -> Fraction:
    """Read an exact amount: a decimal ("12.5", "-16") or a fraction ("1/30").

    Raises ValueError with a message staff can act on: not a number, a zero denominator, a
    denominator above `MAX_DENOMINATOR`, or a magnitude above `MAX_MAGNITUDE`.
    """
    text = text.strip()
    if not text or len(text) > 40:
        raise ValueError("give a number such as 8, 12.5 or 1/30")
    if "/" in text:
        top, _, bottom = text.partition("/")
        try:
            numerator, denominator = int(top.strip()), int(bottom.strip())
        except ValueError:
            raise ValueError(f"{text!r} is not a fraction such as 1/30") from None
        if denominator <= 0:
            raise ValueError("the denominator must be a positive whole number")
        if denominator > MAX_DENOMINATOR:
            raise ValueError(f"the denominator may be at most {MAX_DENOMINATOR}")
        value = Fraction(numerator, denominator)
    else:
        try:
            decimal = Decimal(text)
        except InvalidOperation:
            raise ValueError(f"{text!r} is not a number such as 8 or 12.5") from None
        if not decimal.is_finite():
            raise ValueError(f"{text!r} is not a finite number")
        if decimal.as_tuple().exponent < -6:  # type: ignore[operator]  # finite: an int
            raise ValueError("give at most 6 decimal places")
        if decimal.adjusted() > 6:  # before converting: "1e999999999" would take forever
            raise ValueError(f"must lie between -{MAX_MAGNITUDE} and {MAX_MAGNITUDE}")
        value = Fraction(decimal)
    if abs(value) > MAX_MAGNITUDE:
        raise ValueError(f"must lie between -{MAX_MAGNITUDE} and {MAX_MAGNITUDE}")
    return value


def _finite_decimal(value: Fraction) -> bool:
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


def format_amount(value: Fraction) -> str:
    """Write an amount exactly: a plain decimal when it has one ("12.5"), else "n/d"."""
    if value.denominator == 1:
        return str(value.numerator)
    if _finite_decimal(value):
        text = format(Decimal(value.numerator) / Decimal(value.denominator), "f")
        return text.rstrip("0").rstrip(".") if "." in text else text
    return f"{value.numerator}/{value.denominator}"


def display_value(value: Fraction) -> float:
    """The amount rounded to 4 places, for display only (never computed with)."""
    return float(round(value, 4))


# Calendar ---------------------------------------------------------------------------------------


def _month_day(year: int, month: int, day: int) -> date:
    """That month-day in `year`; 29 February falls on the 28th in other years."""
    return date(year, month, min(day, calendar.monthrange(year, month)[1]))


def year_start(settings: AccrualSettings, day: date) -> date:
    """The first day of the accrual year `day` lies in (the carry-over date on or before it)."""
    start = _month_day(day.year, settings.carry_over_month, settings.carry_over_day)
    if start > day:
        start = _month_day(day.year - 1, settings.carry_over_month, settings.carry_over_day)
    return start


def _next_year_start(settings: AccrualSettings, start: date) -> date:
    return _month_day(start.year + 1, settings.carry_over_month, settings.carry_over_day)


def periods(settings: AccrualSettings, through: date) -> list[tuple[date, date]]:
    """The accrual periods `[start, end)` that begin on or after the settings' start date and
    have ended by `through` (their `end` on or before it), in order."""
    result: list[tuple[date, date]] = []
    first = settings.start_date
    if settings.period == "pay_period":
        anchor = settings.period_anchor or first
        offset = (first - anchor).days % PAY_PERIOD_DAYS
        start = first if offset == 0 else first + timedelta(days=PAY_PERIOD_DAYS - offset)
        step = timedelta(days=PAY_PERIOD_DAYS)
        while start + step <= through:
            result.append((start, start + step))
            start += step
    elif settings.period == "monthly":
        year, month = first.year, first.month
        if first.day != 1:
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        while True:
            start = date(year, month, 1)
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
            if year > 9999 or date(year, month, 1) > through:
                break
            result.append((start, date(year, month, 1)))
    else:
        start = year_start(settings, first)
        if start < first:
            start = _next_year_start(settings, start)
        while start.year < 9999 and _next_year_start(settings, start) <= through:
            end = _next_year_start(settings, start)
            result.append((start, end))
            start = end
    return result


def year_starts(settings: AccrualSettings, through: date) -> list[date]:
    """Every accrual year's first day after the settings' start date, up to `through`."""
    days: list[date] = []
    day = year_start(settings, settings.start_date)
    if day <= settings.start_date:
        day = _next_year_start(settings, day) if day.year < 9999 else day
    while settings.start_date < day <= through:
        days.append(day)
        if day.year >= 9998:
            break
        day = _next_year_start(settings, day)
    return days


# The ledger -------------------------------------------------------------------------------------


def balance(entries: Iterable[Entry], as_of: date | None = None) -> Fraction:
    """The sum of the entries dated on or before `as_of` (all of them when None)."""
    return sum((e.amount for e in entries if as_of is None or e.effective_date <= as_of),
               Fraction(0))


def accrual_key(policy: str, provider: str, start: date) -> str:
    """The source key of the accrual of the period (or year) beginning `start`."""
    return f"accrual:{policy}:{provider}:{start.isoformat()}"


def _carry_keys(policy: str, provider: str, day: date) -> tuple[str, str]:
    stem = f"{policy}:{provider}:{day.isoformat()}"
    return f"carry_over:{stem}", f"forfeit:{stem}"


def worked_hours(worked_seconds: Mapping[date, int], start: date, end: date) -> Fraction:
    """Exact hours worked on the days `[start, end)`."""
    return Fraction(sum(s for d, s in worked_seconds.items() if start <= d < end), 3600)


def _events(settings: AccrualSettings, through: date) -> list[tuple[date, int, date]]:
    """The accrual run's events up to `through`: (day, 0 carry-over | 1 accrual, period
    start), carry-over first on a day."""
    events: list[tuple[date, int, date]] = []
    if settings.carry_over_max is not None:
        events.extend((day, 0, day) for day in year_starts(settings, through))
    if settings.method == "up_front":
        grants = [settings.start_date, *year_starts(settings, through)]
        events.extend((day, 1, day) for day in grants if day <= through)
    else:
        events.extend((end, 1, start) for start, end in periods(settings, through))
    events.sort()
    return events


def due_keys(settings: AccrualSettings, *, policy: str, provider: str, through: date
             ) -> set[str]:
    """The source keys of every carry-over and accrual due up to `through`: a provider whose
    ledger holds them all has nothing to accrue."""
    return {_carry_keys(policy, provider, day)[0] if order == 0
            else accrual_key(policy, provider, start)
            for day, order, start in _events(settings, through)}


def accrue(settings: AccrualSettings, *, policy: str, provider: str, hire_date: date | None,
           ledger: Sequence[Entry], through: date,
           worked_seconds: Mapping[date, int] | None = None) -> list[Entry]:
    """Return the entries an accrual run up to `through` appends (see the module docstring).

    `ledger` is the provider's whole ledger in the policy; `worked_seconds` the seconds worked
    per local day (read only by `per_hour_worked`). The result is in date order, carry-over and
    forfeit before the same day's accrual.
    """
    known = {e.source_key for e in ledger}
    events = _events(settings, through)
    if all((_carry_keys(policy, provider, day)[0] if order == 0
            else accrual_key(policy, provider, start)) in known
           for day, order, start in events):
        return []  # everything due is posted: a re-run costs no arithmetic
    existing = sorted(ledger, key=lambda e: e.effective_date)
    accrued_by_year: dict[date, Fraction] = {}
    for entry in existing:
        if entry.kind == "accrual":
            year = year_start(settings, entry.effective_date)
            accrued_by_year[year] = accrued_by_year.get(year, Fraction(0)) + entry.amount
    added: list[Entry] = []
    running = Fraction(0)  # existing entries taken so far, plus every added one
    taken = 0

    def take(until: date, *, inclusive: bool) -> None:
        nonlocal running, taken
        while taken < len(existing) and (existing[taken].effective_date < until or (
                inclusive and existing[taken].effective_date == until)):
            running += existing[taken].amount
            taken += 1

    for day, order, start in events:
        if order == 0:
            take(day, inclusive=False)
            carry_key, forfeit_key = _carry_keys(policy, provider, day)
            if carry_key in known:
                continue
            maximum = settings.carry_over_max or Fraction(0)
            excess = running - maximum if running > maximum else Fraction(0)
            kept = running - excess
            added.append(Entry("carry_over", day, Fraction(0), carry_key, target=kept))
            if excess:
                added.append(Entry("forfeit", day, -excess, forfeit_key))
                running -= excess
            continue
        take(day, inclusive=True)
        key = accrual_key(policy, provider, start)
        if key in known:
            continue
        if settings.method == "per_hour_worked":
            amount = settings.rate * worked_hours(worked_seconds or {}, start, day)
        elif hire_date is not None and (start if settings.method == "per_period"
                                        else day) < hire_date:
            amount = Fraction(0)
        else:
            amount = settings.rate
        amount = max(amount, Fraction(0))
        if settings.balance_cap is not None:
            amount = min(amount, max(settings.balance_cap - running, Fraction(0)))
        year = year_start(settings, day)
        if settings.annual_accrual_cap is not None:
            so_far = accrued_by_year.get(year, Fraction(0))
            amount = min(amount, max(settings.annual_accrual_cap - so_far, Fraction(0)))
        accrued_by_year[year] = accrued_by_year.get(year, Fraction(0)) + amount
        added.append(Entry("accrual", day, amount, key))
        running += amount
    return added


# Usage ------------------------------------------------------------------------------------------


def used_in_year(settings: AccrualSettings, entries: Iterable[Entry], day: date) -> Fraction:
    """The units used (usage less reversals) in the accrual year of `day`."""
    year = year_start(settings, day)
    return -sum((e.amount for e in entries
                 if e.kind in ("usage", "reversal") and year_start(settings, e.effective_date)
                 == year), Fraction(0))


def usage_refusal(settings: AccrualSettings, *, entries: Sequence[Entry], needed: Fraction,
                  usage_date: date, leave_start: date, hire_date: date | None,
                  unit: str) -> Refusal | None:
    """Return why a usage of `needed` units dated `usage_date` may not be debited, or None.

    The balance checked is the sum of every entry, whatever its date (a future-dated usage
    still holds its units). `leave_start` is the leave's first day (the waiting period).
    """
    if hire_date is not None and settings.waiting_period_days > 0:
        eligible = hire_date + timedelta(days=settings.waiting_period_days)
        if leave_start < eligible:
            return Refusal("waiting-period",
                           f"Time off under this policy can be taken from "
                           f"{eligible.isoformat()}, {settings.waiting_period_days} days after "
                           f"hire; this leave starts {leave_start.isoformat()}.", needed)
    if settings.annual_use_limit is not None:
        used = used_in_year(settings, entries, usage_date)
        if used + needed > settings.annual_use_limit:
            left = max(settings.annual_use_limit - used, Fraction(0))
            return Refusal("annual-use-limit-reached",
                           f"needs {format_amount(needed)} {unit}, but only {format_amount(left)} "
                           f"of the year's {format_amount(settings.annual_use_limit)} {unit} "
                           "may still be used.", needed, left)
    available = balance(entries) - settings.floor
    if needed > available:
        return Refusal("insufficient-balance",
                       f"needs {format_amount(needed)} {unit}, "
                       f"{format_amount(max(available, Fraction(0)))} available.",
                       needed, available)
    return None
