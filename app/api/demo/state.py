"""What every part of the demo load shares: the load's state, its clock, stable ids, and the
planned teams, people and shifts.

The builders in the sibling modules plan into one `Demo` and write from it; they all draw from
its one seeded `random.Random`, so the order in which `build` calls them is part of the data.
Must not import the parts that plan and write (only `bulk`, the writer).
"""

from __future__ import annotations

import random
import re
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from sqlalchemy import Table
from sqlalchemy.orm import Session

from app.api.db import Base
from app.api.demo.bulk import Row, insert_rows
from app.config import Settings

NAMESPACE = uuid.UUID("7d0c4a52-3f61-4d3e-9a0b-6c2f1e8d5b47")
SEED = 20240501
DEMO_PASSWORD = "demo"
DEMO_EMAILS = (
    "admin@example.com", "manager@example.com", "scheduler@example.com", "provider@example.com",
)
FIRST_DAY, LAST_DAY = -21, 20
"""Shifts run from three weeks before the load date to three weeks after (day offsets)."""
PAY_PERIOD_ANCHOR = date(2024, 1, 1)
"""A Monday: every pay-period template starts its periods from local midnight of this day."""
TIMESTAMP = "%Y-%m-%dT%H:%M:%S+0000"


def demo_id(name: str) -> uuid.UUID:
    """The id of the demo record with this stable name."""
    return uuid.uuid5(NAMESPACE, name)


def stamp(value: datetime) -> str:
    """The wire timestamp of an instant (for JSON columns)."""
    return value.astimezone(UTC).strftime(TIMESTAMP)


def slug(text: str) -> str:
    """Lower-case letters and digits only (e-mail local parts, team keys)."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def largest_remainder(total: int, weights: list[float]) -> list[int]:
    """Split `total` in proportion to `weights` (whole numbers summing to `total`)."""
    whole = sum(weights)
    shares = [total * w / whole for w in weights]
    counts = [int(s) for s in shares]
    order = sorted(range(len(weights)), key=lambda i: (counts[i] - shares[i], i))
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


@dataclass
class Team:
    """A team being planned: its kind decides the role mix and the shift pattern."""

    key: str
    name: str
    short: str
    kind: str
    specialty: str
    id: uuid.UUID
    roles: dict[str, uuid.UUID] = field(default_factory=dict)
    manager_email: str = "manager@example.com"
    manager_name: str = ""
    size: int = 0

    @property
    def manager_id(self) -> uuid.UUID:
        return demo_id(f"user:{self.manager_email}")


@dataclass
class Person:
    """A provider being planned; `first_day`/`last_day` bound their shifts (hire, dismissal)."""

    index: int
    id: uuid.UUID
    email: str
    name: str
    first: str
    team: Team
    role: str
    employment: str
    status: str = "active"
    pattern: str = "day"
    weekly: bool = False
    skills: dict[str, list[str]] = field(default_factory=dict)
    first_day: int = FIRST_DAY
    last_day: int = LAST_DAY
    is_demo: bool = False

    @property
    def role_id(self) -> uuid.UUID:
        return self.team.roles[self.role]

    @property
    def hours(self) -> float:
        return 8.0 if self.team.kind == "clinic" else 12.0


@dataclass
class Plan:
    """A shift being planned (open when `person` is None); `key` names its id."""

    key: str
    team: Team
    role_id: uuid.UUID
    day: int
    kind: str
    person: Person | None
    paid_break: bool = False
    on_call_tail: bool = False
    label: str | None = None
    label_all: bool = False
    skill: dict[str, Any] | None = None
    note: str | None = None
    pay_code: str | None = None
    callout: bool = False
    deleted: bool = False
    anomaly: str | None = None


class Demo:
    """One load: the session it writes through, its clock and random draws, and what is planned."""

    def __init__(self, session: Session, settings: Settings, size: int, now: datetime) -> None:
        self.session = session
        self.zone = settings.zone
        self.size = size
        self.rng = random.Random(SEED)
        self.today = now.astimezone(self.zone).date()
        self._times: dict[tuple[int, int], datetime] = {}
        self.midnight = self.at(0, 0)
        self.founded = self.midnight - timedelta(days=730)
        self.teams: list[Team] = []
        self.people: list[Person] = []
        self.plans: list[Plan] = []
        self.by_day: dict[uuid.UUID, dict[int, Plan]] = defaultdict(dict)
        self.counts: Counter[str] = Counter()
        self.copied: set[str] = set()
        self.staff: dict[str, uuid.UUID] = {email: demo_id(f"user:{email}")
                                            for email in DEMO_EMAILS}

    # -- time -------------------------------------------------------------------------------

    def at(self, day: int, minutes: int) -> datetime:
        """The UTC instant of local wall time `minutes` after midnight of load date + `day`."""
        key = (day, minutes)
        if key not in self._times:
            local = datetime.combine(self.today + timedelta(days=day + minutes // 1440),
                                     time(minutes % 1440 // 60, minutes % 60), tzinfo=self.zone)
            self._times[key] = local.astimezone(UTC)
        return self._times[key]

    def local_midnight(self, day: date) -> datetime:
        """The UTC instant of local midnight starting `day`."""
        return datetime.combine(day, time(0), tzinfo=self.zone).astimezone(UTC)

    def weekday(self, day: int) -> int:
        """The weekday (Monday 0) of load date + `day`."""
        return (self.today + timedelta(days=day)).weekday()

    # -- planning and writing ---------------------------------------------------------------

    def add_plan(self, plan: Plan) -> Plan:
        """Plan a shift; an assigned one becomes the provider's shift of that day."""
        self.plans.append(plan)
        if plan.person is not None:
            self.by_day[plan.person.id][plan.day] = plan
        return plan

    def insert(self, target: type[Base] | Table, rows: list[Row], counter: str | None = None
               ) -> None:
        """Write `rows` into the table (see `bulk.insert_rows`), counting them under `counter`."""
        if counter:
            self.counts[counter] += len(rows)
        insert_rows(self.session.connection(), target, rows)
