"""Providers on the wire: the Provider resource, the provider with relations, and the list query.

The spec lists several required provider members without types; the types chosen here are the
API's decision and are described on each field. Shape only: no visibility rules.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from app.contract.common import EXTENSION, ApiModel, Count, Id, ListQuery, Page, Timestamp
from app.contract.users import EmploymentStatus

_UNTYPED = " (The spec does not give this member's type; this is the API's choice.)"


class PayPeriodTemplate(ApiModel):
    """How a provider's pay periods repeat; timecards follow it."""

    type: Literal["weekly", "biweekly"]
    start_date: Timestamp = Field(description="Start of the first pay period.")


class ProviderRead(ApiModel):
    """A schedulable member of staff."""

    id: Id
    name: str | None
    email: str
    hire_date: Timestamp | None
    job_title: str | None
    status: EmploymentStatus
    team_id: Id | None
    licensed_regions: list[str]
    employment_type: Id | None = Field(description="Id of the provider's employment type.")
    pay_period_template: PayPeriodTemplate | None = Field(
        description="The provider's pay-period pattern; null when not set." + _UNTYPED
    )
    imported_id: str | None = Field(description="Id in an external system." + _UNTYPED)
    last_synced_at: Timestamp | None = Field(
        description="Last sync with an external system." + _UNTYPED
    )
    personal_info: dict[str, Any] | None = Field(
        description="Free-form personal details." + _UNTYPED
    )
    daily_hours: float | None = Field(description="Usual working hours per day." + _UNTYPED)
    min_weekly_hours: float | None = Field(description="Fewest hours per week." + _UNTYPED)
    max_weekly_hours: float | None = Field(description="Most hours per week." + _UNTYPED)
    region: str | None = Field(description="Region the provider works in." + _UNTYPED)
    national_provider_identifier: str | None = Field(description="NPI number." + _UNTYPED)
    additional_info: dict[str, Any] | None = Field(
        description="Free-form extra details." + _UNTYPED
    )
    custom_fields: dict[str, Any] = Field(
        description="Company-defined fields by name." + _UNTYPED
    )


class ProviderEnrollment(ApiModel):
    """An enrollment (for example with a payer) a provider holds."""

    id: Id
    name: str


class ProviderSkill(ApiModel):
    """The values a provider has for one skill."""

    skill_name: str
    values: list[str]


class ProviderManager(ApiModel):
    """The provider's manager."""

    id: Id
    name: str | None


class ProviderTeam(ApiModel):
    """The provider's team, named."""

    id: Id
    name: str
    shorthand_name: str | None


class ProviderRole(ApiModel):
    """A role the provider holds, named (extension)."""

    id: Id
    name: str


class ProviderWithRelations(ProviderRead):
    """A provider with its enrollments, skills, manager, team and the roles they hold."""

    enrollments: list[ProviderEnrollment]
    skills: list[ProviderSkill]
    skill_licensed_region: list[str]
    skill_enrollment: list[str]
    manager: ProviderManager | None
    team: ProviderTeam | None
    roles: list[ProviderRole] = Field(
        default_factory=list, json_schema_extra=EXTENSION,
        description="The roles the provider holds, by name: open shifts are offered to, and "
        "claimed by, holders of their roles only (extension).")


class ProviderPage(Page[ProviderRead]):
    """A page of providers."""


class ProviderWithRelationsPage(Page[ProviderWithRelations]):
    """A page of providers with their relations."""


class ProviderCount(Count):
    """Answer of GET /v1/providers/count."""


class ProviderFilter(ApiModel):
    """Filters shared by GET /v1/providers and GET /v1/providers/count."""

    team_id: Id | None = None
    status: list[EmploymentStatus] = Field(
        default_factory=lambda: ["onboarding", "active"],
        description="Only providers in these states (default as for users: onboarding, active).",
    )
    name: str | None = Field(
        default=None, max_length=50, description="Case-insensitive partial match on the name."
    )


class ProviderListQuery(ListQuery, ProviderFilter):
    """Query of GET /v1/providers."""
