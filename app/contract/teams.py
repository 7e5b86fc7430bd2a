"""Teams on the wire: the Team resource and its list query. Shape only."""

from __future__ import annotations

from app.contract.common import ApiModel, Id, ListQuery, Page, Timestamp


class TeamRead(ApiModel):
    """A team of providers, such as a ward or clinic."""

    id: Id
    created_at: Timestamp
    name: str
    shorthand_name: str | None = None


class TeamPage(Page[TeamRead]):
    """A page of teams."""


class TeamListQuery(ListQuery):
    """Query of GET /v1/teams."""
