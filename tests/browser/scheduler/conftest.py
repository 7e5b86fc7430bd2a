"""Helpers of the scheduler journeys: each test arranges its own provider, shift, appointment
type (with a skill only its provider has, so no other test's data shows up in its results) and
appointments in the site's database, on its own dates."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.api import models as m
from tests.factories import make_provider, make_shift, uid

ZONE = ZoneInfo("America/New_York")


@dataclass(frozen=True)
class Setup:
    """What a test arranged: its type, its providers and the day of their shifts."""

    key: str
    type_id: uuid.UUID
    type_name: str
    providers: dict[str, uuid.UUID]
    day: date


def local(day: date, hour: int, minute: int = 0) -> datetime:
    """A wall-clock time in New York as a UTC instant."""
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=ZONE).astimezone(UTC)


def next_week_wednesday(now: datetime | None = None) -> date:
    """Wednesday of next week on the site's calendar (always in the future)."""
    today = (now or datetime.now(UTC)).astimezone(ZONE).date()
    return today - timedelta(days=today.weekday()) + timedelta(days=9)


@pytest.fixture
def arrange(site: Any) -> Callable[..., Setup]:
    """Create a type, providers with an 8-hour shift on `day` (9 AM-5 PM), and return them.

    `providers` maps a display name to its skills (every one also gets badge=`key`, which the
    type requires unless `require_badge` is False).
    """

    def run(key: str, day: date, providers: dict[str, dict[str, list[str]]] | None = None, *,
            require_badge: bool = True, length: int = 30) -> Setup:
        people = providers or {f"Sched {key.title()}": {}}
        with site.api.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
            team = session.get(m.Team, uid("team:Emergency"))
            role = session.get(m.Role, uid("role:Emergency:Registered Nurse"))
            made: dict[str, uuid.UUID] = {}
            for index, (name, skills) in enumerate(people.items()):
                provider = make_provider(
                    session, f"sched.{key}.{index}@example.com", team, name,
                    skills={"badge": [key], **skills}, job_title="Nurse practitioner")
                make_shift(session, provider=provider, team=team, role=role,
                           start=local(day, 9), hours=8, break_at=None)
                made[name] = provider.id
            type_name = f"Visit {key}"
            kind = m.AppointmentType(
                id=uid(f"atype:{key}"), name=type_name, length=length, allowed_roles=None,
                skill_requirement=({"type": "equal", "skill": "badge", "value": key}
                                   if require_badge else None))
            session.add(kind)
            session.flush()
        return Setup(key, kind.id, type_name, made, day)

    return run


@pytest.fixture
def book(site: Any) -> Callable[..., uuid.UUID]:
    """Book an appointment directly in the database; return its id."""

    def run(setup: Setup, name: str, start: datetime, member: str) -> uuid.UUID:
        with site.api.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
            appointment = m.Appointment(
                id=uuid.uuid4(), type=setup.type_name, appointment_type_id=setup.type_id,
                status="upcoming", provider_id=setup.providers[name], member_id=member,
                start_date=start, end_date=start + timedelta(minutes=30), location="Room 2")
            session.add(appointment)
            session.flush()
            return appointment.id

    return run


def type_card(page: Any, name: str) -> Any:
    """The card of the appointment type `name` on the list of appointment types."""
    return page.get_by_role("list", name="Appointment types").get_by_role("listitem").filter(
        has=page.get_by_role("heading", name=name, exact=True))
