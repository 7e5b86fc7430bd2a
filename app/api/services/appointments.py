"""Appointments and appointment types: list queries, lookups, ORM → wire conversion, and writes.

Who may see which appointment is decided by the `Appointment` permission rules, in SQL for lists
and in Python for one object. Appointment types are catalog data every signed-in user may read
(scheduling, the appointment pages and slot search all need them), so their reads check no rule;
the `AppointmentType` subject governs writes. The rules of a write (status moves, cancellation,
overlaps) live in `app.api.domain.appointments`; this module applies them inside the route's unit
of work. Must not commit, read the request or the clock (`now` is a parameter).

No double booking, under concurrency: before checking for overlaps a booking locks its provider's
row (`SELECT … FOR NO KEY UPDATE` on PostgreSQL), so bookings of one provider are serialised and
the loser gets a clean `appointment-overlap` listing the conflicts. The exclusion constraint
`ex_appointments_no_overlap` backs that up on PostgreSQL: a violation (SQLSTATE 23P01) raised at
the flush, which runs inside a SAVEPOINT, becomes the same 409. SQLite has no such constraint and
ignores `FOR UPDATE`, but every write unit of work begins with `BEGIN IMMEDIATE` and so holds the
database write lock from its start: check-then-insert is serialised there too.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import Select, bindparam, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from app.api.auth import Actor
from app.api.domain import appointments as rules
from app.api.models import Appointment, AppointmentType, Provider, Role
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, not_found, validation
from app.api.services import locator
from app.api.subjects import APPOINTMENT, APPOINTMENT_TYPE
from app.api.wire_text import Document, wire_id, wire_time
from app.contract.appointment_types import (
    AppointmentTypeCreate,
    AppointmentTypeListQuery,
    AppointmentTypeRead,
    AppointmentTypeUpdate,
)
from app.contract.appointments import (
    AppointmentCreate,
    AppointmentListQuery,
    AppointmentUpdate,
)
from app.contract.common import format_timestamp
from app.contract.problems import FieldError, ProblemCode

_TYPE_MEMBERS = frozenset(
    key
    for name, info in AppointmentTypeRead.model_fields.items()
    for key in (name, info.alias or name)
)
"""Declared members of an appointment type; stored extra properties never shadow them."""

locate_appointment = locator(Appointment, "appointment")
locate_appointment_type = locator(AppointmentType, "appointment-type")



def check_range(start: datetime | None, end: datetime | None, *, path: str = "endDate") -> None:
    """Raise `negative-range` on `path` when both ends are given and `end` is not after `start`."""
    if start is not None and end is not None and end <= start:
        raise ProblemError(
            ProblemCode.NEGATIVE_RANGE,
            "The end date must come after the start date; pick a later end or an earlier start.",
            path=path,
        )


# The wire form of appointments, read straight from columns (see `app.api.wire_text`): every
# appointment answer is built by `_document` from a row of `_WIRE_COLUMNS`. A list's page
# statement (built once per shape of query, see `list_appointments`) selects them itself; one
# appointment, or the result of a write, is read by id with `_WIRE_ROW`.
_WIRE_COLUMNS = (
    wire_id(Appointment.id).label("wire_id"),
    wire_time(Appointment.created_at).label("created_at"),
    Appointment.type,
    Appointment.status,
    wire_id(Appointment.provider_id).label("provider_id"),
    Appointment.member_id,
    wire_time(Appointment.start_date).label("starts"),
    wire_time(Appointment.end_date).label("ends"),
    wire_time(Appointment.actual_start_date).label("actual_starts"),
    wire_time(Appointment.actual_end_date).label("actual_ends"),
    Appointment.location,
    wire_time(Appointment.cancellation_date).label("cancellation_date"),
    Appointment.cancellation_reason,
    Appointment.version,
)
_WIRE_ROW = select(*_WIRE_COLUMNS).where(Appointment.id == bindparam("id"))


def _document(row: Any) -> Document:
    """An appointment in `AppointmentRead`'s order and rules: the cancellation members only on a
    cancelled appointment, `version` unless unknown."""
    document: Document = {
        "id": row.wire_id, "createdAt": row.created_at, "type": row.type, "status": row.status,
        "providerId": row.provider_id, "memberId": row.member_id, "startDate": row.starts,
        "endDate": row.ends, "actualStartDate": row.actual_starts,
        "actualEndDate": row.actual_ends, "location": row.location,
    }
    if row.status == "cancelled":
        document["cancellationDate"] = row.cancellation_date
        document["cancellationReason"] = row.cancellation_reason
    if row.version is not None:
        document["version"] = row.version
    return document


_FILTERS = ("team_id", "provider_id", "member_id", "start_date", "end_date", "status", "type")


def _list_statement(actor: Actor, filters: frozenset[str]) -> Select[Any]:
    """The appointments the actor may view, with the `filters` named (their values bound as
    parameters of the same names): their sort key, then their `_WIRE_COLUMNS`."""
    statement = select(Appointment.id, Appointment.start_date, *_WIRE_COLUMNS).where(
        actor.where("view", "Appointment", APPOINTMENT.columns))
    if "team_id" in filters:
        team = select(Provider.id).where(Provider.team_id == bindparam("team_id"))
        statement = statement.where(Appointment.provider_id.in_(team))
    if "provider_id" in filters:
        statement = statement.where(Appointment.provider_id == bindparam("provider_id"))
    if "member_id" in filters:
        statement = statement.where(Appointment.member_id == bindparam("member_id"))
    if "start_date" in filters:
        statement = statement.where(Appointment.end_date > bindparam("start_date"))
    if "end_date" in filters:
        statement = statement.where(Appointment.start_date < bindparam("end_date"))
    if "status" in filters:
        statement = statement.where(Appointment.status == bindparam("status"))
    if "type" in filters:
        statement = statement.where(Appointment.type == bindparam("type"))
    return statement


def list_appointments(
    session: Session, *, actor: Actor, query: AppointmentListQuery, pages: Paginator
) -> tuple[list[Document], str | None]:
    """One page of the appointments the actor may view, by start date, in wire form; raises
    `negative-range`.

    `startDate`/`endDate` select appointments overlapping the window (half-open: one that ends
    exactly at `startDate` is not in it); `teamId` is the team of the appointment's provider.
    The filtered statement is built once per shape of query for as long as the actor is kept
    (`Actor.statement`).
    """
    check_range(query.start_date, query.end_date)
    values = {name: getattr(query, name) for name in _FILTERS
              if getattr(query, name) is not None}
    filters = frozenset(values)
    statement = actor.statement(("appointments", filters),
                                lambda: _list_statement(actor, filters))
    rows, cursor = pages.page(session, statement, scope="appointments", query=query,
                              order=[SortKey(Appointment.start_date), SortKey(Appointment.id)],
                              rows=True, params=values)
    return [_document(row) for row in rows], cursor


def get_appointment(session: Session, *, actor: Actor, appointment_id: uuid.UUID) -> Appointment:
    """One appointment the actor may view; raises `appointment-not-found`, `unauthorized`."""
    appointment = session.get(Appointment, appointment_id)
    if appointment is None:
        raise not_found("appointment", appointment_id)
    actor.require("view", "Appointment", APPOINTMENT.of(appointment))
    return appointment


def read_appointment(session: Session, appointment_id: uuid.UUID) -> Document:
    """The wire form of one appointment (the caller has checked it exists and may be viewed).

    Flushes first: after a write, the answer is read back from the row just written.
    """
    session.flush()
    return _document(session.connection().execute(_WIRE_ROW, {"id": appointment_id}).one())


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


# Writing appointments ---------------------------------------------------------------------------

EXCLUSION_VIOLATION = "23P01"
"""SQLSTATE of a PostgreSQL exclusion-constraint violation (`ex_appointments_no_overlap`)."""

_STATE_OF_BODY = {
    "type": "type",
    "provider_id": "provider_id",
    "member_id": "member_id",
    "status": "status",
    "start_date": "start",
    "end_date": "end",
    "actual_start_date": "actual_start",
    "actual_end_date": "actual_end",
    "location": "location",
    "cancellation_date": "cancellation_date",
    "cancellation_reason": "cancellation_reason",
}
"""Body member (Python name) → `AppointmentState` member."""


def _state(appointment: Appointment) -> rules.AppointmentState:
    return rules.AppointmentState(
        type=appointment.type,
        provider_id=appointment.provider_id,
        status=appointment.status,
        start=appointment.start_date,
        end=appointment.end_date,
        member_id=appointment.member_id,
        actual_start=appointment.actual_start_date,
        actual_end=appointment.actual_end_date,
        location=appointment.location,
        cancellation_date=appointment.cancellation_date,
        cancellation_reason=appointment.cancellation_reason,
    )


def _store(appointment: Appointment, state: rules.AppointmentState) -> None:
    appointment.type = state.type
    appointment.provider_id = state.provider_id
    appointment.status = state.status
    appointment.start_date = state.start
    appointment.end_date = state.end
    appointment.member_id = state.member_id
    appointment.actual_start_date = state.actual_start
    appointment.actual_end_date = state.actual_end
    appointment.location = state.location
    appointment.cancellation_date = state.cancellation_date
    appointment.cancellation_reason = state.cancellation_reason


def _refused(refusal: rules.Refusal) -> ProblemError:
    if refusal.code == ProblemCode.VALIDATION:
        return validation(refusal.path, refusal.message)
    if refusal.code == ProblemCode.INVALID_STATE_TRANSITION:
        return ProblemError(refusal.code, refusal.message, currentState=refusal.current_state)
    return ProblemError(refusal.code, refusal.message, path=refusal.path)


def _bookable_provider(session: Session, provider_id: uuid.UUID) -> Provider:
    """Lock the provider's row and return it; raises `validation` on `/providerId`.

    The lock serialises every booking of this provider until the transaction ends (FOR NO KEY
    UPDATE: rows that merely reference the provider, such as new shifts, are not held up).
    """
    provider = session.get(Provider, provider_id, with_for_update={"key_share": True})
    if provider is None:
        raise validation("/providerId", f"no provider has the id {provider_id}")
    if provider.status == "dismissed":
        raise validation("/providerId", "this provider is dismissed and cannot be booked; "
                                        "choose another provider")
    return provider


def _type_id(session: Session, label: str) -> uuid.UUID | None:
    """The id of the non-archived appointment type named `label`, if there is one."""
    return session.scalars(
        select(AppointmentType.id)
        .where(AppointmentType.name == label, AppointmentType.archived_at.is_(None))
        .order_by(AppointmentType.created_at, AppointmentType.id)
        .limit(1)
    ).first()


def _blocking(session: Session, *, provider_id: uuid.UUID, start: datetime, end: datetime,
              ) -> list[rules.Booking]:
    """The provider's upcoming appointments overlapping `[start, end)`."""
    rows = session.execute(
        select(Appointment.id, Appointment.start_date, Appointment.end_date, Appointment.status)
        .where(Appointment.provider_id == provider_id,
               Appointment.status == rules.BLOCKING_STATUS,
               Appointment.start_date < end, Appointment.end_date > start)
    ).all()
    return [rules.Booking(id=r.id, start=r.start_date, end=r.end_date, status=r.status)
            for r in rows]


def _overlap(found: Sequence[rules.Booking]) -> ProblemError:
    listed = ", ".join(f"{format_timestamp(b.start)} to {format_timestamp(b.end)}" for b in found)
    return ProblemError(
        ProblemCode.APPOINTMENT_OVERLAP,
        f"The provider already has an upcoming appointment at that time ({listed}); pick another "
        "time or provider, or cancel the other appointment first.",
        conflicts=[{"id": str(b.id), "startDate": format_timestamp(b.start),
                    "endDate": format_timestamp(b.end)} for b in found],
    )


def _check_overlap(session: Session, candidate: rules.Booking, provider_id: uuid.UUID) -> None:
    """Raise `appointment-overlap` when the candidate overlaps the provider's upcoming ones."""
    if candidate.status != rules.BLOCKING_STATUS:
        return
    with session.no_autoflush:
        others = _blocking(session, provider_id=provider_id, start=candidate.start,
                           end=candidate.end)
    found = rules.conflicts(candidate, others)
    if found:
        raise _overlap(found)


def _version_conflict(current: int) -> ProblemError:
    return ProblemError(
        ProblemCode.VERSION_CONFLICT,
        f"This appointment changed since you read it (it is now at version {current}); reload it "
        "and apply your change again.",
        currentVersion=current,
    )


@contextmanager
def booking_savepoint(session: Session, candidate: rules.Booking,
                      provider_id: uuid.UUID) -> Iterator[None]:
    """Run the block's changes to one appointment inside a SAVEPOINT and flush them there.

    Make the changes (add, set attributes) inside the block: `begin_nested()` flushes what is
    already pending before the SAVEPOINT, outside its protection. An exclusion violation
    (PostgreSQL) becomes `appointment-overlap` with the conflicts read after rolling back to the
    savepoint; a stale version becomes `version-conflict`.
    """
    try:
        with session.begin_nested():
            yield
            session.flush()
    except IntegrityError as exc:
        if getattr(exc.orig, "sqlstate", None) != EXCLUSION_VIOLATION:
            raise
        found = rules.conflicts(candidate, _blocking(session, provider_id=provider_id,
                                                     start=candidate.start, end=candidate.end))
        raise _overlap(found) from exc
    except StaleDataError as exc:
        current = session.scalar(select(Appointment.version)
                                 .where(Appointment.id == candidate.id))
        if current is None:
            raise not_found("appointment", candidate.id) from exc
        raise _version_conflict(current) from exc


def create_appointment(session: Session, *, actor: Actor, body: AppointmentCreate,
                       now: datetime) -> Appointment:
    """Book an appointment; `type` links the non-archived appointment type of that name.

    Raises `validation` (`/providerId`: unknown or dismissed; cancellation members unless
    cancelled), `negative-range` (`/endDate`, `/actualEndDate`), `unauthorized` (create
    Appointment on the new appointment) and `appointment-overlap`.
    """
    requested = rules.AppointmentState(
        type=body.type, provider_id=body.provider_id, status=body.status,
        start=body.start_date, end=body.end_date, member_id=body.member_id,
        actual_start=body.actual_start_date, actual_end=body.actual_end_date,
        location=body.location, cancellation_date=body.cancellation_date,
        cancellation_reason=body.cancellation_reason,
    )
    actor.require("create", "Appointment")
    decided = rules.decide_create(requested, now=now)
    if isinstance(decided, rules.Refusal):
        raise _refused(decided)
    provider = _bookable_provider(session, decided.provider_id)
    appointment = Appointment(id=uuid.uuid4(), created_at=body.created_at or now,
                              updated_at=now, provider=provider)
    _store(appointment, decided)
    actor.require("create", "Appointment", APPOINTMENT.of(appointment))
    candidate = rules.Booking(appointment.id, decided.start, decided.end, decided.status)
    _check_overlap(session, candidate, provider.id)
    appointment.appointment_type_id = _type_id(session, decided.type)
    with booking_savepoint(session, candidate, provider.id):
        session.add(appointment)
    return appointment


def update_appointment(session: Session, *, actor: Actor, appointment_id: uuid.UUID,
                       body: AppointmentUpdate, now: datetime) -> Appointment:
    """Change the members a PATCH sent; every successful update raises the version by one.

    A `version` sent must be the current one; left out, the change applies to the latest.

    Raises `appointment-not-found`, `version-conflict`, `read-only-field` (a different
    `createdAt`), `invalid-state-transition`, `validation`, `negative-range`, `unauthorized` (edit
    Appointment on the appointment as it is and as it will be) and `appointment-overlap`.
    """
    appointment = session.get(Appointment, appointment_id, with_for_update=True)
    if appointment is None:
        raise not_found("appointment", appointment_id)
    actor.require("edit", "Appointment", APPOINTMENT.of(appointment))
    if body.version is not None and body.version != appointment.version:
        raise _version_conflict(appointment.version)
    sent = body.model_fields_set
    if ("created_at" in sent and body.created_at is not None
            and rules.created_at_changed(appointment.created_at, body.created_at)):
        raise ProblemError(
            ProblemCode.READ_ONLY_FIELD,
            "createdAt cannot be changed after an appointment is created; leave it out.",
            paths=["/createdAt"],
        )
    changes: dict[str, Any] = {}
    for name, member in _STATE_OF_BODY.items():
        if name in sent:
            value = getattr(body, name)
            changes[member] = str(value) if name == "member_id" and value is not None else value
    decided = rules.decide_update(_state(appointment), changes, now=now)
    if isinstance(decided, rules.Refusal):
        raise _refused(decided)
    provider = appointment.provider
    if decided.provider_id != appointment.provider_id:
        provider = _bookable_provider(session, decided.provider_id)
    elif decided.status == rules.BLOCKING_STATUS:
        # Same provider: lock its row all the same, to serialise with its other bookings.
        session.get(Provider, provider.id, with_for_update={"key_share": True})
    candidate = rules.Booking(appointment.id, decided.start, decided.end, decided.status)
    _check_overlap(session, candidate, decided.provider_id)
    type_id = (_type_id(session, decided.type) if decided.type != appointment.type
               else appointment.appointment_type_id)
    with booking_savepoint(session, candidate, decided.provider_id):
        _store(appointment, decided)
        appointment.provider = provider
        appointment.appointment_type_id = type_id
        actor.require("edit", "Appointment", APPOINTMENT.of(appointment))
        # Setting updated_at always UPDATEs the row: the version rises on every accepted PATCH.
        appointment.updated_at = now
    return appointment


def delete_appointment(session: Session, *, actor: Actor, appointment_id: uuid.UUID) -> None:
    """Delete an appointment; needs both create and edit Appointment on it.

    The permission vocabulary has no delete action: whoever may both book and change an
    appointment may remove it. Raises `appointment-not-found`, `unauthorized`.
    """
    appointment = session.get(Appointment, appointment_id, with_for_update=True)
    if appointment is None:
        raise not_found("appointment", appointment_id)
    fields = APPOINTMENT.of(appointment)
    actor.require("edit", "Appointment", fields)
    actor.require("create", "Appointment", fields)
    session.delete(appointment)
    session.flush()


# Writing appointment types ----------------------------------------------------------------------


def _role_errors(session: Session, roles: Sequence[uuid.UUID] | None) -> list[FieldError]:
    """Every `allowedRoles` entry that names no role or repeats an earlier one."""
    if not roles:
        return []
    known = set(session.scalars(select(Role.id).where(Role.id.in_(set(roles)))))
    errors: list[FieldError] = []
    seen: set[uuid.UUID] = set()
    for index, role in enumerate(roles):
        if role not in known:
            errors.append(FieldError(path=f"/allowedRoles/{index}",
                                     message=f"no role has the id {role}"))
        elif role in seen:
            errors.append(FieldError(path=f"/allowedRoles/{index}",
                                     message="is listed twice; list each role once"))
        seen.add(role)
    return errors


def _raise_all(errors: list[FieldError]) -> None:
    if errors:
        raise validation(errors[0].path, errors[0].message, errors)


def _requirement(body: AppointmentTypeCreate | AppointmentTypeUpdate) -> dict[str, Any] | None:
    if body.skill_requirement is None:
        return None
    return body.skill_requirement.model_dump(mode="json", by_alias=True)


def create_appointment_type(session: Session, *, actor: Actor,
                            body: AppointmentTypeCreate, now: datetime) -> AppointmentType:
    """Create an appointment type. Raises `validation` (`/allowedRoles/N`), `unauthorized`."""
    kind = AppointmentType(id=uuid.uuid4(), created_at=now, name=body.name, length=body.length,
                           extra={})
    actor.require("create", "AppointmentType", APPOINTMENT_TYPE.of(kind))
    _raise_all(_role_errors(session, body.allowed_roles))
    kind.allowed_roles = ([str(r) for r in body.allowed_roles]
                          if body.allowed_roles is not None else None)
    kind.skill_requirement = _requirement(body)
    session.add(kind)
    session.flush()
    return kind


def update_appointment_type(session: Session, *, actor: Actor, appointment_type_id: uuid.UUID,
                            body: AppointmentTypeUpdate) -> AppointmentType:
    """Change the members sent (null `allowedRoles`/`skillRequirement` clears them).

    Archived types may be edited too (they stay readable). Raises `appointment-type-not-found`,
    `validation` (`/allowedRoles/N`), `unauthorized`.
    """
    kind = session.get(AppointmentType, appointment_type_id, with_for_update=True)
    if kind is None:
        raise not_found("appointment-type", appointment_type_id)
    actor.require("edit", "AppointmentType", APPOINTMENT_TYPE.of(kind))
    sent = body.model_fields_set
    if "allowed_roles" in sent:
        _raise_all(_role_errors(session, body.allowed_roles))
        kind.allowed_roles = ([str(r) for r in body.allowed_roles]
                              if body.allowed_roles is not None else None)
    if "name" in sent and body.name is not None:
        kind.name = body.name
    if "length" in sent and body.length is not None:
        kind.length = body.length
    if "skill_requirement" in sent:
        kind.skill_requirement = _requirement(body)
    session.flush()
    return kind


def archive_appointment_type(session: Session, *, actor: Actor, appointment_type_id: uuid.UUID,
                             now: datetime) -> None:
    """Archive an appointment type (kept, readable, no longer listed); archiving twice is fine.

    Needs both create and edit AppointmentType. Appointments keep their type label. Raises
    `appointment-type-not-found`, `unauthorized`.
    """
    kind = session.get(AppointmentType, appointment_type_id, with_for_update=True)
    if kind is None:
        raise not_found("appointment-type", appointment_type_id)
    fields = APPOINTMENT_TYPE.of(kind)
    actor.require("edit", "AppointmentType", fields)
    actor.require("create", "AppointmentType", fields)
    if kind.archived_at is None:
        kind.archived_at = now
        session.flush()
