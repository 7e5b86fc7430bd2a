"""Reading time off: policies and requests, their filters and permission filters, eager loading
and ORM → wire conversion.

A request always embeds its `policy` (with the policy's pay code): it is loaded in the same
statement as the request, so it costs nothing per row. The `provider` is never embedded: a full
Provider is large and clients already have `providerId`. Must not commit, write, or know about
Flask requests; routes call these functions inside their unit of work.
"""

from __future__ import annotations

import uuid

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session, joinedload
from sqlalchemy.orm.interfaces import LoaderOption

from app.api.auth import Actor
from app.api.models import Provider, TimeOffPolicy, TimeOffRequest
from app.api.pagination import Paginator, SortKey
from app.api.problems import not_found
from app.api.services.shifts import check_window
from app.api.subjects import TIME_OFF_POLICY, TIME_OFF_REQUEST
from app.contract.pay_codes import PayCodeRead
from app.contract.time_off import (
    DailyHours,
    TimeOffPolicyListQuery,
    TimeOffPolicyRead,
    TimeOffRequestFilter,
    TimeOffRequestListQuery,
    TimeOffRequestRead,
    TimeOffSyncStatus,
)
from app.contract.users import UserRead

# Many-to-one relationships are joined, not selectin-loaded: a selectin load skips its statement
# when every key is null, which would make the statement count depend on the page's data.
_POLICY_LOADING: list[LoaderOption] = [joinedload(TimeOffPolicy.pay_code)]
_REQUEST_LOADING: list[LoaderOption] = [
    joinedload(TimeOffRequest.policy).joinedload(TimeOffPolicy.pay_code),
    joinedload(TimeOffRequest.rejected_by),
]


# Policies ---------------------------------------------------------------------------------------


def list_policies(
    session: Session, *, actor: Actor, query: TimeOffPolicyListQuery, pages: Paginator
) -> tuple[list[TimeOffPolicy], str | None]:
    """Return one page of the policies the actor may view, by name, and the next cursor.

    Raises `validation` (bad cursor).
    """
    statement = (
        select(TimeOffPolicy)
        .where(actor.where("view", "TimeOffPolicy", TIME_OFF_POLICY.columns))
        .options(*_POLICY_LOADING)
    )
    return pages.page(session, statement, scope="time-off-policies", query=query,
                      order=[SortKey(TimeOffPolicy.name), SortKey(TimeOffPolicy.id)])


def get_policy(session: Session, *, actor: Actor, policy_id: uuid.UUID) -> TimeOffPolicy:
    """Return one policy the actor may view.

    Raises `time-off-policy-not-found` and `unauthorized`.
    """
    policy = session.get(TimeOffPolicy, policy_id, options=_POLICY_LOADING)
    if policy is None:
        raise not_found("time-off-policy", policy_id)
    actor.require("view", "TimeOffPolicy", TIME_OFF_POLICY.of(policy))
    return policy


def policy_read(policy: TimeOffPolicy) -> TimeOffPolicyRead:
    """Convert a loaded policy to its wire form, its pay code embedded when it has one."""
    return TimeOffPolicyRead(
        id=policy.id,
        created_at=policy.created_at,
        type=policy.type,  # type: ignore[arg-type]  # CHECK constraint keeps it a policy type
        name=policy.name,
        description=policy.description,
        accrual_unit=policy.accrual_unit,  # type: ignore[arg-type]  # CHECK constraint, too
        pay_code_id=policy.pay_code_id,
        pay_code=PayCodeRead.model_validate(policy.pay_code) if policy.pay_code else None,
        properties=policy.properties or None,  # left out when empty (see TimeOffPolicyRead)
    )


# Requests ---------------------------------------------------------------------------------------


def request_statement(
    *, actor: Actor, filters: TimeOffRequestFilter
) -> Select[tuple[TimeOffRequest]]:
    """Select the requests the filters ask for and the actor may view (unordered).

    An empty `status` list means every status, as leaving it out does. Raises `negative-range`.
    """
    check_window(filters.start_date, filters.end_date)
    statement = select(TimeOffRequest).where(
        actor.where("view", "TimeOffRequest", TIME_OFF_REQUEST.columns)
    )
    if filters.status:
        statement = statement.where(TimeOffRequest.status.in_(filters.status))
    if filters.provider_id is not None:
        statement = statement.where(TimeOffRequest.provider_id == filters.provider_id)
    if filters.policy_id is not None:
        statement = statement.where(TimeOffRequest.policy_id == filters.policy_id)
    if filters.team_id is not None:
        team = select(Provider.id).where(Provider.team_id == filters.team_id)
        statement = statement.where(TimeOffRequest.provider_id.in_(team))
    if filters.start_date is not None:
        statement = statement.where(TimeOffRequest.end_date > filters.start_date)
    if filters.end_date is not None:
        statement = statement.where(TimeOffRequest.start_date < filters.end_date)
    return statement


def list_requests(
    session: Session, *, actor: Actor, query: TimeOffRequestListQuery, pages: Paginator
) -> tuple[list[TimeOffRequest], str | None]:
    """Return one page of requests by start date, and the next page's cursor.

    Raises `negative-range` and `validation` (bad cursor).
    """
    statement = request_statement(actor=actor, filters=query).options(*_REQUEST_LOADING)
    return pages.page(session, statement, scope="time-off-requests", query=query,
                      order=[SortKey(TimeOffRequest.start_date), SortKey(TimeOffRequest.id)])


def count_requests(session: Session, *, actor: Actor, filters: TimeOffRequestFilter) -> int:
    """Count the requests the list would walk with the same filters.

    Raises `negative-range`.
    """
    matching = request_statement(actor=actor, filters=filters).subquery()
    return session.scalar(select(func.count()).select_from(matching)) or 0


def get_request(session: Session, *, actor: Actor, request_id: uuid.UUID) -> TimeOffRequest:
    """Return one request the actor may view.

    Raises `time-off-request-not-found` and `unauthorized`.
    """
    # The provider too: the `teamId` permission field of one request reads it.
    options = [*_REQUEST_LOADING, joinedload(TimeOffRequest.provider)]
    request = session.get(TimeOffRequest, request_id, options=options)
    if request is None:
        raise not_found("time-off-request", request_id)
    actor.require("view", "TimeOffRequest", TIME_OFF_REQUEST.of(request))
    return request


def request_read(request: TimeOffRequest) -> TimeOffRequestRead:
    """Convert a loaded request to its wire form.

    The rejection members are filled only for rejected requests, and `syncError` only when a
    sync status is stored; `policy` is embedded, `provider` never is.
    """
    rejected = request.status == "rejected"
    rejected_by = request.rejected_by if rejected else None
    return TimeOffRequestRead(
        id=request.id,
        created_at=request.created_at,
        status=request.status,  # type: ignore[arg-type]  # CHECK constraint keeps it a status
        start_date=request.start_date,
        end_date=request.end_date,
        policy_id=request.policy_id,
        policy=policy_read(request.policy),
        provider_id=request.provider_id,
        note=request.note,
        daily_hours=[DailyHours(date=d.date, duration=d.duration) for d in request.daily_hours],
        paid_hours=request.paid_hours,
        rejected_by_id=request.rejected_by_id if rejected else None,
        rejected_by=UserRead.model_validate(rejected_by) if rejected_by else None,
        rejection_reason=request.rejection_reason if rejected else None,
        sync_error=(TimeOffSyncStatus.model_validate(request.sync_error)
                    if request.sync_error else None),
        conflict_resolution=request.conflict_resolution,  # type: ignore[arg-type]  # CHECK
        is_full_day=request.is_full_day,
    )
