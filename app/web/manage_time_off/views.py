"""The time-off queue (blueprint `manage_time_off`):
managers approve or reject their teams' requests.

`index` lists requests with the filters in the query string and cursor paging (a filter
mistake, such as To before From, is shown on its field with the filters kept); `show` opens one
request in place (its days, paid hours, policy, the provider's other requests and the shifts it
overlaps, with what each conflict strategy would do to them); `approve`, `reject` and
`approve_clean` (bulk, only requests without overlapping shifts) decide. Approved leave whose
provider asked to cancel it is listed under "Cancellation requests" (a status filter, announced
above the queue); `cancel_leave` cancels it and `keep_leave` keeps it with an optional reason.
A decision carries what the manager saw (status and overlapping shifts): when either changed
meanwhile, the request is shown again as it is now instead of being decided blind.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from functools import partial
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from flask import Blueprint, Response, flash, request, url_for

from app.client import ApiClient, ApiProblem, Forbidden, NotFound, ValidationProblem
from app.contract.providers import ProviderListQuery, ProviderWithRelations
from app.contract.shifts import ShiftListQuery, ShiftRead
from app.contract.teams import TeamListQuery, TeamRead
from app.contract.time_off import (
    TimeOffApprove,
    TimeOffPolicyListQuery,
    TimeOffPolicyRead,
    TimeOffRequestFilter,
    TimeOffRequestListQuery,
    TimeOffRequestPage,
    TimeOffRequestRead,
)
from app.contract.users import UserMe
from app.web.auth import api, current_user
from app.web.filters import STATUS_WORDS as WORDS
from app.web.filters import format_leave, site_today
from app.web.forms import FilterChip, filter_chips, filter_day, page_cursor
from app.web.htmx import is_partial, render, render_macro, see_other
from app.web.manage_schedule.calendar import local_instant, my_teams, zone
from app.web.manage_time_off.coverage import Effect, effect
from app.web.manage_time_off.forms import (
    STRATEGIES,
    BulkApproveForm,
    CancelLeaveForm,
    KeepLeaveForm,
    QueueFilterForm,
    TimeOffApproveForm,
    TimeOffRejectForm,
    options,
)
from app.web.security import safe_next

bp = Blueprint("manage_time_off", __name__)

PAGE_SIZE = 20
TEMPLATE = "manage_time_off/index.html"
MACROS = "_macros/manager.html"
DECIDABLE = {"pending"}
FILTERS = ("status", "team", "provider", "policy", "start", "end")
"""The queue's filters, in the order their chips show."""


STATUS_WORDS = WORDS["request"]  # the words every page uses (app/web/filters.py)


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return {"outcome": outcome, "status_words": STATUS_WORDS, "strategy_done": STRATEGY_DONE}


def request_days(req: TimeOffRequestRead) -> str:
    """The days (or hours) a request covers, as every time-off page writes them."""
    return format_leave(req, zone(), site_today(zone()))


def outcome(strategy: str, count: int, who: str) -> str:
    """What a conflict strategy would do to `count` overlapping shifts of `who`."""
    shifts = f"{count} shift{'s' if count != 1 else ''}"
    copies = f"{count} open shift{'s' if count != 1 else ''}"
    return {
        "keep": f"{who} stays on {shifts} while off; nobody else is asked to cover.",
        "keepWithOpen": f"{who} stays on {shifts}; {copies} posted for others to claim.",
        "callout": f"{shifts.capitalize()} marked as callouts (kept on record, off the "
                   "schedule); nobody is asked to cover.",
        "calloutWithOpen": f"{shifts.capitalize()} marked as callouts, and {copies} posted "
                           "so someone can cover.",
        "delete": f"{shifts.capitalize()} deleted; nobody is asked to cover.",
        "deleteWithOpen": f"{shifts.capitalize()} deleted, and {copies} posted so someone "
                          "can cover.",
    }[strategy]


# -- reading the queue ---------------------------------------------------------------------------

@dataclass
class Row:
    """One request as the queue shows it."""

    request: TimeOffRequestRead
    provider_name: str
    team_name: str | None
    conflicts: list[ShiftRead] | None = None  # None: not known on this page (not pending)
    team_id: uuid.UUID | None = None

    @property
    def asks_to_cancel(self) -> bool:
        """Whether the provider asked to cancel this approved leave and waits for a decision."""
        return (self.request.status == "approved"
                and self.request.cancellation_requested_at is not None)

    @property
    def waiting(self) -> str | None:
        """How long a pending request has waited for a decision (days since it was made)."""
        if self.request.status != "pending":
            return None
        made = self.request.created_at.astimezone(zone()).date()
        days = (site_today(zone()) - made).days
        return "Waiting since today" if days <= 0 else \
            f"Waiting {days} day{'s' if days != 1 else ''}"

    @property
    def starts(self) -> str | None:
        """How soon the leave starts, for a request still to be decided."""
        if self.request.status != "pending" and not self.asks_to_cancel:
            return None
        now = datetime.now(UTC)
        if self.request.start_date <= now:
            return "Started" if self.request.end_date > now else "Ended"
        days = (self.request.start_date.astimezone(zone()).date() - site_today(zone())).days
        if days <= 0:
            return "Starts today"
        return "Starts tomorrow" if days == 1 else f"Starts in {days} days"

    @property
    def schedule_url(self) -> str:
        """The team schedule on the week the request starts."""
        day = self.request.start_date.astimezone(zone()).date()
        return url_for("manage_schedule.index", team=self.team_id,
                       week=(day - timedelta(days=day.weekday())).isoformat())


@dataclass
class Detail:
    """What opening a request shows besides its row."""

    conflicts: list[ShiftRead]
    others: list[TimeOffRequestRead]
    notice: str | None = None
    problem: ApiProblem | None = None
    approve_form: TimeOffApproveForm | None = None
    reject_form: TimeOffRejectForm | None = None
    cancel_form: CancelLeaveForm | None = None
    keep_form: KeepLeaveForm | None = None
    coverage: Effect | None = None  # what approving does to coverage (with a forecast)


@dataclass
class Queue:
    """Everything the queue page shows."""

    form: QueueFilterForm
    rows: list[Row]
    cursor: str | None
    pending: int
    cancellations: int
    teams: list[TeamRead]
    providers: dict[uuid.UUID, ProviderWithRelations]
    policies: list[TimeOffPolicyRead]
    filters: dict[str, str]
    problem: ApiProblem | None = None
    opened: uuid.UUID | None = None
    detail: Detail | None = None
    decided: dict[uuid.UUID, str] = field(default_factory=dict)

    def url(self, **changes: str | None) -> str:
        """The queue's address with these filters changed (None removes one)."""
        args = {k: v for k, v in {**self.filters, **changes}.items() if v}
        return url_for("manage_time_off.index") + (f"?{urlencode(args)}" if args else "")

    @property
    def back(self) -> str:
        """The queue as it is filtered now (first page), for forms to return to."""
        return self.url(cursor=None)

    @property
    def chips(self) -> list[FilterChip]:
        """The active filters, each a link to the queue without it."""
        return filter_chips(self.form, FILTERS, self.filters,
                            url_for("manage_time_off.index"), defaults={"status": "pending"})


def _uuid(text: str | None) -> uuid.UUID | None:
    try:
        return uuid.UUID(text) if text else None
    except ValueError:
        return None


def _filters(args: Any) -> dict[str, str]:
    keys = ("status", "team", "provider", "policy", "start", "end", "cursor")
    return {k: args.get(k, "").strip() for k in keys if args.get(k, "").strip()}


def list_query(filters: dict[str, str]) -> TimeOffRequestListQuery:
    """The list query the filters name (malformed values are left out; the form reports them,
    and dates the wrong way round are both left out)."""
    status = filters.get("status", "pending")
    start = _day(filters.get("start"))
    end = _day(filters.get("end"))
    if start and end and end < start:
        start = end = None
    return TimeOffRequestListQuery(
        status=None if status == "any" else ["approved"] if status == "cancellation"
        else [status] if status in {"pending", "approved", "rejected", "cancelled"}
        else ["pending"],
        cancellation_requested=True if status == "cancellation" else None,
        team_id=_uuid(filters.get("team")),
        provider_id=_uuid(filters.get("provider")),
        policy_id=_uuid(filters.get("policy")),
        start_date=local_instant(start) if start else None,
        end_date=local_instant(end + timedelta(days=1)) if end else None,
        page_size=PAGE_SIZE,
        cursor=page_cursor(filters.get("cursor")),
    )


def _day(text: str | None) -> date | None:
    """The filter's day, None when malformed or out of the API's range (`filter_day`)."""
    try:
        return filter_day(date.fromisoformat(text)) if text else None
    except ValueError:
        return None


def first_round(client: ApiClient, query: TimeOffRequestListQuery) -> list[Any]:
    """The queue's concurrent reads: the page, the pending count, the count of cancellations
    waiting for a decision, teams, providers, policies."""
    return client.concurrently(
        lambda: _page_or_problem(client, query),
        lambda: client.count_time_off_requests(TimeOffRequestFilter(status=["pending"])),
        lambda: client.count_time_off_requests(TimeOffRequestFilter(
            status=["approved"], cancellation_requested=True)),
        lambda: client.list_teams(TeamListQuery(page_size=200)),
        lambda: client.list_providers(ProviderListQuery(page_size=200)),
        lambda: client.list_time_off_policies(TimeOffPolicyListQuery(page_size=200)),
    )


def _page_or_problem(client: ApiClient, query: TimeOffRequestListQuery,
                     ) -> TimeOffRequestPage | ValidationProblem:
    """The page, or the API's refusal of the filters (shown on the form, never as an error
    page); a stale page link (`cursor`) falls back to the first page."""
    try:
        return client.list_time_off_requests(query)
    except ValidationProblem as problem:
        if query.cursor is None:
            return problem
        try:
            return client.list_time_off_requests(query.model_copy(update={"cursor": None}))
        except ValidationProblem as again:
            return again


def overlap_reads(client: ApiClient, requests: list[TimeOffRequestRead],
                  ) -> list[Callable[[], list[ShiftRead]]]:
    """Reads of the shifts the page's pending requests may overlap: one per provider, each
    limited to that provider's requests (a day wider for whole-day requests) and following
    every page, so other people's shifts in a busy window cannot hide a conflict."""
    windows: dict[uuid.UUID, tuple[datetime, datetime]] = {}
    for req in requests:
        if req.status != "pending" or req.provider_id is None:
            continue
        start, end = req.start_date - timedelta(days=1), req.end_date + timedelta(days=1)
        if req.provider_id in windows:
            known = windows[req.provider_id]
            start, end = min(start, known[0]), max(end, known[1])
        windows[req.provider_id] = (start, end)
    return [
        partial(_all_shifts, client, ShiftListQuery(provider_id=provider, start_date=start,
                                                    end_date=end, page_size=200))
        for provider, (start, end) in windows.items()]


def _all_shifts(client: ApiClient, query: ShiftListQuery) -> list[ShiftRead]:
    return list(client.iterate(client.list_shifts, query))


def blocked_window(req: TimeOffRequestRead) -> tuple[datetime, datetime]:
    """The instants a request blocks: whole local days for a full-day request.

    A preview for the list only; opening the request asks the API which shifts it acts on.
    """
    full_day = req.is_full_day if req.is_full_day is not None else (
        req.policy is not None and req.policy.accrual_unit == "days")
    if not full_day:
        return req.start_date, req.end_date
    site = zone()
    first = req.start_date.astimezone(site).date()
    last_local = req.end_date.astimezone(site)
    last = last_local.date()
    if last_local.time() != datetime.min.time() or last == first:
        last += timedelta(days=1)
    return local_instant(first), local_instant(last)


def _overlaps(req: TimeOffRequestRead, shifts: list[ShiftRead]) -> list[ShiftRead]:
    start, end = blocked_window(req)
    return [s for s in shifts if s.provider == req.provider_id and not s.is_callout
            and s.start_date < end and s.end_date > start]


def build_queue(filters: dict[str, str], *, me: UserMe | None = None) -> Queue:
    """Read and assemble the queue for `filters` (two rounds: the page, then its shifts)."""
    client = api()
    me = me or current_user()
    form = QueueFilterForm(formdata=_FormArgs(filters))
    page, count, asked, teams, providers, policies = first_round(client, list_query(filters))
    mine = my_teams(me, teams.items)
    people = {p.id: p for p in providers.items}
    form.team.choices = options([("", "All my teams")] + [(str(t.id), t.name) for t in mine])
    form.provider.choices = options([("", "Everyone")] + [
        (str(p.id), p.name or p.email)
        for p in sorted(people.values(), key=lambda p: p.name or p.email)])
    form.policy.choices = options([("", "Every policy")] + [
        (str(p.id), p.name) for p in policies.items])
    if filters:
        form.validate()
    if isinstance(page, ValidationProblem):
        # The API refused filters the form let through: say so on the form, list nothing.
        form.form_errors = [*form.form_errors, "These filters can't be used together. Change "
                            "them, or clear them to see every request."]
    if isinstance(page, ValidationProblem) or form.start.errors or form.end.errors:
        # Listing without the dates the manager meant would show the wrong requests.
        page = TimeOffRequestPage(items=[], cursor=None)
    team_names = {t.id: t.name for t in teams.items}
    shifts = [s for found in client.concurrently(*overlap_reads(client, page.items))
              for s in found]
    rows = []
    for req in page.items:
        person = people.get(req.provider_id)
        rows.append(Row(
            request=req,
            provider_name=(person.name or person.email) if person else "Unknown provider",
            team_name=team_names.get(person.team_id) if person and person.team_id else None,
            team_id=person.team_id if person else None,
            conflicts=_overlaps(req, shifts) if req.status == "pending" else None,
        ))
    return Queue(form=form, rows=rows, cursor=page.cursor, pending=count.count,
                 cancellations=asked.count, teams=mine,
                 providers=people, policies=policies.items, filters=filters)


class _FormArgs(dict[str, str]):
    """Query-string filters as WTForms form data."""

    def getlist(self, key: str) -> list[str]:
        return [self[key]] if key in self else []


def _queue_status(queue: Queue) -> int:
    return 422 if any(f.errors for f in queue.form) or queue.form.form_errors else 200


@bp.get("/manage/time-off")
def index() -> Response:
    """The queue: the manager's teams' requests, pending first by default, filtered and paged."""
    queue = build_queue(_filters(request.args))
    return render(TEMPLATE, fragment="request_queue", queue=queue, strategies=STRATEGIES,
                  status=_queue_status(queue))


# -- one request ----------------------------------------------------------------------------------

def read_detail(client: ApiClient, request_id: uuid.UUID,
                ) -> tuple[TimeOffRequestRead, Detail]:
    """A request as it is now, the shifts it overlaps and the provider's other requests."""
    req = client.get_time_off_request(request_id)
    calls: list[Any] = [lambda: client.list_time_off_requests(
        TimeOffRequestListQuery(provider_id=req.provider_id, page_size=50))]
    if req.status in DECIDABLE:
        calls.append(lambda: client.time_off_request_conflicts(request_id))
    answers = client.concurrently(*calls)
    others = [r for r in answers[0].items if r.id != req.id]
    conflicts = answers[1].items if len(answers) > 1 else []
    detail = Detail(conflicts=conflicts, others=others)
    teams = {str(s.team) for s in conflicts if s.team is not None}
    if teams:  # coverage changes only where the person's shifts meet the leave
        detail.coverage = effect(client, str(req.id), teams,
                                 min(s.start_date for s in conflicts),
                                 max(s.end_date for s in conflicts))
    return req, detail


def seen_shifts(conflicts: list[ShiftRead]) -> str:
    """What the manager saw of the overlapping shifts: ids and versions."""
    return " ".join(sorted(f"{s.id}:{s.version}" for s in conflicts))


def _row_for(queue: Queue | None, req: TimeOffRequestRead) -> Row:
    client = api()
    if queue is not None:
        for row in queue.rows:
            if row.request.id == req.id:
                row.request = req
                return row
    people = client.list_providers(ProviderListQuery(page_size=200)).items
    person = next((p for p in people if p.id == req.provider_id), None)
    return Row(request=req, provider_name=(person.name or person.email) if person else
               "Unknown provider", team_name=person.team.name if person and person.team else None,
               team_id=person.team_id if person else None)


def _forms(req: TimeOffRequestRead, detail: Detail, back: str) -> None:
    shifts = seen_shifts(detail.conflicts)
    if detail.approve_form is None:
        detail.approve_form = TimeOffApproveForm(
            formdata=None, seen_status=req.status, seen_shifts=shifts, back=back,
            conflict_resolution="calloutWithOpen" if detail.conflicts else "keep")
    else:
        detail.approve_form.seen_status.data = req.status
        detail.approve_form.seen_shifts.data = shifts
    if detail.reject_form is None:
        detail.reject_form = TimeOffRejectForm(formdata=None, seen_status=req.status,
                                               seen_shifts=shifts, back=back)
    else:
        detail.reject_form.seen_status.data = req.status
        detail.reject_form.seen_shifts.data = shifts
    reason = detail.reject_form.rejection_reason
    reason.id = reason.label.field_id = f"reason-{req.id}"
    if detail.cancel_form is None:
        detail.cancel_form = CancelLeaveForm(formdata=None, seen_status=req.status, back=back)
    if detail.keep_form is None:
        detail.keep_form = KeepLeaveForm(formdata=None, seen_status=req.status, back=back)
    keep = detail.keep_form.reason
    keep.id = keep.label.field_id = f"keep-reason-{req.id}"


def _opened(request_id: uuid.UUID, *, back: str, status: int = 200, notice: str | None = None,
            problem: ApiProblem | None = None, approve_form: TimeOffApproveForm | None = None,
            reject_form: TimeOffRejectForm | None = None,
            cancel_form: CancelLeaveForm | None = None,
            keep_form: KeepLeaveForm | None = None) -> Response:
    """The request opened in place: its row alone (htmx) or the queue with it open."""
    client = api()
    req, detail = read_detail(client, request_id)
    detail.notice, detail.problem = notice, problem
    detail.approve_form, detail.reject_form = approve_form, reject_form
    detail.cancel_form, detail.keep_form = cancel_form, keep_form
    _forms(req, detail, back)
    if is_partial():
        row = _row_for(None, req)
        return render_macro(MACROS, "request_row", row, back=back, detail=detail,
                            strategies=STRATEGIES, status=status)
    filters = _filters_of(back)
    queue = build_queue(filters)
    queue.opened, queue.detail = req.id, detail
    row = _row_for(queue, req)
    if row not in queue.rows:
        queue.rows.insert(0, row)
    return render(TEMPLATE, queue=queue, strategies=STRATEGIES, status=status)


def _filters_of(back: str) -> dict[str, str]:
    return _filters(dict(parse_qsl(urlsplit(back).query)))


def _back(value: str | None = None) -> str:
    default = url_for("manage_time_off.index")
    target = safe_next(value or request.args.get("back"), default)
    return target if target.startswith(default) else default


@bp.get("/manage/time-off/<uuid:request_id>")
def show(request_id: uuid.UUID) -> Response:
    """One request opened in place, with everything needed to decide it."""
    back = _back(url_for("manage_time_off.index") + (
        "?" + urlencode(_filters(request.args)) if _filters(request.args) else ""))
    return _opened(request_id, back=back)


# -- deciding -----------------------------------------------------------------------------------

STRATEGY_DONE = {
    "keep": "shifts kept", "keepWithOpen": "shifts kept, open copies posted",
    "callout": "shifts marked as callouts", "calloutWithOpen":
        "shifts marked as callouts, open copies posted",
    "delete": "shifts deleted", "deleteWithOpen": "shifts deleted, open copies posted",
}


def _changed(req: TimeOffRequestRead, conflicts: list[ShiftRead], form: Any) -> str | None:
    """Why the request must be looked at again, or None when it is as the manager saw it."""
    if req.status != form.seen_status.data:
        return (f"This request changed while you were looking at it: it is now "
                f"{STATUS_WORDS.get(req.status, req.status).lower()}{_by(req)}. Nothing was "
                "changed by you.")
    if req.status == "pending" and seen_shifts(conflicts) != (form.seen_shifts.data or ""):
        return ("The shifts this request overlaps changed while you were looking at it. Check "
                "them below and decide again.")
    return None


def _by(req: TimeOffRequestRead) -> str:
    if req.status == "rejected" and req.rejected_by is not None:
        return f" (declined by {req.rejected_by.name})"
    if req.status == "approved" and req.conflict_resolution:
        return f" ({STRATEGY_DONE[req.conflict_resolution]})"
    return ""


def _decided(req: TimeOffRequestRead, back: str, message: str) -> Response:
    flash(message, "success")
    if is_partial():
        client = api()
        count = client.count_time_off_requests(TimeOffRequestFilter(status=["pending"])).count
        response = render_macro(MACROS, "request_row", _row_for(None, req), back=back,
                                detail=None, strategies=STRATEGIES, just_decided=True)
        badge = render_macro(MACROS, "pending_badge", count, oob=True)
        response.set_data(response.get_data() + badge.get_data())
        return response
    return see_other(back)


def _problem(request_id: uuid.UUID, problem: ApiProblem, back: str, **forms: Any) -> Response:
    """A problem about deciding this request, shown inline next to it."""
    if isinstance(problem, (Forbidden, NotFound)):
        # The manager may not even read the request: show the problem above the queue.
        if is_partial():
            return render_macro(MACROS, "queue_problem", problem, request_id,
                                status=problem.status)
        queue = build_queue(_filters_of(back))
        queue.problem = problem
        return render(TEMPLATE, queue=queue, strategies=STRATEGIES, status=problem.status)
    if problem.code == "invalid-state-transition":
        req = api().get_time_off_request(request_id)
        return _opened(request_id, back=back, status=409, notice=(
            f"This request changed while you were looking at it: it is now "
            f"{STATUS_WORDS.get(req.status, req.status).lower()}{_by(req)}. Nothing was "
            "changed by you."))
    return _opened(request_id, back=back, status=problem.status, problem=problem, **forms)


def _decide(request_id: uuid.UUID, form: TimeOffApproveForm | TimeOffRejectForm,
            ) -> Response:
    back = _back(form.back.data)
    kind = "approve_form" if isinstance(form, TimeOffApproveForm) else "reject_form"
    if not form.validate():
        return _opened(request_id, back=back, status=422, **{kind: form})
    client = api()
    try:
        req, conflicts = client.concurrently(
            lambda: client.get_time_off_request(request_id),
            lambda: client.time_off_request_conflicts(request_id))
        notice = _changed(req, conflicts.items, form)
        if notice is not None:
            return _opened(request_id, back=back, status=409, notice=notice)
        name = _row_for(None, req).provider_name
        if isinstance(form, TimeOffApproveForm):
            done = client.approve_time_off_request(request_id, form.to_contract())
            shifts = len(conflicts.items)
            what = (f"; {shifts} overlapping shift{'s' if shifts != 1 else ''}: "
                    f"{STRATEGY_DONE[form.conflict_resolution.data]}") if shifts else ""
            return _decided(done, back, f"Approved {name}'s time off{what}.")
        done = client.reject_time_off_request(request_id, form.to_contract())
        return _decided(done, back, f"Declined {name}'s time off. They will see your reason.")
    except ApiProblem as problem:
        return _problem(request_id, problem, back, **{kind: form})


@bp.post("/manage/time-off/<uuid:request_id>/approve")
def approve(request_id: uuid.UUID) -> Response:
    """Approve a request with the chosen conflict strategy."""
    return _decide(request_id, TimeOffApproveForm())


@bp.post("/manage/time-off/<uuid:request_id>/reject")
def reject(request_id: uuid.UUID) -> Response:
    """Reject a request with a reason."""
    return _decide(request_id, TimeOffRejectForm())


def _answer_cancellation(request_id: uuid.UUID, form: CancelLeaveForm | KeepLeaveForm,
                         ) -> Response:
    """Cancel approved leave, or keep it, as its provider's request to cancel asks."""
    back = _back(form.back.data)
    kind = "cancel_form" if isinstance(form, CancelLeaveForm) else "keep_form"
    if not form.validate():
        return _opened(request_id, back=back, status=422, **{kind: form})
    client = api()
    try:
        req = client.get_time_off_request(request_id)
        if req.status != "approved" or req.cancellation_requested_at is None:
            return _opened(request_id, back=back, status=409, notice=(
                "This request changed while you were looking at it: nobody is waiting for a "
                f"decision on cancelling it now (it is "
                f"{STATUS_WORDS.get(req.status, req.status).lower()}). Nothing was changed by "
                "you."))
        name = _row_for(None, req).provider_name
        when = request_days(req)
        if isinstance(form, CancelLeaveForm):
            done = client.cancel_time_off_request(request_id)
            return _decided(done, back, f"Cancelled {name}'s time off ({when}). Shifts changed "
                                        "when it was approved stay as they are.")
        done = client.decline_time_off_cancellation(request_id, form.to_contract())
        return _decided(done, back, f"Kept {name}'s time off ({when}). They will see your "
                                    "answer.")
    except ApiProblem as problem:
        return _problem(request_id, problem, back, **{kind: form})


@bp.post("/manage/time-off/<uuid:request_id>/cancel")
def cancel_leave(request_id: uuid.UUID) -> Response:
    """Cancel approved leave whose provider asked to cancel it."""
    return _answer_cancellation(request_id, CancelLeaveForm())


@bp.post("/manage/time-off/<uuid:request_id>/keep")
def keep_leave(request_id: uuid.UUID) -> Response:
    """Keep approved leave whose provider asked to cancel it, with an optional reason."""
    return _answer_cancellation(request_id, KeepLeaveForm())


MAX_BULK = 200
"""The most requests one bulk approval takes (a page of the queue holds fewer)."""


@bp.post("/manage/time-off/approve-clean")
def approve_clean() -> Response:
    """Approve the selected requests that overlap no shift; leave the others for a decision."""
    form = BulkApproveForm()
    back = _back(form.back.data)
    ids = list(dict.fromkeys(
        i for i in (_uuid(v) for v in request.form.getlist("ids")) if i is not None))
    if not ids:
        flash("Select the requests to approve first.", "error")
        return see_other(back)
    if len(ids) > MAX_BULK:
        flash(f"Approve at most {MAX_BULK} requests at once; select fewer and try again.",
              "error")
        return see_other(back)
    client = api()
    try:
        previews = client.concurrently(
            *[lambda i=i: client.time_off_request_conflicts(i) for i in ids])
        clean = [i for i, p in zip(ids, previews, strict=True) if not p.items]
        skipped = len(ids) - len(clean)
        done = client.concurrently(*[
            lambda i=i: _approve_quietly(client, i) for i in clean])
    except ApiProblem as problem:
        return _problem(ids[0], problem, back)
    approved = sum(1 for ok in done if ok)
    parts = [f"Approved {approved} request{'s' if approved != 1 else ''}."]
    if skipped:
        parts.append(f"{skipped} overlap shifts and need your decision one by one.")
    if approved < len(clean):
        parts.append(f"{len(clean) - approved} had already been decided by someone else.")
    flash(" ".join(parts), "success" if approved else "error")
    return see_other(back)


def _approve_quietly(client: ApiClient, request_id: uuid.UUID) -> bool:
    try:
        client.approve_time_off_request(request_id, TimeOffApprove(conflict_resolution="keep"))
    except ApiProblem as problem:
        if problem.code == "invalid-state-transition":
            return False
        raise
    return True
