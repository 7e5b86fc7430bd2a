"""Teams on the wire: the Team resource and its list query. Shape only."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from app.contract.common import EXTENSION, ApiModel, Id, ListQuery, Omittable, Page, Timestamp


class TeamRead(ApiModel):
    """A team of providers, such as a ward or clinic."""

    id: Id
    created_at: Timestamp
    name: str
    shorthand_name: str | None = None
    work_rule_id: Id | None = Field(
        default=None, json_schema_extra=EXTENSION,
        description="The team's work rule (extension; overtime, rounding, meals); null: every "
                    "worked minute is regular.")
    swaps_need_approval: bool = Field(
        default=True, json_schema_extra=EXTENSION,
        description="Whether a shift swap its lister accepted waits for a manager (extension); "
                    "false hands the shifts over at acceptance.")


class TeamPage(Page[TeamRead]):
    """A page of teams."""


class TeamListQuery(ListQuery):
    """Query of GET /v1/teams."""


class TeamUpdate(ApiModel):
    """Body of PATCH /v1/teams/{teamId} (extension): the team's settings."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    swaps_need_approval: Omittable[bool]
