"""Appointments on the wire: the Appointment resource, its bodies and list query, and slot search.

Shape only. Range checks (`negative-range`), overlaps (`appointment-overlap`), versions
(`version-conflict`) and the slot search itself belong to the API, never to these models, so that
each failure gets its own problem code.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    model_serializer,
)

from app.contract.common import (
    ApiModel,
    Id,
    ListQuery,
    NonEmptyStr,
    Omittable,
    OpenModel,
    Page,
    Timestamp,
    is_absent,
    wire_key,
)
from app.contract.skills import SkillRequirement

AppointmentStatus = Literal["upcoming", "occurred", "cancelled", "no-show", "re-scheduled"]
"""Where an appointment stands; a new appointment is `upcoming`."""

CANCELLATION_FIELDS: tuple[str, ...] = ("cancellation_date", "cancellation_reason")
"""Members an appointment carries only while its status is `cancelled`."""

_TYPE = "Company-specific appointment type label."
_MEMBER = "Who the appointment is with (for example a patient)."
_VERSION = "Optimistic-locking version; increases on every change."


class AppointmentRead(ApiModel):
    """A booked appointment of a provider.

    `cancellationDate` and `cancellationReason` are present (possibly null) only when the status
    is `cancelled`, and left out otherwise; `version` is left out only when unknown.
    """

    id: Id
    created_at: Timestamp
    type: str = Field(description=_TYPE)
    status: AppointmentStatus
    provider_id: Id
    member_id: str | None = Field(description=_MEMBER)
    start_date: Timestamp
    end_date: Timestamp
    actual_start_date: Timestamp | None
    actual_end_date: Timestamp | None
    location: str | None
    cancellation_date: Timestamp | None = Field(
        default=None, description="When it was cancelled; only present when status is cancelled."
    )
    cancellation_reason: str | None = Field(
        default=None, description="Why it was cancelled; only present when status is cancelled."
    )
    version: int | None = Field(default=None, exclude_if=is_absent, description=_VERSION)

    # No return annotation: pydantic would take it as the serialization schema of the whole model.
    @model_serializer(mode="wrap")
    def _omit_cancellation(
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ):
        data = handler(self)
        if self.status != "cancelled" and isinstance(data, dict):
            for name in CANCELLATION_FIELDS:
                data.pop(wire_key(type(self), name, info), None)
        return data


class AppointmentPage(Page[AppointmentRead]):
    """A page of appointments."""


class AppointmentListQuery(ListQuery):
    """Query of GET /v1/appointments."""

    team_id: Id | None = None
    provider_id: Id | None = None
    member_id: str | None = None
    start_date: Timestamp | None = Field(default=None, description="Appointments ending after.")
    end_date: Timestamp | None = Field(default=None, description="Appointments starting before.")
    status: AppointmentStatus | None = None
    type: str | None = Field(default=None, description=_TYPE)


class AppointmentCreate(ApiModel):
    """Body of POST /v1/appointments."""

    type: NonEmptyStr = Field(description=_TYPE)
    provider_id: Id
    start_date: Timestamp
    end_date: Timestamp
    created_at: Timestamp | None = Field(default=None, description="Defaults to now.")
    status: AppointmentStatus = "upcoming"
    member_id: str | None = Field(default=None, description=_MEMBER)
    actual_start_date: Timestamp | None = None
    actual_end_date: Timestamp | None = None
    location: str | None = None
    cancellation_date: Timestamp | None = None
    cancellation_reason: str | None = None


class AppointmentUpdate(ApiModel):
    """Body of PATCH /v1/appointments/{appointmentId}: members left out keep their value."""

    created_at: Omittable[Timestamp]
    type: Omittable[NonEmptyStr] = Field(description=_TYPE)
    status: Omittable[AppointmentStatus]
    provider_id: Omittable[Id]
    member_id: Id | None = Field(default=None, description=_MEMBER)
    start_date: Omittable[Timestamp]
    end_date: Omittable[Timestamp]
    actual_start_date: Timestamp | None = None
    actual_end_date: Timestamp | None = None
    location: str | None = None
    cancellation_date: Timestamp | None = None
    cancellation_reason: str | None = None
    version: Omittable[Annotated[int, Field(ge=0)]] = Field(
        description="The version being changed; an outdated one fails with `version-conflict`. "
                    "Left out, the change applies to the latest version.",
    )


class SlotCriteria(OpenModel):
    """Filters of a slot search; keys beyond these are allowed and ignored by this API."""

    provider_ids: list[str] | None = Field(
        default=None, description="Only these providers (hard) or preferably these (soft)."
    )
    skill: SkillRequirement | None = Field(
        default=None, description="Skills the provider must (hard) or should (soft) have."
    )


class SlotSearch(ApiModel):
    """Body of POST /v1/appointments/slots."""

    appointment_type_id: str = Field(min_length=1)
    start_date: Timestamp = Field(description="Earliest start of a slot.")
    end_date: Timestamp = Field(description="Latest end of a slot.")
    requirements: SlotCriteria | None = Field(default=None, description="Hard filters.")
    preferences: SlotCriteria | None = Field(default=None, description="Soft filters: raise score.")
    limit: int = Field(
        default=10,
        ge=1,
        le=200,
        description="Most slots returned. The upper bound of 200 is an extension.",
    )


class AppointmentSlot(ApiModel):
    """A free slot for an appointment type with one provider."""

    score: float = Field(description="Ranks slots against each other within one response only.")
    appointment_type_id: str
    start_date: Timestamp
    end_date: Timestamp
    provider_id: str


class SlotSearchResult(ApiModel):
    """Answer of POST /v1/appointments/slots: the best slots first."""

    results: list[AppointmentSlot]
