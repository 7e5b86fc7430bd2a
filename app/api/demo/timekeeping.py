"""The demo's timekeeping: timecards per pay period and punches on past shifts, with late
clock-ins, early and missing clock-outs, and clocked days without a shift.
"""

from __future__ import annotations

import uuid
from datetime import date, datetime, timedelta

from app.api import models as m
from app.api.demo.bulk import Row
from app.api.demo.schedule import segments_of
from app.api.demo.state import FIRST_DAY, PAY_PERIOD_ANCHOR, Demo, Person, demo_id, stamp


def period(person: Person, day: date) -> tuple[date, date]:
    """The pay period (local start day, next period's start day) holding `day`."""
    length = 7 if person.weekly else 14
    first = PAY_PERIOD_ANCHOR + timedelta(days=(day - PAY_PERIOD_ANCHOR).days // length
                                          * length)
    return first, first + timedelta(days=length)


def write_punches(demo: Demo) -> None:
    """Timecards per pay period and punches on past shifts, with a few anomalies."""
    rng = demo.rng
    worked = [p for p in demo.plans
              if p.person is not None and not p.deleted and not p.callout
              and p.kind != "on_call" and segments_of(demo, p)[-1][1] <= demo.midnight]
    candidates = [p for p in worked if p.person is not None and not p.person.is_demo]
    count = max(1, len(candidates) // 50)
    for anomaly in ("late", "early", "missing"):
        pool = [p for p in candidates if p.anomaly is None]
        for plan in rng.sample(pool, min(count, len(pool))):
            plan.anomaly = anomaly
    cards: dict[tuple[uuid.UUID, date], Row] = {}
    punches: list[Row] = []

    def punch(person: Person, when: datetime, action: str, *, ok: bool = True,
              note: str | None = None) -> None:
        first, following = period(person, when.astimezone(demo.zone).date())
        card = cards.get((person.id, first))
        if card is None:
            card = cards[(person.id, first)] = {
                "id": demo_id(f"timecard:{person.email}:{first.isoformat()}"),
                "provider_id": person.id, "period_start": demo.local_midnight(first),
                "period_end": demo.local_midnight(following), "created_at":
                    demo.local_midnight(first),
            }
        # Managers approve closed periods, and the current one as it goes, a few days behind.
        reviewed = following <= demo.today or when < demo.at(-3, 0)
        state = "approved" if ok and reviewed and rng.random() < 0.97 else "pending"
        punches.append({
            "id": demo_id(f"punch:{person.email}:{stamp(when)}:{action}"),
            "timecard_id": card["id"], "provider_id": person.id, "generated": False,
            "created_at": when, "updated_at": when, "action": action, "state": state,
            "time": when, "provider_note": note, "admin_note": None,
        })

    for plan in worked:
        person = plan.person
        assert person is not None
        parts = segments_of(demo, plan)
        seconds = timedelta(seconds=rng.randint(0, 59))
        start, end = parts[0][0], max(b for _, b, k in parts if k == "working")
        if plan.anomaly == "late":
            punch(person, start + timedelta(minutes=rng.randint(15, 45)) + seconds,
                  "clock_in", ok=False, note=rng.choice(["Traffic on the bridge",
                                                         "Car would not start", None]))
        else:
            punch(person, start + timedelta(minutes=rng.randint(-6, 3)) + seconds, "clock_in")
        for begin, finish, kind in parts:
            if kind == "unpaid_break":
                punch(person, begin + timedelta(minutes=rng.randint(-5, 10)), "break_start")
                punch(person, finish + timedelta(minutes=rng.randint(-3, 5), seconds=30),
                      "break_end")
        if plan.anomaly == "early":
            punch(person, end - timedelta(minutes=rng.randint(40, 120)) + seconds,
                  "clock_out", ok=False, note="Left early: sick child")
        elif plan.anomaly != "missing":
            punch(person, end + timedelta(minutes=rng.randint(-3, 8)) + seconds, "clock_out")
    # Clock-ins with no shift: people who came in for training on a day off.
    pool = [p for p in demo.people if not p.is_demo and p.status == "active"]
    for person in rng.sample(pool, min(len(pool), max(1, demo.size // 40))):
        days = [d for d in range(FIRST_DAY, -1) if d not in demo.by_day[person.id]
                and d - 1 not in demo.by_day[person.id]]
        if days:
            day = rng.choice(days)
            punch(person, demo.at(day, 9 * 60 + rng.randint(-5, 5)), "clock_in", ok=False,
                  note="Mandatory skills day")
            punch(person, demo.at(day, 13 * 60 + rng.randint(-5, 5)), "clock_out",
                  ok=False)
            demo.counts["unscheduled"] += 1
    demo.insert(m.Timecard, list(cards.values()), "timecards")
    demo.insert(m.TimecardPunch, punches, "punches")
    demo.counts.update(f"anomaly:{p.anomaly}" for p in worked if p.anomaly)
