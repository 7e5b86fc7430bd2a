"""Time off: reading policies and requests (filters, permission filters, eager loading, ORM →
wire conversion) and writing requests (create, approve with a shift-conflict strategy, reject,
cancel).

A request always embeds its `policy` (with the policy's pay code): it is loaded in the same
statement as the request, so it costs nothing per row. The `provider` is never embedded: a full
Provider is large and clients already have `providerId`. The rules (hours per day, paid hours,
states, conflict plans) live in `app.api.domain.time_off`; approval applies its plan to the
provider's shifts here, through the ORM, in the route's transaction. Must not commit or know
about Flask requests; routes call these functions inside their unit of work.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy import Select, exists, func, select
from sqlalchemy.orm import Session, joinedload, selectinload
from sqlalchemy.orm.interfaces import LoaderOption

from app.api.auth import Actor
from app.api.domain import time_off as rules
from app.api.domain.intervals import Interval
from app.api.models import (
    Provider,
    Shift,
    ShiftPayCode,
    ShiftSegment,
    TimeOffDay,
    TimeOffPolicy,
    TimeOffRequest,
    User,
    time_off_policy_members,
)
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, negative_range, not_found, validation
from app.api.services import balances, locator, notifications, sign_offs
from app.api.services.shifts import check_window
from app.api.subjects import TIME_OFF_POLICY, TIME_OFF_REQUEST
from app.contract.balances import AccrualSettingsRead
from app.contract.common import format_timestamp
from app.contract.pay_codes import PayCodeRead
from app.contract.problems import FieldError, ProblemCode
from app.contract.time_off import (
    DailyHours,
    TimeOffApprove,
    TimeOffDeclineCancellation,
    TimeOffPolicyListQuery,
    TimeOffPolicyRead,
    TimeOffReject,
    TimeOffRequestCreate,
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


locate_request = locator(TimeOffRequest, "time-off-request")


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
        accrual=_accrual(policy),
    )


def _accrual(policy: TimeOffPolicy) -> AccrualSettingsRead | None:
    """The policy's accrual settings (joined into every policy load), or None."""
    settings = getattr(policy, "accrual_settings", None)
    return balances.accrual_read(policy, settings) if settings is not None else None


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
    if filters.cancellation_requested is not None:
        waiting = TimeOffRequest.cancellation_requested_at.is_not(None)
        statement = statement.where(waiting if filters.cancellation_requested else ~waiting)
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
        cancellation_requested_at=request.cancellation_requested_at,
        cancellation_declined_at=request.cancellation_declined_at,
        cancellation_decline_reason=request.cancellation_decline_reason,
    )


# Writes -----------------------------------------------------------------------------------------

_SHIFT_LOADING: list[LoaderOption] = [
    selectinload(Shift.segments).selectinload(ShiftSegment.labels),
    selectinload(Shift.pay_codes),
]


def _fail_on(errors: list[FieldError]) -> None:
    """Raise one `validation` problem naming every failure, the first in `path`."""
    if errors:
        raise validation(errors[0].path, errors[0].message, errors)


def _day_rows(days: list[rules.DayOff]) -> list[TimeOffDay]:
    """Per-day rows; a day is stored as its date's midnight in UTC, as the wire writes it."""
    return [TimeOffDay(date=datetime.combine(d.day, time(0), tzinfo=UTC), duration=d.hours)
            for d in days]


def create_request(session: Session, *, actor: Actor, body: TimeOffRequestCreate,
                   zone: ZoneInfo, now: datetime) -> TimeOffRequest:
    """Create a pending request, its hours off per local day of `zone` and its paid hours.

    `providerId` defaults to the caller's own provider. `dailyHours`, when given, replaces the
    computed days (each must be a day of the request, none twice). Raises `negative-range` (path
    `/endDate`), `validation` (longer than a year or outside 1900-2999; no provider to default
    to; unknown or dismissed provider; unknown policy; bad `dailyHours`), `unauthorized` (create
    TimeOffRequest on the new request's fields) and `provider-not-in-policy`.
    """
    if body.end_date <= body.start_date:
        raise negative_range("/endDate")
    _fail_on(rules.window_errors(body.start_date, body.end_date))
    provider_id = body.provider_id or actor.provider_id
    if provider_id is None:
        raise validation("/providerId", "you are not a provider yourself; name the provider "
                                        "whose time off this is")
    # The provider's row is locked so that two requests for the same days, sent at once, cannot
    # both pass the overlap check (SQLite's write transaction already serialises them).
    provider = session.get(Provider, provider_id, with_for_update=True)
    policy = session.get(TimeOffPolicy, body.policy_id)
    errors: list[FieldError] = []
    if provider is None:
        errors.append(FieldError(path="/providerId",
                                 message=f"no provider has the id {provider_id}"))
    elif provider.status == "dismissed":
        errors.append(FieldError(path="/providerId",
                                 message=f"provider {provider_id} is dismissed"))
    if policy is None:
        errors.append(FieldError(path="/policyId",
                                 message=f"no time-off policy has the id {body.policy_id}"))
    _fail_on(errors)
    if provider is None or policy is None:  # unreachable: _fail_on raised; narrows the types
        raise validation("/policyId", "unknown policy or provider")
    actor.require("create", "TimeOffRequest", {
        "id": None, "providerId": provider.id, "policyId": policy.id, "status": "pending",
        "startDate": body.start_date, "endDate": body.end_date, "teamId": provider.team_id,
    })
    member = session.scalar(select(exists().where(
        time_off_policy_members.c.policy_id == policy.id,
        time_off_policy_members.c.provider_id == provider.id,
    )))
    if not member:
        raise ProblemError(
            ProblemCode.PROVIDER_NOT_IN_POLICY,
            f"{provider.name or provider.email} is not a member of the policy {policy.name!r}; "
            "choose one of their policies or ask an administrator to add them.",
        )
    is_full_day = rules.is_full_day_default(body.is_full_day, policy.accrual_unit)
    _refuse_overlap(session, provider, rules.blocked_window(
        body.start_date, body.end_date, is_full_day=is_full_day, zone=zone), zone)
    full_day = rules.full_day_hours(provider.daily_hours)
    days = rules.daily_hours(body.start_date, body.end_date, zone=zone,
                             is_full_day=is_full_day, full_day=full_day)
    if body.daily_hours is not None:
        given = [rules.DayOff(d.date.astimezone(UTC).date(), d.duration)
                 for d in body.daily_hours]
        _fail_on(rules.given_days_errors(given, [d.day for d in days]))
        days = sorted(given, key=lambda d: d.day)
    request = TimeOffRequest(
        status="pending", start_date=body.start_date, end_date=body.end_date,
        policy_id=policy.id, provider_id=provider.id, note=body.note, is_full_day=is_full_day,
        paid_hours=rules.paid_hours(days, policy_type=policy.type,
                                    accrual_unit=policy.accrual_unit, full_day=full_day),
        created_at=now, updated_at=now,
    )
    request.daily_hours = _day_rows(days)
    request.policy = policy
    session.add(request)
    session.flush()
    return request


def _refuse_overlap(session: Session, provider: Provider, window: Interval[datetime],
                    zone: ZoneInfo) -> None:
    """Raise `time-off-request-overlap` when the provider's pending or approved requests block
    time inside `window` (see `rules.overlapping`)."""
    # A full-day request blocks whole local days, so one stored up to a day beyond the window
    # may still reach into it; the exact test is done on the blocked windows below.
    margin = timedelta(days=1)
    candidates = list(session.scalars(
        select(TimeOffRequest)
        .where(TimeOffRequest.provider_id == provider.id,
               TimeOffRequest.status.in_(rules.HELD_STATES),
               TimeOffRequest.start_date < window.end + margin,
               TimeOffRequest.end_date > window.start - margin)
        .order_by(TimeOffRequest.start_date, TimeOffRequest.id)
        .options(*_REQUEST_LOADING)
    ))
    clashes = [candidates[i] for i in rules.overlapping(
        window, [(_window(r, zone), r.status) for r in candidates])]
    if not clashes:
        return
    first = clashes[0]
    raise ProblemError(
        ProblemCode.TIME_OFF_REQUEST_OVERLAP,
        f"{provider.name or provider.email} already has {first.status} time off "
        f"({first.policy.name}) from {format_timestamp(first.start_date)} to "
        f"{format_timestamp(first.end_date)} that overlaps this request; change or cancel that "
        "request instead of asking twice.",
        conflicts=[{"id": str(r.id), "status": r.status, "policyName": r.policy.name,
                    "startDate": format_timestamp(r.start_date),
                    "endDate": format_timestamp(r.end_date)} for r in clashes],
    )


def _lock_request(session: Session, request_id: uuid.UUID) -> TimeOffRequest:
    """Load a request and lock its row for the transaction, or raise `time-off-request-not-found`.

    `FOR UPDATE` serialises concurrent decisions on PostgreSQL (the second sees the first's
    outcome); on SQLite the write unit of work already holds the write lock. No joined loading:
    PostgreSQL refuses `FOR UPDATE` on the nullable side of an outer join.
    """
    request = session.get(TimeOffRequest, request_id, with_for_update=True)
    if request is None:
        raise not_found("time-off-request", request_id)
    return request


def _move(request: TimeOffRequest, action: str) -> str:
    """Return the state `action` leads to, or raise `invalid-state-transition`."""
    target = rules.next_state(request.status, action)
    if target is None:
        raise ProblemError(
            ProblemCode.INVALID_STATE_TRANSITION,
            f"This request is {request.status}; only "
            f"{' or '.join(sorted(rules.TRANSITIONS[action]))} requests can be {action}d.",
            currentState=request.status,
        )
    return target


def _window(request: TimeOffRequest, zone: ZoneInfo) -> Interval[datetime]:
    full = rules.is_full_day_default(request.is_full_day, request.policy.accrual_unit)
    return rules.blocked_window(request.start_date, request.end_date, is_full_day=full, zone=zone)


def _overlapping_shifts(session: Session, request: TimeOffRequest, zone: ZoneInfo, *,
                        lock: bool) -> list[Shift]:
    """The provider's shifts approval acts on (overlapping, not callouts), by start."""
    window = _window(request, zone)
    statement = (
        select(Shift)
        .where(Shift.provider_id == request.provider_id, Shift.is_callout.is_(False),
               Shift.start_date < window.end, Shift.end_date > window.start)
        .order_by(Shift.start_date, Shift.id)
        .options(*_SHIFT_LOADING)
    )
    if lock:
        statement = statement.with_for_update()
    shifts = list(session.scalars(statement))
    chosen = rules.conflicts(window, [(s.start_date, s.end_date, s.is_callout) for s in shifts])
    return [shifts[i] for i in chosen]


def _open_copy(shift: Shift, now: datetime) -> Shift:
    """An open copy of a shift: same team, times, note, segments (roles, labels, skill
    requirements) and pay code; no provider."""
    copy = Shift(provider_id=None, team_id=shift.team_id, start_date=shift.start_date,
                 end_date=shift.end_date, note=shift.note, is_callout=False,
                 work_rule_override=shift.work_rule_override,
                 minimum_notice_minutes=shift.minimum_notice_minutes,
                 created_at=now, updated_at=now)
    copy.segments = [
        ShiftSegment(role_id=s.role_id, role_imported_id=s.role_imported_id,
                     additional_info=s.additional_info, is_break=s.is_break,
                     is_on_call=s.is_on_call, type=s.type, start_date=s.start_date,
                     end_date=s.end_date, skill_requirement=s.skill_requirement,
                     labels=list(s.labels), created_at=now)
        for s in shift.segments
    ]
    copy.pay_codes = [ShiftPayCode(pay_code_id=p.pay_code_id, value=p.value)
                      for p in shift.pay_codes]
    return copy


def approve_request(session: Session, *, actor: Actor, request_id: uuid.UUID,
                    body: TimeOffApprove, zone: ZoneInfo, now: datetime) -> TimeOffRequest:
    """Approve a pending request and apply the conflict strategy to every overlapping shift of
    the provider, in the same transaction.

    Overlapping: the shift's interval meets the request's (whole local days of `zone` for a
    full-day request); callout shifts are left alone. `delete` deletes them, `callout` marks them
    callouts (their version rises), `keep` leaves them; the `…WithOpen` variants also create an
    open copy of each.

    Signed-off timesheets (extension): when the strategy deletes or calls out shifts and one of
    them touches an active sign-off of the provider, approval is refused before anything
    changes; the manager reopens the sign-off or chooses `keep`/`keepWithOpen`. Leave that
    itself overlaps a signed-off range is approved when the strategy changes none of the
    provider's shifts there: a timesheet is computed from punches and shifts, not from leave,
    and an open copy has no provider, so nothing signed off changes. Locks the request, then
    the shifts, then the provider's row (the order `sign_offs` documents).

    Under a policy with accrual settings, what the request uses is debited from the provider's
    balance in the same transaction (`app.api.services.balances.debit_on_approval`).

    Raises `time-off-request-not-found`, `unauthorized` (approve TimeOffRequest),
    `invalid-state-transition`, `timesheet-signed-off` (with `signOffId`), `waiting-period`,
    `annual-use-limit-reached` and `insufficient-balance`.
    """
    request = _lock_request(session, request_id)
    actor.require("approve", "TimeOffRequest", TIME_OFF_REQUEST.of(request))
    target = _move(request, "approve")
    plan = rules.PLANS[body.conflict_resolution]
    shifts = _overlapping_shifts(session, request, zone, lock=True)
    if plan.delete or plan.callout:
        sign_offs.refuse_shifts_if_signed_off(
            session, [(s.provider_id, s.start_date, s.end_date) for s in shifts])
    # Balance (extension): debited, or refused, under the (provider, policy) lock, after the
    # request's and the shifts' locks.
    balances.debit_on_approval(session, request=request, actor_id=actor.user_id,
                               today=now.astimezone(zone).date(), zone=zone, now=now)
    copies = []
    for shift in shifts:
        if plan.open_copy:
            copies.append(_open_copy(shift, now))
            session.add(copies[-1])
        if plan.delete:
            session.delete(shift)
        elif plan.callout:
            shift.is_callout = True
            shift.updated_at = now
    request.status = target
    request.conflict_resolution = body.conflict_resolution
    request.decided_at = now
    request.updated_at = now
    session.flush()
    notifications.time_off_decided(session, request=request, actor_id=actor.user_id, zone=zone)
    for copy in copies:
        notifications.open_shift_posted(session, shift_id=copy.id, actor_id=actor.user_id,
                                        zone=zone, now=now)
    return request


def reject_request(session: Session, *, actor: Actor, request_id: uuid.UUID,
                   body: TimeOffReject, now: datetime, zone: ZoneInfo) -> TimeOffRequest:
    """Reject a pending request, recording who rejected it and why (shown to the provider, and
    told them in a notification).

    Raises `time-off-request-not-found`, `unauthorized` (approve TimeOffRequest) and
    `invalid-state-transition`.
    """
    request = _lock_request(session, request_id)
    actor.require("approve", "TimeOffRequest", TIME_OFF_REQUEST.of(request))
    request.status = _move(request, "reject")
    request.rejected_by = session.get(User, actor.user_id)
    request.rejection_reason = body.rejection_reason
    request.decided_at = now
    request.updated_at = now
    session.flush()
    notifications.time_off_decided(session, request=request, actor_id=actor.user_id, zone=zone)
    return request


def cancel_request(session: Session, *, actor: Actor, request_id: uuid.UUID,
                   now: datetime) -> TimeOffRequest:
    """Cancel a request, or ask a manager to (the request stays approved).

    Whoever may decide the request (`approve` TimeOffRequest: its managers) cancels a pending or
    approved one at once, whether or not its provider asked. Otherwise the caller needs `edit`
    (providers: their own requests): a pending request is withdrawn at once; approved leave that
    has not started is not cancelled but marked as waiting for a manager's decision
    (`cancellationRequestedAt`), since the schedule was already changed for it; leave that has
    started cannot be cancelled by its provider. Cancelling does not restore the shifts approval
    deleted or called out, nor remove open copies: the schedule may have moved on since.

    Raises `time-off-request-not-found`, `unauthorized`, `invalid-state-transition` and
    `time-off-already-started`.
    """
    request = _lock_request(session, request_id)
    fields = TIME_OFF_REQUEST.of(request)
    if actor.can("approve", "TimeOffRequest", fields):
        was_approved = request.status == "approved"
        request.status = _move(request, "cancel")
        if was_approved:  # what its approval debited comes back (extension)
            balances.reverse_usage(session, request=request, actor_id=actor.user_id,
                                   today=now.date(), now=now)
        request.cancellation_requested_at = None
        request.decided_at = now
    else:
        actor.require("edit", "TimeOffRequest", fields)
        target = _move(request, "cancel")
        if request.status == "approved":
            _ask_to_cancel(request, now)
        else:
            request.status = target
    request.updated_at = now
    session.flush()
    return request


def _ask_to_cancel(request: TimeOffRequest, now: datetime) -> None:
    """Mark approved leave as waiting for its manager to decide on cancelling it (once), or
    raise `time-off-already-started` when it has begun."""
    if request.start_date <= now:
        raise ProblemError(
            ProblemCode.TIME_OFF_ALREADY_STARTED,
            f"This leave began at {format_timestamp(request.start_date)}; leave that has started "
            "can only be cancelled by your manager.",
            startDate=format_timestamp(request.start_date))
    if request.cancellation_requested_at is None:
        request.cancellation_requested_at = now
        request.cancellation_declined_at = None
        request.cancellation_decline_reason = None


def decline_cancellation(session: Session, *, actor: Actor, request_id: uuid.UUID,
                         body: TimeOffDeclineCancellation, now: datetime) -> TimeOffRequest:
    """Keep approved leave whose provider asked to cancel it, telling them why.

    Raises `time-off-request-not-found`, `unauthorized` (approve TimeOffRequest) and
    `invalid-state-transition` (no cancellation waits).
    """
    request = _lock_request(session, request_id)
    actor.require("approve", "TimeOffRequest", TIME_OFF_REQUEST.of(request))
    if request.cancellation_requested_at is None or request.status != "approved":
        raise ProblemError(
            ProblemCode.INVALID_STATE_TRANSITION,
            f"This request is {request.status} and its provider has not asked to cancel it; "
            "there is no cancellation to decline.", currentState=request.status)
    request.cancellation_requested_at = None
    request.cancellation_declined_at = now
    request.cancellation_decline_reason = body.reason
    request.updated_at = now
    session.flush()
    return request


def request_conflicts(session: Session, *, actor: Actor, request_id: uuid.UUID,
                      zone: ZoneInfo) -> list[Shift]:
    """Return the provider's shifts that approving the request would act on, by start.

    Raises `time-off-request-not-found` and `unauthorized` (approve TimeOffRequest).
    """
    request = session.get(TimeOffRequest, request_id, options=[
        joinedload(TimeOffRequest.policy), joinedload(TimeOffRequest.provider)])
    if request is None:
        raise not_found("time-off-request", request_id)
    actor.require("approve", "TimeOffRequest", TIME_OFF_REQUEST.of(request))
    return _overlapping_shifts(session, request, zone, lock=False)
