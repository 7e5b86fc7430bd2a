"""Settings kept in the database: reading labels and pay codes, and writing labels.

Every signed-in user may read them (shift segments and timesheets show them), so reads filter by
no permission; label writes need the `Label` subject (by default only admins hold it). Must not
commit, read the request, the clock (`now` is a parameter) or know Flask.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import distinct, func, select
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.models import Label, PayCode, Shift, ShiftSegment, Team, segment_labels
from app.api.pagination import Paginator, SortKey
from app.api.problems import not_found
from app.api.services import locator
from app.api.subjects import LABEL
from app.contract.labels import (
    LabelCreate,
    LabelListQuery,
    LabelTeamUsage,
    LabelUpdate,
    LabelUsage,
)
from app.contract.pay_codes import PayCodeListQuery


def list_labels(
    session: Session, *, query: LabelListQuery, pages: Paginator
) -> tuple[list[Label], str | None]:
    """Return one page of labels by name. Raises `validation` (cursor)."""
    return pages.page(session, select(Label), scope="labels", query=query,
                      order=[SortKey(Label.name), SortKey(Label.id)])


locate_label = locator(Label, "label")


def get_label(session: Session, *, label_id: uuid.UUID) -> Label:
    """Return one label. Raises `label-not-found`."""
    label = session.get(Label, label_id)
    if label is None:
        raise not_found("label", label_id)
    return label


def create_label(session: Session, *, actor: Actor, body: LabelCreate, now: datetime) -> Label:
    """Create a label. Raises `unauthorized` (create Label)."""
    label = Label(id=uuid.uuid4(), created_at=now, updated_at=now, name=body.name,
                  description=body.description, color=body.color)
    actor.require("create", "Label", LABEL.of(label))
    session.add(label)
    session.flush()
    return label


def update_label(session: Session, *, actor: Actor, label_id: uuid.UUID, body: LabelUpdate,
                 now: datetime) -> Label:
    """Change the members sent (a null `description` clears it); `updatedAt` becomes `now`.

    Raises `label-not-found`, `unauthorized` (edit Label).
    """
    label = session.get(Label, label_id, with_for_update=True)
    if label is None:
        raise not_found("label", label_id)
    actor.require("edit", "Label", LABEL.of(label))
    sent = body.model_fields_set
    if "name" in sent and body.name is not None:
        label.name = body.name
    if "description" in sent:
        label.description = body.description
    if "color" in sent and body.color is not None:
        label.color = body.color
    label.updated_at = now
    session.flush()
    return label


def delete_label(session: Session, *, actor: Actor, label_id: uuid.UUID) -> None:
    """Delete a label; the database removes it from every shift segment (ON DELETE CASCADE).

    Needs both create and edit Label. Raises `label-not-found`, `unauthorized`.
    """
    label = session.get(Label, label_id, with_for_update=True)
    if label is None:
        raise not_found("label", label_id)
    fields = LABEL.of(label)
    actor.require("edit", "Label", fields)
    actor.require("create", "Label", fields)
    session.delete(label)
    session.flush()


def label_usage(session: Session, *, actor: Actor, label_id: uuid.UUID,
                now: datetime) -> LabelUsage:
    """Count the shifts whose segments carry the label, by team, and those not yet ended.

    Needs edit Label (it is asked before changing or deleting one). One query whatever the
    number of shifts. Raises `label-not-found`, `unauthorized`.
    """
    label = get_label(session, label_id=label_id)
    actor.require("edit", "Label", LABEL.of(label))
    shifts = (select(Shift.id, Shift.team_id, Shift.end_date)
              .join(ShiftSegment, ShiftSegment.shift_id == Shift.id)
              .join(segment_labels, segment_labels.c.segment_id == ShiftSegment.id)
              .where(segment_labels.c.label_id == label_id)
              .distinct().subquery())
    rows = session.execute(
        select(shifts.c.team_id, Team.name, func.count(distinct(shifts.c.id)),
               func.count(distinct(shifts.c.id)).filter(shifts.c.end_date > now))
        .outerjoin(Team, Team.id == shifts.c.team_id)
        .group_by(shifts.c.team_id, Team.name)
    ).all()
    teams = sorted(rows, key=lambda r: (-r[2], r[1] or "\uffff"))
    return LabelUsage(
        label_id=label_id, shift_count=sum(r[2] for r in rows),
        upcoming_shift_count=sum(r[3] for r in rows),
        teams=[LabelTeamUsage(team_id=r[0], team_name=r[1], shift_count=r[2]) for r in teams])


def list_pay_codes(
    session: Session, *, query: PayCodeListQuery, pages: Paginator
) -> tuple[list[PayCode], str | None]:
    """Return one page of pay codes by name. Raises `validation` (cursor)."""
    return pages.page(session, select(PayCode), scope="pay-codes", query=query,
                      order=[SortKey(PayCode.name), SortKey(PayCode.id)])


def get_pay_code(session: Session, *, pay_code_id: uuid.UUID) -> PayCode:
    """Return one pay code. Raises `pay-code-not-found`."""
    pay_code = session.get(PayCode, pay_code_id)
    if pay_code is None:
        raise not_found("pay-code", pay_code_id)
    return pay_code
