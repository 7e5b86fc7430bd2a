"""The demo's appointments: appointment types (one archived) and, in clinic teams, appointments
in every status that never overlap for one provider.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from app.api import models as m
from app.api.demo.bulk import Row
from app.api.demo.schedule import segments_of
from app.api.demo.state import Demo, Person, demo_id

# name, minutes, role kinds allowed (None: any), skill requirement, relative frequency
APPOINTMENT_TYPES: list[tuple[str, str, int, tuple[str, ...] | None, dict[str, Any] | None,
                              int]] = [
    ("new", "New patient visit", 30, ("md", "np"), None, 3),
    ("follow", "Follow-up visit", 15, None, None, 5),
    ("physical", "Annual physical", 45, ("md",), None, 2),
    ("telehealth", "Telehealth check-in", 15, None, None, 2),
    ("spanish", "Spanish-language consult", 30, None,
     {"type": "equal", "skill": "language", "value": "Spanish"}, 2),
    ("pediatric", "Pediatric sick visit", 30, ("md", "np"),
     {"type": "or", "entries": [
         {"type": "equal", "skill": "specialty", "value": "Pediatrics"},
         {"type": "and", "entries": [
             {"type": "equal", "skill": "certification", "value": "PALS"},
             {"type": "equal", "skill": "specialty", "value": "Family medicine"},
         ]},
     ]}, 2),
    ("diabetes", "Diabetes education", 45, ("rn",),
     {"type": "equal", "skill": "certification", "value": "CDCES"}, 2),
]
CANCELLATIONS = ["Patient asked to cancel", "Provider called out", "Patient admitted elsewhere",
                 "Insurance not verified", "Weather"]


def write_appointments(demo: Demo) -> None:
    """Appointment types and, in clinic teams, appointments that never overlap."""
    rng = demo.rng
    clinics = [t for t in demo.teams if t.kind == "clinic"]
    types = []
    for key, name, length, kinds, requirement, _ in APPOINTMENT_TYPES:
        allowed = None if kinds is None else [str(t.roles[k]) for t in clinics for k in kinds
                                              if k in t.roles]
        types.append({
            "id": demo_id(f"atype:{key}"), "created_at": demo.founded, "name": name,
            "length": length, "allowed_roles": allowed, "skill_requirement": requirement,
            "archived_at": None, "extra": {"modality": "video"} if key == "telehealth" else {},
        })
    types.append({
        "id": demo_id("atype:walkin"), "created_at": demo.founded, "name": "Walk-in triage",
        "length": 20, "allowed_roles": None, "skill_requirement": None,
        "archived_at": demo.midnight - timedelta(days=30), "extra": {},
    })
    demo.insert(m.AppointmentType, types)

    rows: list[Row] = []
    members = max(50, demo.size * 20)
    for plan in demo.plans:
        person = plan.person
        if (person is None or plan.kind != "clinic" or plan.deleted or plan.callout
                or person.role not in ("md", "np", "rn")):
            continue
        offered = [spec for spec in APPOINTMENT_TYPES if _offers(person, spec)]
        if not offered:
            continue
        weights = [spec[5] for spec in offered]
        for begin, finish, kind in segments_of(demo, plan):
            if kind != "working":
                continue
            cursor = begin + timedelta(minutes=rng.choice([0, 15, 30]))
            while True:
                key, name, length = rng.choices(offered, weights)[0][:3]
                stop = cursor + timedelta(minutes=length)
                if stop > finish:
                    break
                rows.append(_appointment(demo, len(rows), person, key, name, length, cursor,
                                         stop, members))
                cursor = stop + timedelta(minutes=rng.choice([0, 15, 15, 30, 45, 60]))
    demo.insert(m.Appointment, rows, "appointments")
    demo.counts.update(f"appointment:{r['status']}" for r in rows)


def _offers(person: Person, spec: tuple[Any, ...]) -> bool:
    _key, _name, _length, kinds, requirement, _weight = spec
    if kinds is None and person.role == "rn":
        return False  # clinic nurses see patients only for what they are certified in
    if kinds is not None and person.role not in kinds:
        return False
    return requirement is None or _meets(person.skills, requirement)


def _meets(skills: dict[str, list[str]], requirement: dict[str, Any]) -> bool:
    """Whether a provider's skills satisfy a skill requirement (equal / and / or)."""
    if requirement["type"] == "equal":
        return requirement["value"] in skills.get(requirement["skill"], [])
    results = (_meets(skills, entry) for entry in requirement["entries"])
    return all(results) if requirement["type"] == "and" else any(results)


def _appointment(demo: Demo, number: int, person: Person, key: str, name: str, length: int,
                 start: datetime, end: datetime, members: int) -> Row:
    rng = demo.rng
    draw = rng.random()
    past = start < demo.midnight
    created = min(start - timedelta(days=rng.randint(2, 30)),
                  demo.midnight - timedelta(hours=rng.randint(1, 72)))
    row: Row = {
        "id": demo_id(f"appt:{number}"), "created_at": created, "updated_at": created,
        "version": 1, "type": name, "appointment_type_id": demo_id(f"atype:{key}"),
        "status": "upcoming", "provider_id": person.id,
        "member_id": f"member-{rng.randrange(members):05d}", "start_date": start,
        "end_date": end, "actual_start_date": None, "actual_end_date": None,
        "location": "Telehealth" if key == "telehealth"
        else f"{person.team.short} room {rng.randint(1, 12)}",
        "cancellation_date": None, "cancellation_reason": None,
    }
    if past:
        status = ("occurred" if draw < 0.82 else "no-show" if draw < 0.89
                  else "cancelled" if draw < 0.96 else "re-scheduled")
    else:
        status = "upcoming" if draw < 0.84 else "re-scheduled" if draw < 0.88 else "cancelled"
    row["status"] = status
    if status == "occurred":
        actual = start + timedelta(minutes=rng.randint(-5, 10))
        finished = actual + timedelta(minutes=length + rng.randint(-5, 10))
        row.update(actual_start_date=actual, actual_end_date=finished, updated_at=finished)
    elif status == "no-show":
        row["updated_at"] = end
    elif status == "cancelled":
        cancelled = created + (min(start, demo.midnight) - created) * rng.uniform(0.3, 0.95)
        row.update(cancellation_date=cancelled, updated_at=cancelled,
                   cancellation_reason=rng.choice(CANCELLATIONS))
    return row
