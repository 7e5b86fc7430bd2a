"""The ready-made work rule presets: US federal, US hospital 8-and-80, California.

Pure data with the law each follows; `app.api.services.work_rules` turns a preset into overtime
rules and a work rule. No SQL, no Flask. Multipliers are exact (`Fraction`), thresholds minutes.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

OVERTIME = Fraction(3, 2)
DOUBLE_TIME = Fraction(2)


@dataclass(frozen=True)
class PresetOvertime:
    """One overtime rule of a preset; `kind` as the database spells it."""

    name: str
    kind: str
    threshold_minutes: int
    multiplier: Fraction


@dataclass(frozen=True)
class Preset:
    """A named set of overtime rules and the source it follows."""

    id: str
    name: str
    description: str
    overtime: tuple[PresetOvertime, ...]
    requires_period_anchor: bool = False


PRESETS: dict[str, Preset] = {p.id: p for p in (
    Preset(
        id="us-federal",
        name="US federal (FLSA)",
        description="Hours worked over 40 in a fixed, recurring workweek of 168 hours are paid "
                    "at one and a half times the regular rate; days are never averaged. "
                    "Source: Fair Labor Standards Act section 7(a), 29 CFR 778.105 and "
                    "778.107.",
        overtime=(PresetOvertime("Weekly overtime over 40 hours", "weekly", 40 * 60, OVERTIME),),
    ),
    Preset(
        id="us-hospital-8-80",
        name="US hospital 8 and 80",
        description="Hospitals and residential care may agree a fixed 14-day period instead of "
                    "the workweek: hours over 8 in a workday and over 80 in the period are "
                    "paid at one and a half times the regular rate, each hour once. Needs the "
                    "period's anchor date. Source: FLSA section 7(j), 29 CFR 778.601 and "
                    "Department of Labor Fact Sheet #54.",
        overtime=(
            PresetOvertime("Daily overtime over 8 hours", "daily", 8 * 60, OVERTIME),
            PresetOvertime("Period overtime over 80 hours", "period", 80 * 60, OVERTIME),
        ),
        requires_period_anchor=True,
    ),
    Preset(
        id="california",
        name="California",
        description="Over 8 hours in a workday and over 40 in a workweek at one and a half "
                    "times the regular rate; over 12 hours in a workday at double the rate; on "
                    "the seventh consecutive day worked in a workweek the first 8 hours at one "
                    "and a half times and beyond 8 hours at double. Source: California Labor "
                    "Code section 510(a).",
        overtime=(
            PresetOvertime("Daily overtime over 8 hours", "daily", 8 * 60, OVERTIME),
            PresetOvertime("Daily double time over 12 hours", "daily", 12 * 60, DOUBLE_TIME),
            PresetOvertime("Seventh day, first 8 hours", "seventh_day", 0, OVERTIME),
            PresetOvertime("Seventh day double time over 8 hours", "seventh_day", 8 * 60,
                           DOUBLE_TIME),
            PresetOvertime("Weekly overtime over 40 hours", "weekly", 40 * 60, OVERTIME),
        ),
    ),
)}
"""Every preset by id."""
