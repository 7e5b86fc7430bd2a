"""The permission rules stored in RBAC roles: reading them and updating their conditions.

Only callers who may view the `Permission` subject (in practice admins) see rules; lists are
filtered by the same rules in SQL. Updating conditions needs `edit` on `Permission`; a new
condition is checked against the fields its subject exposes (`app.api.subjects`) and takes effect
on the next request (rules are loaded per request). Evaluating rules belongs to
`app.api.domain.ability`, never here. Must not commit, read the request or know Flask.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload

from app.api.auth import Actor
from app.api.domain import conditions as rules
from app.api.models import Permission
from app.api.pagination import Paginator, SortKey
from app.api.problems import not_found, validation
from app.api.services import locator
from app.api.subjects import PERMISSION, SUBJECTS
from app.contract.permissions import PermissionListQuery, PermissionUpdate
from app.contract.problems import FieldError

locate_permission = locator(Permission, "permission")


def list_permissions(
    session: Session, *, actor: Actor, query: PermissionListQuery, pages: Paginator
) -> tuple[list[Permission], str | None]:
    """Return one page of permission rules, role by role in precedence order.

    Within a role, rules come in their stored order (`position`), the order in which they are
    evaluated. Raises `unauthorized`, `validation` (cursor).
    """
    actor.require("view", "Permission")
    statement = (select(Permission)
                 .options(joinedload(Permission.rbac_role))  # its name is the rule's "who"
                 .where(actor.where("view", "Permission", PERMISSION.columns)))
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


def check_conditions(subject: str, document: Any) -> None:
    """Raise `validation` (paths under `/conditions`, every error listed) for a bad condition."""
    known = SUBJECTS.get(subject)
    fields = frozenset(known.fields) if known is not None else frozenset()
    errors = [
        FieldError(path="/conditions" + ("" if e.path == "/" else e.path), message=e.message)
        for e in rules.validate(document, fields=fields)
    ]
    if errors:
        raise validation(errors[0].path, errors[0].message, errors)


def update_permission(session: Session, *, actor: Actor, permission_id: uuid.UUID,
                      body: PermissionUpdate) -> Permission:
    """Replace a rule's conditions (null: the rule applies to every object).

    Raises `unauthorized`, `permission-not-found`, `validation`.
    """
    actor.require("edit", "Permission")
    permission = session.get(Permission, permission_id, with_for_update=True)
    if permission is None:
        raise not_found("permission", permission_id)
    actor.require("edit", "Permission", PERMISSION.of(permission))
    check_conditions(permission.subject, body.conditions)
    permission.conditions = body.conditions
    session.flush()
    return permission
