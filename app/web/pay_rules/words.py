"""Pay rules in the words a payroll manager reads: "Over 40 hours a week, paid as Overtime x1.5",
"Rounded to the nearest 15 minutes", "Workweek starts Sunday at midnight".

Only names what the API stored; the API decides what a rule pays. Must not call the API.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from app.contract.pay_codes import PayCodeRead
from app.contract.work_rules import WorkRuleVersionRead
from app.web.filters import format_minutes
from app.web.overtime import INTERVAL_WORDS

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
"""The contract's weekdays, 0 Monday … 6 Sunday."""
MODE_WORDS = {"nearest": "Rounded to the nearest", "down": "Rounded down to the previous",
              "up": "Rounded up to the next"}


def multiplier_words(value: str | float | None) -> str | None:
    """A multiplier as people write it: "1.5", "2"."""
    if value is None:
        return None
    try:
        return format(Decimal(str(value)).normalize(), "f")
    except InvalidOperation:
        return None


def hours_words(minutes: int) -> str:
    """A threshold: "40 hours", "1 hour", else the page's duration style ("7h 30m")."""
    if minutes % 60:
        return format_minutes(minutes)
    hours = minutes // 60
    return f"{hours} hour" if hours == 1 else f"{hours} hours"


def clock_words(text: str) -> str:
    """A local "HH:MM" on the app's clock: "midnight", "7:00 AM"."""
    try:
        hour, minute = (int(part) for part in text.split(":"))
    except ValueError:
        return text
    if (hour, minute) == (0, 0):
        return "midnight"
    return f"{hour % 12 or 12}:{minute:02d} {'AM' if hour < 12 else 'PM'}"


def threshold_words(kind: str, minutes: int) -> str:
    """When an overtime rule starts paying: "Over 8 hours a day"."""
    amount = hours_words(minutes)
    if kind == "daily":
        return f"Over {amount} a day"
    if kind == "weekly":
        return f"Over {amount} a week"
    if kind == "period":
        return f"Over {amount} in a 14-day period"
    if minutes == 0:
        return "Every hour of the seventh consecutive day worked in a workweek"
    return f"Over {amount} on the seventh consecutive day worked in a workweek"


def overtime_words(kind: str, minutes: int, multiplier: str | None,
                   pay_code: PayCodeRead | None) -> str:
    """"Over 40 hours a week, paid as Overtime x1.5"."""
    times = multiplier_words(multiplier)
    name = pay_code.name if pay_code is not None else (
        "Double time" if times is not None and Decimal(times) >= 2 else "Overtime")
    paid = f"{name} \u00d7{times}" if times else name
    return f"{threshold_words(kind, minutes)}, paid as {paid}"


def rounding_words(interval: int | None, mode: str | None) -> str:
    """"Rounded to the nearest 15 minutes"; "Not rounded" without a rule."""
    if interval is None or mode is None:
        return "Not rounded: clock-ins and clock-outs are paid to the minute"
    unit = "hour" if interval == 60 else f"{interval} minutes"
    named = INTERVAL_WORDS.get(interval)
    also = f" ({named})" if named and interval not in (60,) else ""
    return f"{MODE_WORDS.get(mode, 'Rounded to')} {unit}{also}"


def meal_words(deduct: int | None, after: int | None) -> str:
    """The meal rule: "A 30m meal is deducted after 6h worked without a punched meal"."""
    if deduct and after is not None:
        return (f"A {format_minutes(deduct)} meal is deducted after {format_minutes(after)} "
                f"worked without a punched meal")
    return "Meals are punched; nothing is deducted"


def break_words(minutes: int) -> str:
    """The shortest unpaid break: "Breaks shorter than 30m are paid"."""
    if minutes <= 0:
        return "Every punched break is unpaid"
    return f"Breaks shorter than {format_minutes(minutes)} are paid"


@dataclass(frozen=True)
class RuleFacts:
    """One work rule version in words, line by line."""

    time_zone: str
    workweek: str
    workday: str
    period: str | None
    overtime: list[str]
    rounding: str
    meals: str
    breaks: str


def facts(version: WorkRuleVersionRead, pay_codes: Mapping[str, PayCodeRead],
          day_words: object = None) -> RuleFacts:
    """`version` in words (`day_words`, a function, writes the period anchor's date)."""
    write = day_words if callable(day_words) else (lambda d: d.isoformat())
    rounding = version.rounding
    anchor: date | None = version.period_anchor
    return RuleFacts(
        time_zone=version.time_zone,
        workweek=(f"Workweek starts {WEEKDAYS[version.week_start_day]} at "
                  f"{clock_words(version.week_start_time)}"),
        workday=f"Workdays start at {clock_words(version.day_start_time)}",
        period=f"14-day periods counted from {write(anchor)}" if anchor else None,
        overtime=[overtime_words(o.kind, o.threshold_minutes, o.multiplier,
                                 pay_codes.get(str(o.pay_code_id)))
                  for o in version.overtime] or ["No overtime: every minute is regular time"],
        rounding=rounding_words(rounding.interval_minutes if rounding else None,
                                rounding.mode if rounding else None),
        meals=meal_words(version.meal_deduct_minutes, version.meal_after_minutes),
        breaks=break_words(version.min_unpaid_break_minutes),
    )
