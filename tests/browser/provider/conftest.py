"""Arranging data for the provider journeys directly in the site's database.

The site is shared by every test of a worker, so each journey makes its own provider
(`account`) and its own shifts; nothing depends on test order.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.api import models as m
from app.api.seed import install_roles
from tests.browser.conftest import PASSWORD_HASH, Site
from tests.factories import make_provider, make_shift, uid

_COUNTER = itertools.count(1)


def arrange(site: Site, change: Callable[[Session], Any]) -> Any:
    """Run `change` in one write unit of work on the site's database; return its result."""
    with site.api.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        result = change(session)
        session.flush()
        return result


def account(site: Site, name: str, *, team: str = "Emergency",
            policies: tuple[str, ...] = ("pto",)) -> str:
    """A new provider (a Registered Nurse of `team`) who can sign in with the demo password;
    returns the email."""
    email = f"{name.lower().replace(' ', '.')}.{next(_COUNTER)}.{uuid.uuid4().hex[:6]}" \
            "@example.com"

    def make(session: Session) -> None:
        roles = install_roles(session)
        person = make_provider(session, email, session.get(m.Team, uid(f"team:{team}")), name,
                               default_role_id=uid(f"role:{team}:Registered Nurse"))
        session.flush()
        person.user.rbac_roles = [roles["Provider"]]
        person.roles = [session.get(m.Role, uid(f"role:{team}:Registered Nurse"))]
        person.user.password_hash = PASSWORD_HASH
        for key in policies:
            policy = session.get(m.TimeOffPolicy, uid(f"policy:{key}"))
            assert policy is not None
            policy.members.append(person)

    arrange(site, make)
    return email


def shift(site: Site, email: str | None, *, start: datetime, hours: int = 8,
          team: str = "Emergency", **kw: Any) -> uuid.UUID:
    """A shift of `email` (an open shift when None); returns its id."""
    def make(session: Session) -> uuid.UUID:
        person = session.get(m.Provider, uid(f"user:{email}")) if email else None
        made = make_shift(session, provider=person, team=session.get(m.Team, uid(f"team:{team}")),
                          role=session.get(m.Role, uid(f"role:{team}:Registered Nurse")),
                          start=start, hours=hours, **kw)
        session.flush()
        return made.id

    return arrange(site, make)


def now() -> datetime:
    """Now in UTC, to the second."""
    return datetime.now(UTC).replace(microsecond=0)


def hours(n: float) -> timedelta:
    """`n` hours."""
    return timedelta(hours=n)
