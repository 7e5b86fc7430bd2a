"""The audit trail (extension): `GET /v1/audit-events`.

A thin view over `app.api.services.audit`; events are recorded by `app.api.audit`. Must not
hold business rules or SQL.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import audit as service
from app.contract.audit import AuditEventPage, AuditEventQuery, AuditEventRead


@endpoint("GET", "/audit-events", summary="List audit events", query=AuditEventQuery,
          response=AuditEventPage, codes=["validation", "unauthorized", "negative-range"],
          extension=True, tag="Audit", permits=[("manage", "AuditEvent")])
def list_audit_events(session: Session, actor: Actor, query: AuditEventQuery,
                      pages: Paginator) -> AuditEventPage:
    """What was written through `/v1`, newest first: for each record created, edited or
    deleted, who (`actorId`, and `actorName` as it was then), when, the record's `subject` and
    `recordId`, and `changes`, each changed field's value before and after by its wire name;
    `recordDeleted` says whether the trail holds the record's deletion since.
    Child rows are folded into their parent (a shift's `segments` and `payCodes`, a time-off
    request's `days`). Events are written in the same transaction as the change they
    describe, so a write that failed has none.

    Filters: `actorId`, `subject`, `recordId`, and `[from, to)` (either bound may be left
    out). Needs `manage` AuditEvent (administrators)."""
    rows, cursor = service.list_audit_events(session, actor=actor, query=query, pages=pages)
    deleted = service.deleted_records(session, rows)
    return AuditEventPage(
        items=[AuditEventRead.model_validate(row).model_copy(
            update={"record_deleted": (row.subject, row.record_id) in deleted})
               for row in rows],
        cursor=cursor)
