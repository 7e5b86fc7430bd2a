"""Appointment types on the wire: the AppointmentType resource and its create and update bodies.

Shape only. Archived types (DELETE archives) are not listed, so the list query has no archive flag;
they stay readable by id, where `archived` (extension) tells them apart.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from app.contract.common import (
    EXTENSION,
    ApiModel,
    Id,
    ListQuery,
    NonEmptyStr,
    Omittable,
    OpenModel,
    Page,
)
from app.contract.skills import SkillRequirement

TypeName = Annotated[NonEmptyStr, Field(min_length=2)]
"""Name of an appointment type on write: at least two characters."""

Length = Annotated[int, Field(ge=5, le=1440, description="Duration in minutes, 5 to 1440.")]
"""Length of an appointment type on write."""

_ALLOWED_ROLES = "Ids of the roles allowed to take this appointment type; null means any role."
_SKILL_REQUIREMENT = "Skills a provider needs for this type; null means none."


class AppointmentTypeRead(OpenModel):
    """A kind of appointment with a fixed length; may carry properties the spec does not list."""

    id: Id
    name: str
    length: int = Field(description="Duration in minutes.")
    allowed_roles: list[Id] | None = Field(description=_ALLOWED_ROLES)
    skill_requirement: SkillRequirement | None = Field(default=None, description=_SKILL_REQUIREMENT)
    archived: bool = Field(
        default=False,
        description="Whether the type was archived (DELETE): hidden from lists, still readable "
        "by id.",
        json_schema_extra=EXTENSION,
    )


class AppointmentTypePage(Page[AppointmentTypeRead]):
    """A page of appointment types."""


class AppointmentTypeListQuery(ListQuery):
    """Query of GET /v1/appointment-types (archived types are never listed)."""


class AppointmentTypeCreate(ApiModel):
    """Body of POST /v1/appointment-types."""

    name: TypeName
    length: Length
    allowed_roles: list[Id] | None = Field(default=None, description=_ALLOWED_ROLES)
    skill_requirement: SkillRequirement | None = Field(default=None, description=_SKILL_REQUIREMENT)


class AppointmentTypeUpdate(ApiModel):
    """Body of PATCH /v1/appointment-types/{appointmentTypeId}: left-out members stay unchanged."""

    name: Omittable[TypeName]
    length: Omittable[Length]
    allowed_roles: list[Id] | None = Field(default=None, description=_ALLOWED_ROLES)
    skill_requirement: SkillRequirement | None = Field(default=None, description=_SKILL_REQUIREMENT)
