"""Teams on the wire: the Team resource and its list query. Shape only."""

from __future__ import annotations

from pydantic import Field

from app.contract.common import EXTENSION, ApiModel, Id, ListQuery, Page, Timestamp


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


class TeamPage(Page[TeamRead]):
    """A page of teams."""


class TeamListQuery(ListQuery):
    """Query of GET /v1/teams."""
