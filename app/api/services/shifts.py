"""Shifts: reading (list filters, the permission filter, eager loading, ORM → wire conversion) and
writing (create, update with optimistic locking, delete, claim an open shift).

Every list loads a page's segments, labels and pay codes (and, with display names, provider names
and roles) in a fixed number of statements, whatever the page size. Writes lock the shift row
(`SELECT … FOR UPDATE`; SQLite's write transaction already holds the database lock), check
permissions, apply the pure rules of `app.api.domain.shifts` and flush. Must not commit or know
about Flask requests; routes call these functions inside their unit of work and pass `now`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy import Select, select
from sqlalchemy.orm import Session, joinedload, selectinload
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.orm.interfaces import LoaderOption

from app.api import models as m
from app.api.auth import Actor
from app.api.domain import shifts as rules
from app.api.domain.intervals import Interval
from app.api.models import Shift, ShiftSegment
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, negative_range, not_found, validation
from app.api.subjects import SHIFT
from app.contract.common import construct_trusted
from app.contract.problems import FieldError, ProblemCode
from app.contract.shifts import (
    ShiftClaim,
    ShiftCreate,
    ShiftListQuery,
    ShiftPayCode,
    ShiftRead,
    ShiftSegmentCreate,
    ShiftSegmentRead,
    ShiftUpdate,
)

_SKILL_REQUIREMENT: TypeAdapter[Any] = TypeAdapter(ShiftSegmentRead.model_fields[
    "skill_requirement"].annotation)


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


def list_shift_reads(
    session: Session, *, actor: Actor, query: ShiftListQuery, pages: Paginator
) -> tuple[list[ShiftRead], str | None]:
    """`list_shifts` already in wire form, read with plain column queries (no ORM objects):
    the page, then its segments (with roles), their labels and the pay codes, one statement
    each. Every value comes from a constrained column, so the wire models are built without
    validating them again (a segment's skill requirement excepted).

    Raises `negative-range` and `validation` (bad cursor).
    """
    names = query.include_display_names
    shift_columns: list[Any] = list(Shift.__table__.columns)
    statement = list_statement(actor=actor, query=query)
    if names:
        statement = statement.outerjoin(m.Provider, m.Provider.id == Shift.provider_id)
        shift_columns.append(m.Provider.name.label("provider_name"))
    rows, cursor = pages.page(session, statement.with_only_columns(*shift_columns),
                              scope="shifts", query=query,
                              order=[SortKey(Shift.start_date), SortKey(Shift.id)], rows=True)
    if not rows:
        return [], cursor
    shift_ids = [row.id for row in rows]
    segment_columns: list[Any] = list(ShiftSegment.__table__.columns)
    segments = select(*segment_columns).where(ShiftSegment.shift_id.in_(shift_ids))
    if names:
        segments = segments.outerjoin(m.Role, m.Role.id == ShiftSegment.role_id).add_columns(
            m.Role.name.label("role_name"), m.Role.hex_color.label("role_color"))
    segment_rows = session.execute(
        segments.order_by(ShiftSegment.start_date, ShiftSegment.id)).all()
    labels: dict[uuid.UUID, list[uuid.UUID]] = {}
    if segment_rows:
        for segment_id, label_id in session.execute(
            select(m.segment_labels.c.segment_id, m.Label.id)
            .join(m.Label, m.Label.id == m.segment_labels.c.label_id)
            .where(m.segment_labels.c.segment_id.in_([r.id for r in segment_rows]))
            .order_by(m.Label.name, m.Label.id)
        ):
            labels.setdefault(segment_id, []).append(label_id)
    pay_codes: dict[uuid.UUID, list[ShiftPayCode]] = {}
    for shift_id, pay_code_id, value in session.execute(
        select(m.ShiftPayCode.shift_id, m.ShiftPayCode.pay_code_id, m.ShiftPayCode.value)
        .where(m.ShiftPayCode.shift_id.in_(shift_ids))
    ):
        pay_codes.setdefault(shift_id, []).append(
            construct_trusted(ShiftPayCode, {"pay_code_id": pay_code_id, "value": value}))
    by_shift: dict[uuid.UUID, list[ShiftSegmentRead]] = {}
    for r in segment_rows:
        by_shift.setdefault(r.shift_id, []).append(construct_trusted(ShiftSegmentRead, {
            "id": r.id, "imported_id": r.imported_id, "created_at": r.created_at,
            "role": r.role_id, "role_name": r.role_name if names else None,
            "role_color": r.role_color if names else None,
            "role_imported_id": r.role_imported_id, "additional_info": r.additional_info,
            "is_break": r.is_break, "is_on_call": r.is_on_call, "type": r.type,
            "start_date": r.start_date, "end_date": r.end_date,
            "skill_requirement": (_SKILL_REQUIREMENT.validate_python(r.skill_requirement)
                                  if r.skill_requirement is not None else None),
            "labels": labels.get(r.id, []),
        }))
    return [
        construct_trusted(ShiftRead, {
            "id": row.id, "created_at": row.created_at, "version": row.version,
            "provider": row.provider_id, "provider_name": row.provider_name if names else None,
            "start_date": row.start_date, "end_date": row.end_date,
            "segments": by_shift.get(row.id, []), "pay_codes": pay_codes.get(row.id, []),
            "team": row.team_id, "note": row.note, "is_callout": row.is_callout,
            "work_rule_override": row.work_rule_override,
        })
        for row in rows
    ], cursor


# Writes ----------------------------------------------------------------------------------------


def _fail_on(errors: Sequence[FieldError]) -> None:
    """Raise one `validation` problem naming every failure, the first in `path`."""
    if errors:
        raise validation(errors[0].path, errors[0].message, errors)


def _lock(session: Session, shift_id: uuid.UUID) -> Shift:
    """Load a shift and lock its row for the rest of the transaction, or raise `shift-not-found`.

    `FOR UPDATE` serialises concurrent writers of one shift on PostgreSQL; SQLite ignores it, and
    needs not: a write unit of work holds the database write lock from its BEGIN.
    """
    shift = session.get(Shift, shift_id, with_for_update=True,
                        options=_loading(display_names=False))
    if shift is None:
        raise not_found("shift", shift_id)
    return shift


def _drafts(segments: Sequence[ShiftSegmentCreate]) -> list[rules.SegmentDraft]:
    return [rules.SegmentDraft(start=s.start_date, end=s.end_date, role=s.role,
                               labels=tuple(s.labels)) for s in segments]


def _person_errors(session: Session, *, provider: uuid.UUID | None,
                   team: uuid.UUID | None) -> list[FieldError]:
    """Check that the named provider (not dismissed) and team exist."""
    errors: list[FieldError] = []
    if provider is not None:
        found = session.get(m.Provider, provider)
        if found is None:
            errors.append(FieldError(path="/provider",
                                     message=f"no provider has the id {provider}"))
        elif found.status == "dismissed":
            errors.append(FieldError(path="/provider",
                                     message=f"provider {provider} is dismissed"))
    if team is not None and session.get(m.Team, team) is None:
        errors.append(FieldError(path="/team", message=f"no team has the id {team}"))
    return errors


def _role_teams(session: Session, roles: set[uuid.UUID]) -> dict[uuid.UUID, uuid.UUID]:
    if not roles:
        return {}
    rows = session.execute(select(m.Role.id, m.Role.team_id).where(m.Role.id.in_(roles)))
    return dict(rows.tuples().all())


def _labels(session: Session, segments: Sequence[ShiftSegmentCreate]) -> dict[uuid.UUID, m.Label]:
    wanted = {label for s in segments for label in s.labels}
    if not wanted:
        return {}
    return {label.id: label
            for label in session.scalars(select(m.Label).where(m.Label.id.in_(wanted)))}


def _pay_codes(session: Session, pay_codes: Sequence[ShiftPayCode]) -> set[uuid.UUID]:
    wanted = {p.pay_code_id for p in pay_codes}
    if not wanted:
        return set()
    return set(session.scalars(select(m.PayCode.id).where(m.PayCode.id.in_(wanted))))


def _segment_rows(segments: Sequence[ShiftSegmentCreate],
                  labels: dict[uuid.UUID, m.Label]) -> list[ShiftSegment]:
    return [
        ShiftSegment(
            role_id=s.role,
            type=s.type,
            is_break=bool(s.is_break),
            is_on_call=bool(s.is_on_call),
            start_date=s.start_date,
            end_date=s.end_date,
            skill_requirement=(s.skill_requirement.model_dump(mode="json", by_alias=True)
                               if s.skill_requirement is not None else None),
            labels=[labels[label] for label in s.labels],
        )
        for s in segments
    ]


def _pay_code_rows(pay_codes: Sequence[ShiftPayCode]) -> list[m.ShiftPayCode]:
    return [m.ShiftPayCode(pay_code_id=p.pay_code_id, value=p.value) for p in pay_codes]


def _new_segments_errors(
    session: Session, *, start: datetime, end: datetime, team: uuid.UUID | None,
    segments: Sequence[ShiftSegmentCreate], pay_codes: Sequence[ShiftPayCode],
) -> tuple[list[FieldError], dict[uuid.UUID, m.Label]]:
    """Check new segments and pay codes; return the failures and the labels they name."""
    drafts = _drafts(segments)
    labels = _labels(session, segments)
    errors = rules.segment_errors(start, end, drafts)
    errors += rules.reference_errors(
        drafts, team=team, role_teams=_role_teams(session, {s.role for s in segments}),
        known_labels=set(labels), pay_codes=[p.pay_code_id for p in pay_codes],
        known_pay_codes=_pay_codes(session, pay_codes),
    )
    return errors, labels


def create_shift(session: Session, *, actor: Actor, body: ShiftCreate, now: datetime) -> Shift:
    """Create a shift (an open one when `provider` is null) with its segments and pay code.

    Raises `unauthorized` (create Shift on the new shift's fields), `negative-range` (path
    `/endDate`) and `validation` (segments outside the shift, out of order or overlapping; unknown
    provider, team, roles, labels or pay codes; roles of another team).
    """
    shift = Shift(provider_id=body.provider, team_id=body.team, start_date=body.start_date,
                  end_date=body.end_date, note=body.note, is_callout=body.is_callout,
                  work_rule_override=body.work_rule_override, created_at=now, updated_at=now)
    actor.require("create", "Shift", SHIFT.of(shift))
    if body.end_date <= body.start_date:
        raise negative_range("/endDate")
    errors = _person_errors(session, provider=body.provider, team=body.team)
    segment_errors, labels = _new_segments_errors(
        session, start=body.start_date, end=body.end_date, team=body.team,
        segments=body.segments, pay_codes=body.pay_codes)
    _fail_on(errors + segment_errors)
    shift.segments = _segment_rows(body.segments, labels)
    shift.pay_codes = _pay_code_rows(body.pay_codes)
    session.add(shift)
    session.flush()
    return shift


def _current_segment_errors(session: Session, shift: Shift, *, start: datetime, end: datetime,
                            team: uuid.UUID | None) -> list[FieldError]:
    """Check that the shift's kept segments still fit new times or a new team."""
    drafts = [rules.SegmentDraft(start=s.start_date, end=s.end_date, role=s.role_id)
              for s in shift.segments]
    roles = {s.role_id for s in shift.segments if s.role_id is not None}
    found = rules.segment_errors(start, end, drafts) + rules.reference_errors(
        drafts, team=team, role_teams=_role_teams(session, roles), known_labels=set())
    return [FieldError(path="/segments",
                       message=f"the shift's current {e.path.removeprefix('/')} {e.message}; "
                               "send segments that fit the change")
            for e in found]


def _conflict(current: int) -> ProblemError:
    return ProblemError(
        ProblemCode.VERSION_CONFLICT,
        f"This shift changed since you read it (it is now at version {current}); reload it and "
        "apply your change again.",
        currentVersion=current,
    )


def _flush_version(session: Session, shift: Shift) -> None:
    """Flush a changed shift, turning a lost optimistic-locking race into `version-conflict`."""
    shift_id = shift.id
    try:
        session.flush()
    except StaleDataError as exc:
        session.rollback()
        current = session.scalar(select(Shift.version).where(Shift.id == shift_id))
        if current is None:
            raise not_found("shift", shift_id) from exc
        raise _conflict(current) from exc


def update_shift(session: Session, *, actor: Actor, shift_id: uuid.UUID, body: ShiftUpdate,
                 now: datetime) -> Shift:
    """Change the members a PATCH names; `segments` and `payCodes` replace whole lists.

    Every successful update raises the version by one. Raises `shift-not-found`, `unauthorized`
    (edit Shift on the current fields, edit and create on the changed ones), `version-conflict`,
    `negative-range` (path `/endDate`) and `validation` (as for create; kept segments must fit new
    times and team).
    """
    shift = _lock(session, shift_id)
    actor.require("edit", "Shift", SHIFT.of(shift))
    if body.version != shift.version:
        raise _conflict(shift.version)
    sent = body.model_fields_set
    changes: dict[str, Any] = {}
    for name, column in (("provider", "provider_id"), ("team", "team_id"), ("note", "note"),
                         ("work_rule_override", "work_rule_override")):
        if name in sent:
            changes[column] = getattr(body, name)
    for name in ("start_date", "end_date", "is_callout"):
        if getattr(body, name) is not None:
            changes[name] = getattr(body, name)
    after = SHIFT.of(shift) | {
        "provider": changes.get("provider_id", shift.provider_id),
        "team": changes.get("team_id", shift.team_id),
        "isCallout": changes.get("is_callout", shift.is_callout),
        "startDate": changes.get("start_date", shift.start_date),
        "endDate": changes.get("end_date", shift.end_date),
    }
    actor.require("edit", "Shift", after)
    # Changing the plan is scheduling: `edit` alone is what claiming an open shift needs, so a
    # provider allowed to claim must not also be able to rewrite the open shift.
    actor.require("create", "Shift", after)
    start, end, team = after["startDate"], after["endDate"], after["team"]
    if end <= start:
        raise negative_range("/endDate")
    errors = _person_errors(session, provider=changes.get("provider_id"),
                            team=changes.get("team_id"))
    labels: dict[uuid.UUID, m.Label] = {}
    if body.segments is not None or body.pay_codes is not None:
        segment_errors, labels = _new_segments_errors(
            session, start=start, end=end, team=team, segments=body.segments or [],
            pay_codes=body.pay_codes or [])
        errors += segment_errors
    if body.segments is None and {"start_date", "end_date", "team_id"} & set(changes):
        errors += _current_segment_errors(session, shift, start=start, end=end, team=team)
    _fail_on(errors)
    for column, value in changes.items():
        setattr(shift, column, value)
    if body.segments is not None:
        shift.segments = _segment_rows(body.segments, labels)
    if body.pay_codes is not None:
        shift.pay_codes = _pay_code_rows(body.pay_codes)
    # Setting updated_at always UPDATEs the shift row, so the version rises even when only
    # segments or pay codes (other tables) changed.
    shift.updated_at = now
    _flush_version(session, shift)
    return shift


def delete_shift(session: Session, *, actor: Actor, shift_id: uuid.UUID) -> None:
    """Delete a shift with its segments and pay code.

    Deleting needs both `edit` and `create` Shift on it: whoever could put the shift back may take
    it away (a provider's `edit` on open shifts is for claiming them, not deleting them).
    Raises `shift-not-found` and `unauthorized`.
    """
    shift = _lock(session, shift_id)
    fields = SHIFT.of(shift)
    actor.require("edit", "Shift", fields)
    actor.require("create", "Shift", fields)
    session.delete(shift)
    session.flush()


def _qualifications(provider: m.Provider) -> rules.Qualifications:
    skills: dict[str, set[str]] = {}
    for skill in provider.skills:
        skills.setdefault(skill.skill_name, set()).add(skill.value)
    return rules.Qualifications(
        skills={name: frozenset(values) for name, values in skills.items()},
        licensed_regions=frozenset(provider.licensed_regions or []),
        enrollments=frozenset(e.name for e in provider.enrollments),
    )


def claim_shift(session: Session, *, actor: Actor, shift_id: uuid.UUID, body: ShiftClaim,
                now: datetime, default_notice_minutes: int) -> Shift:
    """Give an open shift to the caller's provider (or, for managers, to the provider named).

    The caller needs `edit` Shift on the shift as an open shift (so a shift claimed a moment ago
    answers `shift-already-claimed`, not `unauthorized`); claiming for someone else also needs
    `edit` on the shift as theirs. The claimant's row is locked too, so two claims of overlapping
    shifts by one provider cannot both pass the schedule check. Raises `shift-not-found`,
    `unauthorized`, `validation` (no provider to claim for), `shift-already-claimed`,
    `shift-already-started`, `shift-claim-window-closed`, `shift-missing-skills` and
    `shift-schedule-conflict`.
    """
    shift = _lock(session, shift_id)
    claimant_id = body.provider or actor.provider_id
    if claimant_id is None:
        raise validation("/provider", "you are not a provider; name the provider who claims "
                                      "the shift")
    open_fields = SHIFT.of(shift) | {"provider": None}
    actor.require("edit", "Shift", open_fields)
    if claimant_id != actor.provider_id:
        actor.require("edit", "Shift", open_fields | {"provider": claimant_id})
    claimant = session.get(m.Provider, claimant_id, with_for_update=True, options=[
        selectinload(m.Provider.skills), selectinload(m.Provider.enrollments)])
    if claimant is None or claimant.status == "dismissed":
        reason = "is dismissed" if claimant else "does not exist"
        raise validation("/provider", f"provider {claimant_id} {reason}")
    others = session.execute(
        select(Shift.start_date, Shift.end_date).where(
            Shift.provider_id == claimant_id, Shift.is_callout.is_(False), Shift.id != shift.id,
            Shift.start_date < shift.end_date, Shift.end_date > shift.start_date,
        )
    ).all()
    refusal = rules.claim_refusal(
        rules.ClaimTarget(
            id=shift.id, provider=shift.provider_id, start=shift.start_date, end=shift.end_date,
            minimum_notice_minutes=shift.minimum_notice_minutes,
            requirements=tuple(s.skill_requirement for s in shift.segments),
        ),
        qualifications=_qualifications(claimant),
        other_shifts=[Interval(start, end) for start, end in others],
        now=now,
        default_notice_minutes=default_notice_minutes,
    )
    if refusal is not None:
        raise ProblemError(refusal.code, refusal.detail, **refusal.members)
    shift.provider_id = claimant_id
    shift.claimed_at = now
    shift.updated_at = now
    _flush_version(session, shift)
    return shift
