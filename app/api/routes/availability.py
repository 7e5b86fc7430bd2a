"""Availability (extension): providers' weekly patterns (`/v1/availabilities`), dated exceptions
(`/v1/availability-exceptions`) and the computed windows (`GET /v1/availability/windows`).

Thin views over `app.api.services.availability`. A provider keeps their own; managers view their
teams'; admins everything (the `Availability` permission subject). Writes are versioned like
shifts: `version` in a PATCH body or a DELETE's query.
"""

from __future__ import annotations

import uuid

from flask import url_for
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import availability as service
from app.config import Settings
from app.contract.availability import (
    AvailabilityCreate,
    AvailabilityExceptionCreate,
    AvailabilityExceptionListQuery,
    AvailabilityExceptionPage,
    AvailabilityExceptionRead,
    AvailabilityExceptionUpdate,
    AvailabilityListQuery,
    AvailabilityPage,
    AvailabilityRead,
    AvailabilityUpdate,
    AvailabilityWindowQuery,
    AvailabilityWindows,
    VersionQuery,
)

TAG = "Availability"
_PATTERN_WRITE = ["validation", "unauthorized", "provider-not-found"]
_EXCEPTION_WRITE = ["validation", "negative-range", "unauthorized", "provider-not-found"]


@endpoint("GET", "/availabilities", summary="List weekly availability patterns",
          query=AvailabilityListQuery, response=AvailabilityPage, codes=["validation"],
          extension=True, tag=TAG)
def list_availabilities(session: Session, actor: Actor, query: AvailabilityListQuery,
                        pages: Paginator) -> AvailabilityPage:
    """Pattern versions the caller may view, by provider then effective date."""
    rows, cursor = service.list_availabilities(session, actor=actor, query=query, pages=pages)
    return AvailabilityPage(items=[service.read(r) for r in rows], cursor=cursor)


@endpoint("POST", "/availabilities", summary="Create a weekly availability pattern",
          body=AvailabilityCreate, response=AvailabilityRead, status=201,
          codes=_PATTERN_WRITE, extension=True, tag=TAG, permits=[("create", "Availability")])
def create_availability(session: Session, actor: Actor, body: AvailabilityCreate,
                        ) -> tuple[AvailabilityRead, dict[str, str]]:
    """A version of a provider's weekly pattern, in force from `effectiveFrom` until the next
    version. Times are wall-clock times of the site's zone; ranges of one weekday may not
    overlap and must end after they start (`24:00` ends at midnight). `providerId` defaults to
    the caller's own provider."""
    found = service.create_availability(session, actor=actor, body=body)
    return service.read(found), {"Location": url_for("api.get_availability",
                                                      availability_id=found.id)}


@endpoint("GET", "/availabilities/<availability_id>", summary="Get a weekly availability pattern",
          response=AvailabilityRead, codes=["availability-not-found", "unauthorized"],
          extension=True, tag=TAG, permits=[("view", "Availability")])
def get_availability(session: Session, actor: Actor,
                     availability_id: uuid.UUID) -> AvailabilityRead:
    """One pattern version."""
    return service.read(service.get_availability(session, actor=actor,
                                                 availability_id=availability_id))


@endpoint("PATCH", "/availabilities/<availability_id>",
          summary="Update a weekly availability pattern", body=AvailabilityUpdate,
          response=AvailabilityRead,
          codes=["availability-not-found", "version-conflict", *_PATTERN_WRITE],
          extension=True, tag=TAG, locate=service.locate_availability,
          permits=[("edit", "Availability")])
def update_availability(session: Session, actor: Actor, body: AvailabilityUpdate,
                        availability_id: uuid.UUID) -> AvailabilityRead:
    """Change the members sent; `rules` replaces the whole list. A `version` sent must be the
    current one (else `version-conflict` with `currentVersion`)."""
    return service.read(service.update_availability(
        session, actor=actor, availability_id=availability_id, body=body))


@endpoint("DELETE", "/availabilities/<availability_id>",
          summary="Delete a weekly availability pattern", status=204, query=VersionQuery,
          codes=["availability-not-found", "unauthorized", "validation", "version-conflict"],
          extension=True, tag=TAG, permits=[("edit", "Availability")])
def delete_availability(session: Session, actor: Actor, query: VersionQuery,
                        availability_id: uuid.UUID) -> None:
    """Delete a pattern version (with `version`, only that version)."""
    service.delete_availability(session, actor=actor, availability_id=availability_id,
                                version=query.version)


@endpoint("GET", "/availability-exceptions", summary="List availability exceptions",
          query=AvailabilityExceptionListQuery, response=AvailabilityExceptionPage,
          codes=["validation", "negative-range"], extension=True, tag=TAG)
def list_availability_exceptions(session: Session, actor: Actor,
                                 query: AvailabilityExceptionListQuery,
                                 pages: Paginator) -> AvailabilityExceptionPage:
    """Exceptions the caller may view overlapping `startDate`..`endDate` (inclusive dates), by
    start date."""
    rows, cursor = service.list_exceptions(session, actor=actor, query=query, pages=pages)
    return AvailabilityExceptionPage(items=[service.exception_read(r) for r in rows],
                                     cursor=cursor)


@endpoint("POST", "/availability-exceptions", summary="Create an availability exception",
          body=AvailabilityExceptionCreate, response=AvailabilityExceptionRead, status=201,
          codes=_EXCEPTION_WRITE, extension=True, tag=TAG,
          permits=[("create", "Availability")])
def create_availability_exception(session: Session, actor: Actor,
                                  body: AvailabilityExceptionCreate,
                                  ) -> tuple[AvailabilityExceptionRead, dict[str, str]]:
    """Local days `startDate`..`endDate` (inclusive) on which the weekly pattern does not apply:
    `unavailable` (the default) blocks the whole days, `available` clears the pattern's ranges.
    `providerId` defaults to the caller's own provider."""
    found = service.create_exception(session, actor=actor, body=body)
    return service.exception_read(found), {"Location": url_for(
        "api.get_availability_exception", exception_id=found.id)}


@endpoint("GET", "/availability-exceptions/<exception_id>",
          summary="Get an availability exception", response=AvailabilityExceptionRead,
          codes=["availability-exception-not-found", "unauthorized"], extension=True, tag=TAG,
          permits=[("view", "Availability")])
def get_availability_exception(session: Session, actor: Actor,
                               exception_id: uuid.UUID) -> AvailabilityExceptionRead:
    """One exception."""
    return service.exception_read(service.get_exception(session, actor=actor,
                                                        exception_id=exception_id))


@endpoint("PATCH", "/availability-exceptions/<exception_id>",
          summary="Update an availability exception", body=AvailabilityExceptionUpdate,
          response=AvailabilityExceptionRead,
          codes=["availability-exception-not-found", "version-conflict", *_EXCEPTION_WRITE],
          extension=True, tag=TAG, locate=service.locate_exception,
          permits=[("edit", "Availability")])
def update_availability_exception(session: Session, actor: Actor,
                                  body: AvailabilityExceptionUpdate,
                                  exception_id: uuid.UUID) -> AvailabilityExceptionRead:
    """Change the members sent (a null `note` clears it); a `version` sent must be current."""
    return service.exception_read(service.update_exception(
        session, actor=actor, exception_id=exception_id, body=body))


@endpoint("DELETE", "/availability-exceptions/<exception_id>",
          summary="Delete an availability exception", status=204, query=VersionQuery,
          codes=["availability-exception-not-found", "unauthorized", "validation",
                 "version-conflict"],
          extension=True, tag=TAG, permits=[("edit", "Availability")])
def delete_availability_exception(session: Session, actor: Actor, query: VersionQuery,
                                  exception_id: uuid.UUID) -> None:
    """Delete an exception (with `version`, only that version)."""
    service.delete_exception(session, actor=actor, exception_id=exception_id,
                             version=query.version)


@endpoint("GET", "/availability/windows", summary="Unavailable and preferred windows",
          query=AvailabilityWindowQuery, response=AvailabilityWindows,
          codes=["validation", "negative-range", "provider-not-found", "team-not-found",
                 "unauthorized"],
          extension=True, tag=TAG, permits=[("view", "Availability")])
def get_availability_windows(session: Session, actor: Actor, query: AvailabilityWindowQuery,
                             settings: Settings) -> AvailabilityWindows:
    """Per provider (one, or a team's that the caller may view), the instants they are
    unavailable or prefer to work on local dates `startDate`..`endDate` (inclusive, at most 31
    days), computed from the pattern version in force on each date and the exceptions, which
    override the pattern on their days. The schedule's warnings use the same rule."""
    return service.windows(session, actor=actor, query=query, zone=settings.zone)
