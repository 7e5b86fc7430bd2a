"""Fixtures of the provider pages' web tests: an app on its own seeded database (these tests
punch, claim and ask for time off), and `arrange` to add data with the factories.

Each test that writes uses a provider of its own (`fresh_provider`), so tests pass in any order.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from app.api import models as m
from app.api.db import Database
from app.api.migrate import upgrade
from app.api.seed import install_roles
from tests.factories import World, build_world, make_provider, make_shift, uid
from tests.web.conftest import Web, build_web

_COUNTER = itertools.count(1)


@pytest.fixture(scope="session")
def provider_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, World]:
    """A migrated, seeded SQLite database only the provider web tests use."""
    path = tmp_path_factory.mktemp("provider-web-db") / "web.db"
    url = f"sqlite:///{path}"
    upgrade(url)
    database = Database(url)
    with database.unit_of_work(write=True) as session:
        world = build_world(session)
    database.dispose()
    return url, world


@pytest.fixture
def pweb(provider_db: tuple[str, World], signing_key_path: Path, tmp_path: Path,
         ) -> Iterator[Web]:
    """An app and client on the provider tests' database."""
    web = build_web(provider_db, signing_key_path, tmp_path / "sessions")
    yield web
    web.app.extensions["shiftdesk"].db.dispose()


def arrange(web: Web, change: Callable[[Session], Any]) -> Any:
    """Run `change` in a write unit of work on the app's database; return its result."""
    with web.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        result = change(session)
        session.flush()
        return result


def fresh_provider(web: Web, *, team: str = "Emergency", policies: tuple[str, ...] = ("pto",),
                   skills: dict[str, list[str]] | None = None,
                   roles: tuple[str, ...] = ("Registered Nurse",)) -> str:
    """A new provider in `team` with the Provider role, holding `roles` of that team (the
    shift roles they may claim); returns their email."""
    email = f"fresh{next(_COUNTER)}-{uuid.uuid4().hex[:6]}@example.com"

    def make(session: Session) -> None:
        rbac = install_roles(session)
        team_row = session.get(m.Team, uid(f"team:{team}"))
        person = make_provider(session, email, team_row, skills=skills,
                               default_role_id=uid(f"role:{team}:Registered Nurse"))
        session.flush()
        person.user.rbac_roles = [rbac["Provider"]]
        person.roles = [session.get(m.Role, uid(f"role:{team}:{name}")) for name in roles]
        for key in policies:
            policy = session.get(m.TimeOffPolicy, uid(f"policy:{key}"))
            assert policy is not None
            policy.members.append(person)

    arrange(web, make)
    return email


def shift_for(web: Web, email: str | None, *, start: datetime, hours: int = 8,
              team: str = "Emergency", role_name: str = "Registered Nurse", **kw: Any,
              ) -> uuid.UUID:
    """A shift (open when `email` is None) of `role_name` starting at `start`; returns its id."""
    def make(session: Session) -> uuid.UUID:
        team_row = session.get(m.Team, uid(f"team:{team}"))
        role = session.get(m.Role, uid(f"role:{team}:{role_name}"))
        person = session.get(m.Provider, uid(f"user:{email}")) if email else None
        shift = make_shift(session, provider=person, team=team_row, role=role, start=start,
                           hours=hours, **kw)
        session.flush()
        return shift.id

    return arrange(web, make)


def now() -> datetime:
    """Now, to the second, in UTC."""
    return datetime.now(UTC).replace(microsecond=0)


def hours(n: float) -> timedelta:
    """`n` hours."""
    return timedelta(hours=n)
