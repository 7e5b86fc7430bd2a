"""Reading appointments and appointment types: list queries, lookups and ORM → wire conversion.

Who may see which appointment is decided by the `Appointment` permission rules, in SQL for lists
and in Python for one object. Appointment types are catalog data every signed-in user may read
(scheduling, the appointment pages and slot search all need them), so their reads check no rule;
the `AppointmentType` subject governs writes. Must not commit, read the request, or write.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.models import Appointment, AppointmentType, Provider
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, not_found
from app.api.subjects import APPOINTMENT
from app.contract.appointment_types import AppointmentTypeListQuery, AppointmentTypeRead
from app.contract.appointments import AppointmentListQuery, AppointmentRead
from app.contract.problems import ProblemCode

_TYPE_MEMBERS = frozenset(
    key
    for name, info in AppointmentTypeRead.model_fields.items()
    for key in (name, info.alias or name)
)
"""Declared members of an appointment type; stored extra properties never shadow them."""


def check_range(start: datetime | None, end: datetime | None, *, path: str = "endDate") -> None:
    """Raise `negative-range` on `path` when both ends are given and `end` is not after `start`."""
    if start is not None and end is not None and end <= start:
        raise ProblemError(
            ProblemCode.NEGATIVE_RANGE,
            "The end date must come after the start date; pick a later end or an earlier start.",
            path=path,
        )


def list_appointments(
    session: Session, *, actor: Actor, query: AppointmentListQuery, pages: Paginator
) -> tuple[list[Appointment], str | None]:
    """One page of the appointments the actor may view, by start date; raises `negative-range`.

    `startDate`/`endDate` select appointments overlapping the window (half-open: one that ends
    exactly at `startDate` is not in it); `teamId` is the team of the appointment's provider.
    """
    check_range(query.start_date, query.end_date)
    statement = select(Appointment).where(actor.where("view", "Appointment", APPOINTMENT.columns))
    if query.team_id is not None:
        team = select(Provider.id).where(Provider.team_id == query.team_id)
        statement = statement.where(Appointment.provider_id.in_(team))
    if query.provider_id is not None:
        statement = statement.where(Appointment.provider_id == query.provider_id)
    if query.member_id is not None:
        statement = statement.where(Appointment.member_id == query.member_id)
    if query.start_date is not None:
        statement = statement.where(Appointment.end_date > query.start_date)
    if query.end_date is not None:
        statement = statement.where(Appointment.start_date < query.end_date)
    if query.status is not None:
        statement = statement.where(Appointment.status == query.status)
    if query.type is not None:
        statement = statement.where(Appointment.type == query.type)
    return pages.page(session, statement, scope="appointments", query=query,
                      order=[SortKey(Appointment.start_date), SortKey(Appointment.id)])


def get_appointment(session: Session, *, actor: Actor, appointment_id: uuid.UUID) -> Appointment:
    """One appointment the actor may view; raises `appointment-not-found`, `unauthorized`."""
    appointment = session.get(Appointment, appointment_id)
    if appointment is None:
        raise not_found("appointment", appointment_id)
    actor.require("view", "Appointment", APPOINTMENT.of(appointment))
    return appointment


def appointment_read(appointment: Appointment) -> AppointmentRead:
    """The wire form of an appointment (the contract leaves cancellation out unless cancelled)."""
    return AppointmentRead.model_validate(appointment)


def list_appointment_types(
    session: Session, *, query: AppointmentTypeListQuery, pages: Paginator
) -> tuple[list[AppointmentType], str | None]:
    """One page of the appointment types that are not archived, by name."""
    statement = select(AppointmentType).where(AppointmentType.archived_at.is_(None))
    return pages.page(session, statement, scope="appointment-types", query=query,
                      order=[SortKey(AppointmentType.name), SortKey(AppointmentType.id)])


def get_appointment_type(session: Session, *, appointment_type_id: uuid.UUID) -> AppointmentType:
    """One appointment type, archived or not; raises `appointment-type-not-found`."""
    kind = session.get(AppointmentType, appointment_type_id)
    if kind is None:
        raise not_found("appointment-type", appointment_type_id)
    return kind


def appointment_type_read(kind: AppointmentType) -> AppointmentTypeRead:
    """The wire form of an appointment type, with its stored additional properties."""
    extra: dict[str, Any] = {k: v for k, v in (kind.extra or {}).items() if k not in _TYPE_MEMBERS}
    return AppointmentTypeRead.model_validate({
        **extra,
        "id": kind.id,
        "name": kind.name,
        "length": kind.length,
        "allowedRoles": kind.allowed_roles,
        "skillRequirement": kind.skill_requirement,
        "archived": kind.archived_at is not None,
    })
