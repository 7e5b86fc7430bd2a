"""Reading the audit trail: a page of events, newest first, filtered by actor, subject, record and
time. Recording lives in `app.api.audit`; nothing here writes.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.models import AuditEvent
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError
from app.contract.audit import AuditEventQuery
from app.contract.problems import ProblemCode


def list_audit_events(session: Session, *, actor: Actor, query: AuditEventQuery,
                      pages: Paginator) -> tuple[list[AuditEvent], str | None]:
    """One page of events, newest first. Needs `manage` AuditEvent. Raises `unauthorized`,
    `negative-range` (`to` not after `from`), `validation` (cursor)."""
    actor.require("manage", "AuditEvent")
    if query.from_ is not None and query.to is not None and query.to <= query.from_:
        raise ProblemError(ProblemCode.NEGATIVE_RANGE,
                           "`to` must come after `from`; swap them or widen the window.",
                           path="to")
    filters: list[ColumnElement[bool]] = []
    if query.actor_id is not None:
        filters.append(AuditEvent.actor_id == query.actor_id)
    if query.subject is not None:
        filters.append(AuditEvent.subject == query.subject)
    if query.record_id is not None:
        filters.append(AuditEvent.record_id == query.record_id)
    if query.from_ is not None:
        filters.append(AuditEvent.occurred_at >= query.from_)
    if query.to is not None:
        filters.append(AuditEvent.occurred_at < query.to)
    statement = select(AuditEvent).where(*filters)
    return pages.page(session, statement, scope="audit-events", query=query,
                      order=[SortKey(AuditEvent.occurred_at, descending=True),
                             SortKey(AuditEvent.id, descending=True)])


def deleted_records(session: Session, events: list[AuditEvent]) -> set[tuple[str, str]]:
    """The `(subject, record id)` of `events` whose record the trail shows deleted (one read,
    on the subject-and-record index)."""
    if not events:
        return set()
    rows = session.execute(
        select(AuditEvent.subject, AuditEvent.record_id)
        .where(AuditEvent.action == "delete",
               AuditEvent.record_id.in_({event.record_id for event in events})))
    wanted = {(event.subject, event.record_id) for event in events}
    return {(subject, record) for subject, record in rows if (subject, record) in wanted}
