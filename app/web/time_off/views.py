"""Time off (blueprint `time_off`): the provider's balances, requests, the request form and
cancelling.

`GET /time-off` lists the provider's balances (each with its history) and requests with their
states; `GET /time-off/new` is the request form and `POST /time-off` sends it (problems inline,
each on its field; `provider-not-in-policy` on the policy); its "Check my shifts" button shows
the shifts the days touch and the chosen policy's balance before and after, without sending
anything (`POST /time-off/preview` answers that balance alone while the form changes, with
htmx). A request the policy would not let be approved (beyond the balance available, inside the
waiting period, beyond the year's use limit) is refused inline before it is sent; a request
overlapping one the provider already holds is refused inline, naming it. `GET /time-off/<id>`
shows a request: days, hours paid and the provider's shifts it touches.
`GET|POST /time-off/<id>/cancel` withdraws a pending request at once, or asks the manager to
cancel approved leave that has not started (the manager decides); leave that has started or
ended offers no cancelling at all.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint, Response, current_app, flash, g, request, url_for
from wtforms.fields.choices import SelectChoice

from app.client import ApiClient, ApiProblem
from app.contract.balances import BalancesQuery, BalancesRead
from app.contract.providers import ProviderListQuery
from app.contract.shifts import ShiftListQuery
from app.contract.teams import TeamListQuery
from app.contract.time_off import (
    TimeOffPolicyListQuery,
    TimeOffPolicyRead,
    TimeOffRequestListQuery,
    TimeOffRequestRead,
)
from app.web.auth import api, current_user, my_provider_id
from app.web.filters import STATUS_WORDS as WORDS
from app.web.filters import format_hours, format_leave, site_today
from app.web.forms import apply_problem
from app.web.htmx import render, see_other
from app.web.shifts.summary import shift_view, team_names
from app.web.time_off import balances as bal
from app.web.time_off.forms import TimeOffRequestForm

bp = Blueprint("time_off", __name__)

STATUS_WORDS = WORDS["request"]  # the words every page uses (app/web/filters.py)
BALANCE_CODES = frozenset({"insufficient-balance", "annual-use-limit-reached", "waiting-period"})
"""The API's refusals of a use of a balance, shown inline in words (their detail)."""
CANCEL_ASKED = "Cancellation requested \u2014 waiting for your manager"


def _zone() -> Any:
    return current_app.extensions["shiftdesk_web"].settings.zone


@dataclass(frozen=True)
class RequestView:
    """A request as its provider reads it: state in words, the action they have, and why not."""

    request: TimeOffRequestRead
    state: str  # in words
    state_key: str  # the CSS modifier of the state tag
    action: str | None  # "withdraw" (pending), "ask" (approved, not started) or None
    note: str | None  # a sentence under the state: a declined cancellation, or whom to ask


def request_view(req: TimeOffRequestRead, now: datetime) -> RequestView:
    """What the provider may do with `req` at `now` (the API decides again when they do it)."""
    if req.status == "pending":
        return RequestView(req, STATUS_WORDS["pending"], "pending", "withdraw", None)
    if req.status != "approved":
        return RequestView(req, STATUS_WORDS.get(req.status, "Unknown"), req.status, None,
                           None)
    if req.cancellation_requested_at is not None:
        return RequestView(req, CANCEL_ASKED, "cancel-asked", None,
                           "Your manager decides whether to cancel this leave; until then it "
                           "stays approved.")
    if req.start_date <= now:
        over = req.end_date <= now
        return RequestView(req, STATUS_WORDS["approved"], "approved", None,
                           ("This leave is over." if over else "This leave has started.")
                           + " To change it, ask your manager.")
    note = None
    if req.cancellation_declined_at is not None:
        reason = req.cancellation_decline_reason
        note = f"Your manager kept this leave: {reason}" if reason else (
            "Your manager kept this leave.")
    return RequestView(req, STATUS_WORDS["approved"], "approved", "ask", note)


def my_balances(client: ApiClient, query: BalancesQuery | None = None) -> BalancesRead | None:
    """The signed-in user's balances (None when they are no provider or may not read them)."""
    try:
        return client.get_time_off_balances(query or BalancesQuery(entry_limit=200))
    except ApiProblem as problem:
        if problem.status in (400, 403, 404):
            return None
        raise


def fetch(client: ApiClient) -> list[Any]:
    """The page's one concurrent round: the user, their requests, the policies and their
    balances (the page benchmark makes the same calls)."""
    return client.concurrently(
        client.me,
        lambda: client.list_time_off_requests(TimeOffRequestListQuery(page_size=100)),
        lambda: client.list_time_off_policies(TimeOffPolicyListQuery(page_size=200)),
        lambda: my_balances(client),
    )


def _load() -> tuple[list[TimeOffRequestRead], list[TimeOffPolicyRead], BalancesRead | None]:
    """The user's requests (newest first), the policies and the user's balances."""
    me, requests, policies, balances = fetch(api())
    g.shiftdesk_me = me
    mine = [r for r in requests.items if r.provider_id == me.provider_id]
    mine.sort(key=lambda r: r.start_date, reverse=True)
    return mine, list(policies.items), balances


def _form(policies: list[TimeOffPolicyRead], formdata: Any = None) -> TimeOffRequestForm:
    form = TimeOffRequestForm() if formdata is None else TimeOffRequestForm(formdata=formdata)
    form.policy_id.choices = [SelectChoice("", "Choose…"),
                              *(SelectChoice(str(p.id), p.name) for p in policies)]
    return form


def _list(requests: list[TimeOffRequestRead], policies: list[TimeOffPolicyRead],
          balances: BalancesRead | None) -> Response:
    names = {str(p.id): p.name for p in policies}
    now = datetime.now(UTC)
    return render("time_off/index.html", fragment="time_off_requests",
                  requests=[request_view(r, now) for r in requests], policies=names,
                  balances=bal.balance_views(balances) if balances is not None else [])


def _new(form: TimeOffRequestForm, status: int = 200, touched: list[Any] | None = None,
         preview: bal.Preview | None = None, balances: BalancesRead | None = None,
         fragment: str = "time_off_form") -> Response:
    return render("time_off/new.html", fragment=fragment, status=status, form=form,
                  touched=touched, preview=preview,
                  balances=bal.balance_views(balances) if balances is not None else [])


def _touched(form: TimeOffRequestForm) -> list[Any]:
    """The user's shifts inside the window the form asks for (whole local days for full days)."""
    client = api()
    start, end = form.window(_zone())
    query = ShiftListQuery(start_date=start, end_date=end, provider_id=my_provider_id(),
                           include_display_names=True, page_size=200)
    shifts, teams = client.concurrently(
        lambda: client.list_shifts(query),
        lambda: client.list_teams(TeamListQuery(page_size=200)))
    me = current_user()
    names = team_names(teams.items)
    return [shift_view(s, names) for s in shifts.items if s.provider == me.provider_id]


def _policies() -> list[TimeOffPolicyRead]:
    """The policies for the form, read with the user (for the menu) in one round."""
    client = api()
    me, policies = client.concurrently(
        client.me, lambda: client.list_time_off_policies(TimeOffPolicyListQuery(page_size=200)))
    g.shiftdesk_me = me
    return list(policies.items)


def _preview(form: TimeOffRequestForm, policies: list[TimeOffPolicyRead],
             ) -> tuple[bal.Preview | None, BalancesRead | None]:
    """The chosen policy's balance before and after the request (None when it keeps no
    balance), with the user's balances; one concurrent round. The API checks again at
    approval; this refuses early what it would refuse then."""
    client = api()
    zone = _zone()
    policy = next((p for p in policies if str(p.id) == form.policy_id.data), None)
    me = current_user()
    accrual = policy.accrual if policy is not None else None
    try:
        start, end = form.window(zone)
    except (OverflowError, ValueError):  # a day the calendar has no next day for
        return None, my_balances(client, BalancesQuery(entry_limit=0))
    leave_start = start.astimezone(zone).date()
    today = site_today(zone)
    usage_day = leave_start if accrual is not None and accrual.debit_on == "leave_date" \
        else today
    if accrual is None or policy is None or not bal.in_range(leave_start, usage_day):
        return None, my_balances(client, BalancesQuery(entry_limit=0))
    name = (me.name or "")[:50] or None
    every, later, used, people = client.concurrently(
        lambda: my_balances(client, BalancesQuery(entry_limit=0)),
        lambda: my_balances(client, BalancesQuery(policy_id=policy.id, as_of=bal.LAST_DAY,
                                                  entry_limit=0)),
        lambda: (my_balances(client, BalancesQuery(policy_id=policy.id, as_of=usage_day,
                                                   entry_limit=0))
                 if accrual.annual_use_limit is not None else None),
        lambda: client.list_providers(ProviderListQuery(name=name, page_size=200)),
    )
    balance = bal.find(every, policy.id)
    if balance is None:  # not a member: the API says so when the request is sent
        return None, every
    person = next((p for p in people.items if p.id == me.provider_id), None)
    cost = bal.request_cost(start, end, zone=zone, is_full_day=form.is_full_day.data != "part",
                            daily_hours=person.daily_hours if person else None,
                            unit=balance.unit)
    return bal.preview(balance=balance, balance_all=bal.find(later, policy.id),
                       used=bal.find(used, policy.id), cost=cost, leave_start=leave_start,
                       hire_date=bal.local_day(person.hire_date if person else None, zone),
                       waiting_period_days=accrual.waiting_period_days), every


@bp.get("/time-off")
def index() -> Response:
    """The provider's requests with their states."""
    requests, policies, balances = _load()
    return _list(requests, policies, balances)


@bp.get("/time-off/new")
def new() -> Response:
    """The form to ask for time off, with the user's balances."""
    client = api()
    me, policies, balances = client.concurrently(
        client.me, lambda: client.list_time_off_policies(TimeOffPolicyListQuery(page_size=200)),
        lambda: my_balances(client, BalancesQuery(entry_limit=0)))
    g.shiftdesk_me = me
    return _new(_form(list(policies.items)), balances=balances)


@bp.post("/time-off/preview")
def preview_balance() -> Response:
    """The chosen policy's balance before and after the request as the form stands (htmx, on
    every change of the policy, days or times); nothing is sent. Without JavaScript the same
    address answers the whole form, as "Check my shifts" does."""
    policies = _policies()
    form = _form(policies)
    if not form.validate():  # not a whole request yet: no preview, and no errors shown
        return _new(_form(policies, request.form), fragment="balance_preview_slot")
    preview, balances = _preview(form, policies)
    return _new(form, preview=preview, balances=balances, fragment="balance_preview_slot")


@bp.post("/time-off")
def create() -> Response:
    """Send a request; problems come back on their fields."""
    policies = _policies()
    form = _form(policies)
    if not form.validate():
        return _new(form, status=422)
    preview, balances = _preview(form, policies)
    if request.form.get("intent") == "check":  # "Check my shifts": show, send nothing
        return _new(form, touched=_touched(form), preview=preview, balances=balances)
    if preview is not None and preview.refusal is not None:  # refused before sending
        form.form_errors = [*form.form_errors, preview.refusal]
        return _new(form, status=422, preview=preview, balances=balances)
    try:
        made = api().create_time_off_request(form.to_contract(zone=_zone()))
    except ApiProblem as problem:
        if problem.status not in (400, 403, 409, 422):
            raise
        if problem.code == "provider-not-in-policy":
            form.policy_id.errors = [*form.policy_id.errors, problem.detail]
        elif problem.code == "time-off-request-overlap":
            form.form_errors = [*form.form_errors, overlap_message(problem)]
        elif problem.code in BALANCE_CODES:
            form.form_errors = [*form.form_errors, problem.detail]
        else:
            apply_problem(form, problem)
        return _new(form, status=422, preview=preview, balances=balances)
    flash(f"Request sent: {format_hours(made.paid_hours)} to be paid. It waits for your manager.",
          "success")
    return see_other(url_for("time_off.show", request_id=made.id))


def overlap_message(problem: ApiProblem) -> str:
    """A refused duplicate in words, naming the request(s) already held for those days."""
    held = []
    for c in problem.extensions.get("conflicts") or []:
        state = "approved" if c.get("status") == "approved" else "waiting for your manager"
        held.append(f"{c.get('policyName') or 'Time off'}, "
                    f"{format_leave(c, _zone(), site_today(_zone()))} ({state})")
    if not held:
        return problem.detail
    return ("You already asked for time off on these days: " + "; ".join(held)
            + ". Change or withdraw that request instead of asking twice.")


def _request(request_id: uuid.UUID) -> tuple[TimeOffRequestRead, list[Any], str]:
    client = api()
    asked = client.get_time_off_request(request_id)
    start, end = asked.start_date, asked.end_date
    if asked.is_full_day is not False:  # whole local days are blocked
        start = datetime.combine(start.astimezone(_zone()).date(), datetime.min.time(),
                                 tzinfo=_zone()).astimezone(UTC)
        last = (end - timedelta(microseconds=1)).astimezone(_zone()).date()
        end = datetime.combine(last + timedelta(days=1), datetime.min.time(),
                               tzinfo=_zone()).astimezone(UTC)
    query = ShiftListQuery(start_date=start, end_date=end, provider_id=asked.provider_id,
                           include_display_names=True, page_size=200)
    shifts, teams, policies = client.concurrently(
        lambda: client.list_shifts(query),
        lambda: client.list_teams(TeamListQuery(page_size=200)),
        lambda: client.list_time_off_policies(TimeOffPolicyListQuery(page_size=200)),
    )
    names = team_names(teams.items)
    touched = [shift_view(s, names) for s in shifts.items if s.provider == asked.provider_id]
    policy = next((p.name for p in policies.items if p.id == asked.policy_id), "Time off")
    return asked, touched, policy


@bp.get("/time-off/<uuid:request_id>")
def show(request_id: uuid.UUID) -> Response:
    """One request: its days, hours paid, state and the shifts it touches."""
    asked, touched, policy = _request(request_id)
    return render("time_off/show.html", view=request_view(asked, datetime.now(UTC)),
                  asked=asked, touched=touched, policy=policy)


@bp.get("/time-off/<uuid:request_id>/cancel")
def confirm_cancel(request_id: uuid.UUID) -> Response:
    """Ask before withdrawing a request, or before asking the manager to cancel leave."""
    asked, touched, policy = _request(request_id)
    view = request_view(asked, datetime.now(UTC))
    if view.action is None:  # nothing to confirm: the request page says why
        return see_other(url_for("time_off.show", request_id=request_id))
    return render("time_off/confirm_cancel.html", view=view, asked=asked, touched=touched,
                  policy=policy)


@bp.post("/time-off/<uuid:request_id>/cancel")
def cancel(request_id: uuid.UUID) -> Response:
    """Withdraw a pending request, or ask the manager to cancel approved leave."""
    show_url = url_for("time_off.show", request_id=request_id)
    try:
        done = api().cancel_time_off_request(request_id)
    except ApiProblem as problem:
        if problem.code == "time-off-already-started":
            flash("This leave has started, so it can't be cancelled here. To change it, ask "
                  "your manager.", "error")
        elif problem.code == "invalid-state-transition":
            flash("This request can't be cancelled any more: it was decided meanwhile. "
                  "Its state is shown below.", "error")
        else:
            raise
        return see_other(show_url)
    if done.status == "cancelled":
        flash("Your time-off request was withdrawn.", "success")
        return see_other(url_for("time_off.index"))
    flash("Your manager has been asked to cancel this leave. It stays approved until they "
          "decide.", "success")
    return see_other(show_url)
