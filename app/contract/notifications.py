"""Notifications on the wire (extension): the signed-in user's notices about decisions on their
records, each linking to the record (`subject` + `recordId`), read or unread.

Shape only: who is told what is the API's business. Every endpoint answers for the caller's own
notifications; there is no way to name another user's.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from app.contract.common import EXTENSION, ApiModel, Count, Id, ListQuery, Page, Timestamp

NotificationKind = Literal[
    "time-off-approved", "time-off-rejected", "punch-rejected",
    "shift-assigned", "shift-changed", "shift-unassigned", "shift-deleted", "open-shift-posted",
    "swap-applied", "swap-accepted", "swap-approved", "swap-rejected",
]
"""What happened: a time-off decision, a rejected punch, a shift given to the person, changed,
given to someone else or deleted, an open shift that fits them, or a step of a shift swap."""

NotificationSubject = Literal[
    "TimeOffRequest", "Punch", "Shift", "ShiftSwapListing", "ShiftSwapApplication",
]


class NotificationRead(ApiModel):
    """A notice to the signed-in user about one record (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    id: Id
    created_at: Timestamp
    updated_at: Timestamp
    version: int
    kind: NotificationKind
    title: str = Field(description="One line: what happened.")
    body: str = Field(description="The details in a sentence or two, with the decider's reason "
                                  "or note when there is one.")
    subject: NotificationSubject = Field(description="The kind of record it is about.")
    record_id: Id = Field(description="The record's id (it may have been deleted since: a "
                                      "`shift-deleted` notice names the shift that was).")
    record_time: Timestamp | None = Field(
        description="When the record happens (a shift's start, a punch's time, leave's start): "
                    "where a calendar or timecard opens.")
    read_at: Timestamp | None = Field(description="When it was marked read; null: unread.")


class NotificationPage(Page[NotificationRead]):
    """A page of notifications, newest first."""


class NotificationFilter(ApiModel):
    """Filter of GET /v1/notifications and its count."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    unread: bool | None = Field(default=None, description="true: only unread; false: only "
                                                          "read; left out: all.")


class NotificationListQuery(NotificationFilter, ListQuery):
    """Query of GET /v1/notifications."""


class NotificationUpdate(ApiModel):
    """Body of PATCH /v1/notifications/{notificationId}."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    version: Annotated[int, Field(ge=0)] | None = Field(
        default=None, description="The version being changed; an outdated one fails with "
                                  "`version-conflict`. Left out, the change applies to the latest.")
    read: bool = Field(description="true marks it read (keeping the first `readAt`); false "
                                   "marks it unread again.")


class NotificationCount(Count):
    """The answer of GET /v1/notifications/count (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class NotificationsMarked(ApiModel):
    """The answer of POST /v1/notifications/mark-all-read (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    marked: int = Field(ge=0, description="How many unread notifications were marked read.")
