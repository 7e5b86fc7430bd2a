"""Appointments: `GET /v1/appointments` and `GET /v1/appointments/{appointmentId}`.

Thin views over `app.api.services.appointments`: the list shows only appointments the caller may
view under the `Appointment` rules (filtered in SQL, so pages stay full and correct).
"""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import appointments as service
from app.contract.appointments import AppointmentListQuery, AppointmentPage, AppointmentRead


@endpoint("GET", "/appointments", summary="List appointments", query=AppointmentListQuery,
          response=AppointmentPage, codes=["negative-range"], tag="Appointments")
def list_appointments(session: Session, actor: Actor, query: AppointmentListQuery,
                      pages: Paginator) -> AppointmentPage:
    """Appointments the caller may view, by start date, overlapping the optional window.

    `teamId` selects appointments of that team's providers. `cancellationDate` and
    `cancellationReason` appear only on cancelled appointments.
    """
    rows, cursor = service.list_appointments(session, actor=actor, query=query, pages=pages)
    return AppointmentPage(items=[service.appointment_read(a) for a in rows], cursor=cursor)


@endpoint("GET", "/appointments/<appointment_id>", summary="Get an appointment",
          response=AppointmentRead, codes=["appointment-not-found"], tag="Appointments")
def get_appointment(session: Session, actor: Actor, appointment_id: uuid.UUID) -> AppointmentRead:
    """One appointment, with its `version` for optimistic locking."""
    appointment = service.get_appointment(session, actor=actor, appointment_id=appointment_id)
    return service.appointment_read(appointment)
