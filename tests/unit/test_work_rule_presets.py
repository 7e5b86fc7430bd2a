"""The work rule presets: each says what the law it cites says, in exact figures.

Sources: FLSA section 7(a) and 29 CFR 778.105/778.107 (over 40 hours in a fixed workweek at
one and a half times); FLSA section 7(j), 29 CFR 778.601 and Fact Sheet #54 (hospitals: over 8
in a workday and over 80 in a fixed 14-day period); California Labor Code section 510(a) (over
8 a day and 40 a week at 1.5, over 12 a day at 2, the seventh consecutive day: first 8 hours at
1.5, beyond 8 at 2).
"""

from __future__ import annotations

from fractions import Fraction

from app.api.domain.work_rule_presets import PRESETS


def _rules(preset: str) -> list[tuple[str, int, Fraction]]:
    return [(o.kind, o.threshold_minutes, o.multiplier) for o in PRESETS[preset].overtime]


def test_us_federal_pays_over_40_hours_a_week_at_time_and_a_half():
    assert _rules("us-federal") == [("weekly", 2400, Fraction(3, 2))]
    assert "778.105" in PRESETS["us-federal"].description
    assert "778.107" in PRESETS["us-federal"].description
    assert not PRESETS["us-federal"].requires_period_anchor


def test_hospital_8_and_80_needs_a_period_anchor():
    assert _rules("us-hospital-8-80") == [("daily", 480, Fraction(3, 2)),
                                          ("period", 4800, Fraction(3, 2))]
    preset = PRESETS["us-hospital-8-80"]
    assert preset.requires_period_anchor
    assert "778.601" in preset.description
    assert "Fact Sheet #54" in preset.description


def test_california_daily_double_time_seventh_day_and_weekly():
    assert _rules("california") == [
        ("daily", 480, Fraction(3, 2)), ("daily", 720, Fraction(2)),
        ("seventh_day", 0, Fraction(3, 2)), ("seventh_day", 480, Fraction(2)),
        ("weekly", 2400, Fraction(3, 2))]
    assert "Labor Code section 510" in PRESETS["california"].description


def test_every_preset_threshold_fits_its_kind():
    limits = {"daily": 1440, "seventh_day": 1440, "weekly": 10080, "period": 20160}
    for preset in PRESETS.values():
        assert preset.overtime
        for rule in preset.overtime:
            assert 0 <= rule.threshold_minutes <= limits[rule.kind], (preset.id, rule)
            assert rule.multiplier in (Fraction(3, 2), Fraction(2))
