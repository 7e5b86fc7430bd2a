"""Appointment slot search: load what `app.api.domain.slots.find_slots` needs in three statements.

(1) the appointment type; (2) one UNION ALL of the candidate working segments (with each
provider's licensed regions and team) and those providers' skill and enrollment rows; (3) one
UNION ALL of those providers' busy time in the window: appointments that are not cancelled and
approved time off with its days. The number of statements never depends on the window or the
data. The rules themselves live in the domain module. Must not commit, write or know Flask.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import ColumnElement, Select, String, false, literal, null, select, type_coerce
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.db import UtcDateTime
from app.api.domain import slots as rules
from app.api.domain.intervals import Interval
from app.api.models import (
    Appointment,
    AppointmentType,
    Enrollment,
    Provider,
    ProviderSkill,
    Shift,
    ShiftSegment,
    TimeOffDay,
    TimeOffRequest,
    provider_enrollments,
)
from app.api.problems import negative_range, not_found, validation
from app.contract.appointments import AppointmentSlot, SlotCriteria, SlotSearch, SlotSearchResult

MAX_WINDOW_DAYS = 62
"""Longest search window (`endDate - startDate`) accepted; beyond it the search is refused."""

FREEING_STATUSES = ("cancelled",)
"""Appointment statuses that free their time. `occurred`, `no-show` and `re-scheduled` still
occupy it: the record keeps the provider's time as booked, and a slot must never double-book."""

# A full-day time off request blocks whole local days that may begin up to a day before its
# start or end a day after its end (a day's `date` is written in UTC).
_TIME_OFF_MARGIN = timedelta(days=1)


def _uuids(values: Iterable[str]) -> list[uuid.UUID]:
    """The values that are UUIDs; others cannot name a row, so they match nothing."""
    parsed: list[uuid.UUID] = []
    for value in values:
        try:
            parsed.append(uuid.UUID(str(value)))
        except ValueError:
            continue
    return parsed


def _load_type(session: Session, appointment_type_id: str) -> AppointmentType:
    """The appointment type to search for; raises `appointment-type-not-found` when unknown or
    archived (an archived type is never offered)."""
    ids = _uuids([appointment_type_id])
    kind = session.get(AppointmentType, ids[0]) if ids else None
    if kind is None or kind.archived_at is not None:
        raise not_found("appointment-type", appointment_type_id)
    return kind


def _check_window(body: SlotSearch) -> Interval[datetime]:
    if body.end_date <= body.start_date:
        raise negative_range("/endDate")
    if body.end_date - body.start_date > timedelta(days=MAX_WINDOW_DAYS):
        raise validation("/endDate",
                         f"the search window may span at most {MAX_WINDOW_DAYS} days; "
                         "search a shorter period")
    return Interval(body.start_date, body.end_date)


def _segment_filters(kind: AppointmentType, window: Interval[datetime],
                     requirements: SlotCriteria | None) -> list[ColumnElement[bool]]:
    filters: list[ColumnElement[bool]] = [
        ShiftSegment.type == "working",
        ShiftSegment.is_break == false(),
        ShiftSegment.is_on_call == false(),
        Shift.is_callout == false(),
        Provider.status == "active",
        ShiftSegment.start_date < window.end,
        ShiftSegment.end_date > window.start,
    ]
    if kind.allowed_roles is not None:
        filters.append(ShiftSegment.role_id.in_(_uuids(kind.allowed_roles)))
    if requirements is not None and requirements.provider_ids is not None:
        filters.append(Shift.provider_id.in_(_uuids(requirements.provider_ids)))
    return filters


def _candidate_statement(filters: list[ColumnElement[bool]]) -> tuple[Any, Select[Any]]:
    """The UNION ALL of candidate segments and their providers' skills, and the provider ids."""
    joined = (select(Shift.provider_id)
              .select_from(ShiftSegment)
              .join(Shift, Shift.id == ShiftSegment.shift_id)
              .join(Provider, Provider.id == Shift.provider_id)
              .where(*filters))
    text = String()
    segments = joined.with_only_columns(
        literal("segment", text).label("kind"),
        Shift.provider_id.label("provider_id"),
        Provider.team_id.label("team_id"),
        ShiftSegment.role_id.label("role_id"),
        ShiftSegment.start_date.label("start_date"),
        ShiftSegment.end_date.label("end_date"),
        Provider.licensed_regions.label("regions"),
        type_coerce(null(), text).label("skill"),
        type_coerce(null(), text).label("value"),
    )
    providers = joined.distinct()
    skills = select(
        literal("skill", text), ProviderSkill.provider_id, null(), null(), null(), null(), null(),
        ProviderSkill.skill_name, ProviderSkill.value,
    ).where(ProviderSkill.provider_id.in_(providers))
    enrollments = select(
        literal("skill", text), provider_enrollments.c.provider_id, null(), null(), null(),
        null(), null(), literal(rules.ENROLLMENT, text), Enrollment.name,
    ).join(Enrollment, Enrollment.id == provider_enrollments.c.enrollment_id).where(
        provider_enrollments.c.provider_id.in_(providers)
    )
    return providers, segments.union_all(skills, enrollments)


def _busy_statement(providers: Select[Any], window: Interval[datetime]) -> Any:
    """The UNION ALL of the providers' live appointments and approved time off (with its days)."""
    text = String()
    appointments = select(
        literal("appointment", text).label("kind"),
        Appointment.provider_id.label("provider_id"),
        Appointment.start_date.label("start_date"),
        Appointment.end_date.label("end_date"),
        type_coerce(null(), TimeOffRequest.is_full_day.type).label("is_full_day"),
        type_coerce(null(), UtcDateTime()).label("day"),
        type_coerce(null(), Appointment.id.type).label("request_id"),
    ).where(
        Appointment.provider_id.in_(providers),
        Appointment.status.not_in(FREEING_STATUSES),
        Appointment.start_date < window.end,
        Appointment.end_date > window.start,
    )
    time_off = select(
        literal("time_off", text), TimeOffRequest.provider_id, TimeOffRequest.start_date,
        TimeOffRequest.end_date, TimeOffRequest.is_full_day, TimeOffDay.date, TimeOffRequest.id,
    ).outerjoin(TimeOffDay, TimeOffDay.request_id == TimeOffRequest.id).where(
        TimeOffRequest.provider_id.in_(providers),
        TimeOffRequest.status == "approved",
        TimeOffRequest.start_date < window.end + _TIME_OFF_MARGIN,
        TimeOffRequest.end_date > window.start - _TIME_OFF_MARGIN,
    )
    return appointments.union_all(time_off)


def _candidates(rows: Iterable[Any], actor: Actor) -> list[rules.WorkingSegment]:
    """Working segments with their provider's skills, for providers the actor may book."""
    skill_rows: dict[str, list[tuple[str, str]]] = defaultdict(list)
    segment_rows: list[Any] = []
    for row in rows:
        if row.kind == "segment":
            segment_rows.append(row)
        else:
            skill_rows[str(row.provider_id)].append((row.skill, row.value))
    bookable: dict[str, bool] = {}
    segments: list[rules.WorkingSegment] = []
    for row in segment_rows:
        provider_id = str(row.provider_id)
        if provider_id not in bookable:
            bookable[provider_id] = actor.can("create", "Appointment", {
                "providerId": provider_id, "status": "upcoming",
                "teamId": str(row.team_id) if row.team_id else None,
            })
        if not bookable[provider_id]:
            continue
        skills = rules.skill_set(skill_rows[provider_id], licensed_regions=row.regions or [])
        segments.append(rules.WorkingSegment(
            provider_id=provider_id, role_id=str(row.role_id) if row.role_id else None,
            start=row.start_date, end=row.end_date, skills=skills,
        ))
    return segments


def _busy(rows: Iterable[Any], zone: ZoneInfo) -> list[rules.Busy]:
    """Busy intervals: each appointment as booked, each time off request as it blocks."""
    busy: list[rules.Busy] = []
    requests: dict[Any, tuple[Any, list[datetime]]] = {}
    for row in rows:
        if row.kind == "appointment":
            busy.append(rules.Busy(str(row.provider_id), row.start_date, row.end_date))
        else:
            _, days = requests.setdefault(row.request_id, (row, []))
            if row.day is not None:
                days.append(row.day)
    for row, days in requests.values():
        for block in rules.time_off_block(row.start_date, row.end_date,
                                          is_full_day=row.is_full_day, days=days, zone=zone):
            busy.append(rules.Busy(str(row.provider_id), block.start, block.end, "time_off"))
    return busy


def _criteria(criteria: SlotCriteria | None) -> tuple[frozenset[str] | None, Any]:
    if criteria is None:
        return None, None
    skill = (criteria.skill.model_dump(mode="json", by_alias=True)
             if criteria.skill is not None else None)
    ids = (frozenset(str(i) for i in _uuids(criteria.provider_ids))
           if criteria.provider_ids is not None else None)
    return ids, skill


def search_slots(session: Session, *, actor: Actor, body: SlotSearch, grid: int,
                 zone: ZoneInfo) -> SlotSearchResult:
    """Return the best free slots for the body's appointment type.

    Raises `unauthorized` (the actor may not create appointments), `appointment-type-not-found`
    (unknown or archived type), `negative-range` and `validation` (window over the limit).
    """
    actor.require("create", "Appointment")
    window = _check_window(body)
    kind = _load_type(session, body.appointment_type_id)
    required_ids, required_skill = _criteria(body.requirements)
    preferred_ids, preferred_skill = _criteria(body.preferences)
    providers, candidates = _candidate_statement(
        _segment_filters(kind, window, body.requirements))
    segments = _candidates(session.execute(candidates), actor)
    busy = _busy(session.execute(_busy_statement(providers, window)), zone)
    requirements = rules.Requirements(
        allowed_roles=(frozenset(str(i) for i in _uuids(kind.allowed_roles))
                       if kind.allowed_roles is not None else None),
        skills=tuple(r for r in (kind.skill_requirement, required_skill) if r is not None),
        provider_ids=required_ids,
    )
    preferences = rules.Preferences(provider_ids=preferred_ids or frozenset(),
                                    skill=preferred_skill)
    found = rules.find_slots(segments, busy, kind.length, grid, window, zone, requirements,
                             preferences, body.limit)
    type_id = str(kind.id)
    return SlotSearchResult(results=[
        AppointmentSlot(score=slot.score, appointment_type_id=type_id, start_date=slot.start,
                        end_date=slot.end, provider_id=slot.provider_id)
        for slot in found
    ])

