"""Reading the permission rules stored in RBAC roles (the admin's view of authorization).

Only callers who may view the `Permission` subject (in practice admins) see rules; lists are
filtered by the same rules in SQL. Evaluating rules belongs to `app.api.domain.ability`, never
here. Must not commit, read the request or know Flask.
"""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.models import Permission
from app.api.pagination import Paginator, SortKey
from app.api.problems import not_found
from app.api.subjects import PERMISSION
from app.contract.permissions import PermissionListQuery


def list_permissions(
    session: Session, *, actor: Actor, query: PermissionListQuery, pages: Paginator
) -> tuple[list[Permission], str | None]:
    """Return one page of permission rules, role by role in precedence order.

    Within a role, rules come in their stored order (`position`), the order in which they are
    evaluated. Raises `unauthorized`, `validation` (cursor).
    """
    actor.require("view", "Permission")
    statement = select(Permission).where(actor.where("view", "Permission", PERMISSION.columns))
    if query.subject is not None:
        statement = statement.where(Permission.subject == query.subject)
    return pages.page(
        session, statement, scope="permissions", query=query,
        order=[SortKey(Permission.rbac_role_id), SortKey(Permission.position),
               SortKey(Permission.id)],
    )


def get_permission(session: Session, *, actor: Actor, permission_id: uuid.UUID) -> Permission:
    """Return one permission rule. Raises `unauthorized`, `permission-not-found`."""
    actor.require("view", "Permission")
    permission = session.get(Permission, permission_id)
    if permission is None:
        raise not_found("permission", permission_id)
    actor.require("view", "Permission", PERMISSION.of(permission))
    return permission
