"""Time off: policies (`GET /v1/time-off/policies[/{policyId}]`) and requests
(`GET /v1/time-off/requests`, `/count` and `/{requestId}`).

Thin views over `app.api.services.time_off`: lists and counts show only what the caller may view,
filtered in SQL by the same rules as one-object reads. Requests embed their `policy`, never their
`provider`.
"""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import time_off as service
from app.contract.time_off import (
    TimeOffPolicyListQuery,
    TimeOffPolicyPage,
    TimeOffPolicyRead,
    TimeOffRequestCount,
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
          response=TimeOffPolicyRead, codes=["time-off-policy-not-found"], tag=TAG)
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
          response=TimeOffRequestRead, codes=["time-off-request-not-found"], tag=TAG)
def get_time_off_request(
    session: Session, actor: Actor, request_id: uuid.UUID
) -> TimeOffRequestRead:
    """One time-off request, its policy embedded."""
    return service.request_read(service.get_request(session, actor=actor, request_id=request_id))
