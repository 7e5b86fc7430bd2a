"""Notification use cases: telling people about decisions on their records, and their inbox.

`notify` writes notices in the caller's session, so they commit or roll back with their cause;
the cause functions below (time off decided, punch rejected, shift written, open shift posted,
swap steps) choose the recipients and the words. Nobody is told about their own doing. Each
notice's id is also put in the session's `info` under `PENDING_EMAILS`, which the job queue's
after-commit hook (`app.api.jobs.queue.email_after_commit`) turns into email jobs when SMTP is
configured: only committed notices are mailed, and the request never waits for the mail.

The inbox (list, count, mark read) answers for the caller alone: a notification is its
recipient's, with no permission subject to grant anyone else. Never commits.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Select, func, select, update
from sqlalchemy.orm import Session, selectinload
from sqlalchemy.orm.exc import StaleDataError

from app.api.auth import Actor
from app.api.domain import availability as availability_rules
from app.api.domain import notifications as words
from app.api.models import Notification, Provider, Role, Shift, TimecardPunch, TimeOffRequest, User
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, not_found
from app.api.services.availability import provider_windows
from app.api.services.people import held_roles
from app.contract.notifications import (
    NotificationFilter,
    NotificationListQuery,
    NotificationRead,
    NotificationUpdate,
)
from app.contract.problems import ProblemCode

PENDING_EMAILS = "shiftdesk_notification_emails"
"""`Session.info` key: ids of the notices written in this transaction, for the email hook."""


def notify(session: Session, *, user_ids: Iterable[uuid.UUID | None], kind: str,
           said: words.Words, subject: str, record_id: uuid.UUID,
           record_time: datetime | None = None, skip: uuid.UUID | None = None,
           ) -> list[Notification]:
    """Write one notice per recipient (each once; `None` and `skip`, the actor, left out) in
    the session's transaction, and remember their ids for the email hook."""
    rows = [Notification(id=uuid.uuid4(), user_id=user, kind=kind, title=said.title,
                         body=said.body, subject=subject, record_id=record_id,
                         record_time=record_time)
            for user in dict.fromkeys(user_ids) if user is not None and user != skip]
    session.add_all(rows)
    session.info.setdefault(PENDING_EMAILS, []).extend(row.id for row in rows)
    return rows


def _name(session: Session, user_id: uuid.UUID | None) -> str | None:
    return None if user_id is None else session.scalar(
        select(User.name).where(User.id == user_id))


# Causes -----------------------------------------------------------------------------------------


def time_off_decided(session: Session, *, request: TimeOffRequest, actor_id: uuid.UUID,
                     zone: ZoneInfo) -> None:
    """Tell the provider their request was approved or declined (with the reason)."""
    leave = words.leave_days(request.start_date, request.end_date, zone)
    who = _name(session, actor_id)
    if request.status == "approved":
        kind, said = "time-off-approved", words.time_off_approved(leave, who)
    else:
        kind = "time-off-rejected"
        said = words.time_off_rejected(leave, who, request.rejection_reason)
    notify(session, user_ids=[request.provider_id], kind=kind, said=said,
           subject="TimeOffRequest", record_id=request.id, record_time=request.start_date,
           skip=actor_id)


def punch_rejected(session: Session, *, punch: TimecardPunch, actor_id: uuid.UUID,
                   zone: tzinfo) -> None:
    """Tell the provider a punch of theirs was rejected (with the reviewer's note)."""
    when = words.moment(punch.time, zone)
    said = words.punch_rejected(punch.action, when, _name(session, actor_id), punch.admin_note)
    notify(session, user_ids=[punch.provider_id], kind="punch-rejected", said=said,
           subject="Punch", record_id=punch.id, record_time=punch.time, skip=actor_id)


@dataclass(frozen=True)
class ShiftFacts:
    """What a shift's notices compare: who works it, when, and what it is."""

    id: uuid.UUID
    provider_id: uuid.UUID | None
    team_id: uuid.UUID | None
    start: datetime
    end: datetime
    plan: tuple[Any, ...]

    @classmethod
    def of(cls, shift: Shift) -> ShiftFacts:
        """The facts of a shift as it is now (segments loaded)."""
        return cls(shift.id, shift.provider_id, shift.team_id, shift.start_date, shift.end_date,
                   (shift.is_callout, shift.note, tuple(
                       (s.start_date, s.end_date, s.role_id, s.is_break, s.is_on_call, s.type)
                       for s in sorted(shift.segments, key=lambda s: s.start_date))))


def shift_written(session: Session, *, before: ShiftFacts | None, after: ShiftFacts | None,
                  actor_id: uuid.UUID, zone: ZoneInfo, now: datetime) -> None:
    """Tell the providers concerned what a create, update or delete of a shift did to them.

    The new provider: `shift-assigned`; the same provider: `shift-changed` (when its times,
    callout, note or segments changed); the old provider: `shift-unassigned` (reassigned or made
    open) or `shift-deleted`. A shift that becomes open is also posted to those it fits.
    """
    who = _name(session, actor_id)
    if after is None:
        if before is not None and before.provider_id is not None:
            notify(session, user_ids=[before.provider_id], kind="shift-deleted",
                   said=words.shift_deleted(words.span(before.start, before.end, zone), who),
                   subject="Shift", record_id=before.id, record_time=before.start,
                   skip=actor_id)
        return
    when = words.span(after.start, after.end, zone)
    old = before.provider_id if before is not None else None
    if before is not None and old is None and after.provider_id is None:
        return  # an open shift edited: posted when it opened, not at every edit
    if after.provider_id is not None and after.provider_id == old:
        assert before is not None
        if (before.start, before.end, before.plan) != (after.start, after.end, after.plan):
            was = words.span(before.start, before.end, zone)
            notify(session, user_ids=[after.provider_id], kind="shift-changed",
                   said=words.shift_changed(when, was, who), subject="Shift",
                   record_id=after.id, record_time=after.start, skip=actor_id)
        return
    if old is not None:
        assert before is not None
        notify(session, user_ids=[old], kind="shift-unassigned",
               said=words.shift_unassigned(words.span(before.start, before.end, zone), who),
               subject="Shift", record_id=after.id, record_time=before.start, skip=actor_id)
    if after.provider_id is not None:
        notify(session, user_ids=[after.provider_id], kind="shift-assigned",
               said=words.shift_assigned(when, who), subject="Shift", record_id=after.id,
               record_time=after.start, skip=actor_id)
    else:
        open_shift_posted(session, shift_id=after.id, actor_id=actor_id, zone=zone, now=now)


def fitting_providers(session: Session, shift: Shift, *, zone: ZoneInfo) -> list[Provider]:
    """The shift's team's active providers who hold every role it works in and are not
    unavailable at any moment of it (the availability rule the schedule's warnings use)."""
    needed = {s.role_id for s in shift.segments if not s.is_break and s.role_id is not None}
    if shift.team_id is None:
        return []
    candidates = [
        p for p in session.scalars(
            select(Provider).where(Provider.team_id == shift.team_id,
                                   Provider.status != "dismissed")
            .options(selectinload(Provider.roles), selectinload(Provider.default_role))
            .order_by(Provider.id))
        if needed <= {role.id for role in held_roles(p)}]
    if not candidates:
        return []
    first, last = (shift.start_date.astimezone(zone).date(),
                   shift.end_date.astimezone(zone).date())
    found = provider_windows(session, [p.id for p in candidates], first=first, last=last,
                             zone=zone)
    return [p for p in candidates if not availability_rules.unavailable_overlaps(
        found[p.id], shift.start_date, shift.end_date)]


def open_shift_posted(session: Session, *, shift_id: uuid.UUID, actor_id: uuid.UUID | None,
                      zone: ZoneInfo, now: datetime) -> None:
    """Tell the providers an open shift fits (roles held, not unavailable) that it is there;
    none for a shift that has started."""
    shift = session.get(Shift, shift_id, options=[selectinload(Shift.segments)])
    if shift is None or shift.provider_id is not None or shift.start_date <= now \
            or shift.is_callout:
        return
    recipients = fitting_providers(session, shift, zone=zone)
    if not recipients:
        return
    role_ids = {s.role_id for s in shift.segments if not s.is_break and s.role_id is not None}
    names = sorted(session.scalars(select(Role.name).where(Role.id.in_(role_ids)))) \
        if role_ids else []
    said = words.open_shift_posted(words.span(shift.start_date, shift.end_date, zone),
                                   " / ".join(names))
    notify(session, user_ids=[p.id for p in recipients], kind="open-shift-posted", said=said,
           subject="Shift", record_id=shift.id, record_time=shift.start_date, skip=actor_id)


SWAP_KINDS = ("swap-applied", "swap-accepted", "swap-approved", "swap-rejected")


def swap_step(session: Session, *, kind: str, user_ids: Sequence[uuid.UUID], shift: Shift,
              subject: str, record_id: uuid.UUID, actor_id: uuid.UUID, zone: ZoneInfo,
              offered: Shift | None = None, reason: str | None = None,
              needs_approval: bool = False) -> None:
    """Tell the people of a shift swap about a step of it (for the swap service to call in its
    transaction): `swap-applied` to the lister (`offered`: the shift offered in exchange),
    `swap-accepted` to the applicant (`needs_approval`: a manager still decides),
    `swap-approved` and `swap-rejected` (with `reason`) to both. `subject` is
    `ShiftSwapListing` or `ShiftSwapApplication`, `record_id` its id."""
    when = words.span(shift.start_date, shift.end_date, zone)
    who = _name(session, actor_id)
    said = {
        "swap-applied": lambda: words.swap_applied(
            when, who, offered and words.span(offered.start_date, offered.end_date, zone)),
        "swap-accepted": lambda: words.swap_accepted(when, who, needs_approval),
        "swap-approved": lambda: words.swap_approved(when, who),
        "swap-rejected": lambda: words.swap_rejected(when, who, reason),
    }[kind]()
    notify(session, user_ids=user_ids, kind=kind, said=said, subject=subject,
           record_id=record_id, record_time=shift.start_date, skip=actor_id)


# The inbox --------------------------------------------------------------------------------------


def read(notification: Notification) -> NotificationRead:
    """Convert a notification to its wire form."""
    return NotificationRead(
        id=notification.id, created_at=notification.created_at,
        updated_at=notification.updated_at, version=notification.version,
        kind=notification.kind,  # type: ignore[arg-type]
        title=notification.title, body=notification.body,
        subject=notification.subject,  # type: ignore[arg-type]
        record_id=notification.record_id, record_time=notification.record_time,
        read_at=notification.read_at)


def _mine(statement: Select[Any], actor: Actor, unread: bool | None) -> Select[Any]:
    statement = statement.where(Notification.user_id == actor.user_id)
    if unread is True:
        statement = statement.where(Notification.read_at.is_(None))
    elif unread is False:
        statement = statement.where(Notification.read_at.is_not(None))
    return statement


def list_notifications(session: Session, *, actor: Actor, query: NotificationListQuery,
                       pages: Paginator) -> tuple[list[Notification], str | None]:
    """One page of the caller's notifications, newest first. Raises `validation` (cursor)."""
    return pages.page(session, _mine(select(Notification), actor, query.unread),
                      scope="notifications", query=query,
                      order=[SortKey(Notification.created_at, descending=True),
                             SortKey(Notification.id, descending=True)])


def count_notifications(session: Session, *, actor: Actor, query: NotificationFilter) -> int:
    """How many of the caller's notifications match (one statement on the user's index)."""
    return session.scalar(_mine(select(func.count()).select_from(Notification), actor,
                                query.unread)) or 0


def unread_count(session: Session, *, user_id: uuid.UUID) -> int:
    """How many notifications of the user are unread."""
    return session.scalar(select(func.count()).select_from(Notification).where(
        Notification.user_id == user_id, Notification.read_at.is_(None))) or 0


def locate_notification(session: Session, notification_id: uuid.UUID) -> None:
    """Raise `notification-not-found` unless the notification exists."""
    if session.get(Notification, notification_id) is None:
        raise not_found("notification", notification_id)


def get_notification(session: Session, *, actor: Actor,
                     notification_id: uuid.UUID) -> Notification:
    """One of the caller's notifications. Raises `notification-not-found` (someone else's
    answers the same: their existence is nobody else's business)."""
    found = session.get(Notification, notification_id)
    if found is None or found.user_id != actor.user_id:
        raise not_found("notification", notification_id)
    return found


def _conflict(current: int) -> ProblemError:
    return ProblemError(
        ProblemCode.VERSION_CONFLICT,
        f"This notification changed since you read it (it is now at version {current}); "
        "reload it and apply your change again.", currentVersion=current)


def update_notification(session: Session, *, actor: Actor, notification_id: uuid.UUID,
                        body: NotificationUpdate, now: datetime) -> Notification:
    """Mark one of the caller's notifications read (keeping the first `readAt`) or unread.
    Raises `notification-not-found` and `version-conflict`."""
    found = get_notification(session, actor=actor, notification_id=notification_id)
    if body.version is not None and body.version != found.version:
        raise _conflict(found.version)
    if body.read and found.read_at is None:
        found.read_at = now
    elif not body.read and found.read_at is not None:
        found.read_at = None
    else:
        return found  # nothing changes: the version stays
    found.updated_at = now
    try:
        session.flush()
    except StaleDataError as exc:  # marked by a concurrent request in between
        session.rollback()
        current = session.scalar(select(Notification.version).where(
            Notification.id == notification_id))
        if current is None:
            raise not_found("notification", notification_id) from exc
        raise _conflict(current) from exc
    return found


def mark_all_read(session: Session, *, actor: Actor, now: datetime) -> int:
    """Mark every unread notification of the caller read; how many were. Each one's version
    rises, as a PATCH would raise it."""
    result = session.execute(
        update(Notification)
        .where(Notification.user_id == actor.user_id, Notification.read_at.is_(None))
        .values(read_at=now, updated_at=now, version=Notification.version + 1)
        .execution_options(synchronize_session=False))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]

