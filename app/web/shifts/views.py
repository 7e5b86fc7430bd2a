"""My shifts and open shifts (blueprint `shifts`):
the provider's schedule, its calendar export, and claiming.

`GET /shifts/mine` shows the provider's shifts and approved time off as a week
(`?week=YYYY-MM-DD`, any day of it) or as a list of the coming four weeks (`?view=list`);
`GET /shifts/mine.ics` exports both as an RFC 5545 calendar (time off as all-day events, or
timed for part of a day). `GET /shifts/open` lists the open shifts the provider could take, and
`POST /shifts/<id>/claim` claims one, every claim problem of the spec shown on the shift in
words. A shift that fills a gap against the demand forecast says for how long ("Needed: 3h of
this shift is short-staffed", the claim check's `neededMinutes`), and `?sort=needed` lists the
most needed first.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import partial
from typing import Any

from flask import Blueprint, Response, current_app, flash, g, request, url_for

from app.client import ApiClient, ApiProblem
from app.contract.availability import AvailabilityWindow, AvailabilityWindowQuery
from app.contract.common import parse_timestamp
from app.contract.labels import LabelListQuery
from app.contract.shift_swaps import ShiftSwapListingQuery
from app.contract.shifts import ShiftClaimCheck, ShiftClaimCheckQuery, ShiftListQuery, ShiftRead
from app.contract.teams import TeamListQuery
from app.contract.time_off import TimeOffRequestListQuery, TimeOffRequestRead
from app.web.auth import api, my_provider_id
from app.web.availability.words import reason_words
from app.web.filters import LeaveSpan, format_datetime, format_time, leave_span
from app.web.htmx import is_partial, render, render_macro, see_other
from app.web.manage_schedule.calendar import parse_day
from app.web.shifts import ics
from app.web.shifts.summary import (
    ShiftView,
    label_views,
    minutes_words,
    shift_view,
    team_names,
)

bp = Blueprint("shifts", __name__)

LIST_DAYS = 28
OPEN_DAYS = 28
EXPORT_PAST = timedelta(days=14)
EXPORT_AHEAD = timedelta(days=120)


def _zone() -> Any:
    return current_app.extensions["shiftdesk_web"].settings.zone


def _local_midnight(day: date, zone: Any) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=zone).astimezone(UTC)


def fetch(client: ApiClient, *queries: ShiftListQuery | None,
          time_off: TimeOffRequestListQuery | None = None) -> list[Any]:
    """A page's one concurrent round: the user, the shifts of each query (every page; None
    asks nothing), teams, labels and, when asked, the time off of `time_off` (every page; the
    page benchmark makes the same calls)."""
    reads: list[Any] = [
        client.me,
        lambda: client.list_teams(TeamListQuery(page_size=200)),
        lambda: client.list_labels(LabelListQuery(page_size=200)),
        partial(_every_request, client, time_off) if time_off is not None else list,
        *(partial(_every_shift, client, query) for query in queries if query is not None),
    ]
    me, teams, labels, leave, *found = client.concurrently(*reads)
    return [me, [shift for shifts in found for shift in shifts], teams, labels, leave]


def _every_shift(client: ApiClient, query: ShiftListQuery) -> list[ShiftRead]:
    return list(client.iterate(client.list_shifts, query))


def _every_request(client: ApiClient, query: TimeOffRequestListQuery,
                   ) -> list[TimeOffRequestRead]:
    return list(client.iterate(client.list_time_off_requests, query))


def leave_query(start: datetime, end: datetime, provider_id: uuid.UUID | None,
                ) -> TimeOffRequestListQuery | None:
    """The provider's approved time off overlapping `start` to `end` (None: not a provider)."""
    if provider_id is None:
        return None
    return TimeOffRequestListQuery(provider_id=provider_id, status=["approved"],
                                   start_date=start, end_date=end, page_size=200)


def _fetch(*queries: ShiftListQuery | None, time_off: TimeOffRequestListQuery | None = None,
           ) -> tuple[Any, list[ShiftRead], dict[str, str], dict[str, Any],
                      list[TimeOffRequestRead]]:
    me, shifts, teams, labels, leave = fetch(api(), *queries, time_off=time_off)
    g.shiftdesk_me = me  # the menu reads it; no second call
    return me, shifts, team_names(teams.items), label_views(labels.items), leave


@dataclass(frozen=True)
class LeaveView:
    """Approved time off as My shifts draws it."""

    id: str
    policy: str
    span: LeaveSpan
    request: TimeOffRequestRead

    @property
    def start(self) -> datetime:
        """When it starts (for ordering beside shifts)."""
        return self.span.start


def leave_views(requests: list[TimeOffRequestRead], provider_id: uuid.UUID | None,
                zone: Any) -> list[LeaveView]:
    """The provider's approved time off, by start."""
    views = [LeaveView(id=str(r.id), policy=r.policy.name if r.policy else "Time off",
                       span=leave_span(r, zone), request=r)
             for r in requests if r.status == "approved" and r.provider_id == provider_id]
    return sorted(views, key=lambda v: v.start)


def own_query(start: datetime, end: datetime, provider_id: uuid.UUID | None,
              ) -> ShiftListQuery | None:
    """The provider's own shifts overlapping `start` to `end` (None for a user who is not one)."""
    if provider_id is None:
        return None
    return ShiftListQuery(start_date=start, end_date=end, provider_id=provider_id,
                          include_display_names=True, page_size=200)


def week_query(monday: date, zone: Any, provider_id: uuid.UUID | None,
               ) -> ShiftListQuery | None:
    """The provider's shifts of the week starting on `monday` in `zone`."""
    return own_query(_local_midnight(monday, zone),
                     _local_midnight(monday + timedelta(days=7), zone), provider_id)


def open_queries(now: datetime, provider_id: uuid.UUID | None = None,
                 ) -> tuple[ShiftListQuery | None, ...]:
    """The coming four weeks' open shifts of the provider's teams (whether each may be claimed
    is the API's answer: `claim_checks`)."""
    return (ShiftListQuery(start_date=now, end_date=now + timedelta(days=OPEN_DAYS),
                           open_only=True, include_display_names=True, page_size=200),)


CHECK_CHUNK = 200  # claim-checks takes at most 200 ids a call


def claim_checks(client: ApiClient, shift_ids: list[str], provider_id: uuid.UUID | None,
                 ) -> dict[str, ShiftClaimCheck]:
    """The API's claim checks of the open shifts, by shift id (in chunks, concurrently); none for
    a user who is not a provider."""
    if provider_id is None or not shift_ids:
        return {}
    chunks = [shift_ids[i:i + CHECK_CHUNK] for i in range(0, len(shift_ids), CHECK_CHUNK)]
    answers = client.concurrently(*(
        partial(client.claim_checks, ShiftClaimCheckQuery(shift_ids=chunk)) for chunk in chunks))
    return {str(c.shift_id): c for answer in answers for c in answer.items}


def open_fetch(client: ApiClient, now: datetime) -> list[Any]:
    """The open-shifts page's two rounds: the user, the open shifts, teams and labels; then the
    claim checks of those shifts and the provider's unavailable times, at once."""
    me, shifts, teams, labels, _leave = fetch(client, *open_queries(now))
    ids = [str(s.id) for s in shifts if s.provider is None and s.start_date > now]
    checks, windows = client.concurrently(
        lambda: claim_checks(client, ids, me.provider_id),
        lambda: my_unavailable(client, me.provider_id, now))
    return [me, shifts, teams, labels, checks, windows]


def my_unavailable(client: ApiClient, provider_id: uuid.UUID | None, now: datetime,
                   ) -> list[AvailabilityWindow]:
    """The provider's unavailable times over the open shifts' four weeks (a day either side,
    so every local day is in: the API reads each local date in the site's zone); none for a
    user who is not a provider or may not read them."""
    if provider_id is None:
        return []
    first = (now - timedelta(days=1)).date()
    try:
        answer = client.availability_windows(AvailabilityWindowQuery(
            provider_id=provider_id, start_date=first, end_date=first + timedelta(days=30)))
    except ApiProblem:
        return []
    return [w for item in answer.items for w in item.windows if w.kind == "unavailable"]


def _week_start(text: str | None, today: date) -> date:
    day = parse_day(text) or today
    return day - timedelta(days=day.weekday())


@bp.get("/shifts/mine")
def mine() -> Response:
    """The provider's shifts: a week, or the coming four weeks as a list."""
    now = datetime.now(UTC)
    today = now.astimezone(_zone()).date()
    as_list = request.args.get("view") == "list"
    provider_id = my_provider_id()
    if as_list:
        monday = _week_start(None, today)
        start, end = now, now + timedelta(days=LIST_DAYS)
    else:
        monday = _week_start(request.args.get("week"), today)
        start = _local_midnight(monday, _zone())
        end = _local_midnight(monday + timedelta(days=7), _zone())
    me, shifts, teams, labels, leave = _fetch(own_query(start, end, provider_id),
                                              time_off=leave_query(start, end, provider_id))
    views = [shift_view(s, teams, labels) for s in shifts
             if s.provider is not None and s.provider == me.provider_id]
    off = leave_views(leave, me.provider_id, _zone())
    days: list[tuple[date, list[LeaveView], list[ShiftView]]] = []
    if not as_list:
        for offset in range(7):
            day = monday + timedelta(days=offset)
            days.append((day, [v for v in off if day in v.span.days],
                         [v for v in views if v.start.astimezone(_zone()).date() == day]))
    entries = sorted([*views, *off], key=lambda v: v.start)
    return render("shifts/mine.html", fragment="my_shifts", as_list=as_list, shifts=views,
                  leave=off, entries=entries, days=days, monday=monday, today=today,
                  previous=(monday - timedelta(days=7)).isoformat(),
                  following=(monday + timedelta(days=7)).isoformat(),
                  total=sum(v.minutes - v.break_minutes for v in views), now=now)


@bp.get("/shifts/mine.ics")
def export() -> Response:
    """The provider's shifts and approved time off (two weeks back, four months ahead) as an
    iCalendar file."""
    client = api()
    now = datetime.now(UTC)
    start, end = now - EXPORT_PAST, now + EXPORT_AHEAD
    provider_id = my_provider_id()
    me, shifts, teams, _labels, leave = fetch(client, own_query(start, end, provider_id),
                                              time_off=leave_query(start, end, provider_id))
    names = team_names(teams.items)
    views = [shift_view(s, names) for s in shifts if s.provider == me.provider_id]
    host = request.host.split(":")[0] or "shiftdesk"
    body = ics.calendar(views, now=now, domain=host, name=f"Shifts of {me.name}",
                        zone=_zone(), leave=[
                            ics.Leave(id=v.id, policy=v.policy, span=v.span)
                            for v in leave_views(leave, me.provider_id, _zone())])
    return Response(body, mimetype="text/calendar", headers={
        "Content-Disposition": 'attachment; filename="my-shifts.ics"',
        "Cache-Control": "private, no-store"})


@dataclass(frozen=True)
class OpenShift:
    """An open shift and, when the provider may not claim it, why not in words."""

    shift: ShiftView
    reasons: tuple[str, ...] = ()
    needed_minutes: int = 0  # of its working time, short of staff (the claim check's figure)
    unavailable: str | None = None  # it falls in time the provider said they can't work: why

    @property
    def id(self) -> str:
        """The shift's id."""
        return self.shift.id


NOT_A_PROVIDER = "Only providers can claim shifts."


def _open_views() -> tuple[list[OpenShift], list[OpenShift]]:
    """The open shifts not yet started: those the provider may claim, and the others with the
    API's reasons why not."""
    now = datetime.now(UTC)
    me, shifts, teams, labels, checks, windows = open_fetch(api(), now)
    g.shiftdesk_me = me  # the menu reads it; no second call
    names, label_names = team_names(teams.items), label_views(labels.items)
    claimable: list[OpenShift] = []
    unavailable: list[OpenShift] = []
    for s in shifts:
        if s.provider is not None or s.start_date <= now:
            continue
        view = shift_view(s, names, label_names)
        clash = next((w for w in windows
                      if w.start_date < s.end_date and s.start_date < w.end_date), None)
        mark = reason_words(clash, _zone()) if clash is not None else None
        check = checks.get(str(s.id))
        if check is None:
            if me.provider_id is None:
                unavailable.append(OpenShift(view, (NOT_A_PROVIDER,)))
            continue  # gone since it was listed
        if check.claimable:
            claimable.append(OpenShift(view, needed_minutes=check.needed_minutes,
                                       unavailable=mark))
        else:
            unavailable.append(OpenShift(view, tuple(
                refusal_words(r.code, r.model_extra or {}, r.detail) for r in check.refusals),
                needed_minutes=check.needed_minutes, unavailable=mark))
    return claimable, unavailable


SORTS = {"start": "By start time", "needed": "Most needed first"}
"""The orders of the open shifts (`?sort=`), the first the default."""


def in_order(shifts: list[OpenShift], sort: str) -> list[OpenShift]:
    """The shifts by start, or with `needed` the most short-staffed minutes first (then by
    start)."""
    if sort == "needed":
        return sorted(shifts, key=lambda o: (-o.needed_minutes, o.shift.start))
    return sorted(shifts, key=lambda o: o.shift.start)


@bp.get("/shifts/open")
def open() -> Response:
    """Open shifts: those the provider can take, each with a Claim button, then the others,
    each with the reasons it is not theirs to claim; each marked when it fills a gap in the
    staffing, by start or most needed first (`?sort=needed`)."""
    sort = request.args.get("sort") if request.args.get("sort") in SORTS else "start"
    claimable, unavailable = _open_views()
    me = my_provider_id()
    offers = [] if me is None else [
        listing for listing in api().list_swap_listings(
            ShiftSwapListingQuery(status="open", page_size=50)).items
        if listing.provider_id != me]
    return render("shifts/open.html", fragment="open_shifts",
                  claimable=in_order(claimable, sort), unavailable=in_order(unavailable, sort),
                  sort=sort, sorts=SORTS, offers=offers)


def _when(value: Any) -> str:
    return format_datetime(value, _zone())


def _span(item: Mapping[str, Any]) -> str:
    start = parse_timestamp(item["startDate"]).astimezone(_zone())
    end = parse_timestamp(item["endDate"]).astimezone(_zone())
    if end.date() == start.date():
        return f"{_when(item['startDate'])} to {format_time(end, _zone())}"
    return f"{_when(item['startDate'])} to {_when(item['endDate'])}"


def refusal_words(code: str | None, members: Mapping[str, Any], detail: str | None) -> str:
    """Why a claim is (or would be) refused, in words a nurse understands, from the problem
    code and its members; the API's sentence for anything else."""
    if code == "shift-already-claimed":
        return "Someone else already claimed this shift. It is no longer open."
    if code == "shift-already-started":
        return "This shift has already started, so it can't be claimed any more."
    if code == "shift-claim-window-closed":
        notice = minutes_words(int(members.get("minimumNoticeMinutes") or 0))
        starts = f" It starts {_when(members['startsAt'])}." if members.get("startsAt") else ""
        return (f"This shift starts too soon to claim here: shifts must be claimed at least "
                f"{notice} before they start.{starts} Call your manager if you can cover it.")
    if code == "shift-role-not-held":
        roles = [str(r.get("name")) for r in members.get("roles") or []]
        which = " and ".join(roles) or "a role"
        one = "that role" if len(roles) <= 1 else "those roles"
        return f"This shift is for {which}, and you don't hold {one}."
    if code == "shift-missing-skills":
        missing = [f"{s.get('name')}: {s['value']}" if s.get("value") else str(s.get("name"))
                   for s in members.get("missingSkills") or []]
        return "You don't have the skills this shift needs: " + ", ".join(missing) + "."
    if code == "shift-time-off-conflict":
        spans = [_span(t) for t in members.get("timeOff") or []]
        return "It falls in your approved time off: " + "; ".join(spans) + "."
    if code == "shift-schedule-conflict":
        spans = [_span(c) for c in members.get("conflicts") or []]
        return "This shift overlaps shifts you already have: " + "; ".join(spans) + "."
    if code == "timesheet-signed-off":
        return ("This shift falls in a pay period your manager has already signed off, so it "
                "can't change any more. Ask your manager if it still needs covering.")
    return detail or "This shift can't be claimed."


def claim_problem(problem: ApiProblem) -> str:
    """A claim refusal in words a nurse understands."""
    return refusal_words(problem.code, problem.extensions, problem.detail or problem.title)


@bp.post("/shifts/<uuid:shift_id>/claim")
def claim(shift_id: uuid.UUID) -> Response:
    """Claim an open shift. A refusal shows on the shift, its button gone (htmx), or as a
    message on the list the browser is sent back to (post/redirect/get, so a reload never
    claims again)."""
    try:
        claimed = api().claim_shift(shift_id)
    except ApiProblem as problem:
        if problem.status not in (403, 404, 409):
            raise
        message = claim_problem(problem)
        if not is_partial():
            flash(message, "error")
            return see_other(url_for("shifts.open"))
        # The shift as it is now (or gone) with the refusal on it, no button: in place.
        claimable, unavailable = _open_views()
        found = next((o for o in claimable + unavailable if o.id == str(shift_id)), None)
        if found is not None:
            reasons = tuple(r for r in found.reasons if r != message)
            return render_macro("shifts/_open.html", "open_shift", found.shift,
                                problem=message, reasons=reasons, needed=found.needed_minutes)
        return render_macro("shifts/_open.html", "gone_shift", str(shift_id), message)
    flash(f"Shift claimed: {format_datetime(claimed.start_date, _zone())}. It is now in My "
          "shifts.", "success")
    if is_partial():
        return render_macro("shifts/_open.html", "claimed_shift", shift_view(claimed, {}))
    return see_other(url_for("shifts.open"))
