"""RFC 9457 problem details and the registry of every error code the /v1 API can answer.

Each code has a fixed status, title and extension members (from the spec's Errors section; codes
the spec lacks are marked `extension`). The registry feeds the API's error rendering, the
`/v1/errors` page, the OpenAPI document and the client's exception mapping.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import Field

from app.contract.common import ApiModel, OpenModel


@dataclass(frozen=True)
class CodeInfo:
    """What a problem code means on the wire."""

    status: int
    title: str
    members: dict[str, str] = field(default_factory=dict)  # name -> JSON type (suffix ? = optional)
    extension: bool = False


_NOT_FOUND = [
    "appointment", "appointment-type", "auto-scheduler-job", "auto-scheduler-snapshot",
    "availability-exception", "availability", "balance-reset-upload", "conversation",
    "data-source", "help-article", "help-collection", "help-draft", "integration", "label",
    "message", "notification", "overtime-rule", "pay-code", "pay-period", "policy",
    "policy-relationship", "provider", "punch-warnings", "rbac-role", "recurring-schedule",
    "report", "report-run", "role", "rounding-rule", "schedule-group", "shift",
    "shift-swap-application", "shift-swap-listing", "skill-assignment", "skill",
    "skill-requirement-template", "team", "time-off-policy", "time-off-request", "timecard",
    "timecard-punch", "user", "vacation-bid", "vacation-bid-period", "webhook", "work-rule",
]

REGISTRY: dict[str, CodeInfo] = {
    # 400
    "batch-size-exceeded": CodeInfo(
        400, "Batch size exceeded", {"batchSize": "number", "maxBatchSize": "number"}
    ),
    "inactive-integration": CodeInfo(400, "Integration inactive"),
    "invalid-balance-reset-rows": CodeInfo(400, "Invalid balance reset rows"),
    "invalid-punch-action": CodeInfo(400, "Invalid punch action"),
    "missing-historical-correction-acknowledgement": CodeInfo(
        400, "Historical correction acknowledgement required"
    ),
    "negative-range": CodeInfo(400, "End must come after start", {"path": "string?"}),
    "provider-not-in-policy": CodeInfo(400, "Provider not in time off policy"),
    "read-only-field": CodeInfo(400, "Read-only field", {"paths": "string[]"}),
    "recurring-schedule-closed": CodeInfo(400, "Recurring schedule closed"),
    "report-parameter-validation": CodeInfo(
        400, "Report parameter invalid", {"path": "string?", "message": "string"}
    ),
    "external-validation": CodeInfo(
        400, "Rejected by an external system", {"message": "string", "errorCode": "string?"}
    ),
    "skill-assignment-overlap": CodeInfo(400, "Skill assignment overlap"),
    "validation": CodeInfo(
        400, "Invalid input", {"path": "string?", "message": "string", "errors": "object[]?"}
    ),
    # 401 (extension: the spec names no code for a missing token)
    "unauthenticated": CodeInfo(401, "Authentication required", extension=True),
    # 403
    "unauthorized": CodeInfo(
        403, "Not allowed", {"action": "string", "resource": "string", "reason": "string?"}
    ),
    "download-link-invalid": CodeInfo(403, "Download link invalid or expired", extension=True),
    # 404
    **{f"{name}-not-found": CodeInfo(404, f"{name.replace('-', ' ').capitalize()} not found")
       for name in _NOT_FOUND},
    "no-assigned-team": CodeInfo(404, "No assigned team"),
    # Extensions: the spec has these reads but no code for their missing objects.
    "employment-type-not-found": CodeInfo(404, "Employment type not found", extension=True),
    "permission-not-found": CodeInfo(404, "Permission not found", extension=True),
    "timesheet-sign-off-not-found": CodeInfo(404, "Timesheet sign-off not found",
                                             extension=True),
    "route-not-found": CodeInfo(404, "No such endpoint", extension=True),
    # 405, 413, 415 (extensions: transport-level problems under /v1)
    "method-not-allowed": CodeInfo(405, "Method not allowed", {"allowed": "string[]"}, True),
    "payload-too-large": CodeInfo(413, "Request body too large", {"maxBytes": "number"}, True),
    "unsupported-media-type": CodeInfo(415, "Unsupported media type", extension=True),
    # 409
    "duplicate-help-path": CodeInfo(409, "Duplicate help path", {"fullPath": "string"}),
    "duplicate-shift-template": CodeInfo(409, "Duplicate shift template"),
    "duplicate-skill": CodeInfo(409, "Duplicate skill"),
    "duplicate-skill-collection": CodeInfo(409, "Duplicate skill collection"),
    "duplicate-skill-value": CodeInfo(409, "Duplicate skill value"),
    "email-in-use": CodeInfo(409, "Email in use"),
    "policy-relationship-already-exists": CodeInfo(409, "Policy relationship already exists"),
    "shift-already-claimed": CodeInfo(409, "Shift already claimed"),
    "shift-already-started": CodeInfo(409, "Shift already started"),
    "shift-claim-window-closed": CodeInfo(
        409,
        "Shift claim window closed",
        {"shiftId": "string", "minimumNoticeMinutes": "integer", "startsAt": "timestamp"},
    ),
    "shift-missing-skills": CodeInfo(
        409, "Missing skills for shift", {"shiftId": "string", "missingSkills": "object[]"}
    ),
    "shift-schedule-conflict": CodeInfo(
        409, "Shift schedule conflict", {"shiftId": "string", "conflicts": "object[]"}
    ),
    "version-conflict": CodeInfo(409, "Version conflict", {"currentVersion": "integer"}),
    "appointment-overlap": CodeInfo(
        409, "Appointment overlaps another", {"conflicts": "object[]"}, extension=True
    ),
    "invalid-state-transition": CodeInfo(
        409, "Not allowed in the current state", {"currentState": "string"}, extension=True
    ),
    "time-off-request-overlap": CodeInfo(
        409, "Time off already requested", {"conflicts": "object[]"}, extension=True
    ),
    "time-off-already-started": CodeInfo(
        409, "Time off already started", {"startDate": "timestamp"}, extension=True
    ),
    "shift-role-not-held": CodeInfo(
        409, "Shift needs a role the provider does not hold",
        {"shiftId": "string", "roles": "object[]"}, extension=True
    ),
    "shift-time-off-conflict": CodeInfo(
        409, "Shift falls in approved time off", {"shiftId": "string", "timeOff": "object[]"},
        extension=True
    ),
    "timesheet-not-ready": CodeInfo(
        409, "Timesheet not ready for sign-off", {"blocking": "object[]"}, extension=True
    ),
    "timesheet-signed-off": CodeInfo(
        409, "Timesheet signed off", {"signOffId": "string"}, extension=True
    ),
    "rule-in-use": CodeInfo(
        409, "Rule in use", {"workRuleIds": "string[]"}, extension=True
    ),
    "work-rule-override-conflict": CodeInfo(
        409, "Work rule override conflicts with the team's rule", {"differs": "string[]"},
        extension=True
    ),
    "insufficient-balance": CodeInfo(
        409, "Time-off balance too low",
        {"policyId": "string", "needed": "string", "available": "string", "unit": "string"},
        extension=True
    ),
    "annual-use-limit-reached": CodeInfo(
        409, "Annual time-off use limit reached",
        {"policyId": "string", "needed": "string", "available": "string", "unit": "string"},
        extension=True
    ),
    "waiting-period": CodeInfo(
        409, "Inside the policy's waiting period", {"policyId": "string", "eligibleFrom": "string"},
        extension=True
    ),
    # Shift swaps (extension): refusals beyond the claim rules, which swaps share.
    "shift-swap-not-own-shift": CodeInfo(
        409, "Not your shift to list", {"shiftId": "string"}, extension=True
    ),
    "shift-swap-already-listed": CodeInfo(
        409, "Shift already listed for a swap", {"listingId": "string"}, extension=True
    ),
    "shift-swap-listing-closed": CodeInfo(
        409, "Swap listing no longer open", {"listingId": "string", "listingStatus": "string"},
        extension=True
    ),
    "shift-swap-own-listing": CodeInfo(
        409, "Cannot apply to your own listing", {"listingId": "string"}, extension=True
    ),
    "shift-swap-already-applied": CodeInfo(
        409, "Already applied to this listing", {"applicationId": "string"}, extension=True
    ),
    "shift-swap-shift-changed": CodeInfo(
        409, "Shift changed since it was offered",
        {"shiftId": "string", "offeredVersion": "integer", "currentVersion": "integer"},
        extension=True
    ),
    "shift-swap-unavailable": CodeInfo(
        409, "Shift falls in unavailable time", {"shiftId": "string", "windows": "object[]"},
        extension=True
    ),
    "shift-swap-max-weekly-hours": CodeInfo(
        409, "Shift would pass the weekly hours limit",
        {"shiftId": "string", "maxWeeklyHours": "number", "scheduledHours": "number",
         "weekStart": "string"},
        extension=True
    ),
    # 429 / 500 / 503
    "rate-limited": CodeInfo(429, "Too many requests", {"retryAfter": "integer"}, True),
    "internal-error": CodeInfo(500, "Internal error", extension=True),
    "maintenance-mode": CodeInfo(503, "Read-only for maintenance"),
}

ProblemCode = StrEnum("ProblemCode", {k.upper().replace("-", "_"): k for k in REGISTRY})
"""One member per documented error code, e.g. `ProblemCode.SHIFT_SCHEDULE_CONFLICT`."""


class FieldError(ApiModel):
    """One failed input: where (JSON pointer or query parameter name) and why."""

    path: str
    message: str


class Problem(OpenModel):
    """An RFC 9457 problem document; the code's extension members ride along as extra keys."""

    type: str
    title: str
    status: int
    detail: str | None = None
    instance: str | None = None
    errors: list[FieldError] | None = Field(default=None)

    @property
    def code(self) -> str:
        """The error code: the fragment of `type`."""
        return self.type.rpartition("#")[2]

    @property
    def extensions(self) -> dict[str, Any]:
        """The members beyond RFC 9457's own."""
        return dict(self.model_extra or {})
