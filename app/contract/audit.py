"""The audit trail on the wire (extension): `GET /v1/audit-events`, its query and its events.

Shape only: what is recorded and who may read it are decided in `app.api`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from app.contract.common import EXTENSION, ApiModel, Id, ListQuery, Page, Timestamp

AuditAction = Literal["create", "edit", "delete"]

AuditSubject = Literal[
    "Appointment", "AppointmentType", "BalanceReset", "EmploymentType", "Label", "PayCode",
    "Permission", "Provider", "Punch", "RbacRole", "Role", "Shift", "Team", "TimeOffPolicy",
    "TimeOffRequest", "Timecard", "Timesheet", "User", "WorkRule",
]
"""What an event is about: the permission subject of the record where there is one (`Punch` for
a timecard punch, `Timesheet` for a sign-off, `RbacRole` for a role of permissions)."""

AUDIT_SUBJECTS: tuple[str, ...] = AuditSubject.__args__  # type: ignore[attr-defined]

_EXAMPLE = {
    "id": "3f2a9c1e-7b4d-4e8f-a1c2-9d8e7f6a5b4c",
    "occurredAt": "2026-03-02T14:05:09+0000",
    "actorId": "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
    "actorName": "Morgan Manager",
    "subject": "Shift",
    "recordId": "0b7c43a2-6a51-4a8e-9a35-4d3c8a7e2f10",
    "action": "edit",
    "changes": {"note": {"before": None, "after": "Covering for Sam"},
                "endDate": {"before": "2026-03-03T15:00:00+00:00",
                            "after": "2026-03-03T16:00:00+00:00"}},
    "requestId": None,
}


class AuditChange(ApiModel):
    """One field's value before and after the write (null when it had none). A folded child
    list (a shift's `segments`) lists the child rows removed or changed (before) and added or
    changed (after)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    before: Any = None
    after: Any = None


class AuditEventRead(ApiModel):
    """Who created, edited or deleted which record, when, and what changed."""

    model_config = ConfigDict(json_schema_extra={**EXTENSION, "examples": [_EXAMPLE]})

    id: Id
    occurred_at: Timestamp
    actor_id: Id | None = Field(description="The user who wrote it; null for the system.")
    actor_name: str | None = Field(description="The user's name when they wrote it.")
    subject: str = Field(description="What the record is: one of the subjects `subject` takes.")
    record_id: str = Field(description="The record's id.")
    action: AuditAction
    changes: dict[str, AuditChange] = Field(
        description="Each changed field by its wire name. Instants are ISO 8601 in UTC; "
                    "ids and decimals are strings. A creation lists every field set, a "
                    "deletion every field it had.")
    request_id: str | None = Field(
        description="The `X-Request-Id` the writing request carried, if any.")
    record_deleted: bool = Field(
        default=False,
        description="Whether the record has been deleted since: the trail holds its "
                    "deletion (the record's own page no longer exists).")


class AuditEventPage(Page[AuditEventRead]):
    """A page of audit events, newest first (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class AuditEventQuery(ListQuery):
    """Query of GET /v1/audit-events: events of one actor, subject and record when given, that
    occurred in `[from, to)` (either bound may be left out), newest first."""

    actor_id: Id | None = None
    subject: AuditSubject | None = None
    record_id: str | None = Field(default=None, min_length=1, max_length=80)
    from_: Timestamp | None = Field(default=None, alias="from")
    to: Timestamp | None = None
