"""Users on the wire: the User resource, its list query, and the signed-in user (`/v1/users/me`).

Also home of `EmploymentStatus`, which providers share. Shape only: who may see which user is the
API's business.
"""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from app.contract.common import EXTENSION, ApiModel, Id, ListQuery, Page
from app.contract.permissions import PermissionRule

UserType = Literal["user", "bot"]
"""A person (`user`) or an API client (`bot`)."""

EmploymentStatus = Literal["onboarding", "active", "dismissed", "unmanaged"]
"""Employment state of a user or provider."""


class UserRead(ApiModel):
    """A user: a person or bot that can sign in; the id equals its provider's id, if any."""

    id: Id
    type: UserType
    name: str
    email: str
    status: EmploymentStatus
    is_admin: bool = Field(description="Administrators may do everything.")


class UserPage(Page[UserRead]):
    """A page of users."""


class UserListQuery(ListQuery):
    """Query of GET /v1/users."""

    type: list[UserType] = Field(default_factory=lambda: ["user"])
    status: list[EmploymentStatus] = Field(default_factory=lambda: ["onboarding", "active"])
    name: str | None = Field(
        default=None, max_length=50, description="Case-insensitive partial match on the name."
    )


class UserMe(UserRead):
    """The signed-in user with what the UI needs to show only allowed actions (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider_id: Id | None = Field(description="The user's provider id; null if not a provider.")
    team_ids: list[Id] = Field(description="Teams the user manages plus the user's own team.")
    roles: list[str] = Field(description="Names of the RBAC roles the user holds.")
    permissions: list[PermissionRule] = Field(description="The user's effective permission rules.")
    unread_notifications: int = Field(default=0, ge=0, description="How many of the user's "
                                      "notifications are unread (the bell's count).")
