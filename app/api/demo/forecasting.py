"""The demo's demand forecast: per team, role and day (or night) block, for the whole six
weeks, close to what is scheduled.
"""

from __future__ import annotations

import uuid
from collections import Counter

from app.api import models as m
from app.api.demo.schedule import SEGMENTS
from app.api.demo.state import FIRST_DAY, LAST_DAY, Demo, demo_id


def write_forecast(demo: Demo) -> None:
    """Demand rows: the staff scheduled per block, give or take a couple."""
    admin = demo.staff["admin@example.com"]
    scheduled: Counter[tuple[uuid.UUID, int, str]] = Counter()
    for plan in demo.plans:
        if plan.person is not None and not plan.deleted and not plan.callout:
            scheduled[(plan.role_id, plan.day, plan.kind)] += 1
    forecast = []
    for team in demo.teams:
        kinds = ["md", "np"] if team.kind == "clinic" else ["rn", "cna"]
        blocks = ["clinic"] if team.kind == "clinic" else ["day", "night"]
        for kind in kinds:
            role_id = team.roles[kind]
            for day in range(FIRST_DAY, LAST_DAY + 1):
                for block in blocks:
                    if block == "clinic" and demo.weekday(day) >= 5:
                        continue
                    span = SEGMENTS[block]
                    demand = scheduled[(role_id, day, block)] + demo.rng.choice(
                        [-1, 0, 0, 1, 1, 2])
                    forecast.append({
                        "id": demo_id(f"demand:{team.key}:{kind}:{day}:{block}"),
                        "role_id": role_id, "start_date": demo.at(day, span[0][0]),
                        "end_date": demo.at(day, span[-1][1]), "demand": float(max(0, demand)),
                        "extra": {"source": "census model", "confidence": 0.8},
                        "created_at": demo.at(FIRST_DAY - 1, 9 * 60), "uploaded_by_id": admin,
                    })
    demo.insert(m.DemandForecastRow, forecast, "forecast")
