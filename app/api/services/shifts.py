"""Shifts: reading (list filters, the permission filter, the wire form read from columns) and
writing (create, update with optimistic locking, delete, claim an open shift).

Every answer reads its shifts' segments, labels and pay codes (and, with display names, provider
names and roles) in a fixed number of statements, whatever the page size. Writes lock the shift row
(`SELECT … FOR UPDATE`; SQLite's write transaction already holds the database lock), check
permissions, apply the pure rules of `app.api.domain.shifts` and flush. Must not commit or know
about Flask requests; routes call these functions inside their unit of work and pass `now`.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Connection, Row, Select, bindparam, select
from sqlalchemy.orm import Session, joinedload, selectinload
from sqlalchemy.orm.exc import StaleDataError
from sqlalchemy.orm.interfaces import LoaderOption

from app.api import models as m
from app.api.auth import Actor
from app.api.domain import shifts as rules
from app.api.domain import time_off as time_off_rules
from app.api.domain.intervals import Interval
from app.api.models import Shift, ShiftSegment
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, negative_range, not_found, validation
from app.api.services import locator, notifications, sign_offs, work_rules
from app.api.services.people import held_roles
from app.api.subjects import PROVIDER, SHIFT
from app.api.wire_text import Document, among, wire_id, wire_time
from app.contract.problems import REGISTRY, FieldError, ProblemCode
from app.contract.shifts import (
    ClaimCheckRefusal,
    ShiftClaim,
    ShiftClaimCheck,
    ShiftClaimCheckQuery,
    ShiftCreate,
    ShiftListQuery,
    ShiftPayCode,
    ShiftSegmentCreate,
    ShiftUpdate,
)

locate_shift = locator(Shift, "shift")


def check_window(start: datetime | None, end: datetime | None) -> None:
    """Raise `negative-range` (path `endDate`) unless `end` comes after `start`."""
    if start is not None and end is not None and end <= start:
        raise ProblemError(
            ProblemCode.NEGATIVE_RANGE,
            "endDate must come after startDate; swap them or widen the window.",
            path="endDate",
        )


def _loading() -> list[LoaderOption]:
    """What a write needs of a shift, loaded up front: one statement per relationship."""
    return [selectinload(Shift.segments).selectinload(ShiftSegment.labels),
            selectinload(Shift.pay_codes)]


_FILTERS = ("start_date", "end_date", "provider_id", "team_id")


def _list_statement(actor: Actor, filters: frozenset[str], *, open_only: bool,
                    include_callouts: bool, display_names: bool) -> Select[Any]:
    """The shifts the actor may view, with the `filters` named (their values bound as
    parameters of the same names), in the rows `_documents` reads."""
    statement = _with_wire_columns(select(Shift.id, Shift.start_date),
                                   display_names=display_names).where(
        actor.where("view", "Shift", SHIFT.columns))
    if "start_date" in filters:
        statement = statement.where(Shift.end_date > bindparam("start_date"))
    if "end_date" in filters:
        statement = statement.where(Shift.start_date < bindparam("end_date"))
    if "provider_id" in filters:
        statement = statement.where(Shift.provider_id == bindparam("provider_id"))
    if "team_id" in filters:
        statement = statement.where(Shift.team_id == bindparam("team_id"))
    if open_only:
        statement = statement.where(Shift.provider_id.is_(None))
    if not include_callouts:
        statement = statement.where(Shift.is_callout.is_(False))
    return statement


def get_shift(session: Session, *, actor: Actor, shift_id: uuid.UUID) -> Shift:
    """Return one shift the actor may view, callout or not.

    Raises `shift-not-found` and `unauthorized`.
    """
    shift = session.get(Shift, shift_id)
    if shift is None:
        raise not_found("shift", shift_id)
    actor.require("view", "Shift", SHIFT.of(shift))
    return shift


# The wire form of shifts, read straight from columns (see `app.api.wire_text`): every shift
# answer (a list page, one shift, the result of a write, a time-off request's conflicts) is built
# by `_documents` from rows of shifts with their wire columns and pay code (at most one: it is
# keyed by the shift), and one more statement for their segments with roles and labels. A list's
# page statement (built once per shape of query, see `list_shifts`) selects those columns itself;
# the other answers read them by id with `_SHIFTS`.

def _with_wire_columns(statement: Select[Any], *, display_names: bool) -> Select[Any]:
    """`statement`, which selects `Shift.id` and `Shift.start_date` first, with the rest of the
    shift's wire form after them (`_documents` reads the row in this order)."""
    statement = statement.add_columns(
        wire_id(Shift.id).label("wire_id"),
        wire_time(Shift.created_at).label("created_at"),
        Shift.version,
        wire_id(Shift.provider_id).label("provider"),
        wire_time(Shift.start_date).label("starts"),
        wire_time(Shift.end_date).label("ends"),
        wire_id(Shift.team_id).label("team"),
        Shift.note,
        Shift.is_callout,
        wire_id(Shift.work_rule_override).label("work_rule_override"),
        wire_id(m.ShiftPayCode.pay_code_id).label("pay_code"),
        m.ShiftPayCode.value.label("pay_code_value"),
    ).outerjoin(m.ShiftPayCode, m.ShiftPayCode.shift_id == Shift.id)
    if display_names:
        statement = statement.outerjoin(m.Provider, m.Provider.id == Shift.provider_id
                                        ).add_columns(m.Provider.name.label("provider_name"))
    return statement


def _shifts_statement(*, display_names: bool) -> Select[Any]:
    return _with_wire_columns(select(Shift.id, Shift.start_date), display_names=display_names
                              ).where(among(Shift.id, "shift_ids")).order_by(Shift.start_date,
                                                                             Shift.id)


def _segments_statement(*, display_names: bool) -> Select[Any]:
    """Segments by start, one row per label (a segment without labels has one, label null)."""
    labels = m.segment_labels.c
    statement = select(
        wire_id(ShiftSegment.shift_id).label("shift"),
        wire_id(ShiftSegment.id).label("id"),
        ShiftSegment.imported_id,
        wire_time(ShiftSegment.created_at).label("created_at"),
        wire_id(ShiftSegment.role_id).label("role"),
        ShiftSegment.role_imported_id,
        ShiftSegment.additional_info,
        ShiftSegment.is_break,
        ShiftSegment.is_on_call,
        ShiftSegment.type,
        wire_time(ShiftSegment.start_date).label("starts"),
        wire_time(ShiftSegment.end_date).label("ends"),
        ShiftSegment.skill_requirement,
        wire_id(m.Label.id).label("label"),
    ).outerjoin(m.segment_labels, labels.segment_id == ShiftSegment.id).outerjoin(
        m.Label, m.Label.id == labels.label_id,
    ).where(among(ShiftSegment.shift_id, "shift_ids")).order_by(
        ShiftSegment.start_date, ShiftSegment.id, m.Label.name, m.Label.id)
    if display_names:
        statement = statement.outerjoin(m.Role, m.Role.id == ShiftSegment.role_id).add_columns(
            m.Role.name.label("role_name"), m.Role.hex_color.label("role_color"))
    return statement


# Built once: a statement object keeps its cache key, so reusing it spares working it out again.
_SHIFTS = {names: _shifts_statement(display_names=names) for names in (False, True)}
_SEGMENTS = {names: _segments_statement(display_names=names) for names in (False, True)}


def read_shifts(session: Session, shift_ids: Sequence[uuid.UUID], *,
                display_names: bool = False) -> list[Document]:
    """The wire form of these shifts, by start date (the caller has checked that they exist
    and may be viewed), read with two statements whatever their number.

    Flushes first: after a write, the answer is read back from the rows just written.
    """
    if not shift_ids:
        return []
    session.flush()
    connection = session.connection()
    rows = connection.execute(_SHIFTS[display_names], {"shift_ids": shift_ids}).all()
    return _documents(connection, rows, display_names=display_names)


def _documents(connection: Connection, shifts: Sequence[Row[Any]], *,
               display_names: bool) -> list[Document]:
    """The wire form of `shifts`, rows of `_with_wire_columns`, in their order; their segments
    are read with one statement.

    Members follow `ShiftRead`'s order and its rules for leaving a member out (display names
    only when asked for and known; deprecated members and a pay code's `value` when empty).
    Every value comes from a constrained column, written by the API in its wire form.
    """
    if not shifts:
        return []
    keys = {"shift_ids": [row[0] for row in shifts]}
    segments: dict[str, list[Document]] = {}
    segment: Document = {}
    # Rows are unpacked rather than read by name: a page has hundreds of them.
    for (shift_id, segment_id, imported_id, created_at, role, role_imported_id, additional_info,
         is_break, is_on_call, kind, starts, ends, skill_requirement, label, *names,
         ) in connection.execute(_SEGMENTS[display_names], keys).all():
        if segment.get("id") == segment_id:  # the same segment, with its next label
            segment["labels"].append(label)
            continue
        segment = {"id": segment_id, "importedId": imported_id, "createdAt": created_at,
                   "role": role}
        if names:
            _add_known(segment, roleName=names[0], roleColor=names[1])
        if role_imported_id is not None:
            segment["roleImportedId"] = role_imported_id
        if additional_info is not None:
            segment["additionalInfo"] = additional_info
        segment["isBreak"] = is_break
        segment["isOnCall"] = is_on_call
        segment["type"] = kind
        segment["startDate"] = starts
        segment["endDate"] = ends
        segment["skillRequirement"] = skill_requirement
        segment["labels"] = [] if label is None else [label]
        segments.setdefault(shift_id, []).append(segment)
    documents = []
    for (_id, _start, shift_id, created_at, version, provider, starts, ends, team, note,
         is_callout, work_rule_override, pay_code, pay_code_value, *names) in shifts:
        shift: Document = {"id": shift_id, "createdAt": created_at}
        _add_known(shift, version=version)
        shift["provider"] = provider
        if names:
            _add_known(shift, providerName=names[0])
        pay_codes: list[Document] = []
        if pay_code is not None:
            pay_codes.append({"payCodeId": pay_code})
            _add_known(pay_codes[0], value=pay_code_value)
        shift.update(startDate=starts, endDate=ends, segments=segments.get(shift_id, []),
                     payCodes=pay_codes, team=team, note=note, isCallout=is_callout,
                     workRuleOverride=work_rule_override)
        documents.append(shift)
    return documents


def _add_known(document: Document, **members: Any) -> None:
    """Add the members that have a value: the contract leaves the others out."""
    for name, value in members.items():
        if value is not None:
            document[name] = value


def read_shift(session: Session, shift_id: uuid.UUID, *, display_names: bool = False) -> Document:
    """The wire form of one shift, as `read_shifts`."""
    return read_shifts(session, [shift_id], display_names=display_names)[0]


def list_shifts(
    session: Session, *, actor: Actor, query: ShiftListQuery, pages: Paginator
) -> tuple[list[Document], str | None]:
    """One page of the shifts the query asks for and the actor may view, by start date, in wire
    form (`_documents`), and the next page's cursor. The filtered statement is built once per
    shape of query for as long as the actor is kept (`Actor.statement`).

    Raises `negative-range` and `validation` (bad cursor).
    """
    check_window(query.start_date, query.end_date)
    values = {name: getattr(query, name) for name in _FILTERS
              if getattr(query, name) is not None}
    filters, names = frozenset(values), query.include_display_names
    shape = ("shifts", filters, query.open_only, query.include_callouts, names)
    statement = actor.statement(shape, lambda: _list_statement(
        actor, filters, open_only=query.open_only, include_callouts=query.include_callouts,
        display_names=names))
    rows, cursor = pages.page(session, statement, scope="shifts", query=query,
                              order=[SortKey(Shift.start_date), SortKey(Shift.id)], rows=True,
                              params=values)
    return _documents(session.connection(), rows, display_names=names), cursor


# Writes ----------------------------------------------------------------------------------------


def _fail_on(errors: Sequence[FieldError]) -> None:
    """Raise one `validation` problem naming every failure, the first in `path`."""
    if errors:
        raise validation(errors[0].path, errors[0].message, errors)


def _length_errors(start: datetime, end: datetime) -> list[FieldError]:
    error = rules.length_error(start, end)
    return [] if error is None else [error]


def _lock(session: Session, shift_id: uuid.UUID) -> Shift:
    """Load a shift and lock its row for the rest of the transaction, or raise `shift-not-found`.

    `FOR UPDATE` serialises concurrent writers of one shift on PostgreSQL; SQLite ignores it, and
    needs not: a write unit of work holds the database write lock from its BEGIN.
    """
    shift = session.get(Shift, shift_id, with_for_update=True,
                        options=_loading())
    if shift is None:
        raise not_found("shift", shift_id)
    return shift


def _refuse_if_signed_off(session: Session, spans: Sequence[tuple[uuid.UUID | None, datetime,
                                                                   datetime]]) -> None:
    """Raise `timesheet-signed-off` when a `(provider, start, end)` span touches an active
    sign-off of that provider (see `sign_offs.refuse_shifts_if_signed_off`)."""
    sign_offs.refuse_shifts_if_signed_off(session, spans)


_TIMESHEET_CHANGES = frozenset({"provider_id", "start_date", "end_date", "is_callout"})
"""Shift columns a timesheet is computed from (with segments and pay codes)."""


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


def create_shift(session: Session, *, actor: Actor, body: ShiftCreate, now: datetime,
                 zone: ZoneInfo) -> Shift:
    """Create a shift (an open one when `provider` is null) with its segments and pay code;
    its provider is notified, or an open shift is posted to the providers it fits.

    Raises `unauthorized` (create Shift on the new shift's fields), `negative-range` (path
    `/endDate`), `validation` (segments outside the shift, out of order or overlapping; unknown
    provider, team, roles, labels or pay codes; roles of another team),
    `work-rule-not-found` and `work-rule-override-conflict` (`workRuleOverride`) and
    `timesheet-signed-off` (the shift touches an active sign-off of its provider).
    """
    shift = Shift(provider_id=body.provider, team_id=body.team, start_date=body.start_date,
                  end_date=body.end_date, note=body.note, is_callout=body.is_callout,
                  work_rule_override=body.work_rule_override, created_at=now, updated_at=now)
    actor.require("create", "Shift", SHIFT.of(shift))
    if body.end_date <= body.start_date:
        raise negative_range("/endDate")
    errors = _person_errors(session, provider=body.provider, team=body.team)
    errors += _length_errors(body.start_date, body.end_date)
    segment_errors, labels = _new_segments_errors(
        session, start=body.start_date, end=body.end_date, team=body.team,
        segments=body.segments, pay_codes=body.pay_codes)
    _fail_on(errors + segment_errors)
    work_rules.check_override(session, override_id=body.work_rule_override,
                              provider_id=body.provider, team_id=body.team,
                              start=body.start_date)
    _refuse_if_signed_off(session, [(body.provider, body.start_date, body.end_date)])
    shift.segments = _segment_rows(body.segments, labels)
    shift.pay_codes = _pay_code_rows(body.pay_codes)
    session.add(shift)
    session.flush()
    notifications.shift_written(session, before=None, after=notifications.ShiftFacts.of(shift),
                                actor_id=actor.user_id, zone=zone, now=now)
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
                 now: datetime, zone: ZoneInfo) -> Shift:
    """Change the members a PATCH names; `segments` and `payCodes` replace whole lists. The
    providers concerned are notified (`notifications.shift_written`).

    A `version` sent must be the current one; left out, the change applies to the latest.
    Every successful update raises the version by one. Raises `shift-not-found`, `unauthorized`
    (edit Shift on the current fields, edit and create on the changed ones), `version-conflict`,
    `negative-range` (path `/endDate`), `validation` (as for create; kept segments must fit new
    times and team) and `timesheet-signed-off` (a change a timesheet is computed from —
    provider, times, callout, segments, pay codes — while the shift's old or new span touches
    an active sign-off of its old or new provider).
    """
    shift = _lock(session, shift_id)
    actor.require("edit", "Shift", SHIFT.of(shift))
    if body.version is not None and body.version != shift.version:
        raise _conflict(shift.version)
    before = notifications.ShiftFacts.of(shift)
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
    errors += _length_errors(start, end)
    labels: dict[uuid.UUID, m.Label] = {}
    if body.segments is not None or body.pay_codes is not None:
        segment_errors, labels = _new_segments_errors(
            session, start=start, end=end, team=team, segments=body.segments or [],
            pay_codes=body.pay_codes or [])
        errors += segment_errors
    if body.segments is None and {"start_date", "end_date", "team_id"} & set(changes):
        errors += _current_segment_errors(session, shift, start=start, end=end, team=team)
    _fail_on(errors)
    if {"work_rule_override", "provider_id", "team_id", "start_date"} & set(changes):
        work_rules.check_override(
            session, override_id=changes.get("work_rule_override", shift.work_rule_override),
            provider_id=after["provider"], team_id=team, start=start)
    if _TIMESHEET_CHANGES & set(changes) or body.segments is not None \
            or body.pay_codes is not None:
        _refuse_if_signed_off(session, [
            (shift.provider_id, shift.start_date, shift.end_date),
            (after["provider"], start, end)])
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
    notifications.shift_written(session, before=before, after=notifications.ShiftFacts.of(shift),
                                actor_id=actor.user_id, zone=zone, now=now)
    return shift


def delete_shift(session: Session, *, actor: Actor, shift_id: uuid.UUID, zone: ZoneInfo,
                 now: datetime, version: int | None = None) -> None:
    """Delete a shift with its segments and pay code; with `version`, only that version. Its
    provider is notified.

    Deleting needs both `edit` and `create` Shift on it: whoever could put the shift back may take
    it away (a provider's `edit` on open shifts is for claiming them, not deleting them).
    Raises `shift-not-found`, `unauthorized`, `version-conflict` (the shift is no longer at
    `version`; the row lock makes the check and the delete one step) and `timesheet-signed-off`
    (the shift touches an active sign-off of its provider).
    """
    shift = _lock(session, shift_id)
    fields = SHIFT.of(shift)
    actor.require("edit", "Shift", fields)
    actor.require("create", "Shift", fields)
    if version is not None and version != shift.version:
        raise _conflict(shift.version)
    _refuse_if_signed_off(session, [(shift.provider_id, shift.start_date, shift.end_date)])
    before = notifications.ShiftFacts.of(shift)
    session.delete(shift)
    session.flush()
    notifications.shift_written(session, before=before, after=None, actor_id=actor.user_id,
                                zone=zone, now=now)


def _qualifications(provider: m.Provider) -> rules.Qualifications:
    skills: dict[str, set[str]] = {}
    for skill in provider.skills:
        skills.setdefault(skill.skill_name, set()).add(skill.value)
    return rules.Qualifications(
        skills={name: frozenset(values) for name, values in skills.items()},
        licensed_regions=frozenset(provider.licensed_regions or []),
        enrollments=frozenset(e.name for e in provider.enrollments),
    )


def _claim_target(shift: Shift, role_names: Mapping[uuid.UUID, str]) -> rules.ClaimTarget:
    working = {s.role_id for s in shift.segments if not s.is_break and s.role_id is not None}
    return rules.ClaimTarget(
        id=shift.id, provider=shift.provider_id, start=shift.start_date, end=shift.end_date,
        minimum_notice_minutes=shift.minimum_notice_minutes,
        requirements=tuple(s.skill_requirement for s in shift.segments),
        roles={role: role_names.get(role, str(role)) for role in working},
    )


def _role_names(session: Session, shifts: Sequence[Shift]) -> dict[uuid.UUID, str]:
    ids = {s.role_id for shift in shifts for s in shift.segments if s.role_id is not None}
    if not ids:
        return {}
    return dict(session.execute(select(m.Role.id, m.Role.name).where(among(m.Role.id, "ids")),
                                {"ids": list(ids)}).tuples().all())


def _claimant(session: Session, provider: m.Provider, shifts: Sequence[Shift], *,
              zone: ZoneInfo, assigned: bool = False) -> rules.Claimant:
    """The provider as the claim rules see them for `shifts`: roles (any, when a manager
    assigns the shift), skills, and their own shifts, approved time off and active timesheet
    sign-offs around the span the shifts cover."""
    start = min(s.start_date for s in shifts)
    end = max(s.end_date for s in shifts)
    others = session.execute(
        select(Shift.start_date, Shift.end_date).where(
            Shift.provider_id == provider.id, Shift.is_callout.is_(False),
            Shift.id.not_in([s.id for s in shifts]),
            Shift.start_date < end, Shift.end_date > start,
        )
    ).all()
    # A full-day request blocks whole local days: one stored up to a day beyond the span may
    # still reach into it; the blocked windows are exact.
    margin = timedelta(days=1)
    leave = session.scalars(
        select(m.TimeOffRequest).where(
            m.TimeOffRequest.provider_id == provider.id, m.TimeOffRequest.status == "approved",
            m.TimeOffRequest.start_date < end + margin, m.TimeOffRequest.end_date > start - margin,
        ).options(joinedload(m.TimeOffRequest.policy))
    ).all()
    return rules.Claimant(
        qualifications=_qualifications(provider),
        roles=None if assigned else frozenset(role.id for role in held_roles(provider)),
        other_shifts=[Interval(a, b) for a, b in others],
        time_off=[(r.id, time_off_rules.blocked_window(
            r.start_date, r.end_date, zone=zone, is_full_day=time_off_rules.is_full_day_default(
                r.is_full_day, r.policy.accrual_unit))) for r in leave],
        signed_off=[(i, Interval(a, b)) for i, a, b in sign_offs.active_spans(
            session, provider_id=provider.id, start=start, end=end)],
    )


# Selectin only: the claimant row is read FOR UPDATE, which PostgreSQL refuses across outer joins.
_CLAIMANT_LOADING: list[LoaderOption] = [
    selectinload(m.Provider.skills), selectinload(m.Provider.enrollments),
    selectinload(m.Provider.roles), selectinload(m.Provider.default_role)]


def taking_refusals(session: Session, shift: Shift, taker: m.Provider, *,
                    giving: Sequence[Shift] = (), now: datetime, default_notice_minutes: int,
                    zone: ZoneInfo) -> list[rules.ClaimRefusal]:
    """Every reason of the claim rules why `taker` may not take `shift` from its provider, as
    if it were open (a shift swap's handover): started, inside the minimum notice, a role not
    held, skills missing, approved time off, another shift overlapping (apart from the shifts
    `giving`, which the taker hands over in the same swap) and their own signed-off timesheet.
    Load `taker` with `CLAIMANT_LOADING`."""
    target = dataclasses.replace(_claim_target(shift, _role_names(session, [shift])),
                                 provider=None)
    return rules.claim_refusals(
        target, _claimant(session, taker, [shift, *giving], zone=zone), now=now,
        default_notice_minutes=default_notice_minutes)


CLAIMANT_LOADING = _CLAIMANT_LOADING
"""What the claim rules read of a provider (for `taking_refusals`), selectin only."""


def claim_shift(session: Session, *, actor: Actor, shift_id: uuid.UUID, body: ShiftClaim,
                now: datetime, default_notice_minutes: int, zone: ZoneInfo) -> Shift:
    """Give an open shift to the caller's provider (or, for managers, to the provider named).

    The caller needs `edit` Shift on the shift as an open shift (so a shift claimed a moment ago
    answers `shift-already-claimed`, not `unauthorized`); claiming for someone else also needs
    `edit` on the shift as theirs, and is an assignment: the role rule does not bind it (a
    manager may give a shift to anyone; the page warns). The claimant's row is locked too, so
    two claims of overlapping shifts by one provider cannot both pass the schedule check.
    Raises `shift-not-found`,
    `unauthorized`, `validation` (no provider to claim for), then the first of the claim rules'
    refusals: `shift-already-claimed`, `shift-already-started`, `shift-claim-window-closed`,
    `shift-role-not-held`, `shift-missing-skills`, `shift-time-off-conflict`,
    `shift-schedule-conflict` and `timesheet-signed-off` (the shift touches an active sign-off
    of the claimant). The claimant's row is locked before the sign-offs are read (the lock
    sign-offs take), so no sign-off begins in between.
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
    claimant = session.get(m.Provider, claimant_id, with_for_update=True,
                           options=_CLAIMANT_LOADING)
    if claimant is None or claimant.status == "dismissed":
        reason = "is dismissed" if claimant else "does not exist"
        raise validation("/provider", f"provider {claimant_id} {reason}")
    refusal = rules.claim_refusal(
        _claim_target(shift, _role_names(session, [shift])),
        _claimant(session, claimant, [shift], zone=zone,
                  assigned=claimant_id != actor.provider_id),
        now=now, default_notice_minutes=default_notice_minutes)
    if refusal is not None:
        raise ProblemError(refusal.code, refusal.detail, **refusal.members)
    shift.provider_id = claimant_id
    shift.claimed_at = now
    shift.updated_at = now
    _flush_version(session, shift)
    if claimant_id != actor.provider_id:  # a manager's assignment: the provider hears of it
        notifications.shift_written(session, before=None, after=notifications.ShiftFacts.of(shift),
                                    actor_id=actor.user_id, zone=zone, now=now)
    return shift


def claim_checks(session: Session, *, actor: Actor, query: ShiftClaimCheckQuery, now: datetime,
                 default_notice_minutes: int, zone: ZoneInfo,
                 needed: Callable[[list[uuid.UUID]], Mapping[uuid.UUID, int]],
                 ) -> list[ShiftClaimCheck]:
    """Whether the provider may claim each of the open shifts asked about, with every reason
    not (the claim rules of `claim_shift`, all at once), in the order asked, and how many
    minutes of each fill a gap in the coverage (`needed`: the coverage service's figure, given
    the ids of the shifts answered for).

    Shifts that do not exist or the caller may not view are left out (one may have been deleted
    since the caller listed it). The provider defaults to the caller's own; another needs `view`
    Provider. Raises `validation` (no provider to check for; unknown provider) and
    `unauthorized`.
    """
    claimant_id = query.provider or actor.provider_id
    if claimant_id is None:
        raise validation("provider", "you are not a provider; name the provider to check for")
    claimant = session.get(m.Provider, claimant_id, options=_CLAIMANT_LOADING)
    if claimant is None:
        raise validation("provider", f"no provider has the id {claimant_id}")
    if claimant_id != actor.provider_id:
        actor.require("view", "Provider", PROVIDER.of(claimant))
    wanted = list(dict.fromkeys(query.shift_ids))
    found = {s.id: s for s in session.scalars(
        select(Shift).where(among(Shift.id, "ids")).options(*_loading()),
        {"ids": wanted})}
    shifts = [found[i] for i in wanted
              if i in found and actor.can("view", "Shift", SHIFT.of(found[i]))]
    if not shifts:
        return []
    names = _role_names(session, shifts)
    who = _claimant(session, claimant, shifts, zone=zone)
    short = needed([shift.id for shift in shifts])
    checks = []
    for shift in shifts:
        refusals = rules.claim_refusals(_claim_target(shift, names), who, now=now,
                                        default_notice_minutes=default_notice_minutes)
        checks.append(ShiftClaimCheck(
            shift_id=shift.id, claimable=not refusals, needed_minutes=short.get(shift.id, 0),
            refusals=[ClaimCheckRefusal(code=r.code.value, title=REGISTRY[r.code.value].title,
                                        detail=r.detail, **r.members) for r in refusals]))
    return checks
