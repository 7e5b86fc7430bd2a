"""Job roles: `GET /v1/roles` and `GET /v1/roles/{roleId}`.

Any signed-in user may read roles (schedules name them on every shift segment). Views only
parse and answer; queries live in `app.api.services.people`.
"""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import people
from app.contract.roles import RoleListQuery, RolePage, RoleRead


@endpoint("GET", "/roles", summary="List roles", query=RoleListQuery, response=RolePage,
          tag="Roles")
def list_roles(session: Session, query: RoleListQuery, pages: Paginator) -> RolePage:
    """Job roles by name, optionally only those of one team (`team`)."""
    rows, cursor = people.list_roles(session, query=query, pages=pages)
    return RolePage(items=[people.role_read(r) for r in rows], cursor=cursor)


@endpoint("GET", "/roles/<role_id>", summary="Get a role", response=RoleRead,
          codes=["role-not-found"], tag="Roles")
def get_role(session: Session, role_id: uuid.UUID) -> RoleRead:
    """One job role with its team's name."""
    return people.role_read(people.get_role(session, role_id=role_id))
