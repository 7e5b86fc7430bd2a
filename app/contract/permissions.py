"""Permission rules on the wire: the Permission resource, its (beta) conditions update, and the
effective rules a signed-in user holds.

Shape only: what a condition means and how it is evaluated belongs to the API's authorization
code, never to these models.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, Field

from app.contract.common import EXTENSION, ApiModel, Id, ListQuery, Page, Timestamp

PermissionAction = Literal["create", "view", "edit", "approve", "sign_off", "manage"]
"""What a rule allows; `manage` means any action."""

SPEC_SUBJECTS: tuple[str, ...] = (
    "AutoSchedulerJob", "BalanceReset", "DemandForecast", "Provider", "Report", "Shift", "Team",
    "Timecard", "TimeOffRequest", "TimeOffPolicy", "Timesheet",
)
EXTENSION_SUBJECTS: tuple[str, ...] = (
    "Appointment", "AppointmentType", "AuditEvent", "Availability", "Label", "Permission", "User",
    "WorkRule",
)

PermissionSubject = Literal[
    "AutoSchedulerJob", "BalanceReset", "DemandForecast", "Provider", "Report", "Shift", "Team",
    "Timecard", "TimeOffRequest", "TimeOffPolicy", "Timesheet",
    # Extensions (docs/architecture.md, "Authorization"):
    "Appointment", "AppointmentType", "AuditEvent", "Availability", "Label", "Permission", "User",
    "WorkRule",
]
"""What a rule is about: the spec's subjects plus the extensions listed in `EXTENSION_SUBJECTS`."""

_SUBJECT_DESCRIPTION = (
    "The resource kind the rule is about. "
    f"Extensions beyond the spec: {', '.join(EXTENSION_SUBJECTS)}."
)
_CONDITIONS_DESCRIPTION = (
    "A MongoDB-style query (`$eq $ne $in $nin $lt $lte $gt $gte $exists $and $or`) over the "
    'resource\'s fields, with placeholders "$user.id", "$user.providerId", "$user.teamIds"; '
    "null means the rule applies to every object."
)


class PermissionRead(ApiModel):
    """A permission rule as stored in an RBAC role."""

    id: Id
    action: PermissionAction
    subject: PermissionSubject = Field(description=_SUBJECT_DESCRIPTION)
    inverted: bool = Field(description="A matching inverted rule denies instead of allowing.")
    error_message: str | None = Field(
        description="Why an inverted rule denies; becomes the 403 problem's `reason`."
    )
    created_at: Timestamp
    conditions: Any = Field(default=None, description=_CONDITIONS_DESCRIPTION)
    rbac_role_id: Id | None = Field(
        default=None, json_schema_extra=EXTENSION, description="The RBAC role holding the rule.")
    rbac_role_name: str | None = Field(
        default=None, json_schema_extra=EXTENSION,
        description="That role's name: who the rule is for.")


class PermissionPage(Page[PermissionRead]):
    """A page of permission rules."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class PermissionListQuery(ListQuery):
    """Query of the permission list (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    subject: PermissionSubject | None = None


class PermissionUpdate(ApiModel):
    """Body of PATCH /v1/authorization/permissions/{permissionId} (beta): replace the conditions."""

    conditions: dict[str, Any] | None = Field(
        description=_CONDITIONS_DESCRIPTION
        + " The spec types this member as any value; this API takes an object or null."
    )


class PermissionRule(ApiModel):
    """One effective rule of the signed-in user, as the UI uses it to show only allowed actions."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    action: PermissionAction
    subject: PermissionSubject = Field(description=_SUBJECT_DESCRIPTION)
    conditions: Any = Field(description=_CONDITIONS_DESCRIPTION)
    inverted: bool
    error_message: str | None


class PermissionDryRun(ApiModel):
    """Body of POST /v1/authorization/permissions/{permissionId}/dry-run (extension): the
    conditions to try, and for whom."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    user_id: Id = Field(description="The user whose access to compare.")
    conditions: dict[str, Any] | None = Field(
        description=_CONDITIONS_DESCRIPTION + " Checked exactly as the PATCH checks them."
    )


class DryRunRecord(ApiModel):
    """One record of the rule's subject, named for people."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    id: Id
    label: str = Field(description="Who or what the record is (a name, or a kind of record).")
    starts_at: Timestamp | None = Field(
        default=None, description="When the record starts, for records that have a time.")


class DryRunCount(ApiModel):
    """How many records, and the first few in a stable order (by time, else by name, then id)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    count: int | None = Field(ge=0, description="null when the subject has no records to count.")
    sample: list[DryRunRecord] = Field(description="At most 5 of them.")


class PermissionDryRunRead(ApiModel):
    """What a user could do under a rule's proposed conditions compared with today's; nothing
    is saved."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    permission_id: Id
    user_id: Id
    action: PermissionAction
    subject: PermissionSubject = Field(description=_SUBJECT_DESCRIPTION)
    holds_rule: bool = Field(
        description="Whether the user holds the rule's RBAC role; when not, nothing changes.")
    reason: str | None = Field(
        description="Why the counts are null or cannot change (an administrator, a dismissed "
                    "user, a subject without records).")
    current: DryRunCount = Field(description="Records the user may act on today.")
    proposed: DryRunCount = Field(description="Records the user could act on after the change.")
    gained: DryRunCount = Field(description="Records only the proposed conditions allow.")
    lost: DryRunCount = Field(description="Records only today's conditions allow.")
