"""Who is calling: bearer-token authentication and the caller's permissions (`Actor`).

A bearer token is either an RS256 JWT from the identity provider (verified against its JWKS) or a
bot's opaque API token (looked up by its SHA-256 hash). Either way the token names a user, whose
RBAC roles give the permission rules. Routes call `actor.require(...)` for one object and
`actor.where(...)` to filter lists. Raises `unauthenticated` (401) and `unauthorized` (403).

Per process, a verified JWT's subject and a user's actor are kept for at most `AUTH_TTL_SECONDS`
(a JWT no longer than it is valid), so most requests skip the signature check and the four
statements that build an actor. Any write to a table an actor is built from (users, providers,
teams, team managers, RBAC roles and their users, permissions) through this process's database
engines drops every kept actor, when executed and again when committed, so a change made here
(e.g. `PATCH /v1/permissions/{id}`) applies to the very next request; a change made by another
process (another worker, the CLI) applies within `AUTH_TTL_SECONDS`.
"""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

from flask import request
from sqlalchemy import ColumnElement, Engine, event, select
from sqlalchemy.orm import Session

from app.api.authorization import Fields, sql_filter
from app.api.domain.ability import Ability, build_rules
from app.api.models import ApiToken, Permission, Provider, User, team_managers, user_rbac_roles
from app.api.problems import ProblemError
from app.api.tokens import TokenInvalid
from app.contract.problems import ProblemCode

BOT_TOKEN_PREFIX = "sdk_"

S = TypeVar("S")

AUTH_TTL_SECONDS = 5.0
"""How long this process reuses a verified JWT's subject and a user's actor (see above)."""

_ACTOR_TABLES = ("users", "providers", "teams", "team_managers", "user_rbac_roles",
                 "rbac_roles", "permissions")
_MAX_KEPT = 10_000


class _Kept:
    """Verified JWT subjects and actors of this process, dropped on any write they depend on."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.generation = 0
        self.subjects: dict[str, tuple[float, uuid.UUID]] = {}
        self.actors: dict[tuple[int, uuid.UUID], tuple[float, int, Actor]] = {}

    def forget(self) -> None:
        with self.lock:
            self.generation += 1
            self.actors.clear()


_kept = _Kept()


def forget_kept_actors() -> None:
    """Drop every actor this process keeps (tests that count statements start cold)."""
    _kept.forget()


def _touches_actors(statement: str) -> bool:
    head = statement.lstrip()[:6].upper()
    if head not in ("INSERT", "UPDATE", "DELETE"):
        return False
    text = statement.lower()
    return any(table in text for table in _ACTOR_TABLES)


@event.listens_for(Engine, "before_cursor_execute")
def _on_execute(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
    if _touches_actors(statement):
        conn.info["shiftdesk_actors_changed"] = True
        _kept.forget()


@event.listens_for(Engine, "commit")
def _on_commit(conn: Any) -> None:
    if conn.info.pop("shiftdesk_actors_changed", False):
        _kept.forget()


@event.listens_for(Engine, "rollback")
def _on_rollback(conn: Any) -> None:
    if not conn.invalidated:  # an invalidated connection (its server gone) has no info left
        conn.info.pop("shiftdesk_actors_changed", None)


def _unauthenticated(detail: str, *, error: bool = True) -> ProblemError:
    # RFC 6750 §3.1: a request without credentials gets a challenge without an error code.
    challenge = 'Bearer realm="shiftdesk"' + (', error="invalid_token"' if error else "")
    return ProblemError(ProblemCode.UNAUTHENTICATED, detail,
                        headers={"WWW-Authenticate": challenge})


@dataclass
class Actor:
    """The signed-in user as the API sees them: identity, teams and permission rules."""

    user_id: uuid.UUID
    name: str
    email: str
    is_admin: bool
    provider_id: uuid.UUID | None
    team_ids: tuple[uuid.UUID, ...]
    rules: list[dict[str, Any]] = field(default_factory=list)
    ability: Ability = field(default_factory=Ability)
    statements: dict[Hashable, Any] = field(default_factory=dict, repr=False, compare=False)
    """Statements built from this actor's permissions (see `statement`)."""

    def can(self, action: str, subject: str, obj: Mapping[str, Any] | None = None) -> bool:
        """Whether the actor may do `action` on `subject` (one object, or the type)."""
        return self.ability.can(action, subject, obj)

    def require(self, action: str, subject: str, obj: Mapping[str, Any] | None = None) -> None:
        """Raise 403 `unauthorized` unless the actor may do `action` on `subject`."""
        decision = self.ability.decide(action, subject, obj)
        if not decision.allowed:
            raise ProblemError(
                ProblemCode.UNAUTHORIZED,
                decision.reason,
                action=action,
                resource=subject,
                reason=decision.reason,
            )

    def where(self, action: str, subject: str, fields: Fields) -> ColumnElement[bool]:
        """A SQL condition selecting the rows of `subject` the actor may do `action` on."""
        return sql_filter(self.ability, action, subject, fields)

    def statement(self, shape: Hashable, build: Callable[[], S]) -> S:
        """The statement `build` makes, built once per `shape` for as long as this actor is
        kept (see `AUTH_TTL_SECONDS`): a busy list builds its filtered statement, permission
        condition included, once, and binds each request's values at execution."""
        found = self.statements.get(shape)
        if found is None:
            found = self.statements[shape] = build()
        return found


def hash_api_token(token: str) -> str:
    """The stored form of a bot's opaque token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _bearer() -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if not header:
        raise _unauthenticated("Send an access token: Authorization: Bearer <token>.",
                               error=False)
    if scheme.lower() != "bearer" or not token.strip():
        raise _unauthenticated("Use the Bearer scheme: Authorization: Bearer <token>.")
    return token.strip()


def _user_from_bot_token(session: Session, token: str) -> uuid.UUID:
    row = session.scalar(select(ApiToken).where(ApiToken.token_hash == hash_api_token(token)))
    now = datetime.now(UTC)
    if row is None or (row.expires_at is not None and row.expires_at <= now):
        raise _unauthenticated("The API token is unknown or has expired.")
    return row.user_id


def _user_from_jwt(token: str) -> uuid.UUID:
    from flask import current_app

    now = time.time()
    kept = _kept.subjects.get(token)
    if kept is not None and now < kept[0]:
        return kept[1]
    verifier = current_app.extensions["shiftdesk"].verifier
    try:
        claims = verifier.verify(token)
        subject = uuid.UUID(str(claims["sub"]))
    except (TokenInvalid, ValueError) as exc:
        raise _unauthenticated("The access token is invalid or has expired; sign in again.") \
            from exc
    expires = claims.get("exp")
    until = min(now + AUTH_TTL_SECONDS,
                float(expires) if isinstance(expires, int | float) else now)
    with _kept.lock:
        if len(_kept.subjects) >= _MAX_KEPT:
            _kept.subjects.clear()
        _kept.subjects[token] = (until, subject)
    return subject


def load_actor(session: Session, user_id: uuid.UUID) -> Actor | None:
    """Build the actor for a user id, or None when the user does not exist or may not sign in."""
    user = session.get(User, user_id)
    if user is None or user.status == "dismissed":
        return None
    provider = session.get(Provider, user_id)
    managed = session.scalars(
        select(team_managers.c.team_id).where(team_managers.c.user_id == user_id)
    ).all()
    team_ids = list(dict.fromkeys([*managed, *([provider.team_id] if provider and
                                               provider.team_id else [])]))
    permissions = session.scalars(
        select(Permission)
        .join(user_rbac_roles, user_rbac_roles.c.rbac_role_id == Permission.rbac_role_id)
        .where(user_rbac_roles.c.user_id == user_id)
        .order_by(Permission.rbac_role_id, Permission.position, Permission.created_at)
    ).all()
    raw = [
        {
            "action": p.action,
            "subject": p.subject,
            "conditions": p.conditions,
            "inverted": p.inverted,
            "errorMessage": p.error_message,
        }
        for p in permissions
    ]
    placeholders = {
        "id": str(user.id),
        "providerId": str(provider.id) if provider else None,
        "teamIds": [str(t) for t in team_ids],
    }
    return Actor(
        user_id=user.id,
        name=user.name,
        email=user.email,
        is_admin=user.is_admin,
        provider_id=provider.id if provider else None,
        team_ids=tuple(team_ids),
        rules=raw,
        ability=Ability(build_rules(raw, placeholders), is_admin=user.is_admin),
    )


def _kept_actor(session: Session, user_id: uuid.UUID) -> Actor | None:
    """`load_actor`, reusing this process's actor of the user while nothing it depends on
    changed and for at most `AUTH_TTL_SECONDS`."""
    key = (id(session.get_bind()), user_id)
    now = time.monotonic()
    kept = _kept.actors.get(key)
    generation = _kept.generation
    if kept is not None and now < kept[0] and kept[1] == generation:
        return kept[2]
    actor = load_actor(session, user_id)
    if actor is not None:
        with _kept.lock:
            if _kept.generation == generation:  # nothing changed while it was being read
                if len(_kept.actors) >= _MAX_KEPT:
                    _kept.actors.clear()
                _kept.actors[key] = (now + AUTH_TTL_SECONDS, generation, actor)
    return actor


def authenticate(session: Session) -> Actor:
    """The actor of the current request's bearer token, or 401 `unauthenticated`."""
    token = _bearer()
    if token.startswith(BOT_TOKEN_PREFIX):
        user_id = _user_from_bot_token(session, token)
    else:
        user_id = _user_from_jwt(token)
    actor = _kept_actor(session, user_id)
    if actor is None:
        raise _unauthenticated("This account no longer exists or is not active.")
    return actor
