"""Permission rules: `GET /v1/authorization/permissions` and
`GET /v1/authorization/permissions/{permissionId}` (both extensions), and
`PATCH /v1/authorization/permissions/{permissionId}` (beta) replacing a rule's conditions, and
`POST /v1/authorization/permissions/{permissionId}/dry-run` (extension) previewing such a change
for one user.

Readable by whoever may view the `Permission` subject, editable by whoever may edit it (admins,
in the standard roles). Queries live in `app.api.services.permissions`.
"""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import permission_dry_run as dry_run_service
from app.api.services import permissions as permission_service
from app.contract.permissions import (
    PermissionDryRun,
    PermissionDryRunRead,
    PermissionListQuery,
    PermissionPage,
    PermissionRead,
    PermissionUpdate,
)


@endpoint("GET", "/authorization/permissions", summary="List permission rules",
          query=PermissionListQuery, response=PermissionPage,
          extension=True, tag="Authorization",
          permits=[("view", "Permission")])
def list_permissions(
    session: Session, actor: Actor, query: PermissionListQuery, pages: Paginator
) -> PermissionPage:
    """Permission rules role by role, each role's rules in evaluation order; filter: `subject`."""
    rows, cursor = permission_service.list_permissions(session, actor=actor, query=query,
                                                       pages=pages)
    return PermissionPage(items=[PermissionRead.model_validate(p) for p in rows], cursor=cursor)


@endpoint("GET", "/authorization/permissions/<permission_id>", summary="Get a permission rule",
          response=PermissionRead, codes=["permission-not-found"],
          extension=True, tag="Authorization",
          permits=[("view", "Permission")])
def get_permission(session: Session, actor: Actor, permission_id: uuid.UUID) -> PermissionRead:
    """One permission rule."""
    permission = permission_service.get_permission(session, actor=actor,
                                                   permission_id=permission_id)
    return PermissionRead.model_validate(permission)


@endpoint("PATCH", "/authorization/permissions/<permission_id>",
          summary="Update a permission rule's conditions (beta)", body=PermissionUpdate,
          response=PermissionRead, codes=["permission-not-found"], tag="Authorization",
          locate=permission_service.locate_permission,
          permits=[("edit", "Permission")])
def update_permission(session: Session, actor: Actor, permission_id: uuid.UUID,
                      body: PermissionUpdate) -> PermissionRead:
    """Replace the rule's conditions; they apply from the next request on.

    Conditions may name only the fields of the rule's subject; each mistake is listed in
    `errors` with its JSON Pointer under `/conditions`.
    """
    permission = permission_service.update_permission(session, actor=actor,
                                                      permission_id=permission_id, body=body)
    return PermissionRead.model_validate(permission)


@endpoint("POST", "/authorization/permissions/<permission_id>/dry-run",
          summary="Preview a change of a rule's conditions for one user",
          body=PermissionDryRun, response=PermissionDryRunRead,
          codes=["permission-not-found", "user-not-found"],
          extension=True, tag="Authorization", read_only=True,
          locate=permission_service.locate_permission,
          permits=[("edit", "Permission")])
def dry_run_permission(session: Session, actor: Actor, permission_id: uuid.UUID,
                       body: PermissionDryRun) -> PermissionDryRunRead:
    """Count the records of the rule's subject the user may act on (the rule's action) today
    and under the proposed conditions, with the first few of each and of those gained and lost.

    Conditions are checked exactly as the PATCH checks them (paths under `/conditions`). Nothing
    is saved. Subjects without stored records answer `count: null` with a `reason`.
    """
    return dry_run_service.dry_run_permission(session, actor=actor,
                                              permission_id=permission_id, body=body)
