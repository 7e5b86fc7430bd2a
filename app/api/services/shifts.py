"""Reading shifts: the list filters, the permission filter, eager loading and ORM → wire conversion.

Every list loads a page's segments, labels and pay codes (and, with display names, provider names
and roles) in a fixed number of statements, whatever the page size. Must not commit, write, or
know about Flask requests; routes call these functions inside their unit of work.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Select, select
from sqlalchemy.orm import Session, joinedload, selectinload
from sqlalchemy.orm.interfaces import LoaderOption

from app.api.auth import Actor
from app.api.models import Shift, ShiftSegment
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, not_found
from app.api.subjects import SHIFT
from app.contract.problems import ProblemCode
from app.contract.shifts import ShiftListQuery, ShiftPayCode, ShiftRead, ShiftSegmentRead


def check_window(start: datetime | None, end: datetime | None) -> None:
    """Raise `negative-range` (path `endDate`) unless `end` comes after `start`."""
    if start is not None and end is not None and end <= start:
        raise ProblemError(
            ProblemCode.NEGATIVE_RANGE,
            "endDate must come after startDate; swap them or widen the window.",
            path="endDate",
        )


def _loading(*, display_names: bool) -> list[LoaderOption]:
    """What a shift response needs, loaded up front: one statement per relationship."""
    segments = selectinload(Shift.segments)
    # Joined rather than selectin: a many-to-one selectin skips its statement when every key is
    # null (an all-open page), which would make the statement count depend on the data.
    options: list[LoaderOption] = [
        segments.selectinload(ShiftSegment.labels),
        selectinload(Shift.pay_codes),
    ]
    if display_names:
        options += [joinedload(Shift.provider), segments.joinedload(ShiftSegment.role)]
    return options


def list_statement(*, actor: Actor, query: ShiftListQuery) -> Select[tuple[Shift]]:
    """Select the shifts the list query asks for and the actor may view (unordered).

    Raises `negative-range`.
    """
    check_window(query.start_date, query.end_date)
    statement = select(Shift).where(actor.where("view", "Shift", SHIFT.columns))
    if query.start_date is not None:
        statement = statement.where(Shift.end_date > query.start_date)
    if query.end_date is not None:
        statement = statement.where(Shift.start_date < query.end_date)
    if query.provider_id is not None:
        statement = statement.where(Shift.provider_id == query.provider_id)
    if query.team_id is not None:
        statement = statement.where(Shift.team_id == query.team_id)
    if query.open_only:
        statement = statement.where(Shift.provider_id.is_(None))
    if not query.include_callouts:
        statement = statement.where(Shift.is_callout.is_(False))
    return statement


def list_shifts(
    session: Session, *, actor: Actor, query: ShiftListQuery, pages: Paginator
) -> tuple[list[Shift], str | None]:
    """Return one page of shifts by start date, and the next page's cursor.

    Raises `negative-range` and `validation` (bad cursor).
    """
    statement = list_statement(actor=actor, query=query).options(
        *_loading(display_names=query.include_display_names)
    )
    return pages.page(session, statement, scope="shifts", query=query,
                      order=[SortKey(Shift.start_date), SortKey(Shift.id)])


def get_shift(
    session: Session, *, actor: Actor, shift_id: uuid.UUID, display_names: bool = False
) -> Shift:
    """Return one shift the actor may view, callout or not.

    Raises `shift-not-found` and `unauthorized`.
    """
    shift = session.get(Shift, shift_id, options=_loading(display_names=display_names))
    if shift is None:
        raise not_found("shift", shift_id)
    actor.require("view", "Shift", SHIFT.of(shift))
    return shift


def _segment_read(segment: ShiftSegment, *, display_names: bool) -> ShiftSegmentRead:
    role = segment.role if display_names else None
    return ShiftSegmentRead(
        id=segment.id,
        imported_id=segment.imported_id,
        created_at=segment.created_at,
        role=segment.role_id,
        role_name=role.name if role else None,
        role_color=role.hex_color if role else None,
        role_imported_id=segment.role_imported_id,
        additional_info=segment.additional_info,
        is_break=segment.is_break,
        is_on_call=segment.is_on_call,
        type=segment.type,  # type: ignore[arg-type]  # CHECK constraint keeps it a SegmentType
        start_date=segment.start_date,
        end_date=segment.end_date,
        skill_requirement=segment.skill_requirement,  # type: ignore[arg-type]  # validated here
        labels=[label.id for label in segment.labels],
    )


def to_read(shift: Shift, *, display_names: bool = False) -> ShiftRead:
    """Convert a loaded shift to its wire form; names and role colours only when asked for."""
    provider = shift.provider if display_names else None
    return ShiftRead(
        id=shift.id,
        created_at=shift.created_at,
        version=shift.version,
        provider=shift.provider_id,
        provider_name=provider.name if provider else None,
        start_date=shift.start_date,
        end_date=shift.end_date,
        segments=[_segment_read(s, display_names=display_names) for s in shift.segments],
        pay_codes=[ShiftPayCode(pay_code_id=p.pay_code_id, value=p.value) for p in shift.pay_codes],
        team=shift.team_id,
        note=shift.note,
        is_callout=shift.is_callout,
        work_rule_override=shift.work_rule_override,
    )
