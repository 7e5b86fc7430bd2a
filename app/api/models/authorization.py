"""Authorization: RBAC roles, their ordered permission rules, and which users hold which roles.

Rules are stored here and evaluated in `app.api.domain.ability`, whose lists of actions and
subjects the CHECK constraints below use (changing them needs a migration).
Mapped classes only; no rule evaluation, no Flask. Must not import `people`: a user knows the
roles it holds (`User.rbac_roles`), a role does not list its users, so the dependency runs one way.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Column, ForeignKey, Index, Table, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.domain.ability import ACTIONS as PERMISSION_ACTIONS
from app.api.domain.ability import SUBJECTS as PERMISSION_SUBJECTS
from app.api.models.common import one_of, utcnow

user_rbac_roles = Table(
    "user_rbac_roles",
    Base.metadata,
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("rbac_role_id", ForeignKey("rbac_roles.id", ondelete="CASCADE"), primary_key=True),
    Index(None, "rbac_role_id"),
)
"""Which user holds which RBAC role."""


class RbacRole(Base):
    """A named bundle of permission rules that users hold (Provider, Manager, Scheduler …)."""

    __tablename__ = "rbac_roles"
    __table_args__ = (UniqueConstraint("name"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    name: Mapped[str]
    description: Mapped[str | None]
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    permissions: Mapped[list[Permission]] = relationship(
        back_populates="rbac_role",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=lambda: (Permission.position, Permission.id),
        lazy="selectin",
    )


class Permission(Base):
    """One rule of a role: an action on a subject, optionally conditional or inverted."""

    __tablename__ = "permissions"
    __table_args__ = (
        one_of("action", PERMISSION_ACTIONS),
        one_of("subject", PERMISSION_SUBJECTS),
        Index(None, "rbac_role_id", "position"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    rbac_role_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("rbac_roles.id", ondelete="CASCADE"))
    action: Mapped[str]
    subject: Mapped[str]
    conditions: Mapped[Any | None] = mapped_column(JsonType)
    inverted: Mapped[bool] = mapped_column(default=False)
    error_message: Mapped[str | None]
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    position: Mapped[int] = mapped_column(default=0)

    rbac_role: Mapped[RbacRole] = relationship(back_populates="permissions")

    @property
    def rbac_role_name(self) -> str:
        """The name of the role holding the rule (load `rbac_role` with the rule in lists)."""
        return self.rbac_role.name
