"""The demo's demand forecast: for every team's roles, one row per hour of the whole six weeks,
shaped like a hospital's day and week and sized against the demo's own staffing.

The shape: low at night, a morning ramp, a peak in the late morning and early afternoon, an
evening taper; Monday busiest, the weekend quietest (a clinic is open on weekdays, 8 AM to
5 PM, and needs nobody otherwise). The size: a role's scheduled staff-hours over the six weeks,
spread over its open hours by that shape and rounded to whole staff (at least one of every role
in the busy hours). The schedule is flat (12-hour
days and nights, 8-hour clinic days), so the week shows hours short of staff around the peak
and hours over at night and at the weekend, as a newcomer's first look should.

Hours are laid in elapsed time from each local midnight, as the coverage grid lays them: the day
the clocks go forward has 23 rows per role, the day they go back 25. No random draws: the rows
follow from the planned shifts alone. Must not change the plans.
"""

from __future__ import annotations

import uuid
from collections import Counter
from datetime import timedelta

from app.api import models as m
from app.api.demo.bulk import Row
from app.api.demo.schedule import SEGMENTS
from app.api.demo.state import FIRST_DAY, LAST_DAY, Demo, Team, demo_id

HOURLY: list[float] = [
    0.55, 0.5, 0.5, 0.5, 0.55, 0.6,  # midnight to 6 AM: the quiet night
    0.7, 0.85, 1.0, 1.15, 1.3, 1.35,  # the morning ramp to the late-morning peak
    1.3, 1.3, 1.25, 1.2, 1.1, 1.0,  # the afternoon
    0.95, 0.9, 0.8, 0.7, 0.65, 0.6,  # the evening taper
]
"""Acute teams' demand by local hour, relative to the day's mean (about 1)."""
CLINIC_HOURLY: dict[int, float] = {8: 0.8, 9: 1.1, 10: 1.3, 11: 1.25, 12: 0.85, 13: 1.0,
                                   14: 1.2, 15: 1.05, 16: 0.75}
"""A clinic's demand by local hour while it is open (8 AM to 5 PM), relative to its mean."""
WEEKLY: list[float] = [1.2, 1.05, 1.0, 1.0, 0.95, 0.75, 0.7]
"""Demand by weekday (Monday first), relative to the week's mean (about 1)."""
HOUR = timedelta(hours=1)


def _shape(team: Team, weekday: int, hour: int) -> float:
    """The relative demand of `team` in local `hour` of a day of `weekday` (0: closed)."""
    if team.kind == "clinic":
        return 0.0 if weekday >= 5 else CLINIC_HOURLY.get(hour, 0.0) * WEEKLY[weekday]
    return HOURLY[hour] * WEEKLY[weekday]


def _staff_hours(demo: Demo) -> Counter[uuid.UUID]:
    """Each role's planned working staff-hours over the six weeks (callouts excluded)."""
    working = {kind: sum(end - start for start, end, what in template if what == "working")
               for kind, template in SEGMENTS.items()}
    minutes: Counter[uuid.UUID] = Counter()
    for plan in demo.plans:
        if plan.person is not None and not plan.deleted and not plan.callout:
            minutes[plan.role_id] += working[plan.kind]
    return Counter({role: total / 60 for role, total in minutes.items()})


def _hours(demo: Demo) -> list[tuple[int, int, int, timedelta]]:
    """Every elapsed hour of the six weeks: (day offset, weekday, local hour, from the day's
    local midnight)."""
    found = []
    for day in range(FIRST_DAY, LAST_DAY + 1):
        date = demo.today + timedelta(days=day)
        midnight = demo.local_midnight(date)
        length = demo.local_midnight(date + timedelta(days=1)) - midnight
        for n in range(length // HOUR):
            offset = n * HOUR
            hour = (midnight + offset).astimezone(demo.zone).hour
            found.append((day, date.weekday(), hour, offset))
    return found


def write_forecast(demo: Demo) -> None:
    """Hourly demand rows for every role of every team (hours needing nobody have none)."""
    admin = demo.staff["admin@example.com"]
    created = demo.at(FIRST_DAY - 1, 9 * 60)
    extra = {"source": "census model", "confidence": 0.8}
    planned = _staff_hours(demo)
    hours = _hours(demo)
    midnights = {day: demo.local_midnight(demo.today + timedelta(days=day))
                 for day in range(FIRST_DAY, LAST_DAY + 1)}
    forecast: list[Row] = []
    for team in demo.teams:
        shape = [_shape(team, weekday, hour) for _day, weekday, hour, _offset in hours]
        open_weight = sum(shape)
        for kind, role_id in team.roles.items():
            level = planned[role_id] / open_weight if open_weight else 0.0
            for (day, _weekday, _hour, offset), weight in zip(hours, shape, strict=True):
                # Whole staff, halves up; a busy hour needs one of every role, however few
                # the team has of it (a charge nurse, a respiratory therapist).
                demand = max(int(level * weight + 0.5), int(weight >= 1))
                if not demand:
                    continue
                start = midnights[day] + offset
                forecast.append({
                    "id": demo_id(f"demand:{team.key}:{kind}:{day}:{offset // HOUR}"),
                    "role_id": role_id, "start_date": start,
                    "end_date": start + HOUR, "demand": float(demand),
                    "extra": extra, "created_at": created, "uploaded_by_id": admin,
                })
    demo.insert(m.DemandForecastRow, forecast, "forecast")
