"""Users: `GET /v1/users`, `GET /v1/users/{userId}`, and the extensions `GET /v1/users/me` and
`POST /v1/users/{userId}/password-link`.

`/me` answers for anyone signed in: it is how a client learns who it is and what it may do.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.models import RbacRole, User, user_rbac_roles
from app.api.pagination import Paginator, SortKey
from app.api.problems import not_found
from app.api.routing import endpoint
from app.api.services import notifications, people_import
from app.api.subjects import USER
from app.contract.people import PasswordLink
from app.contract.permissions import PermissionRule
from app.contract.users import UserListQuery, UserMe, UserPage, UserRead


def _like(text: str) -> str:
    """A LIKE pattern matching `text` anywhere, its wildcards taken literally."""
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


@endpoint("GET", "/users", summary="List users", query=UserListQuery, response=UserPage,
          tag="Users")
def list_users(session: Session, actor: Actor, query: UserListQuery, pages: Paginator) -> UserPage:
    """Users by name, filtered by type, employment status and a partial name."""
    statement = select(User).where(
        actor.where("view", "User", USER.columns),
        User.type.in_(query.type),
        User.status.in_(query.status),
    )
    if query.name:
        statement = statement.where(func.lower(User.name).like(_like(query.name), escape="\\"))
    rows, cursor = pages.page(session, statement, scope="users", query=query,
                              order=[SortKey(User.name), SortKey(User.id)])
    return UserPage(items=[UserRead.model_validate(u) for u in rows], cursor=cursor)


@endpoint("GET", "/users/me", summary="Get the signed-in user", response=UserMe, tag="Users",
          extension=True)
def get_me(session: Session, actor: Actor) -> UserMe:
    """The signed-in user, their provider id, teams, roles, effective permission rules and
    how many of their notifications are unread."""
    user = session.get(User, actor.user_id)
    assert user is not None  # authenticate() loaded this user in the same transaction
    roles = session.scalars(
        select(RbacRole.name)
        .join(user_rbac_roles, user_rbac_roles.c.rbac_role_id == RbacRole.id)
        .where(user_rbac_roles.c.user_id == actor.user_id)
        .order_by(RbacRole.name)
    ).all()
    rules = [PermissionRule.model_validate(r) for r in actor.rules]  # admins: isAdmin says all
    return UserMe(
        **UserRead.model_validate(user).model_dump(),
        provider_id=actor.provider_id,
        team_ids=list(actor.team_ids),
        roles=list(roles),
        permissions=rules,
        unread_notifications=notifications.unread_count(session, user_id=actor.user_id),
    )


@endpoint("GET", "/users/<user_id>", summary="Get a user", response=UserRead,
          codes=["user-not-found"], tag="Users",
          permits=[("view", "User")])
def get_user(session: Session, actor: Actor, user_id: uuid.UUID) -> UserRead:
    """One user."""
    user = session.get(User, user_id)
    if user is None:
        raise not_found("user", user_id)
    actor.require("view", "User", USER.of(user))
    return UserRead.model_validate(user)


@endpoint("POST", "/users/<user_id>/password-link", summary="Make a set-password link",
          response=PasswordLink, status=201,
          codes=["user-not-found", "invalid-state-transition", "unauthorized"],
          extension=True, tag="Users",
          permits=[("edit", "User")])
def create_password_link(session: Session, actor: Actor, user_id: uuid.UUID) -> PasswordLink:
    """A new one-time link with which the person chooses their password.

    The embedded sign-in service takes the token at `{issuer}/set-password/{token}`. The link
    is good once and for 7 days; making one ends the person's earlier links. Only a hash is
    stored, so this answer is the only place the token appears. Bots and dismissed people,
    who do not sign in with a password, get `invalid-state-transition`.
    """
    return people_import.create_password_link(session, actor=actor, user_id=user_id,
                                              now=datetime.now(UTC))
