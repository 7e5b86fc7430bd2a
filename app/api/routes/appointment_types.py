"""Appointment types: `GET /v1/appointment-types` and `GET /v1/appointment-types/{id}` (extension).

Any signed-in user may read appointment types: they are catalog data that scheduling, the
appointment pages and slot search all need, so no permission rule is checked on reads. Archived
types are left out of the list but stay readable by id, marked `archived: true`.
"""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import appointments as service
from app.contract.appointment_types import (
    AppointmentTypeListQuery,
    AppointmentTypePage,
    AppointmentTypeRead,
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
