"""Notifications (extension): the caller's own notices (`/v1/notifications`), their count
(`/v1/notifications/count`, `?unread=true` for the bell), marking one read (PATCH, versioned)
and marking all read (`POST /v1/notifications/mark-all-read`).

Thin views over `app.api.services.notifications`. Every endpoint answers for the signed-in user
alone: there is no permission to grant and no way to name another user's notices; someone
else's notification answers `notification-not-found`.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import notifications as service
from app.contract.notifications import (
    NotificationCount,
    NotificationFilter,
    NotificationListQuery,
    NotificationPage,
    NotificationRead,
    NotificationsMarked,
    NotificationUpdate,
)

TAG = "Notifications"


@endpoint("GET", "/notifications", summary="List my notifications",
          query=NotificationListQuery, response=NotificationPage, codes=["validation"],
          extension=True, tag=TAG)
def list_notifications(session: Session, actor: Actor, query: NotificationListQuery,
                       pages: Paginator) -> NotificationPage:
    """The caller's notifications, newest first; `unread=true` only the unread ones. Each
    names its record (`subject`, `recordId`) and when it happens (`recordTime`)."""
    rows, cursor = service.list_notifications(session, actor=actor, query=query, pages=pages)
    return NotificationPage(items=[service.read(r) for r in rows], cursor=cursor)


# Declared before `/notifications/<notification_id>`; werkzeug also ranks the static rule first.
@endpoint("GET", "/notifications/count", summary="Count my notifications",
          query=NotificationFilter, response=NotificationCount, codes=["validation"],
          extension=True, tag=TAG)
def count_notifications(session: Session, actor: Actor,
                        query: NotificationFilter) -> NotificationCount:
    """How many notifications the list would return with the same filter: `unread=true` is the
    unread count (one statement on the recipient's index). `GET /v1/users/me` also carries it
    as `unreadNotifications`, so a page that reads the user anyway needs no second call."""
    return NotificationCount(count=service.count_notifications(session, actor=actor,
                                                               query=query))


@endpoint("POST", "/notifications/mark-all-read", summary="Mark all my notifications read",
          response=NotificationsMarked, extension=True, tag=TAG)
def mark_all_notifications_read(session: Session, actor: Actor) -> NotificationsMarked:
    """Mark every unread notification of the caller read (each one's version rises)."""
    return NotificationsMarked(marked=service.mark_all_read(session, actor=actor,
                                                            now=datetime.now(UTC)))


@endpoint("GET", "/notifications/<notification_id>", summary="Get a notification",
          response=NotificationRead, codes=["notification-not-found"], extension=True,
          tag=TAG)
def get_notification(session: Session, actor: Actor,
                     notification_id: uuid.UUID) -> NotificationRead:
    """One of the caller's notifications."""
    return service.read(service.get_notification(session, actor=actor,
                                                 notification_id=notification_id))


@endpoint("PATCH", "/notifications/<notification_id>", summary="Mark a notification read",
          body=NotificationUpdate, response=NotificationRead,
          codes=["notification-not-found", "validation", "version-conflict"], extension=True,
          tag=TAG, locate=service.locate_notification)
def update_notification(session: Session, actor: Actor, body: NotificationUpdate,
                        notification_id: uuid.UUID) -> NotificationRead:
    """`read: true` marks it read (keeping the first `readAt`), `read: false` unread again. A
    `version` sent must be the current one (else `version-conflict` with `currentVersion`);
    a change that changes nothing keeps the version."""
    return service.read(service.update_notification(
        session, actor=actor, notification_id=notification_id, body=body,
        now=datetime.now(UTC)))
