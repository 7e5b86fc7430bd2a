"""Labels on the wire: the Label resource (tags on shift segments) and its create and update bodies.

Shape only; label names need not be unique (the spec does not say so).
"""

from __future__ import annotations

from pydantic import Field

from app.contract.common import (
    ApiModel,
    HexColor,
    Id,
    ListQuery,
    NonEmptyStr,
    Omittable,
    Page,
    Timestamp,
)

DEFAULT_LABEL_COLOR = "#6B7280"
"""Colour of a label created without one (the spec requires a colour on reads only)."""


class LabelRead(ApiModel):
    """A label that can be put on shift segments."""

    id: Id
    created_at: Timestamp
    updated_at: Timestamp
    name: str
    description: str | None
    color: HexColor


class LabelTeamUsage(ApiModel):
    """How many shifts of one team carry a label (`teamId` null: shifts of no team)."""

    team_id: Id | None
    team_name: str | None
    shift_count: int


class LabelUsage(ApiModel):
    """Where a label is in use (extension): the shifts whose segments carry it, by team."""

    label_id: Id
    shift_count: int = Field(description="Shifts with at least one segment carrying the label.")
    upcoming_shift_count: int = Field(description="Of those, the shifts that have not ended.")
    teams: list[LabelTeamUsage] = Field(description="The shifts by team, most shifts first.")


class LabelPage(Page[LabelRead]):
    """A page of labels."""


class LabelListQuery(ListQuery):
    """Query of GET /v1/settings/labels."""


class LabelCreate(ApiModel):
    """Body of POST /v1/settings/labels."""

    name: NonEmptyStr
    description: str | None = Field(
        default=None, description="Free text; null or left out means no description."
    )
    color: HexColor = Field(
        default=DEFAULT_LABEL_COLOR, description="Hex colour with a leading `#`."
    )


class LabelUpdate(ApiModel):
    """Body of PUT /v1/settings/labels/{labelId}: members left out keep their value."""

    name: Omittable[NonEmptyStr]
    description: str | None = None
    color: Omittable[HexColor]
