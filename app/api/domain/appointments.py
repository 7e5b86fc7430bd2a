"""Appointment rules: status transitions, cancellation members, read-only members and overlaps.

Decisions where the spec is silent ("Transitions: not shown"):

- Status moves (`TRANSITIONS`): an `upcoming` appointment may become anything; `occurred` and
  `no-show` may be corrected into each other or reopened as `upcoming`; `re-scheduled` and
  `cancelled` may only be reopened as `upcoming` (a cancelled appointment did not take place, so it
  cannot become `occurred` or `no-show`). Staying in the same status is always allowed.
- A cancelled appointment that stays cancelled is frozen: only `cancellationDate` and
  `cancellationReason` may change. Anything else is changed in the same PATCH that reopens it
  (`status: upcoming`), so the reopened booking is checked for overlaps like a new one.
- `cancellationDate` and `cancellationReason` are only accepted while the resulting status is
  `cancelled` (a non-null value otherwise is `validation`). Cancelling sets `cancellationDate` to
  the one sent, else `now`; leaving `cancelled` clears both.
- `createdAt` is read-only after creation: a PATCH naming a different instant (to the second, the
  wire's precision) is `read-only-field`; repeating the current value is accepted.
- No double booking: an `upcoming` appointment may not overlap (half-open ranges, so
  back-to-back is fine) another `upcoming` appointment of the same provider.
- An appointment lasts at most `LONGEST_APPOINTMENT` (24 hours, the longest an appointment type
  may be): `validation` on `/endDate`. Slot search relies on it to bound how far back it looks
  for appointments begun before its window.

Pure code: no Flask, no SQL, no clock (`now` is a parameter). Problems come back as values
(`Refusal`); the service turns them into problem documents.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from app.api.domain.intervals import Interval
from app.contract.problems import ProblemCode

STATUSES = ("upcoming", "occurred", "cancelled", "no-show", "re-scheduled")
"""Every appointment status; a new appointment is `upcoming` unless told otherwise."""

BLOCKING_STATUS = "upcoming"
"""The status whose appointments hold the provider's time (and so may not overlap)."""

TRANSITIONS: Mapping[str, frozenset[str]] = {
    "upcoming": frozenset({"occurred", "cancelled", "no-show", "re-scheduled"}),
    "occurred": frozenset({"no-show", "upcoming"}),
    "no-show": frozenset({"occurred", "upcoming"}),
    "re-scheduled": frozenset({"upcoming"}),
    "cancelled": frozenset({"upcoming"}),
}
"""Status → the other statuses it may move to (see the module docstring)."""

LONGEST_APPOINTMENT = timedelta(hours=24)
"""The longest an appointment may last (see the module docstring)."""

CANCELLATION_MEMBERS = ("cancellation_date", "cancellation_reason")
"""Members only a cancelled appointment carries."""

_WIRE = {
    "type": "type",
    "provider_id": "providerId",
    "member_id": "memberId",
    "status": "status",
    "start": "startDate",
    "end": "endDate",
    "actual_start": "actualStartDate",
    "actual_end": "actualEndDate",
    "location": "location",
    "cancellation_date": "cancellationDate",
    "cancellation_reason": "cancellationReason",
}
"""`AppointmentState` member → wire name, for problem paths."""


@dataclass(frozen=True)
class AppointmentState:
    """Everything about an appointment that a write may change."""

    type: str
    provider_id: uuid.UUID
    status: str
    start: datetime
    end: datetime
    member_id: str | None = None
    actual_start: datetime | None = None
    actual_end: datetime | None = None
    location: str | None = None
    cancellation_date: datetime | None = None
    cancellation_reason: str | None = None


@dataclass(frozen=True)
class Refusal:
    """Why a write is refused: a problem code, the body member concerned and a message."""

    code: ProblemCode
    path: str
    message: str
    current_state: str | None = None


@dataclass(frozen=True)
class Booking:
    """An appointment as the overlap rule sees it."""

    id: uuid.UUID | None
    start: datetime
    end: datetime
    status: str = BLOCKING_STATUS


def pointer(member: str) -> str:
    """The JSON pointer of an `AppointmentState` member in a request body."""
    return "/" + _WIRE[member]


def can_move(current: str, target: str) -> bool:
    """Whether an appointment may go from status `current` to `target`."""
    return current == target or target in TRANSITIONS.get(current, frozenset())


def _range_refusal(state: AppointmentState) -> Refusal | None:
    if state.end <= state.start:
        return Refusal(ProblemCode.NEGATIVE_RANGE, "/endDate",
                       "The end date must come after the start date.")
    if state.end - state.start > LONGEST_APPOINTMENT:
        return Refusal(ProblemCode.VALIDATION, "/endDate",
                       "must be at most 24 hours after startDate: an appointment lasts a day at "
                       "most")
    if (state.actual_start is not None and state.actual_end is not None
            and state.actual_end <= state.actual_start):
        return Refusal(ProblemCode.NEGATIVE_RANGE, "/actualEndDate",
                       "The actual end date must come after the actual start date.")
    return None


def _misplaced_cancellation(values: Mapping[str, Any]) -> Refusal | None:
    for member in CANCELLATION_MEMBERS:
        if values.get(member) is not None:
            return Refusal(ProblemCode.VALIDATION, pointer(member),
                           "only allowed when the status is cancelled; set status to cancelled "
                           "or leave it out")
    return None


def decide_create(requested: AppointmentState, *, now: datetime) -> AppointmentState | Refusal:
    """Check a new appointment and fill what the rules fill (a cancelled one's date: `now`).

    Refusals: `negative-range` (`/endDate`, `/actualEndDate`) and `validation` (cancellation
    members on an appointment that is not cancelled; longer than `LONGEST_APPOINTMENT`).
    """
    if requested.status != "cancelled":
        refusal = _misplaced_cancellation({m: getattr(requested, m) for m in CANCELLATION_MEMBERS})
        if refusal is not None:
            return refusal
    elif requested.cancellation_date is None:
        requested = replace(requested, cancellation_date=now)
    return _range_refusal(requested) or requested


def decide_update(current: AppointmentState, changes: Mapping[str, Any], *,
                  now: datetime) -> AppointmentState | Refusal:
    """Apply the members a PATCH sent (`AppointmentState` names → values) to `current`.

    Refusals: `invalid-state-transition` (a move `TRANSITIONS` lacks, or changing a cancelled
    appointment that stays cancelled), `validation` (cancellation members while the result is not
    cancelled; longer than `LONGEST_APPOINTMENT`) and `negative-range` (`/endDate`,
    `/actualEndDate`).
    """
    unknown = set(changes) - set(_WIRE)
    if unknown:
        raise ValueError(f"not appointment members: {sorted(unknown)}")
    target = changes.get("status", current.status)
    if not can_move(current.status, target):
        return Refusal(
            ProblemCode.INVALID_STATE_TRANSITION, "/status",
            f"A {current.status} appointment cannot become {target}; allowed: "
            f"{', '.join(sorted(TRANSITIONS.get(current.status, ()))) or 'none'}.",
            current_state=current.status,
        )
    if current.status == "cancelled" and target == "cancelled":
        for member, value in changes.items():
            if member in CANCELLATION_MEMBERS or member == "status":
                continue
            if getattr(current, member) != value:
                return Refusal(
                    ProblemCode.INVALID_STATE_TRANSITION, pointer(member),
                    "A cancelled appointment cannot be changed; reopen it (status upcoming) in "
                    "the same request to change it.",
                    current_state=current.status,
                )
    if target != "cancelled":
        refusal = _misplaced_cancellation(changes)
        if refusal is not None:
            return refusal
    merged = replace(current, **{k: v for k, v in changes.items()
                                 if k not in CANCELLATION_MEMBERS})
    if target == "cancelled":
        sent_date = changes.get("cancellation_date")
        if sent_date is not None:
            date = sent_date
        elif current.status == "cancelled" and current.cancellation_date is not None:
            date = current.cancellation_date
        else:
            date = now
        if "cancellation_reason" in changes:
            reason = changes["cancellation_reason"]
        else:
            reason = current.cancellation_reason if current.status == "cancelled" else None
        merged = replace(merged, cancellation_date=date, cancellation_reason=reason)
    else:
        merged = replace(merged, cancellation_date=None, cancellation_reason=None)
    return _range_refusal(merged) or merged


def created_at_changed(current: datetime, sent: datetime) -> bool:
    """Whether a sent `createdAt` names another instant than the stored one, to the second."""
    return current.replace(microsecond=0) != sent.replace(microsecond=0)


def conflicts(candidate: Booking, others: Iterable[Booking]) -> list[Booking]:
    """The blocking bookings `candidate` overlaps, by start; none unless it blocks itself.

    Ranges are half-open, so an appointment ending when another starts does not conflict; the
    candidate never conflicts with itself (same id).
    """
    if candidate.status != BLOCKING_STATUS:
        return []
    mine = Interval(candidate.start, candidate.end)
    found = [
        other for other in others
        if other.status == BLOCKING_STATUS
        and (candidate.id is None or other.id != candidate.id)
        and mine.overlaps(Interval(other.start, other.end))
    ]
    return sorted(found, key=lambda b: (b.start, str(b.id)))
