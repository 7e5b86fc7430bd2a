"""Roles on the wire: the Role resource (a job role within a team) and its list query.

Not the RBAC roles of authorization (those group permission rules). Shape only.
"""

from __future__ import annotations

from pydantic import Field

from app.contract.common import ApiModel, HexColor, Id, ListQuery, Page, Timestamp


class RoleRead(ApiModel):
    """A job role of a team, such as "Nurse" in "Ward 3"."""

    id: Id
    created_at: Timestamp
    name: str
    team: Id = Field(description="Id of the team the role belongs to.")
    team_name: str
    hex_color: HexColor


class RolePage(Page[RoleRead]):
    """A page of roles."""


class RoleListQuery(ListQuery):
    """Query of GET /v1/roles."""

    team: Id | None = Field(default=None, description="Only roles of this team.")
