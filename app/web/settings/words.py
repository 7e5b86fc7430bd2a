"""Settings in words for the settings pages: pay code values, employment types, time-off
policies' accrual and a team's swap approval. Pure functions; no Flask, no API calls.
"""

from __future__ import annotations

from app.contract.balances import AccrualSettingsRead
from app.contract.employment_types import EmploymentTypeRead
from app.contract.pay_codes import PayCodeRead

_PERIODS = {"pay_period": "pay period", "monthly": "month", "yearly": "year"}
_KINDS = {"contractor": "Contractor", "employee": "Employee"}
_PAY = {"hourly": "paid by the hour", "salaried": "salaried"}
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_AMOUNT = {"part_time": "part time", "full_time": "full time", "temporary": "temporary"}


def _number(text: str | float) -> str:
    try:
        return f"{float(text):g}"
    except ValueError:
        return str(text)  # an exact fraction such as "1/30" reads as it is


def _units(amount: str | float, unit: str) -> str:
    number = _number(amount)
    return f"{number} {unit[:-1] if number == '1' else unit}"


def pay_code_value(code: PayCodeRead) -> str:
    """What a pay code pays: times 1.5 per hour, "1 day", "$25.00"."""
    if code.type == "money":
        return f"${code.value:,.2f}"
    if code.type == "days":
        return _units(code.value, "days")
    return f"\u00d7{_number(code.value)} per hour"


def employment_type(kind: EmploymentTypeRead) -> str:
    """"Employee, paid by the hour, full time"."""
    return (f"{_KINDS.get(kind.type, kind.type)}, "
            f"{_PAY.get(kind.compensation_time_period, kind.compensation_time_period)}, "
            f"{_AMOUNT.get(kind.amount_worked, kind.amount_worked)}")


def accrual(settings: AccrualSettingsRead | None) -> list[str]:
    """A policy's accrual as sentences; empty when the policy keeps no balance."""
    if settings is None:
        return []
    unit = settings.unit
    period = _PERIODS.get(settings.period, settings.period)
    if settings.method == "per_hour_worked":
        earn = f"Earns {_units(settings.rate, unit)} per hour worked, counted each {period}"
    elif settings.method == "per_period":
        earn = f"Earns {_units(settings.rate, unit)} each {period}"
    else:
        earn = f"Grants {_units(settings.rate, unit)} up front, and again each year"
    lines = [f"{earn}, from {settings.start_date:%-d %B %Y}."]
    if settings.waiting_period_days:
        lines.append(f"Usable after a waiting period of {settings.waiting_period_days} days.")
    if settings.balance_cap is not None:
        lines.append(f"The balance stops growing at {_units(settings.balance_cap, unit)}.")
    if settings.annual_accrual_cap is not None:
        lines.append(f"Earns at most {_units(settings.annual_accrual_cap, unit)} a year.")
    if settings.annual_use_limit is not None:
        lines.append(f"At most {_units(settings.annual_use_limit, unit)} may be used a year.")
    month, day = (int(p) for p in settings.carry_over_date.split("-"))
    year_start = f"{day} {_MONTHS[month - 1]}"
    if settings.carry_over_max is not None:
        lines.append(f"On {year_start} a balance above {_units(settings.carry_over_max, unit)} "
                     "is forfeited.")
    else:
        lines.append(f"The year starts on {year_start}; the whole balance carries over.")
    floor = _number(settings.negative_floor)
    if settings.allow_negative and floor != "0":
        lines.append(f"The balance may go below zero, down to {floor} {unit}.")
    else:
        lines.append("The balance may not go below zero.")
    lines.append("Time off is taken from the balance on the day it is approved."
                 if settings.debit_on == "approval"
                 else "Time off is taken from the balance as of its first day.")
    return lines


def swap_setting(need_approval: bool) -> str:
    """What happens to a team's shift swap once its lister accepts an offer."""
    if need_approval:
        return "Wait for a manager's approval"
    return "Hand over when accepted, without a manager"


def swap_setting_changed(team: str, need_approval: bool) -> str:
    """The message after the administrator set `team`'s swap approval."""
    if need_approval:
        return f"{team}: accepted shift swaps now wait for a manager's approval."
    return f"{team}: accepted shift swaps now hand the shifts over at once, without a manager."
