"""Providers: `GET /v1/providers`, `GET /v1/providers/count` and `GET /v1/providers/{providerId}`
(extension).

Items are the spec's "Provider with relations". Lists and counts show only the providers the
caller may view (the `Provider` subject's rules, in SQL); a provider sees themself, a manager
their teams. Queries and conversion live in `app.api.services.people`.
"""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import people
from app.contract.providers import (
    ProviderCount,
    ProviderFilter,
    ProviderListQuery,
    ProviderWithRelations,
    ProviderWithRelationsPage,
)


@endpoint("GET", "/providers", summary="List providers", query=ProviderListQuery,
          response=ProviderWithRelationsPage, tag="Providers")
def list_providers(
    session: Session, actor: Actor, query: ProviderListQuery, pages: Paginator
) -> ProviderWithRelationsPage:
    """Providers the caller may view, by name, with enrollments, skills, manager and team.

    Filters: `teamId`, `status` (default onboarding and active) and `name` (case-insensitive
    partial match).
    """
    rows, cursor = people.list_providers(session, actor=actor, query=query, pages=pages)
    return ProviderWithRelationsPage(
        items=[people.provider_with_relations(p) for p in rows], cursor=cursor
    )


@endpoint("GET", "/providers/count", summary="Count providers", query=ProviderFilter,
          response=ProviderCount, tag="Providers")
def count_providers(session: Session, actor: Actor, query: ProviderFilter) -> ProviderCount:
    """How many providers the list would return with the same filters."""
    return ProviderCount(count=people.count_providers(session, actor=actor, query=query))


@endpoint("GET", "/providers/<provider_id>", summary="Get a provider",
          response=ProviderWithRelations, codes=["provider-not-found"],
          extension=True, tag="Providers",
          permits=[("view", "Provider")])
def get_provider(session: Session, actor: Actor, provider_id: uuid.UUID) -> ProviderWithRelations:
    """One provider with relations, if the caller may view them."""
    provider = people.get_provider(session, actor=actor, provider_id=provider_id)
    return people.provider_with_relations(provider)
