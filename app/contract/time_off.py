"""Time off on the wire: policies, requests, the (extension) request, approve and reject bodies,
the conflicts preview, and the list and count queries.

Shape only. Membership of a policy (`provider-not-in-policy`), state transitions and the shift
conflict strategies are applied by the API, never by these models.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    ConfigDict,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from app.contract.balances import AccrualSettingsRead
from app.contract.common import (
    EXTENSION,
    ApiModel,
    Count,
    DayTimestamp,
    Id,
    ListQuery,
    Page,
    Timestamp,
    is_absent,
    wire_key,
)
from app.contract.pay_codes import PayCodeRead
from app.contract.providers import ProviderRead
from app.contract.shifts import ShiftRead
from app.contract.users import UserRead

TimeOffPolicyType = Literal[
    "bereavement", "floating-holiday", "holiday-pay", "jury-duty", "learning-and-development",
    "paid-time-off", "vacation", "parental-leave", "personal-day", "sick", "volunteer", "weather",
    "wellness", "flex-day", "marriage-code", "unpaid-day", "absence", "custom",
]
"""The kind of leave a policy grants."""

AccrualUnit = Literal["hours", "days"]
"""Unit a policy accrues in."""

TimeOffRequestStatus = Literal[
    "pending", "approved", "rejected", "cancelled", "pending_sync", "sync_failed"
]
"""Where a time-off request stands."""

ConflictResolution = Literal[
    "delete", "deleteWithOpen", "callout", "calloutWithOpen", "keep", "keepWithOpen"
]
"""What approval does to the provider's overlapping shifts: delete them, mark them callouts, or
keep them; the `…WithOpen` variants also create an open copy of each."""

_CONFLICT_RESOLUTION = (
    "What approval does to overlapping shifts: delete them, mark them callouts, or keep them; "
    "the ...WithOpen variants also create an open copy of each."
)


class TimeOffPolicyRead(ApiModel):
    """A time-off policy providers can request leave under.

    `properties` is left out when the policy has none.
    """

    id: Id
    created_at: Timestamp
    type: TimeOffPolicyType
    name: str
    description: str | None
    accrual_unit: AccrualUnit | None
    pay_code_id: Id | None = Field(description="Pay code under which time off is paid out.")
    pay_code: PayCodeRead | None = None
    properties: dict[str, Any] | None = Field(
        default=None, exclude_if=is_absent, description="Policy settings; contents unspecified."
    )
    accrual: AccrualSettingsRead | None = Field(
        default=None, exclude_if=is_absent, json_schema_extra=EXTENSION,
        description="How the policy accrues and what it lets a provider use; left out when it "
        "keeps no balance (extension; set with PUT …/policies/{policyId}/accrual).")


class TimeOffPolicyPage(Page[TimeOffPolicyRead]):
    """A page of time-off policies."""


class TimeOffPolicyListQuery(ListQuery):
    """Query of GET /v1/time-off/policies."""


class DailyHours(ApiModel):
    """Hours off on one calendar day of a request."""

    date: DayTimestamp
    duration: float = Field(ge=0, le=24, description="Hours off that day.")


class TimeOffSyncStatus(ApiModel):
    """The latest sync of a request with an external system."""

    status: Literal["success", "failed"]
    message: str | None
    created_at: Timestamp


class TimeOffRequestRead(ApiModel):
    """A provider's request for time off under a policy.

    Left out when absent: `policy`, `provider` (unless embedded), `syncError` (present for
    `pending_sync` requests), `rejectedById` and `rejectedBy`; `rejectionReason` is present
    (possibly null) only when the status is `rejected`.
    """

    id: Id
    created_at: Timestamp
    status: TimeOffRequestStatus
    start_date: Timestamp
    end_date: Timestamp
    policy_id: Id
    policy: TimeOffPolicyRead | None = Field(default=None, exclude_if=is_absent)
    provider_id: Id
    provider: ProviderRead | None = Field(default=None, exclude_if=is_absent)
    note: str | None
    daily_hours: list[DailyHours] = Field(description="Hours off per day.")
    paid_hours: float = Field(description="Total hours paid out.")
    rejected_by_id: Id | None = Field(
        default=None, exclude_if=is_absent, description="Only for rejected requests."
    )
    rejected_by: UserRead | None = Field(
        default=None, exclude_if=is_absent, description="Only for rejected requests."
    )
    rejection_reason: str | None = Field(
        default=None, description="Only for rejected requests; null if none was given."
    )
    sync_error: TimeOffSyncStatus | None = Field(
        default=None,
        exclude_if=is_absent,
        description="Present for pending_sync requests: the latest external sync status.",
    )
    conflict_resolution: ConflictResolution | None = Field(
        default=None, description="The strategy chosen at approval. " + _CONFLICT_RESOLUTION
    )
    is_full_day: bool | None = Field(
        default=None,
        description=(
            "Whether whole calendar days are blocked rather than the dailyHours windows; null "
            "for older requests (full-day when the policy accrues in days)."
        ),
    )

    cancellation_requested_at: Timestamp | None = Field(
        default=None, json_schema_extra=EXTENSION,
        description="When the provider asked to cancel this approved request; a manager decides "
        "(`cancel`, or `decline-cancellation`). Null when no cancellation waits (extension).")
    cancellation_declined_at: Timestamp | None = Field(
        default=None, json_schema_extra=EXTENSION,
        description="When a manager declined the provider's latest request to cancel (the leave "
        "stayed approved); null when none was declined (extension).")
    cancellation_decline_reason: str | None = Field(
        default=None, json_schema_extra=EXTENSION,
        description="Why a manager declined the provider's latest request to cancel; null when "
        "none was declined or no reason was given (extension).")

    # No return annotation: pydantic would take it as the serialization schema of the whole model.
    @model_serializer(mode="wrap")
    def _omit_rejection_reason(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ):
        data = handler(self)
        if self.status != "rejected" and isinstance(data, dict):
            data.pop(wire_key(type(self), "rejection_reason", info), None)
        return data


class TimeOffRequestPage(Page[TimeOffRequestRead]):
    """A page of time-off requests."""


class TimeOffRequestCount(Count):
    """Answer of GET /v1/time-off/requests/count."""


class TimeOffRequestFilter(ApiModel):
    """Filters shared by GET /v1/time-off/requests and its count."""

    status: list[TimeOffRequestStatus] | None = Field(
        default=None, description="Only requests in these states; all when left out."
    )
    provider_id: Id | None = None
    policy_id: Id | None = None
    team_id: Id | None = None
    cancellation_requested: bool | None = Field(
        default=None, json_schema_extra=EXTENSION,
        description="Only requests whose provider's request to cancel waits for a decision "
        "(true), or only those without one (false) (extension).")
    start_date: Timestamp | None = Field(default=None, description="Requests ending after.")
    end_date: Timestamp | None = Field(default=None, description="Requests starting before.")


class TimeOffRequestListQuery(ListQuery, TimeOffRequestFilter):
    """Query of GET /v1/time-off/requests."""


class TimeOffRequestCreate(ApiModel):
    """Body of POST /v1/time-off/requests (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    policy_id: Id
    provider_id: Id | None = Field(
        default=None, description="Whose time off; defaults to the caller's own provider."
    )
    start_date: Timestamp
    end_date: Timestamp
    note: str | None = None
    is_full_day: bool | None = Field(
        default=None,
        description="Block whole days; when left out, full-day if the policy accrues in days.",
    )
    daily_hours: list[DailyHours] | None = Field(
        default=None, description="Hours off per day; computed from the range when left out."
    )


class TimeOffApprove(ApiModel):
    """Body of POST /v1/time-off/requests/{requestId}/approve (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    conflict_resolution: ConflictResolution = Field(description=_CONFLICT_RESOLUTION)


class TimeOffReject(ApiModel):
    """Body of POST /v1/time-off/requests/{requestId}/reject (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    rejection_reason: str | None = Field(default=None, description="Shown to the provider.")


class TimeOffDeclineCancellation(ApiModel):
    """Body of POST /v1/time-off/requests/{requestId}/decline-cancellation (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    reason: str | None = Field(default=None, max_length=500,
                               description="Shown to the provider; the leave stays approved.")


class TimeOffRequestConflicts(ApiModel):
    """Answer of GET /v1/time-off/requests/{requestId}/conflicts (extension): the provider's
    shifts that approval would act on, by start date."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    items: list[ShiftRead]
