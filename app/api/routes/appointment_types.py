"""Appointment types: list, get (extension), create, update and archive (DELETE).

Any signed-in user may read appointment types: they are catalog data that scheduling, the
appointment pages and slot search all need, so no permission rule is checked on reads. Writes need
the `AppointmentType` subject. Archived types are left out of the list but stay readable by id,
marked `archived: true`. The clock is read here, at the edge.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from flask import url_for
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import appointments as service
from app.contract.appointment_types import (
    AppointmentTypeCreate,
    AppointmentTypeListQuery,
    AppointmentTypePage,
    AppointmentTypeRead,
    AppointmentTypeUpdate,
)


@endpoint("GET", "/appointment-types", summary="List appointment types",
          query=AppointmentTypeListQuery, response=AppointmentTypePage, tag="Appointment types")
def list_appointment_types(session: Session, query: AppointmentTypeListQuery,
                           pages: Paginator) -> AppointmentTypePage:
    """Appointment types that are not archived, by name; readable by any signed-in user."""
    rows, cursor = service.list_appointment_types(session, query=query, pages=pages)
    return AppointmentTypePage(items=[service.appointment_type_read(t) for t in rows],
                               cursor=cursor)


@endpoint("GET", "/appointment-types/<appointment_type_id>", summary="Get an appointment type",
          response=AppointmentTypeRead, codes=["appointment-type-not-found"], extension=True,
          tag="Appointment types")
def get_appointment_type(session: Session, appointment_type_id: uuid.UUID) -> AppointmentTypeRead:
    """One appointment type, archived ones included (`archived: true`)."""
    kind = service.get_appointment_type(session, appointment_type_id=appointment_type_id)
    return service.appointment_type_read(kind)


@endpoint("POST", "/appointment-types", summary="Create an appointment type",
          body=AppointmentTypeCreate, response=AppointmentTypeRead, status=201,
          codes=["validation", "unauthorized"], tag="Appointment types",
          permits=[("create", "AppointmentType")])
def create_appointment_type(session: Session, actor: Actor, body: AppointmentTypeCreate,
                            ) -> tuple[AppointmentTypeRead, dict[str, str]]:
    """Create an appointment type; every `allowedRoles` entry must name an existing role, once."""
    kind = service.create_appointment_type(session, actor=actor, body=body,
                                           now=datetime.now(UTC))
    location = url_for("api.get_appointment_type", appointment_type_id=kind.id)
    return service.appointment_type_read(kind), {"Location": location}


@endpoint("PATCH", "/appointment-types/<appointment_type_id>",
          summary="Update an appointment type", body=AppointmentTypeUpdate,
          response=AppointmentTypeRead,
          codes=["validation", "unauthorized", "appointment-type-not-found"],
          tag="Appointment types", locate=service.locate_appointment_type,
          permits=[("edit", "AppointmentType")])
def update_appointment_type(session: Session, actor: Actor, body: AppointmentTypeUpdate,
                            appointment_type_id: uuid.UUID) -> AppointmentTypeRead:
    """Change the members sent; null `allowedRoles` allows any role, null `skillRequirement`
    drops the requirement. Existing appointments keep their type label."""
    kind = service.update_appointment_type(session, actor=actor,
                                           appointment_type_id=appointment_type_id, body=body)
    return service.appointment_type_read(kind)


@endpoint("DELETE", "/appointment-types/<appointment_type_id>",
          summary="Archive an appointment type", status=204,
          codes=["unauthorized", "appointment-type-not-found"], tag="Appointment types",
          permits=[("edit", "AppointmentType")])
def delete_appointment_type(session: Session, actor: Actor,
                            appointment_type_id: uuid.UUID) -> None:
    """Archive the type: no longer listed nor linked to new appointments, still readable by id.

    Archiving an archived type changes nothing and answers 204 again.
    """
    service.archive_appointment_type(session, actor=actor,
                                     appointment_type_id=appointment_type_id,
                                     now=datetime.now(UTC))
