"""Fixtures of the manager pages' web tests: an app on its own copy of the seeded database (the
decisions write), signed in as the ED manager, and helpers to arrange requests and shifts.
"""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.api import models as m
from tests.factories import World, make_shift, uid
from tests.web.conftest import Web, build_web


@pytest.fixture
def mweb(web_db: tuple[str, World], signing_key_path: Path, tmp_path: Path) -> Iterator[Web]:
    """A fresh app on a private copy of the seeded database."""
    url, world = web_db
    source = Path(url.removeprefix("sqlite:///"))
    target = tmp_path / "manager.db"
    shutil.copyfile(source, target)
    web = build_web((f"sqlite:///{target}", world), signing_key_path, tmp_path / "sessions")
    yield web
    web.app.extensions["shiftdesk"].db.dispose()


@pytest.fixture
def arrange(mweb: Web) -> Callable[..., Any]:
    """Run `change(session, world)` in a write transaction on the app's database."""

    def run(change: Callable[[Any, World], Any]) -> Any:
        with mweb.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
            result = change(session, mweb.world)
            session.flush()
            return result

    return run


def add_request(session: Any, world: World, *, provider: uuid.UUID | None = None,
                start: datetime, days: int = 1, status: str = "pending",
                note: str | None = "Family event") -> uuid.UUID:
    """A full-day PTO request of `provider` (Pat by default) starting at `start` (UTC)."""
    request = m.TimeOffRequest(
        status=status, start_date=start, end_date=start + timedelta(days=days),
        policy_id=uid("policy:pto"), provider_id=provider or world.provider, note=note,
        paid_hours=8.0 * days, is_full_day=True)
    request.daily_hours = [m.TimeOffDay(date=start + timedelta(days=i), duration=8.0)
                           for i in range(days)]
    session.add(request)
    session.flush()
    return request.id


def add_shift(session: Any, world: World, *, provider: uuid.UUID | None, start: datetime,
              team: str = "Emergency", hours: int = 12,
              role_name: str = "Registered Nurse") -> uuid.UUID:
    """A shift of `provider` (None: open) in `team` of `role_name` starting at `start`."""
    team_row = session.get(m.Team, uid(f"team:{team}"))
    role = session.get(m.Role, uid(f"role:{team}:{role_name}"))
    person = session.get(m.Provider, provider) if provider else None
    shift = make_shift(session, provider=person, team=team_row, role=role, start=start,
                       hours=hours)
    session.flush()
    return shift.id


def pat_shift_of(mweb: Web, day: int) -> str:
    """The id of Pat's shift starting on `day` March 2026 (7 AM to 7 PM in the seeded world)."""
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        return str(session.scalar(select(m.Shift.id).where(
            m.Shift.provider_id == mweb.world.provider,
            m.Shift.start_date >= datetime(2026, 3, day, tzinfo=UTC),
            m.Shift.start_date < datetime(2026, 3, day + 1, tzinfo=UTC))))
