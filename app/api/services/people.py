"""Reading people and organisation: job roles, employment types and providers.

Queries, visibility filters and the ORM → contract conversion of these resources live here, so
routes only parse and answer. Lists eager-load everything their items show, so a page costs the
same number of statements whatever its size. Must not commit, read the request or know Flask.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session, joinedload, selectinload

from app.api.auth import Actor
from app.api.models import EmploymentType, Provider, Role, Shift, ShiftSegment, provider_roles
from app.api.pagination import Paginator, SortKey
from app.api.problems import not_found
from app.api.subjects import PROVIDER
from app.contract.employment_types import EmploymentTypeListQuery
from app.contract.providers import (
    PayPeriodTemplate,
    ProviderEnrollment,
    ProviderFilter,
    ProviderListQuery,
    ProviderManager,
    ProviderRole,
    ProviderTeam,
    ProviderWithRelations,
)
from app.contract.providers import ProviderSkill as ProviderSkillRead
from app.contract.roles import RoleListQuery, RoleRead

_PROVIDER_RELATIONS = (
    joinedload(Provider.team),
    joinedload(Provider.manager),
    selectinload(Provider.skills),
    selectinload(Provider.enrollments),
    selectinload(Provider.roles),
    joinedload(Provider.default_role),
)
"""What a provider with relations shows: one join each for team and manager, one statement per
page each for skills and enrollments."""


def _like(text: str) -> str:
    """Return a LIKE pattern matching `text` anywhere, its wildcards taken literally."""
    escaped = text.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


# Roles ---------------------------------------------------------------------------------------


def list_roles(
    session: Session, *, query: RoleListQuery, pages: Paginator
) -> tuple[list[Role], str | None]:
    """Return one page of job roles (with their team), by name, optionally of one team.

    Raises `validation` (cursor).
    """
    statement = select(Role).options(joinedload(Role.team, innerjoin=True))
    if query.team is not None:
        statement = statement.where(Role.team_id == query.team)
    return pages.page(session, statement, scope="roles", query=query,
                      order=[SortKey(Role.name), SortKey(Role.id)])


def get_role(session: Session, *, role_id: uuid.UUID) -> Role:
    """Return one job role with its team. Raises `role-not-found`."""
    role = session.get(Role, role_id, options=[joinedload(Role.team, innerjoin=True)])
    if role is None:
        raise not_found("role", role_id)
    return role


def role_read(role: Role) -> RoleRead:
    """Convert a job role (its team loaded) to the wire Role."""
    return RoleRead(
        id=role.id,
        created_at=role.created_at,
        name=role.name,
        team=role.team_id,
        team_name=role.team.name,
        hex_color=role.hex_color,
    )


# Employment types ----------------------------------------------------------------------------


def list_employment_types(
    session: Session, *, query: EmploymentTypeListQuery, pages: Paginator
) -> tuple[list[EmploymentType], str | None]:
    """Return one page of employment types by name. Raises `validation` (cursor)."""
    return pages.page(session, select(EmploymentType), scope="employment-types", query=query,
                      order=[SortKey(EmploymentType.name), SortKey(EmploymentType.id)])


def get_employment_type(session: Session, *, employment_type_id: uuid.UUID) -> EmploymentType:
    """Return one employment type. Raises `employment-type-not-found`."""
    employment_type = session.get(EmploymentType, employment_type_id)
    if employment_type is None:
        raise not_found("employment-type", employment_type_id)
    return employment_type


# Providers -----------------------------------------------------------------------------------


def _provider_conditions(actor: Actor, query: ProviderFilter) -> list[ColumnElement[bool]]:
    """The WHERE clauses of a provider list: what the actor may view, then the filters."""
    conditions = [
        actor.where("view", "Provider", PROVIDER.columns),
        Provider.status.in_(query.status),
    ]
    if query.team_id is not None:
        conditions.append(Provider.team_id == query.team_id)
    if query.name:
        conditions.append(func.lower(Provider.name).like(_like(query.name), escape="\\"))
    return conditions


def list_providers(
    session: Session, *, actor: Actor, query: ProviderListQuery, pages: Paginator
) -> tuple[list[Provider], str | None]:
    """Return one page of the providers the actor may view, by name, with their relations.

    Raises `validation` (cursor).
    """
    statement = (
        select(Provider).where(*_provider_conditions(actor, query)).options(*_PROVIDER_RELATIONS)
    )
    return pages.page(session, statement, scope="providers", query=query,
                      order=[SortKey(Provider.name), SortKey(Provider.id)])


def count_providers(session: Session, *, actor: Actor, query: ProviderFilter) -> int:
    """Count the providers the actor may view that match the filters of the provider list."""
    statement = (
        select(func.count()).select_from(Provider).where(*_provider_conditions(actor, query))
    )
    return session.scalar(statement) or 0


def get_provider(session: Session, *, actor: Actor, provider_id: uuid.UUID) -> Provider:
    """Return one provider with their relations. Raises `provider-not-found`, `unauthorized`."""
    provider = session.get(Provider, provider_id, options=list(_PROVIDER_RELATIONS))
    if provider is None:
        raise not_found("provider", provider_id)
    actor.require("view", "Provider", PROVIDER.of(provider))
    return provider


def _pay_period_template(value: dict[str, Any] | None) -> PayPeriodTemplate | None:
    return PayPeriodTemplate.model_validate(value) if value else None


def provider_with_relations(provider: Provider) -> ProviderWithRelations:
    """Convert a provider (relations loaded) to the wire "Provider with relations".

    Skills are stored one value per row and grouped here by skill name; `skillLicensedRegion`
    repeats the licensed regions and `skillEnrollment` names the enrollments, as skill values.
    """
    skills: dict[str, list[str]] = {}
    for skill in provider.skills:  # ordered by skill name, then value
        skills.setdefault(skill.skill_name, []).append(skill.value)
    regions = list(provider.licensed_regions or [])
    team, manager = provider.team, provider.manager
    return ProviderWithRelations(
        id=provider.id,
        name=provider.name,
        email=provider.email,
        hire_date=provider.hire_date,
        job_title=provider.job_title,
        status=provider.status,  # type: ignore[arg-type]  # CHECK constraint keeps it valid
        team_id=provider.team_id,
        licensed_regions=regions,
        employment_type=provider.employment_type_id,
        pay_period_template=_pay_period_template(provider.pay_period_template),
        imported_id=provider.imported_id,
        last_synced_at=provider.last_synced_at,
        personal_info=provider.personal_info,
        daily_hours=provider.daily_hours,
        min_weekly_hours=provider.min_weekly_hours,
        max_weekly_hours=provider.max_weekly_hours,
        region=provider.region,
        national_provider_identifier=provider.national_provider_identifier,
        additional_info=provider.additional_info,
        custom_fields=provider.custom_fields or {},
        enrollments=[ProviderEnrollment(id=e.id, name=e.name) for e in provider.enrollments],
        skills=[ProviderSkillRead(skill_name=name, values=values)
                for name, values in skills.items()],
        skill_licensed_region=regions,
        skill_enrollment=[e.name for e in provider.enrollments],
        manager=ProviderManager(id=manager.id, name=manager.name) if manager else None,
        team=(ProviderTeam(id=team.id, name=team.name, shorthand_name=team.shorthand_name)
              if team else None),
        roles=[ProviderRole(id=role.id, name=role.name) for role in held_roles(provider)],
    )


def held_roles(provider: Provider) -> list[Role]:
    """The roles a provider holds, by name: those granted them, and their default role."""
    roles = {role.id: role for role in provider.roles}
    if provider.default_role is not None:
        roles.setdefault(provider.default_role.id, provider.default_role)
    return sorted(roles.values(), key=lambda role: (role.name, str(role.id)))


def grant_worked_roles(session: Session) -> None:
    """Grant every provider the roles their shifts' working segments use, where not granted yet
    (how a loaded or imported organisation gets its roles; the default role is held anyway)."""
    worked = (
        select(Shift.provider_id, ShiftSegment.role_id)
        .join(ShiftSegment, ShiftSegment.shift_id == Shift.id)
        .where(Shift.provider_id.is_not(None), ShiftSegment.role_id.is_not(None),
               ShiftSegment.is_break.is_(False))
        .distinct()
        .subquery()
    )
    provider_id, role_id = worked.c
    held = select(provider_roles.c.provider_id).where(
        provider_roles.c.provider_id == provider_id, provider_roles.c.role_id == role_id)
    session.flush()
    session.execute(provider_roles.insert().from_select(
        ["provider_id", "role_id"],
        select(provider_id, role_id).where(~held.exists())))
