"""The audit trail's recorder: one session event for every write through `/v1`.

While a `/v1` write runs, `routing.endpoint` puts the caller (`AuditActor`) in the session's
`info` under `ACTOR_KEY`. After each flush of such a session, `_record` looks at the ORM objects
the flush created, changed and deleted, and for each record of an audited model writes one
`audit_events` row on the same connection, in the same transaction (and savepoint): a write that
is rolled back leaves no event, and one that commits always has its events. Child rows (a
shift's segments and pay code, a request's days, a provider's skills, a pay rule's versions) are
folded into their parent record's event under the parent's wire field. A record written by
several flushes of one transaction keeps one event, updated in place.

Values come from the objects' attribute history, so recording reads nothing from the database.
Must not hold per-route code: a new model is audited by adding it to `AUDITED` or `CHILDREN`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from decimal import Decimal
from typing import Any

from sqlalchemy import event, insert, update
from sqlalchemy import inspect as object_mapper_of
from sqlalchemy.orm import Session, object_mapper
from sqlalchemy.orm.attributes import instance_state

from app.api import models as m

ACTOR_KEY = "shiftdesk_audit_actor"
_WRITTEN_KEY = "shiftdesk_audit_written"


@dataclass(frozen=True)
class AuditActor:
    """Who is writing (null user: the system) and the request's id, if the caller sent one."""

    user_id: uuid.UUID | None
    name: str | None
    request_id: str | None = None


@dataclass(frozen=True)
class Audited:
    """How one model is audited: its subject, the fields left out and wire names that differ."""

    subject: str
    skip: frozenset[str] = frozenset()
    rename: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Child:
    """A child row folded into its parent's event under `field` (the parent's wire name)."""

    parent: type[Any]
    parent_key: str
    field: str
    skip: frozenset[str] = frozenset()
    rename: Mapping[str, str] = field(default_factory=dict)


ALWAYS_SKIPPED = frozenset({"id", "created_at", "updated_at", "version"})
"""Bookkeeping every row has: the event itself says when and which record."""

AUDITED: dict[type[Any], Audited] = {
    m.Shift: Audited("Shift", rename={"provider_id": "provider", "team_id": "team"}),
    m.TimecardPunch: Audited("Punch"),
    m.Timecard: Audited("Timecard"),
    m.TimesheetSignOff: Audited("Timesheet"),
    m.TimeOffRequest: Audited("TimeOffRequest"),
    m.TimeOffPolicy: Audited("TimeOffPolicy"),
    m.TimeOffAccrualSettings: Audited("TimeOffPolicy"),
    m.TimeOffBalanceUpload: Audited("BalanceReset", skip=frozenset({"rows", "file_hash"})),
    m.Appointment: Audited("Appointment"),
    m.AppointmentType: Audited("AppointmentType"),
    m.Label: Audited("Label"),
    m.PayCode: Audited("PayCode"),
    m.Permission: Audited("Permission", rename={"rbac_role_id": "roleId"}),
    m.RbacRole: Audited("RbacRole"),
    m.Provider: Audited("Provider"),
    m.User: Audited("User"),
    m.Team: Audited("Team"),
    m.Role: Audited("Role"),
    m.EmploymentType: Audited("EmploymentType"),
    m.WorkRule: Audited("WorkRule"),
    m.OvertimeRule: Audited("WorkRule"),
    m.RoundingRule: Audited("WorkRule"),
}
"""Audited models → their subject (the permission subject's name where there is one).

Not audited: sign-in and token tables, the audit trail itself, report runs (a job's
bookkeeping), balance locks and ledger entries (derived from the requests and uploads that are
audited), demand forecast rows (bulk uploads) and app settings."""

CHILDREN: dict[type[Any], Child] = {
    m.ShiftSegment: Child(m.Shift, "shift_id", "segments", skip=frozenset({"shift_id"})),
    m.ShiftPayCode: Child(m.Shift, "shift_id", "payCodes", skip=frozenset({"shift_id"})),
    m.TimeOffDay: Child(m.TimeOffRequest, "request_id", "days",
                        skip=frozenset({"request_id"})),
    m.ProviderSkill: Child(m.Provider, "provider_id", "skills",
                           skip=frozenset({"provider_id"})),
    m.WorkRuleVersion: Child(m.WorkRule, "work_rule_id", "versions",
                             skip=frozenset({"work_rule_id"})),
}

SUBJECTS: tuple[str, ...] = tuple(sorted({a.subject for a in AUDITED.values()}))
"""Every subject an event can have (what `GET /v1/audit-events?subject=` accepts)."""

_SECRET_WORDS = ("hash", "password", "secret", "token")


def wire_name(key: str, rename: Mapping[str, str]) -> str:
    """An attribute's name as the wire spells it: `start_date` → `startDate`."""
    if key in rename:
        return rename[key]
    head, *rest = key.split("_")
    return head + "".join(part.capitalize() for part in rest)


def json_safe(value: Any) -> Any:
    """A value the JSON column stores as is: instants and days ISO, ids and decimals as text."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else None
    if isinstance(value, datetime):
        return (value.astimezone(UTC) if value.tzinfo else value).isoformat()
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, uuid.UUID | Decimal):
        return str(value)
    if isinstance(value, Mapping):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [json_safe(v) for v in value]
    if isinstance(value, bytes):
        return None
    return str(value)


def _columns(obj: Any, skip: frozenset[str]) -> Iterable[str]:
    for attr in object_mapper(obj).column_attrs:
        key = attr.key
        if key in ALWAYS_SKIPPED or key in skip or any(w in key for w in _SECRET_WORDS):
            continue
        yield key


def _snapshot(obj: Any, skip: frozenset[str], rename: Mapping[str, str], *,
              before: bool = False) -> dict[str, Any]:
    """Every audited field of `obj` as it is now (or, with `before`, as it was loaded)."""
    state = instance_state(obj)
    values: dict[str, Any] = {}
    for key in _columns(obj, skip):
        value = state.dict.get(key)
        if before:
            history = state.attrs[key].history
            if history.deleted:
                value = history.deleted[0]
            elif history.added:
                value = None
        values[wire_name(key, rename)] = json_safe(value)
    return values


def _changed(obj: Any, skip: frozenset[str], rename: Mapping[str, str]) -> dict[str, Any]:
    """The fields of a loaded, changed object whose value differs: `{field: {before, after}}`."""
    state = instance_state(obj)
    changes: dict[str, Any] = {}
    for key in _columns(obj, skip):
        history = state.attrs[key].history
        if not history.added and not history.deleted:
            continue
        before = json_safe(history.deleted[0] if history.deleted else None)
        after = json_safe(history.added[0] if history.added else None)
        if before != after:
            changes[wire_name(key, rename)] = {"before": before, "after": after}
    return changes


_COLLECTIONS: dict[type[Any], tuple[tuple[str, Child], ...]] = {}


def _child_collections(cls: type[Any]) -> tuple[tuple[str, Child], ...]:
    """The parent's relationships that hold folded children, with their `Child` spec."""
    if cls not in _COLLECTIONS:
        _COLLECTIONS[cls] = tuple(
            (relationship.key, CHILDREN[relationship.mapper.class_])
            for relationship in object_mapper_of(cls).relationships
            if CHILDREN.get(relationship.mapper.class_, None) is not None
            and CHILDREN[relationship.mapper.class_].parent is cls)
    return _COLLECTIONS[cls]


def _record_id(obj: Any) -> str:
    """The record's primary key as text (read from the object: its identity key is set only
    once the flush is over)."""
    mapper = object_mapper(obj)
    values = instance_state(obj).dict
    return ",".join(str(values.get(mapper.get_property_by_column(column).key))
                    for column in mapper.primary_key)


@dataclass
class _Event:
    action: str
    changes: dict[str, Any]


def _collect(session: Session) -> dict[tuple[str, str], _Event]:
    """This flush's events by (subject, record id)."""
    events: dict[tuple[str, str], _Event] = {}
    deleted_parents: set[tuple[str, str]] = set()
    children: list[tuple[Any, Child, str]] = []
    for kind, objects in (("create", session.new), ("delete", session.deleted),
                          ("edit", session.dirty)):
        for obj in objects:
            cls = type(obj)
            spec = AUDITED.get(cls)
            if spec is None:
                child = CHILDREN.get(cls)
                if child is not None:
                    children.append((obj, child, kind))
                continue
            key = (spec.subject, _record_id(obj))
            if kind == "create":
                changes = {name: {"before": None, "after": value} for name, value
                           in _snapshot(obj, spec.skip, spec.rename).items() if value is not None}
            elif kind == "delete":
                deleted_parents.add(key)
                changes = {name: {"before": value, "after": None} for name, value
                           in _snapshot(obj, spec.skip, spec.rename, before=True).items()
                           if value is not None}
            else:
                changes = _changed(obj, spec.skip, spec.rename)
                if not changes:
                    continue
            found = _Event(kind, changes)
            # Two models of one record (a policy and its accrual settings) share an event.
            events[key] = _merge(events[key], found) if key in events else found
    # Children taken out of a collection are deleted as orphans by this flush: they show as
    # changed (their parent reference), never in `session.deleted`; the collection's history
    # names them.
    orphans: dict[int, tuple[Any, Child]] = {}
    parents: dict[int, str] = {}
    for obj in session.dirty:
        state = instance_state(obj)
        for relationship_key, child in _child_collections(type(obj)):
            for removed in state.attrs[relationship_key].history.deleted:
                orphans[id(removed)] = (removed, child)
                parents[id(removed)] = _record_id(obj)
    children = [item for item in children if id(item[0]) not in orphans]
    children.extend((removed, child, "delete") for removed, child in orphans.values())
    for obj, child, kind in children:
        parent_id = parents.get(id(obj)) or instance_state(obj).dict.get(child.parent_key)
        if parent_id is None:
            continue
        key = (AUDITED[child.parent].subject, str(parent_id))
        if key in deleted_parents:
            continue  # the parent's own event says it is gone
        if kind == "create":
            before, after = None, _snapshot(obj, child.skip, child.rename)
        elif kind == "delete":
            before, after = _snapshot(obj, child.skip, child.rename, before=True), None
        else:
            changed = _changed(obj, child.skip, child.rename)
            if not changed:
                continue
            before = _snapshot(obj, child.skip, child.rename, before=True)
            after = _snapshot(obj, child.skip, child.rename)
        found = events.setdefault(key, _Event("edit", {}))
        lists = found.changes.setdefault(child.field, {"before": [], "after": []})
        if before is not None:
            lists["before"].append(before)
        if after is not None:
            lists["after"].append(after)
    return events


def _merge(earlier: _Event, later: _Event) -> _Event:
    """One event for a record written twice in a transaction: first before, last after."""
    action = ("create" if earlier.action == "create" and later.action != "delete"
              else later.action if later.action == "delete" else earlier.action)
    changes = {name: dict(change) for name, change in earlier.changes.items()}
    for name, change in later.changes.items():
        if name not in changes:
            changes[name] = change
        elif isinstance(change.get("after"), list) and isinstance(changes[name]["after"], list):
            changes[name] = {"before": changes[name]["before"] + change["before"],
                             "after": changes[name]["after"] + change["after"]}
        else:
            changes[name] = {"before": changes[name]["before"], "after": change["after"]}
    changes = {name: change for name, change in changes.items()
               if change["before"] != change["after"]}
    return _Event(action, changes)


@event.listens_for(Session, "after_flush")
def _record(session: Session, _context: Any) -> None:
    """Write this flush's audit events on the flush's own connection (see the module)."""
    actor: AuditActor | None = session.info.get(ACTOR_KEY)
    if actor is None:
        return
    events = _collect(session)
    if not events:
        return
    written: dict[tuple[str, str], tuple[uuid.UUID, _Event]] = session.info.setdefault(
        _WRITTEN_KEY, {})
    connection = session.connection()
    table = m.AuditEvent.__table__
    now = datetime.now(UTC)
    rows: list[dict[str, Any]] = []
    for key, found in events.items():
        if key in written:
            event_id, earlier = written[key]
            merged = _merge(earlier, found)
            result = connection.execute(update(table).where(table.c.id == event_id)
                                        .values(action=merged.action, changes=merged.changes))
            if result.rowcount:
                written[key] = (event_id, merged)
                continue
            # Its savepoint was rolled back: this flush's event stands alone.
        event_id = uuid.uuid4()
        written[key] = (event_id, found)
        rows.append({"id": event_id, "occurred_at": now, "actor_id": actor.user_id,
                     "actor_name": actor.name, "subject": key[0], "record_id": key[1],
                     "action": found.action, "changes": found.changes,
                     "request_id": actor.request_id})
    if rows:
        connection.execute(insert(table), rows)


@event.listens_for(Session, "after_soft_rollback")
def _forget(session: Session, _previous: Any) -> None:
    """A rollback (of a savepoint too) may have undone events: start their records afresh."""
    session.info.pop(_WRITTEN_KEY, None)
