"""The home page, "Now" (blueprint `home`): `/` sends visitors to sign in and shows each
signed-in user what needs their attention first, then the kinds of work they do, linking into
every area that exists for them (and, for administrators, the /v1 API's documents).

A provider gets the clock itself (the clock page's panel: status, running timers, the punch
buttons, posting to the clock's endpoints) and the decisions on their time-off requests since
their last visit (the statuses they last saw are kept in the server-side session, as the wire
has no decision time). Managers get counts that link: requests waiting, punches to review, open
shifts today; schedulers today's appointments; someone with several roles sees each part.

Two rounds of concurrent `/v1` calls at most: the user with the provider's own records (the
provider id is in the session), then the counts their roles call for. Must not import `app.api`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from flask import (
    Blueprint,
    Response,
    current_app,
    g,
    redirect,
    send_from_directory,
    session,
    url_for,
)

from app.client import ApiClient, ApiProblem
from app.contract.appointments import AppointmentListQuery, AppointmentRead
from app.contract.labels import LabelListQuery
from app.contract.shifts import ShiftListQuery
from app.contract.teams import TeamListQuery
from app.contract.time_off import (
    TimeOffRequestFilter,
    TimeOffRequestListQuery,
    TimeOffRequestRead,
)
from app.contract.timekeeping import TimesheetQuery
from app.contract.users import UserMe
from app.web import nav
from app.web.auth import access_token, api, my_provider_id, signed_in
from app.web.clock.views import (
    SHIFT_LOOKBACK,
    SHIFT_WINDOW,
    build_state,
    counted_as_paid,
    panel_context,
)
from app.web.filters import status_word
from app.web.htmx import render
from app.web.security import public

bp = Blueprint("home", __name__)

SEEN_KEY = "now_seen"  # session: the provider's requests as they last saw them on Now
DECISIONS_BACK = timedelta(days=90)  # requests ending this long ago still count
REVIEW_BACK = timedelta(days=14)  # punches to review: those of the last two weeks
MAX_TEAMS = 20  # team timesheets asked at once for the punch count


@dataclass(frozen=True)
class Decision:
    """A decision on one of the provider's requests they have not seen yet."""

    request: TimeOffRequestRead
    words: str


@dataclass
class Attention:
    """What needs the user's attention, part by role; None: not theirs to see."""

    panel: dict[str, Any] | None = None
    decisions: list[Decision] = field(default_factory=list)
    waiting_requests: int | None = None
    punches_to_review: int | None = None
    open_today: int | None = None
    appointments: list[AppointmentRead] | None = None
    now: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def manages(self) -> bool:
        """Whether any manager count is shown."""
        return any(n is not None for n in (self.waiting_requests, self.punches_to_review,
                                           self.open_today))


@bp.app_template_global("nav_tabs")
def nav_tabs(items: list[nav.NavItem]) -> list[nav.NavItem]:
    """The phone's bottom tabs for a menu (empty unless the user is a provider)."""
    return nav.tabs(items)


@bp.app_template_filter("local_day_iso")
def local_day_iso(value: datetime) -> str:
    """`2026-11-25`: the site's calendar day of an instant, for a page's day filter."""
    return value.astimezone(_zone()).date().isoformat()


def _zone() -> Any:
    return current_app.extensions["shiftdesk_web"].settings.zone


def _midnight(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=_zone()).astimezone(UTC)


def _or_none(call: Callable[[], Any]) -> Callable[[], Any]:
    """`call`, answering None when the API refuses it: a part of the page, not the page."""
    def guarded() -> Any:
        try:
            return call()
        except ApiProblem as problem:
            if problem.status in (400, 403, 404):
                return None
            raise
    return guarded


def _provider_reads(client: ApiClient, now: datetime, provider_id: uuid.UUID,
                    ) -> list[Callable[[], Any]]:
    """The clock's reads (as `clock.views.fetch`) and the provider's recent requests."""
    shift_query = ShiftListQuery(start_date=now - SHIFT_LOOKBACK, end_date=now + SHIFT_WINDOW,
                                 provider_id=provider_id, include_display_names=True,
                                 page_size=100)
    requests = TimeOffRequestListQuery(provider_id=provider_id, start_date=now - DECISIONS_BACK,
                                       page_size=200)
    return [client.my_timecard, lambda: client.list_shifts(shift_query),
            lambda: client.list_labels(LabelListQuery(page_size=200)),
            _or_none(lambda: client.list_time_off_requests(requests))]


def _role_reads(client: ApiClient, me: UserMe, now: datetime, teams: list[Any],
                ) -> dict[str, Callable[[], Any]]:
    """The second round: the counts and lists `me`'s roles call for."""
    reads: dict[str, Callable[[], Any]] = {}
    today = now.astimezone(_zone()).date()
    tomorrow = _midnight(today + timedelta(days=1))
    since = max(now - timedelta(hours=1), _midnight(today))  # threads have no app context
    if nav.can(me, "approve", "TimeOffRequest"):
        reads["waiting"] = _or_none(lambda: client.count_time_off_requests(
            TimeOffRequestFilter(status=["pending"])))
    if nav.can(me, "sign_off", "Timesheet"):
        team_ids = [t.id for t in teams] if me.is_admin else list(me.team_ids)
        for n, team_id in enumerate(team_ids[:MAX_TEAMS]):
            # To the end of today: the wire drops fractions of seconds, and a punch made this
            # second must count.
            query = TimesheetQuery(team=team_id, start_date=now - REVIEW_BACK, end_date=tomorrow,
                                   page_size=200)
            reads[f"sheets{n}"] = _or_none(lambda q=query: client.team_timesheets(q))
    if nav.can(me, "create", "Shift"):
        reads["open"] = _or_none(lambda: client.list_shifts(ShiftListQuery(
            start_date=now, end_date=tomorrow, open_only=True, page_size=200)))
    if nav.can(me, "edit", "Appointment"):
        reads["appointments"] = _or_none(lambda: client.list_appointments(AppointmentListQuery(
            start_date=since, end_date=tomorrow,
            page_size=50)))
    return reads


def _decisions(requests: list[TimeOffRequestRead]) -> list[Decision]:
    """Decisions on `requests` since the provider last looked, remembering what they see now.

    The first look of a session only remembers: the wire has no decision time to go by.
    """
    seen = session.get(SEEN_KEY)
    first = not isinstance(seen, dict)
    seen = {} if first else dict(seen)
    found: list[Decision] = []
    now_seen: dict[str, str] = {}
    for r in requests:
        key = r.status + ("/declined" if r.cancellation_declined_at else "")
        before = seen.get(str(r.id))
        now_seen[str(r.id)] = key
        if first or before == key:
            continue
        if r.status == "approved" and r.cancellation_declined_at and before == "approved":
            found.append(Decision(r, "Your request to cancel was declined"))
        elif (r.status == "approved" and before in (None, "pending")) or r.status == "rejected" \
                or (r.status == "cancelled" and before is not None
                    and before.startswith("approved")):
            found.append(Decision(r, status_word(r.status)))
    if seen != now_seen or first:
        session[SEEN_KEY] = now_seen
    return found


def load_attention(panel: dict[str, Any] | None = None) -> tuple[UserMe, Attention]:
    """Everything the Now part shows, in at most two concurrent rounds; `panel` is the clock
    panel when a clock view has it already (an answer to a punch)."""
    client = api()
    now = datetime.now(UTC)
    provider_id = my_provider_id()
    first: list[Callable[[], Any]] = [
        client.me, lambda: client.list_teams(TeamListQuery(page_size=200))]
    if provider_id is not None:
        first += _provider_reads(client, now, provider_id)
    me, teams, *own = client.concurrently(*first)
    g.shiftdesk_me = me  # the menu reads it; no second call
    seen = Attention(now=now)
    if provider_id is not None and nav.can(me, "create", "Timecard"):
        card, shifts, labels, requests = own
        if panel is None:
            state = counted_as_paid(
                build_state(now, me, card, shifts.items, teams.items, labels.items),
                client, provider_id)
            panel = panel_context(state, back="now")
        seen.panel = panel
        seen.decisions = _decisions(requests.items if requests else [])
    reads = _role_reads(client, me, now, teams.items)
    answers = dict(zip(reads, client.concurrently(*reads.values()), strict=True))
    if "waiting" in reads:
        seen.waiting_requests = answers["waiting"].count if answers["waiting"] else 0
    sheets = [a for k, a in answers.items() if k.startswith("sheets") and a is not None]
    if nav.can(me, "sign_off", "Timesheet"):
        seen.punches_to_review = sum(1 for page in sheets for sheet in page.items
                                     for p in sheet.punches if p.state == "pending")
    if "open" in reads:
        found = answers["open"].items if answers["open"] else []
        seen.open_today = sum(1 for s in found if s.provider is None)
    if "appointments" in reads:
        found = answers["appointments"].items if answers["appointments"] else []
        seen.appointments = sorted((a for a in found if a.status != "cancelled"),
                                   key=lambda a: a.start_date)
    return me, seen


def now_page(panel: dict[str, Any] | None = None, *, status: int = 200) -> Response:
    """The home page, with the clock panel a clock view already has (an answer to a punch
    without JavaScript: a warning, a refusal)."""
    me, seen = load_attention(panel)
    return render("home/index.html", fragment="home_areas", status=status, me=me, seen=seen,
                  groups=nav.groups(me, current_app.view_functions), href=_href)


@bp.get("/")
@public
def index() -> Response:
    """The signed-in user's Now; a visitor who has not signed in goes straight to sign-in."""
    if not signed_in():
        return redirect(url_for("signin.start"), 303)
    access_token()  # an expired session goes to sign in and comes back here
    return now_page()


def _href(item: nav.NavItem) -> str:
    """Where a home-page link goes: the area's page, or an API document at the API's address."""
    api_url = current_app.extensions["shiftdesk_web"].settings.api_url
    if api_url and item in nav.API_DOCS:
        return api_url.rstrip("/") + item.path
    return url_for(item.endpoint)


@bp.get("/favicon.ico")
@public
def favicon() -> Response:
    """The site icon, for browsers that ask for it at the conventional address."""
    static = current_app.static_folder
    assert static is not None
    response = send_from_directory(static, "favicon.svg", mimetype="image/svg+xml")
    response.cache_control.max_age = 86400
    return response

