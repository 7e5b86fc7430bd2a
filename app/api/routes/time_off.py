"""Time off: policies (`GET /v1/time-off/policies[/{policyId}]`), requests
(`GET /v1/time-off/requests`, `/count` and `/{requestId}`) and the extensions that write them:
create, approve (with a shift-conflict strategy), reject, cancel, and the conflicts preview.

Thin views over `app.api.services.time_off`: lists and counts show only what the caller may view,
filtered in SQL by the same rules as one-object reads. Requests embed their `policy`, never their
`provider`. The clock is read here, at the edge, and the site zone comes from the settings.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from flask import url_for
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import time_off as service
from app.api.services.shifts import read_shifts
from app.api.wire_text import Document
from app.config import Settings
from app.contract.time_off import (
    TimeOffApprove,
    TimeOffDeclineCancellation,
    TimeOffPolicyListQuery,
    TimeOffPolicyPage,
    TimeOffPolicyRead,
    TimeOffReject,
    TimeOffRequestConflicts,
    TimeOffRequestCount,
    TimeOffRequestCreate,
    TimeOffRequestFilter,
    TimeOffRequestListQuery,
    TimeOffRequestPage,
    TimeOffRequestRead,
)

TAG = "Time off"


@endpoint("GET", "/time-off/policies", summary="List time-off policies",
          query=TimeOffPolicyListQuery, response=TimeOffPolicyPage, tag=TAG)
def list_time_off_policies(
    session: Session, actor: Actor, query: TimeOffPolicyListQuery, pages: Paginator
) -> TimeOffPolicyPage:
    """Time-off policies the caller may view, by name, each with its pay code when it has one."""
    rows, cursor = service.list_policies(session, actor=actor, query=query, pages=pages)
    return TimeOffPolicyPage(items=[service.policy_read(p) for p in rows], cursor=cursor)


@endpoint("GET", "/time-off/policies/<policy_id>", summary="Get a time-off policy",
          response=TimeOffPolicyRead, codes=["time-off-policy-not-found"], tag=TAG,
          permits=[("view", "TimeOffPolicy")])
def get_time_off_policy(session: Session, actor: Actor, policy_id: uuid.UUID) -> TimeOffPolicyRead:
    """One time-off policy, with its pay code when it has one."""
    return service.policy_read(service.get_policy(session, actor=actor, policy_id=policy_id))


@endpoint("GET", "/time-off/requests", summary="List time-off requests",
          query=TimeOffRequestListQuery, response=TimeOffRequestPage, codes=["negative-range"],
          tag=TAG)
def list_time_off_requests(
    session: Session, actor: Actor, query: TimeOffRequestListQuery, pages: Paginator
) -> TimeOffRequestPage:
    """Time-off requests overlapping the window (ending after startDate, starting before
    endDate), by start date.

    Each request embeds its `policy`; the `provider` is not embedded (use `providerId`).
    Rejected requests carry rejectedById, rejectedBy and rejectionReason.
    """
    rows, cursor = service.list_requests(session, actor=actor, query=query, pages=pages)
    return TimeOffRequestPage(items=[service.request_read(r) for r in rows], cursor=cursor)


# Declared before `/time-off/requests/<request_id>`; werkzeug also ranks the static rule first.
@endpoint("GET", "/time-off/requests/count", summary="Count time-off requests",
          query=TimeOffRequestFilter, response=TimeOffRequestCount, codes=["negative-range"],
          tag=TAG)
def count_time_off_requests(
    session: Session, actor: Actor, query: TimeOffRequestFilter
) -> TimeOffRequestCount:
    """How many requests the list would return with the same filters."""
    return TimeOffRequestCount(count=service.count_requests(session, actor=actor, filters=query))


@endpoint("GET", "/time-off/requests/<request_id>", summary="Get a time-off request",
          response=TimeOffRequestRead, codes=["time-off-request-not-found"], tag=TAG,
          permits=[("view", "TimeOffRequest")])
def get_time_off_request(
    session: Session, actor: Actor, request_id: uuid.UUID
) -> TimeOffRequestRead:
    """One time-off request, its policy embedded."""
    return service.request_read(service.get_request(session, actor=actor, request_id=request_id))


# Writes (extensions) ----------------------------------------------------------------------------

_DECISION_CODES = ["time-off-request-not-found", "unauthorized", "invalid-state-transition"]


@endpoint("POST", "/time-off/requests", summary="Request time off", body=TimeOffRequestCreate,
          response=TimeOffRequestRead, status=201,
          codes=["validation", "negative-range", "unauthorized", "provider-not-in-policy",
                 "time-off-request-overlap"],
          extension=True, tag=TAG,
          permits=[("create", "TimeOffRequest")])
def create_time_off_request(
    session: Session, actor: Actor, body: TimeOffRequestCreate, settings: Settings
) -> tuple[TimeOffRequestRead, dict[str, str]]:
    """Ask for time off under a policy; the request starts `pending`.

    `providerId` defaults to the caller's own provider (a caller who is not a provider must give
    it). `isFullDay` defaults to whether the policy accrues in days. `dailyHours` is computed per
    local calendar day of the site's time zone (DST-aware) unless given: a full day is the
    provider's daily hours (8 when unset) and a partial day counts the hours of the request
    inside it, capped at a full day. `paidHours` is 0 under an unpaid policy type (`unpaid-day`,
    `absence`), a full day per day off when the policy accrues in days, and otherwise the sum of
    `dailyHours`. Needs `create` TimeOffRequest on the new request's fields.
    """
    request = service.create_request(session, actor=actor, body=body, zone=settings.zone,
                                     now=datetime.now(UTC))
    return service.request_read(request), {
        "Location": url_for("api.get_time_off_request", request_id=request.id)}


@endpoint("POST", "/time-off/requests/<request_id>/approve", summary="Approve a time-off request",
          body=TimeOffApprove, response=TimeOffRequestRead,
          codes=[*_DECISION_CODES, "timesheet-signed-off", "waiting-period",
                 "annual-use-limit-reached", "insufficient-balance"],
          extension=True, tag=TAG, locate=service.locate_request,
          permits=[("approve", "TimeOffRequest")])
def approve_time_off_request(
    session: Session, actor: Actor, body: TimeOffApprove, settings: Settings,
    request_id: uuid.UUID,
) -> TimeOffRequestRead:
    """Approve a pending request and, in the same transaction, apply `conflictResolution` to
    every shift of the provider that overlaps it (whole local days for a full-day request;
    callout shifts are left alone).

    `delete` deletes them, `callout` marks them callouts, `keep` leaves them; `deleteWithOpen`,
    `calloutWithOpen` and `keepWithOpen` also create an open copy of each (no provider, same team,
    segments and pay code). Needs `approve` TimeOffRequest. A strategy that deletes or calls
    out a shift touching a signed-off timesheet of the provider is refused
    (`timesheet-signed-off`) before anything changes; `keep` and `keepWithOpen` are not.
    """
    request = service.approve_request(session, actor=actor, request_id=request_id, body=body,
                                      zone=settings.zone, now=datetime.now(UTC))
    return service.request_read(request)


@endpoint("POST", "/time-off/requests/<request_id>/reject", summary="Reject a time-off request",
          body=TimeOffReject, response=TimeOffRequestRead, codes=_DECISION_CODES,
          extension=True, tag=TAG, locate=service.locate_request,
          permits=[("approve", "TimeOffRequest")])
def reject_time_off_request(
    session: Session, actor: Actor, body: TimeOffReject, settings: Settings,
    request_id: uuid.UUID,
) -> TimeOffRequestRead:
    """Reject a pending request; `rejectionReason` (may be null) is shown to the provider.
    Needs `approve` TimeOffRequest."""
    request = service.reject_request(session, actor=actor, request_id=request_id, body=body,
                                     now=datetime.now(UTC), zone=settings.zone)
    return service.request_read(request)


@endpoint("POST", "/time-off/requests/<request_id>/cancel", summary="Cancel a time-off request",
          response=TimeOffRequestRead,
          codes=[*_DECISION_CODES, "time-off-already-started"], extension=True, tag=TAG,
          permits=[("approve", "TimeOffRequest"), ("edit", "TimeOffRequest")])
def cancel_time_off_request(
    session: Session, actor: Actor, request_id: uuid.UUID
) -> TimeOffRequestRead:
    """Cancel a request, or ask its manager to.

    A caller who may decide the request (`approve` TimeOffRequest) cancels a pending or approved
    request at once. Its provider (`edit` TimeOffRequest) withdraws a pending request at once;
    approved leave that has not started stays `approved` with `cancellationRequestedAt` set
    until a manager cancels it or declines (`decline-cancellation`); leave that has started
    answers `time-off-already-started`.
    Cancelling an approved request does not restore the shifts its approval deleted or called
    out.
    """
    request = service.cancel_request(session, actor=actor, request_id=request_id,
                                     now=datetime.now(UTC))
    return service.request_read(request)


@endpoint("POST", "/time-off/requests/<request_id>/decline-cancellation",
          summary="Keep approved time off whose provider asked to cancel it",
          body=TimeOffDeclineCancellation, response=TimeOffRequestRead, codes=_DECISION_CODES,
          extension=True, tag=TAG, locate=service.locate_request,
          permits=[("approve", "TimeOffRequest")])
def decline_time_off_cancellation(
    session: Session, actor: Actor, body: TimeOffDeclineCancellation, request_id: uuid.UUID
) -> TimeOffRequestRead:
    """Keep the leave approved and clear the provider's request to cancel it; `reason` is shown
    to the provider. Needs `approve` TimeOffRequest."""
    request = service.decline_cancellation(session, actor=actor, request_id=request_id,
                                           body=body, now=datetime.now(UTC))
    return service.request_read(request)


@endpoint("GET", "/time-off/requests/<request_id>/conflicts",
          summary="Preview the shifts a time-off approval acts on",
          response=TimeOffRequestConflicts,
          codes=["time-off-request-not-found", "unauthorized"], extension=True, tag=TAG,
          permits=[("approve", "TimeOffRequest")])
def list_time_off_request_conflicts(
    session: Session, actor: Actor, settings: Settings, request_id: uuid.UUID
) -> Document:
    """The provider's shifts that overlap the request (whole local days for a full-day request),
    callouts left out, by start date: what approval would delete, call out or keep. Needs
    `approve` TimeOffRequest."""
    shifts = service.request_conflicts(session, actor=actor, request_id=request_id,
                                       zone=settings.zone)
    return {"items": read_shifts(session, [s.id for s in shifts])}
