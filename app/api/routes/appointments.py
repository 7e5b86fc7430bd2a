"""Appointments: list, get, create, update (optimistic locking) and delete.

Thin views over `app.api.services.appointments`: the list shows only appointments the caller may
view under the `Appointment` rules (filtered in SQL, so pages stay full and correct); the rules of
a write live in `app.api.domain.appointments`. The clock is read here, at the edge. Slot search
(`POST /v1/appointments/slots`) lives in `app.api.routes.slots`.
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
from app.api.wire_text import Document
from app.contract.appointments import (
    AppointmentCreate,
    AppointmentListQuery,
    AppointmentPage,
    AppointmentRead,
    AppointmentUpdate,
)


@endpoint("GET", "/appointments", summary="List appointments", query=AppointmentListQuery,
          response=AppointmentPage, codes=["negative-range"], tag="Appointments")
def list_appointments(session: Session, actor: Actor, query: AppointmentListQuery,
                      pages: Paginator) -> Document:
    """Appointments the caller may view, by start date, overlapping the optional window.

    `teamId` selects appointments of that team's providers. `cancellationDate` and
    `cancellationReason` appear only on cancelled appointments.
    """
    items, cursor = service.list_appointments(session, actor=actor, query=query, pages=pages)
    return {"items": items, "cursor": cursor}


@endpoint("GET", "/appointments/<appointment_id>", summary="Get an appointment",
          response=AppointmentRead, codes=["appointment-not-found"], tag="Appointments",
          permits=[("view", "Appointment")])
def get_appointment(session: Session, actor: Actor, appointment_id: uuid.UUID) -> Document:
    """One appointment, with its `version` for optimistic locking."""
    appointment = service.get_appointment(session, actor=actor, appointment_id=appointment_id)
    return service.read_appointment(session, appointment.id)


@endpoint("POST", "/appointments", summary="Book an appointment", body=AppointmentCreate,
          response=AppointmentRead, status=201,
          codes=["validation", "negative-range", "unauthorized", "appointment-overlap"],
          tag="Appointments",
          permits=[("create", "Appointment")])
def create_appointment(session: Session, actor: Actor, body: AppointmentCreate,
                       ) -> tuple[Document, dict[str, str]]:
    """Book an appointment; `status` defaults to `upcoming`, `createdAt` to now.

    `type` is the appointment type's label; when it names a type that is not archived, the
    appointment is linked to it. `providerId` must name a provider who is not dismissed
    (`validation` on `/providerId`). `cancellationDate` and `cancellationReason` are accepted only
    with status `cancelled` (the date then defaults to now). An `upcoming` appointment may not
    overlap another `upcoming` appointment of the same provider (`appointment-overlap`, listing
    `conflicts`); back-to-back is fine. An appointment lasts at most 24 hours (`validation` on
    `/endDate`).
    """
    appointment = service.create_appointment(session, actor=actor, body=body,
                                             now=datetime.now(UTC))
    location = url_for("api.get_appointment", appointment_id=appointment.id)
    return service.read_appointment(session, appointment.id), {"Location": location}


@endpoint("PATCH", "/appointments/<appointment_id>", summary="Update an appointment",
          body=AppointmentUpdate, response=AppointmentRead,
          codes=["validation", "negative-range", "read-only-field", "unauthorized",
                 "appointment-not-found", "version-conflict", "appointment-overlap",
                 "invalid-state-transition"],
          tag="Appointments", locate=service.locate_appointment,
          permits=[("edit", "Appointment")])
def update_appointment(session: Session, actor: Actor, body: AppointmentUpdate,
                       appointment_id: uuid.UUID) -> Document:
    """Change the members sent; a `version` sent must be the current one (else
    `version-conflict` with `currentVersion`); left out, the change applies to the latest.

    Checked in this order: the appointment exists (`appointment-not-found`, whatever the body),
    the body's shape (`validation`), edit permission (`unauthorized`), `version`, then the change
    itself.

    Cancelling (status `cancelled`) sets `cancellationDate` (the one sent, else now) and
    `cancellationReason`; leaving `cancelled` clears both. Status moves: `upcoming` → any;
    `occurred` ↔ `no-show`; any → `upcoming` (reopen); others are `invalid-state-transition`. A
    cancelled appointment that stays cancelled accepts only cancellation changes. `createdAt` is
    read-only (`read-only-field` unless it repeats the current value). Every accepted update
    raises `version` by one.
    """
    appointment = service.update_appointment(session, actor=actor, appointment_id=appointment_id,
                                             body=body, now=datetime.now(UTC))
    return service.read_appointment(session, appointment.id)


@endpoint("DELETE", "/appointments/<appointment_id>", summary="Delete an appointment",
          status=204, codes=["unauthorized", "appointment-not-found"], tag="Appointments",
          permits=[("edit", "Appointment")])
def delete_appointment(session: Session, actor: Actor, appointment_id: uuid.UUID) -> None:
    """Delete an appointment for good (to keep a record, cancel it instead).

    Needs both create and edit Appointment on it.
    """
    service.delete_appointment(session, actor=actor, appointment_id=appointment_id)
