"""My shifts and open shifts (blueprint `shifts`):
the provider's schedule, its calendar export, and claiming.

`GET /shifts/mine` shows the provider's shifts and approved time off as a week
(`?week=YYYY-MM-DD`, any day of it) or as a list of the coming four weeks (`?view=list`);
`GET /shifts/mine.ics` exports both as an RFC 5545 calendar (time off as all-day events, or
timed for part of a day). `GET /shifts/open` lists the open shifts the provider could take, and
`POST /shifts/<id>/claim` claims one, every claim problem of the spec shown on the shift in
words.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from functools import partial
from typing import Any

from flask import Blueprint, Response, current_app, flash, g, request, url_for

from app.client import ApiClient, ApiProblem
from app.contract.common import parse_timestamp
from app.contract.labels import LabelListQuery
from app.contract.shifts import ShiftListQuery, ShiftRead
from app.contract.teams import TeamListQuery
from app.contract.time_off import TimeOffRequestListQuery, TimeOffRequestRead
from app.web.auth import api, my_provider_id
from app.web.filters import LeaveSpan, leave_span
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
MINUTE = timedelta(minutes=1)
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


def open_queries(now: datetime, provider_id: uuid.UUID | None,
                 ) -> tuple[ShiftListQuery | None, ...]:
    """The coming four weeks' open shifts of the provider's teams, and their own shifts (the
    page warns about overlaps before anyone presses Claim)."""
    end = now + timedelta(days=OPEN_DAYS)
    return (ShiftListQuery(start_date=now, end_date=end, open_only=True,
                           include_display_names=True, page_size=200),
            own_query(now, end, provider_id))


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
                  total=sum(v.minutes - v.break_minutes for v in views))


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


def _open_views() -> tuple[list[ShiftView], dict[str, list[ShiftView]]]:
    """The open shifts not yet started, and for each the provider's shifts it overlaps."""
    now = datetime.now(UTC)
    me, shifts, teams, labels, _leave = _fetch(*open_queries(now, my_provider_id()))
    # Claims close the API's notice window before the start (the same setting it reads): say so
    # instead of offering a button that can only be refused.
    notice = timedelta(minutes=current_app.extensions["shiftdesk_web"].settings
                       .claim_notice_minutes)
    closed = (f"Starts too soon to claim here: claims close {minutes_words(notice // MINUTE)} "
              "before the start. Call your manager if you can cover it.")
    views = [shift_view(s, teams, labels) for s in shifts
             if s.provider is None and s.start_date > now]
    views = [replace(v, closed_note=closed) if v.start - now < notice else v for v in views]
    mine = [shift_view(s, teams) for s in shifts
            if s.provider is not None and s.provider == me.provider_id]
    overlaps = {v.id: [m for m in mine if m.start < v.end and v.start < m.end] for v in views}
    return views, overlaps


@bp.get("/shifts/open")
def open() -> Response:
    """Open shifts the provider could take, each with a Claim button."""
    views, overlaps = _open_views()
    return render("shifts/open.html", fragment="open_shifts", shifts=views, problems={},
                  gone=None, overlaps=overlaps)


def claim_problem(problem: ApiProblem) -> str:
    """A claim refusal in words a nurse understands."""
    ext = problem.extensions
    zone = _zone()

    def when(value: Any) -> str:
        at = parse_timestamp(value).astimezone(zone)
        return f"{at:%a} {at.day} {at:%b}, {at:%I:%M %p}".replace(", 0", ", ")

    code = problem.code
    if code == "shift-already-claimed":
        return "Someone else already claimed this shift. It is no longer open."
    if code == "shift-already-started":
        return "This shift has already started, so it can't be claimed any more."
    if code == "shift-claim-window-closed":
        notice = minutes_words(int(ext.get("minimumNoticeMinutes") or 0))
        starts = f" It starts {when(ext['startsAt'])}." if ext.get("startsAt") else ""
        return (f"This shift starts too soon to claim here: shifts must be claimed at least "
                f"{notice} before they start.{starts} Call your manager if you can cover it.")
    if code == "shift-missing-skills":
        missing = [f"{s.get('name')}: {s['value']}" if s.get("value") else str(s.get("name"))
                   for s in ext.get("missingSkills") or []]
        return ("You don't have the skills this shift needs: " + ", ".join(missing) + ".")
    if code == "shift-schedule-conflict":
        spans = []
        for c in ext.get("conflicts") or []:
            end = parse_timestamp(c["endDate"]).astimezone(zone)
            spans.append(f"{when(c['startDate'])} to {end:%I:%M %p}".replace("to 0", "to "))
        return ("This shift overlaps shifts you already have: " + "; ".join(spans) + ".")
    return problem.detail


@bp.post("/shifts/<uuid:shift_id>/claim")
def claim(shift_id: uuid.UUID) -> Response:
    """Claim an open shift; a refusal shows on the shift."""
    try:
        claimed = api().claim_shift(shift_id)
    except ApiProblem as problem:
        if problem.status not in (403, 404, 409):
            raise
        message = claim_problem(problem)
        views, overlaps = _open_views()
        found = next((v for v in views if v.id == str(shift_id)), None)
        if is_partial():
            # The shift as it is now (or gone) with the refusal on it: an in-place update.
            if found is not None:
                return render_macro("shifts/_open.html", "open_shift", found, problem=message,
                                    overlaps=overlaps.get(found.id))
            return render_macro("shifts/_open.html", "gone_shift", str(shift_id), message)
        return render("shifts/open.html", shifts=views, problems={str(shift_id): message},
                      gone=None if found else {"id": str(shift_id), "problem": message},
                      overlaps=overlaps, status=409)
    at = claimed.start_date.astimezone(_zone())
    flash(f"Shift claimed: {at:%a} {at.day} {at:%b}, {at:%I:%M %p}. It is now in My shifts."
          .replace(", 0", ", "), "success")
    if is_partial():
        return render_macro("shifts/_open.html", "claimed_shift", shift_view(claimed, {}))
    return see_other(url_for("shifts.open"))
