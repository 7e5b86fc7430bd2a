"""People and organisation: teams, job roles, employment types, users, providers, API tokens.

A provider *is* a user: `Provider.id` is also a foreign key to `users.id`; not every user is a
provider. Mapped classes only; no queries, no rules, no Flask.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Column, ForeignKey, Index, Table, UniqueConstraint, text, true
from sqlalchemy.orm import Mapped, mapped_column, relationship, validates

from app.api.db import Base, JsonType, UtcDateTime, new_id
from app.api.models.authorization import RbacRole, user_rbac_roles
from app.api.models.common import one_of, utcnow

USER_TYPES = ("user", "bot")
EMPLOYMENT_STATUSES = ("onboarding", "active", "dismissed", "unmanaged")
EMPLOYMENT_KINDS = ("contractor", "employee")
COMPENSATION_TIME_PERIODS = ("hourly", "salaried")
AMOUNTS_WORKED = ("part_time", "full_time", "temporary")

team_managers = Table(
    "team_managers",
    Base.metadata,
    Column("user_id", ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    Column("team_id", ForeignKey("teams.id", ondelete="CASCADE"), primary_key=True),
    Index(None, "team_id"),
)
"""Who manages which team (a manager may manage several teams)."""

provider_roles = Table(
    "provider_roles",
    Base.metadata,
    Column("provider_id", ForeignKey("providers.id", ondelete="CASCADE"), primary_key=True),
    Column("role_id", ForeignKey("roles.id", ondelete="CASCADE"), primary_key=True),
    Index(None, "role_id"),
)
"""The roles granted each provider (with their default role, the roles they hold): what they may
work, and so which open shifts they may claim."""

provider_enrollments = Table(
    "provider_enrollments",
    Base.metadata,
    Column("provider_id", ForeignKey("providers.id", ondelete="CASCADE"), primary_key=True),
    Column("enrollment_id", ForeignKey("enrollments.id", ondelete="CASCADE"), primary_key=True),
    Index(None, "enrollment_id"),
)
"""Which provider holds which enrollment."""


class Team(Base):
    """A team of providers, e.g. a ward or a clinic."""

    __tablename__ = "teams"
    __table_args__ = (Index(None, "name", "id"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    name: Mapped[str]
    shorthand_name: Mapped[str | None]
    # DEFAULT NULL (which changes nothing) keeps the ORM from naming the column in an INSERT
    # without a rule, so code and data written before migration 0009 still insert teams.
    work_rule_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("work_rules.id"), server_default=text("NULL"))

    __mapper_args__ = {"eager_defaults": False}  # nor ask for it back (RETURNING)
    """The team's work rule (overtime, rounding, meals); null pays every minute as regular."""
    swaps_need_approval: Mapped[bool] = mapped_column(server_default=true())
    """Whether an accepted shift swap waits for a manager (migration 0015); false hands the
    shifts over when the lister accepts."""

    roles: Mapped[list[Role]] = relationship(back_populates="team", order_by="Role.name")
    managers: Mapped[list[User]] = relationship(
        secondary=team_managers, back_populates="managed_teams"
    )


class Role(Base):
    """A job role within a team, such as "Registered Nurse"."""

    __tablename__ = "roles"
    __table_args__ = (Index(None, "team_id", "name"), Index(None, "name", "id"))

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    name: Mapped[str]
    team_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("teams.id"))
    hex_color: Mapped[str]

    team: Mapped[Team] = relationship(back_populates="roles")


class EmploymentType(Base):
    """A kind of employment: contractor or employee, hourly or salaried, how much worked."""

    __tablename__ = "employment_types"
    __table_args__ = (
        one_of("type", EMPLOYMENT_KINDS),
        one_of("compensation_time_period", COMPENSATION_TIME_PERIODS),
        one_of("amount_worked", AMOUNTS_WORKED),
        Index(None, "name", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    name: Mapped[str]
    type: Mapped[str]
    compensation_time_period: Mapped[str]
    amount_worked: Mapped[str]
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)


class User(Base):
    """Someone (or some bot) who can call the API; e-mail addresses are stored lower-cased."""

    __tablename__ = "users"
    __table_args__ = (
        one_of("type", USER_TYPES),
        one_of("status", EMPLOYMENT_STATUSES),
        UniqueConstraint("email"),
        Index(None, "name", "id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    type: Mapped[str] = mapped_column(default="user")
    name: Mapped[str]
    email: Mapped[str]
    status: Mapped[str] = mapped_column(default="active")
    is_admin: Mapped[bool] = mapped_column(default=False)
    password_hash: Mapped[str | None]
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)

    provider: Mapped[Provider | None] = relationship(
        back_populates="user", foreign_keys="Provider.id"
    )
    managed_teams: Mapped[list[Team]] = relationship(
        secondary=team_managers, back_populates="managers"
    )
    rbac_roles: Mapped[list[RbacRole]] = relationship(secondary=user_rbac_roles)
    api_tokens: Mapped[list[ApiToken]] = relationship(
        back_populates="user", cascade="all, delete-orphan", passive_deletes=True
    )

    @validates("email")
    def _lower_email(self, _key: str, value: str) -> str:
        return value.strip().lower()


class Enrollment(Base):
    """An enrollment a provider can hold (e.g. with a payer network)."""

    __tablename__ = "enrollments"
    __table_args__ = (Index(None, "name"),)

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    name: Mapped[str]


class Provider(Base):
    """A schedulable member of staff; shares its id with the matching user."""

    __tablename__ = "providers"
    __table_args__ = (
        one_of("status", EMPLOYMENT_STATUSES),
        Index(None, "name", "id"),
        Index(None, "team_id"),
        Index(None, "status"),
        Index(None, "manager_id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id"), primary_key=True)
    name: Mapped[str | None]
    email: Mapped[str]
    hire_date: Mapped[datetime | None] = mapped_column(UtcDateTime)
    job_title: Mapped[str | None]
    status: Mapped[str] = mapped_column(default="active")
    team_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("teams.id"))
    employment_type_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("employment_types.id"))
    manager_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("users.id"))
    default_role_id: Mapped[uuid.UUID | None] = mapped_column(ForeignKey("roles.id"))
    licensed_regions: Mapped[list[str]] = mapped_column(JsonType, default=list)
    pay_period_template: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    imported_id: Mapped[str | None]
    last_synced_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    personal_info: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    daily_hours: Mapped[float | None]
    min_weekly_hours: Mapped[float | None]
    max_weekly_hours: Mapped[float | None]
    region: Mapped[str | None]
    national_provider_identifier: Mapped[str | None]
    additional_info: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    custom_fields: Mapped[dict[str, Any] | None] = mapped_column(JsonType)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow, onupdate=utcnow)

    user: Mapped[User] = relationship(back_populates="provider", foreign_keys=[id])
    manager: Mapped[User | None] = relationship(foreign_keys=[manager_id])
    team: Mapped[Team | None] = relationship()
    employment_type: Mapped[EmploymentType | None] = relationship()
    default_role: Mapped[Role | None] = relationship()
    skills: Mapped[list[ProviderSkill]] = relationship(
        back_populates="provider",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by=lambda: (ProviderSkill.skill_name, ProviderSkill.value),
    )
    enrollments: Mapped[list[Enrollment]] = relationship(
        secondary=provider_enrollments, order_by="Enrollment.name"
    )
    roles: Mapped[list[Role]] = relationship(
        secondary=provider_roles, order_by=lambda: (Role.name, Role.id)
    )

    @validates("email")
    def _lower_email(self, _key: str, value: str) -> str:
        return value.strip().lower()


class ProviderSkill(Base):
    """One value of one of a provider's skills; the wire groups them as {skillName, values}."""

    __tablename__ = "provider_skills"
    __table_args__ = (Index(None, "skill_name", "value"),)

    provider_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("providers.id", ondelete="CASCADE"), primary_key=True
    )
    skill_name: Mapped[str] = mapped_column(primary_key=True)
    value: Mapped[str] = mapped_column(primary_key=True)

    provider: Mapped[Provider] = relationship(back_populates="skills")


class ApiToken(Base):
    """An opaque bearer token of a bot, stored only as its hash."""

    __tablename__ = "api_tokens"
    __table_args__ = (UniqueConstraint("token_hash"), Index(None, "user_id"))

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    name: Mapped[str]
    token_hash: Mapped[str]
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime | None] = mapped_column(UtcDateTime)

    user: Mapped[User] = relationship(back_populates="api_tokens")


class UserImport(Base):
    """The id a person has in the system they were imported from (`POST /v1/people/import`
    upserts on it); a provider's `imported_id` carries the same value. A table of its own, so
    that `users` keeps the shape earlier migrations gave it."""

    __tablename__ = "user_imports"
    __table_args__ = (UniqueConstraint("imported_id"),)

    user_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    imported_id: Mapped[str]


class PasswordSetToken(Base):
    """A one-time link with which a person chooses their password, stored only as its hash.

    A newer link for the same person ends the earlier ones (`used_at` set); one is good until
    `expires_at` and for one use.
    """

    __tablename__ = "password_set_tokens"
    __table_args__ = (UniqueConstraint("token_hash"), Index(None, "user_id"))

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    token_hash: Mapped[str]
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    created_by_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"))
