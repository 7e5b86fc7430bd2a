"""The dry run of a permission rule's conditions: what one user could do under them, beside
what they can do today, counted in SQL over the rule's subject.

The user's rules are read and built twice in memory (today's, and with this one rule's
conditions replaced); nothing is written or flushed, and the route runs in a read transaction.
Deciding belongs to `app.api.domain.ability` and `app.api.authorization`; this module only
compares. Must not commit, read the request or know Flask.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, case, func, literal, not_, select
from sqlalchemy.orm import Session

from app.api import models as m
from app.api.auth import Actor, load_actor
from app.api.authorization import sql_filter
from app.api.domain.ability import Ability, build_rules
from app.api.problems import not_found
from app.api.services.permissions import check_conditions
from app.api.subjects import PERMISSION, SUBJECTS
from app.contract.permissions import (
    DryRunCount,
    DryRunRecord,
    PermissionDryRun,
    PermissionDryRunRead,
)

SAMPLE_SIZE = 5


@dataclass(frozen=True)
class _Table:
    """How to count and name the records of one subject."""

    source: Any
    """The entity whose rows are the records (the subject's fields refer to it)."""
    id: ColumnElement[Any]
    label: ColumnElement[Any]
    starts_at: ColumnElement[Any] | None = None
    joins: tuple[tuple[Any, ColumnElement[bool]], ...] = ()


def _person(column: Any) -> tuple[Any, ColumnElement[bool]]:
    return (m.User, m.User.id == column)


_TABLES: dict[str, _Table] = {
    "Team": _Table(m.Team, m.Team.id, m.Team.name),
    "Provider": _Table(m.Provider, m.Provider.id, m.User.name, None,
                       (_person(m.Provider.id),)),
    "Timesheet": _Table(m.Provider, m.Provider.id, m.User.name, None,
                        (_person(m.Provider.id),)),
    "User": _Table(m.User, m.User.id, m.User.name),
    "Shift": _Table(m.Shift, m.Shift.id, func.coalesce(m.User.name, "Open shift"),
                    m.Shift.start_date, (_person(m.Shift.provider_id),)),
    "TimeOffRequest": _Table(m.TimeOffRequest, m.TimeOffRequest.id, m.User.name,
                             m.TimeOffRequest.start_date, (_person(m.TimeOffRequest.provider_id),)),
    "TimeOffPolicy": _Table(m.TimeOffPolicy, m.TimeOffPolicy.id, m.TimeOffPolicy.name),
    "Timecard": _Table(m.Timecard, m.Timecard.id, m.User.name, m.Timecard.period_start,
                       (_person(m.Timecard.provider_id),)),
    "Appointment": _Table(m.Appointment, m.Appointment.id,
                          func.coalesce(m.User.name, "Appointment"), m.Appointment.start_date,
                          (_person(m.Appointment.provider_id),)),
    "AppointmentType": _Table(m.AppointmentType, m.AppointmentType.id, m.AppointmentType.name),
    "Availability": _Table(m.Availability, m.Availability.id, m.User.name,
                           joins=(_person(m.Availability.provider_id),)),
    "Label": _Table(m.Label, m.Label.id, m.Label.name),
    "Permission": _Table(m.Permission, m.Permission.id,
                         m.Permission.action + literal(" ") + m.Permission.subject),
    "Report": _Table(m.ReportRun, m.ReportRun.id, m.ReportRun.report_id, m.ReportRun.created_at),
    "DemandForecast": _Table(m.DemandForecastRow, m.DemandForecastRow.id, m.Role.name,
                             m.DemandForecastRow.start_date,
                             ((m.Role, m.Role.id == m.DemandForecastRow.role_id),)),
    "WorkRule": _Table(m.WorkRule, m.WorkRule.id, m.WorkRule.name),
}
"""Subjects with records to count; the others (`AutoSchedulerJob`, `BalanceReset`) have none."""


def _placeholders(actor: Actor) -> dict[str, Any]:
    """The placeholder values of a user, as `load_actor` fills them."""
    return {
        "id": str(actor.user_id),
        "providerId": str(actor.provider_id) if actor.provider_id else None,
        "teamIds": [str(t) for t in actor.team_ids],
    }


def _user_rules(session: Session, user_id: uuid.UUID) -> list[tuple[uuid.UUID, dict[str, Any]]]:
    """The user's stored rules with their ids, in the order `load_actor` evaluates them."""
    rows = session.scalars(
        select(m.Permission)
        .join(m.user_rbac_roles, m.user_rbac_roles.c.rbac_role_id == m.Permission.rbac_role_id)
        .where(m.user_rbac_roles.c.user_id == user_id)
        .order_by(m.Permission.rbac_role_id, m.Permission.position, m.Permission.created_at)
    ).all()
    return [(p.id, {"action": p.action, "subject": p.subject, "conditions": p.conditions,
                    "inverted": p.inverted, "errorMessage": p.error_message}) for p in rows]


def _records(session: Session, table: _Table, where: ColumnElement[bool]) -> list[DryRunRecord]:
    statement = select(table.id, table.label, table.starts_at if table.starts_at is not None
                       else literal(None).label("starts_at")).select_from(table.source)
    for target, on in table.joins:
        statement = statement.outerjoin(target, on)
    order = ([table.starts_at] if table.starts_at is not None else []) + [table.label, table.id]
    rows = session.execute(statement.where(where).order_by(*order).limit(SAMPLE_SIZE)).all()
    return [DryRunRecord(id=r[0], label=str(r[1] or "Unnamed"), starts_at=r[2]) for r in rows]


def _counts(session: Session, table: _Table,
            parts: list[ColumnElement[bool]]) -> list[int]:
    """How many rows each condition of `parts` holds for, in one pass over the table."""
    statement = select(*(func.coalesce(func.sum(case((p, 1), else_=0)), 0) for p in parts)
                       ).select_from(table.source)
    row = session.execute(statement).one()
    return [int(v) for v in row]


def dry_run_permission(session: Session, *, actor: Actor, permission_id: uuid.UUID,
                       body: PermissionDryRun) -> PermissionDryRunRead:
    """Compare what `body.user_id` may do on the rule's subject today and under `conditions`.

    Raises `unauthorized`, `permission-not-found`, `validation` (as the PATCH),
    `user-not-found`.
    """
    actor.require("edit", "Permission")
    permission = session.get(m.Permission, permission_id)
    if permission is None:
        raise not_found("permission", permission_id)
    actor.require("edit", "Permission", PERMISSION.of(permission))
    check_conditions(permission.subject, body.conditions)
    user = session.get(m.User, body.user_id)
    if user is None:
        raise not_found("user", body.user_id)

    target = load_actor(session, user.id)
    stored = _user_rules(session, user.id)
    holds = any(rule_id == permission.id for rule_id, _ in stored)
    reason: str | None = None
    if target is None:
        current = proposed = Ability()
        reason = f"{user.name} is dismissed and cannot sign in: they can do nothing either way."
    else:
        placeholders = _placeholders(target)
        current = Ability(build_rules([r for _, r in stored], placeholders),
                          is_admin=target.is_admin)
        changed = [dict(r, conditions=body.conditions) if rule_id == permission.id else r
                   for rule_id, r in stored]
        proposed = Ability(build_rules(changed, placeholders), is_admin=target.is_admin)
        if target.is_admin:
            reason = f"{user.name} is an administrator and may do everything whatever the rules."
        elif not holds:
            reason = (f"{user.name} does not hold the {permission.rbac_role.name} role: "
                      "this rule does not apply to them.")

    table = _TABLES.get(permission.subject)
    subject = SUBJECTS.get(permission.subject)
    if table is None or subject is None:
        empty = DryRunCount(count=None, sample=[])
        return PermissionDryRunRead(
            permission_id=permission.id, user_id=user.id, action=permission.action,
            subject=permission.subject, holds_rule=holds,
            reason=f"{permission.subject} has no stored records to count.",
            current=empty, proposed=empty, gained=empty, lost=empty)

    columns = subject.columns
    now = sql_filter(current, permission.action, permission.subject, columns)
    after = sql_filter(proposed, permission.action, permission.subject, columns)
    parts = [now, after, and_(after, not_(now)), and_(now, not_(after))]
    counts = _counts(session, table, parts)
    found = [DryRunCount(count=c, sample=_records(session, table, p) if c else [])
             for c, p in zip(counts, parts, strict=True)]
    return PermissionDryRunRead(
        permission_id=permission.id, user_id=user.id, action=permission.action,
        subject=permission.subject, holds_rule=holds, reason=reason,
        current=found[0], proposed=found[1], gained=found[2], lost=found[3])
