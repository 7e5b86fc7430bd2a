"""`short_seconds`: how much of each span its role is scheduled below demand, exactly, however
the forecast rows and the people's work cut the span."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from fractions import Fraction

from app.api.domain.coverage import Load, short_seconds
from app.api.domain.intervals import Interval

NURSE, TECH = uuid.uuid4(), uuid.uuid4()
T0 = datetime(2026, 6, 10, 11, 0, tzinfo=UTC)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def span(role: uuid.UUID, start: int, end: int) -> tuple[uuid.UUID, Interval[datetime]]:
    return role, Interval(at(start), at(end))


def test_short_time_is_cut_at_every_bound_of_demand_and_staff() -> None:
    # 1.5 nurses wanted 0-90; one nurse 0-200, another 45-60: short 0-45 and 60-90.
    demand = [Load(NURSE, at(0), at(90), Fraction(3, 2))]
    staff = [Load(NURSE, at(0), at(200)), Load(NURSE, at(45), at(60))]
    found = short_seconds([span(NURSE, 0, 120), span(NURSE, 30, 50), span(TECH, 0, 120)],
                          demand=demand, scheduled=staff)
    assert found == [75 * 60, 15 * 60, 0]


def test_met_demand_and_no_spans_need_nothing() -> None:
    demand = [Load(NURSE, at(0), at(60), Fraction(2))]
    staff = [Load(NURSE, at(0), at(60)), Load(NURSE, at(-30), at(90))]
    assert short_seconds([span(NURSE, 0, 60)], demand=demand, scheduled=staff) == [0]
    assert short_seconds([], demand=demand, scheduled=staff) == []
