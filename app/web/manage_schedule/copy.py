"""Copying on the team schedule: a shift to other days of its week, and last week into this one.

`copy_shift` shows a shift with the days of its week to tick (its own day disabled);
`copy_shift_save` creates one copy per day ticked. `copy_week` previews copying last week's
shifts into the week shown — what would be created, and what skipped and why — and
`copy_week_save` ("Copy N shifts") creates them, concurrently in batches. Both answer a full
request with 303 to their page showing the result (kept in the session, named by `result=`),
and an htmx request with the result region in place (#copy-shift, #copy-week).

A copy keeps the local clock times of the shift and of each segment, moved by whole local days
(07:00-19:00 stays 07:00-19:00 across a DST change), and its provider (or none: open), roles,
labels, skill requirements, pay code and note. Callouts are not copied. The API accepts
overlapping shifts, so copying checks first and skips a copy that would overlap its provider's
shift (an open shift: the same open shift already posted), fall in the provider's approved time
off, or go to someone no longer in the team; copying twice therefore skips everything the second
time. What the API then refuses (a signed-off timesheet, a role removed) is skipped with its
reason.

Version conflicts, as on the schedule: the shift form carries the version it was opened at, the
week preview a signed plan (the source shifts with their versions, and what would be created or
skipped). When the shift or the plan changed meanwhile, nothing is created and the answer is 409
with the latest shift or preview to check and confirm again.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from flask import Response, abort, current_app, request, session
from itsdangerous import BadSignature, URLSafeSerializer
from werkzeug.datastructures import MultiDict
from wtforms import HiddenField, IntegerField
from wtforms.validators import InputRequired, NumberRange

from app.client import ApiClient, ApiProblem, Unauthenticated
from app.contract.shifts import ShiftCreate, ShiftListQuery, ShiftRead, ShiftSegmentCreate
from app.contract.time_off import TimeOffRequestListQuery, TimeOffRequestRead
from app.web.auth import api
from app.web.filters import format_date, format_leave, format_time_range, site_today
from app.web.forms import BaseForm, MultiCheckboxField
from app.web.htmx import is_partial, render, see_other
from app.web.manage_schedule.calendar import (
    EARLIEST_DAY,
    LATEST_DAY,
    local_day,
    local_instant,
    today,
    week_start,
    zone,
)
from app.web.manage_schedule.views import Week, bp, build_week, role_name

SHIFT_TEMPLATE = "manage_schedule/copy_shift.html"
WEEK_TEMPLATE = "manage_schedule/copy_week.html"
BATCH = 8
"""Copies created at once: the client's concurrent fan-out runs at most eight calls."""
RESULT_KEY = "schedule_copy_result"


class ShiftCopyForm(BaseForm):
    """The days of the shift's week to copy it to, and the version it was opened at."""

    days = MultiCheckboxField("Copy to", choices=[], validate_choice=False)
    version = IntegerField(validators=[InputRequired(), NumberRange(min=0)])


class WeekCopyForm(BaseForm):
    """The plan the manager previewed, signed, so a changed week is noticed."""

    plan = HiddenField(validators=[InputRequired()])


@dataclass(frozen=True)
class Copy:
    """One copy: the shift it copies, the shift to create, and why it is skipped (None: it is
    created). `kind` names the reason: overlap, open_posted, time_off, left_team, no_role or
    api."""

    source: ShiftRead
    body: ShiftCreate | None
    skip: str | None = None
    kind: str | None = None


@dataclass(frozen=True)
class Row:
    """A copy as a result lists it: when, who, which role, and why it was skipped (`kind` as
    `Copy.kind`)."""

    start: datetime
    end: datetime
    who: str
    role: str
    reason: str = ""
    kind: str = ""


@dataclass
class Result:
    """What a copy did: the copies created and those skipped, with their reasons."""

    id: str
    kind: str  # what was copied: "shift:<id>" or "week:<team>:<Monday>"
    created: list[Row]
    skipped: list[Row]

    @property
    def all_overlapping(self) -> bool:
        """Whether nothing was created because every copy was already there."""
        return not self.created and bool(self.skipped) and all(
            r.kind in ("overlap", "open_posted") for r in self.skipped)


@dataclass
class CopyPage:
    """Everything the two copy pages show."""

    week: Week
    shift: ShiftRead | None = None
    form: ShiftCopyForm | None = None
    conflict: bool = False  # the shift, or the week, changed since the manager looked
    copies: list[Copy] = field(default_factory=list)
    callouts: int = 0
    plan: str = ""
    result: Result | None = None
    problem: str | None = None  # an inline message the page opens with (e.g. a bad week)

    @property
    def target(self) -> date:
        """The Monday of the week copied into."""
        return self.week.start

    @property
    def source(self) -> date:
        """The Monday of the week copied from."""
        return self.week.start - timedelta(days=7)

    @property
    def to_create(self) -> list[Copy]:
        """The copies that would be created."""
        return [c for c in self.copies if c.skip is None]

    @property
    def to_skip(self) -> list[Copy]:
        """The copies that would be skipped, with their reasons."""
        return [c for c in self.copies if c.skip is not None]

    @property
    def all_overlapping(self) -> bool:
        """Whether every copy is skipped because it is already there (copied before)."""
        return bool(self.copies) and all(c.kind in ("overlap", "open_posted")
                                         for c in self.copies)

    def day_choices(self) -> list[tuple[date, bool, bool]]:
        """The shift's week day by day: (day, ticked, the shift's own day)."""
        assert self.shift is not None
        assert self.form is not None
        own = local_day(self.shift.start_date)
        ticked = set(self.form.days.data or [])
        return [(d, d.isoformat() in ticked, d == own) for d in self.week.days]

    def person(self, copy: Copy) -> str:
        """Who the copy is for (its source's provider name where the week does not know it)."""
        name = self.week.person(copy.source.provider)
        if name == "Someone outside this team" and copy.source.provider_name:
            return copy.source.provider_name
        return name

    def role(self, shift: ShiftRead) -> str:
        """The name of the role of a shift's first working part ("" when unknown)."""
        names = {r.id: r.name for r in self.week.roles}
        for s in shift.segments:
            if s.type != "unpaid_break" and s.role is not None:
                return names.get(s.role) or s.role_name or ""
        return role_name(shift) or ""

    def url(self, endpoint: str, **values: Any) -> str:
        """An address of the copy pages keeping the team, week and view."""
        return self.week.url(endpoint, **values)


# -- copying -----------------------------------------------------------------------------------

def moved(instant: datetime, days: int) -> datetime:
    """`instant` `days` local days later at the same local clock time (DST-exact)."""
    local = instant.astimezone(zone())
    return local_instant(local.date() + timedelta(days=days), local.time())


def copied(shift: ShiftRead, days: int) -> ShiftCreate | None:
    """The shift `days` local days later, as a new shift (None: no segment can be copied, as
    segments whose role came from another system name no role)."""
    segments = [ShiftSegmentCreate(role=s.role, type=s.type, start_date=moved(s.start_date, days),
                                   end_date=moved(s.end_date, days),
                                   skill_requirement=s.skill_requirement, labels=s.labels)
                for s in shift.segments if s.role is not None]
    if not segments:
        return None
    return ShiftCreate(provider=shift.provider, team=shift.team,
                       start_date=moved(shift.start_date, days),
                       end_date=moved(shift.end_date, days), segments=segments,
                       pay_codes=shift.pay_codes, note=shift.note,
                       work_rule_override=shift.work_rule_override)


@dataclass(frozen=True)
class _Held:
    """A span already on the schedule (or a copy planned before): whose, when, which roles."""

    provider: uuid.UUID | None
    team: uuid.UUID | None
    start: datetime
    end: datetime
    roles: tuple[str, ...]


def _roles(segments: list[Any]) -> tuple[str, ...]:
    return tuple(sorted({str(s.role) for s in segments if s.role is not None}))


def _when(start: datetime, end: datetime) -> str:
    site = zone()
    return f"{format_date(start, site, relative=False)}, {format_time_range(start, end, site)}"


def plan_copies(week: Week, pairs: list[tuple[ShiftRead, int]], existing: list[ShiftRead],
                leave: list[TimeOffRequestRead]) -> list[Copy]:
    """Each `(shift, days)` copied `days` later, with the reason it would be skipped, if any.

    `existing` are the shifts around the days copied into (every team the manager sees),
    `leave` the approved time off there. Copies planned earlier count as held for later ones.
    """
    members = {p.id for p in week.providers}
    held = [_Held(s.provider, s.team, s.start_date, s.end_date, _roles(s.segments))
            for s in existing if not s.is_callout]
    site = zone()
    plan: list[Copy] = []
    for shift, days in pairs:
        body = copied(shift, days)
        copy = Copy(shift, body)
        name = week.person(shift.provider)
        if body is None:
            copy = replace(copy, skip="Its roles came from another system; add it by hand.",
                           kind="no_role")
        elif body.provider is not None and body.provider not in members:
            who = shift.provider_name or "Its provider"
            copy = replace(copy, skip=f"{who} is no longer in the team.", kind="left_team")
        elif body.provider is not None:
            off = next((r for r in leave if r.provider_id == body.provider
                        and r.start_date < body.end_date and body.start_date < r.end_date), None)
            other = next((h for h in held if h.provider == body.provider
                          and h.start < body.end_date and body.start_date < h.end), None)
            if off is not None:
                copy = replace(copy, kind="time_off", skip=(
                    f"{name} has approved time off {format_leave(off, site, site_today(site))}."))
            elif other is not None:
                copy = replace(copy, kind="overlap",
                               skip=f"Overlaps {name}'s shift {_when(other.start, other.end)}.")
        else:
            roles = _roles(body.segments)
            if any(h.provider is None and h.team == body.team and h.roles == roles
                   and h.start == body.start_date and h.end == body.end_date for h in held):
                copy = replace(copy, kind="open_posted", skip=(
                    "The same open shift is already posted "
                    f"({_when(body.start_date, body.end_date)})."))
        if copy.skip is None and body is not None:
            held.append(_Held(body.provider, body.team, body.start_date, body.end_date,
                              _roles(body.segments)))
        plan.append(copy)
    return plan


def _refusal(problem: ApiProblem) -> str:
    """Why the API refused a copy, in words staff act on."""
    if problem.code == "timesheet-signed-off":
        return ("The timesheet for that time is signed off; reopen the sign-off to add "
                "shifts there.")
    if problem.code == "maintenance-mode":
        return "Shiftdesk is read-only for maintenance; try again later."
    messages = [e.message for e in problem.field_errors]
    return "Not created: " + "; ".join(messages or [problem.detail or problem.title]) + "."


def _create(client: ApiClient, copy: Copy) -> Copy:
    assert copy.body is not None
    try:
        client.create_shift(copy.body)
    except Unauthenticated:
        raise
    except ApiProblem as problem:
        return replace(copy, skip=_refusal(problem), kind="api")
    return copy


def create_all(client: ApiClient, copies: list[Copy]) -> list[Copy]:
    """Create the copies not skipped, `BATCH` at a time concurrently; each refusal becomes a
    skip with the API's reason (only an expired sign-in stops the rest)."""
    done: list[Copy] = [c for c in copies if c.skip is not None]
    todo = [c for c in copies if c.skip is None]
    for begin in range(0, len(todo), BATCH):
        calls: list[Callable[[], Any]] = [
            (lambda c=c: _create(client, c)) for c in todo[begin:begin + BATCH]]
        done.extend(client.concurrently(*calls))
    return done


# -- results kept for the page after the redirect ------------------------------------------------

def _row(page: CopyPage, copy: Copy) -> Row:
    start = copy.body.start_date if copy.body else copy.source.start_date
    end = copy.body.end_date if copy.body else copy.source.end_date
    return Row(start, end, page.person(copy), page.role(copy.source), copy.skip or "",
               copy.kind or "")


def keep_result(page: CopyPage, kind: str, copies: list[Copy]) -> Result:
    """The result of a copy, kept in the session (the last one only) for its result page."""
    ordered = sorted(copies, key=lambda c: (c.body.start_date if c.body
                                            else c.source.start_date, page.person(c)))
    result = Result(secrets.token_urlsafe(8), kind,
                    [_row(page, c) for c in ordered if c.skip is None],
                    [_row(page, c) for c in ordered if c.skip is not None])

    def stored(r: Row) -> dict[str, str]:
        return {"start": r.start.isoformat(), "end": r.end.isoformat(), "who": r.who,
                "role": r.role, "reason": r.reason, "kind": r.kind}

    session[RESULT_KEY] = {"id": result.id, "kind": kind,
                           "created": [stored(r) for r in result.created],
                           "skipped": [stored(r) for r in result.skipped]}
    return result


def kept_result(result_id: str | None, kind: str) -> Result | None:
    """The result `result=` names, if it is the session's last one, of `kind` (the same shift,
    or the same team and week)."""
    kept = session.get(RESULT_KEY)
    if not result_id or not kept or kept.get("id") != result_id or kept.get("kind") != kind:
        return None

    def row(data: dict[str, str]) -> Row:
        return Row(datetime.fromisoformat(data["start"]), datetime.fromisoformat(data["end"]),
                   data["who"], data["role"], data["reason"], data.get("kind", ""))

    return Result(kept["id"], kind, [row(r) for r in kept["created"]],
                  [row(r) for r in kept["skipped"]])


def _shown(page: CopyPage, template: str, fragment: str, result: Result, endpoint: str,
           **values: Any) -> Response:
    """After copying: the result in place (htmx), or 303 to the page showing it."""
    if is_partial():
        page.result = result
        return render(template, fragment=fragment, page=page)
    return see_other(page.url(endpoint, **values) + f"&result={result.id}")


# -- one shift to other days --------------------------------------------------------------------

def _around(client: ApiClient, begin: datetime, end: datetime) -> Callable[[], Any]:
    """Every shift the manager sees from `begin` to `end`, callouts too (all their teams: a
    provider's shift elsewhere overlaps as well)."""
    query = ShiftListQuery(start_date=begin, end_date=end, include_callouts=True,
                           include_display_names=True, page_size=200)
    return lambda: list(client.iterate(client.list_shifts, query))


def _leave(client: ApiClient, begin: datetime, end: datetime) -> Callable[[], Any]:
    """The approved time off the manager sees from `begin` to `end`."""
    query = TimeOffRequestListQuery(status=["approved"], start_date=begin, end_date=end,
                                    page_size=200)
    return lambda: list(client.iterate(client.list_time_off_requests, query))


def _window(monday: date) -> tuple[datetime, datetime]:
    """The week of `monday` and a day either side (an overnight copy reaches the next week)."""
    return local_instant(monday - timedelta(days=1)), local_instant(monday + timedelta(days=8))


def _shift_page(shift_id: uuid.UUID) -> tuple[CopyPage, list[ShiftRead], list[TimeOffRequestRead]]:
    """The shift, its team's week, and the shifts and leave around that week."""
    client = api()
    shift = client.get_shift(shift_id)
    monday = week_start(local_day(shift.start_date))
    args = MultiDict(request.args)
    args.setlist("team", [str(shift.team)] if shift.team else [])
    args.setlist("week", [monday.isoformat()])
    args.setlist("day", [])
    window = _window(monday)
    week, (around, leave) = build_week(args, extra=[_around(client, *window),
                                                    _leave(client, *window)])
    if shift.team is None or week.team is None or week.team.id != shift.team:
        abort(404)  # a shift of no team, or of one the manager cannot see, has no schedule here
    return CopyPage(week=week, shift=shift), around, leave


def _days_form(page: CopyPage, form: ShiftCopyForm | None = None) -> ShiftCopyForm:
    assert page.shift is not None
    form = form or ShiftCopyForm(formdata=None, version=page.shift.version, days=[])
    own = local_day(page.shift.start_date)
    form.days.choices = [(d.isoformat(), format_date(d, zone(), relative=False))
                         for d in page.week.days if d != own]
    page.form = form
    return form


@bp.get("/manage/schedule/shifts/<uuid:shift_id>/copy")
def copy_shift(shift_id: uuid.UUID) -> Response:
    """The shift with the other days of its week to copy it to (or what the last copy did)."""
    page, _, _ = _shift_page(shift_id)
    _days_form(page)
    page.result = kept_result(request.args.get("result"), f"shift:{shift_id}")
    return render(SHIFT_TEMPLATE, fragment="copy_shift", page=page)


@bp.post("/manage/schedule/shifts/<uuid:shift_id>/copy")
def copy_shift_save(shift_id: uuid.UUID) -> Response:
    """Copy the shift to the days ticked, each day its own result."""
    page, around, leave = _shift_page(shift_id)
    assert page.shift is not None
    form = _days_form(page, ShiftCopyForm())
    if not form.validate():
        if form.version.errors:  # a hidden field: the manager can only reload
            form.version.errors = []
            form.form_errors = [*form.form_errors, "This form was damaged in transit; nothing "
                                "was copied. Tick the days again and copy."]
        return render(SHIFT_TEMPLATE, fragment="copy_shift", page=page, status=422)
    allowed = {value for value, _ in form.days.choices}
    picked = sorted(set(form.days.data or []))
    if not picked:
        form.days.errors = ["Tick at least one day."]
    elif any(value not in allowed for value in picked):
        form.days.errors = ["Choose days of the shift's own week, other than its day."]
    if form.days.errors:
        return render(SHIFT_TEMPLATE, fragment="copy_shift", page=page, status=422)
    if form.version.data != page.shift.version:
        page.conflict = True
        form.version.data = page.shift.version  # copying again copies the latest version
        return render(SHIFT_TEMPLATE, fragment="copy_shift", page=page, status=409)
    own = local_day(page.shift.start_date)
    pairs = [(page.shift, (date.fromisoformat(value) - own).days) for value in picked]
    copies = create_all(api(), plan_copies(page.week, pairs, around, leave))
    result = keep_result(page, f"shift:{shift_id}", copies)
    return _shown(page, SHIFT_TEMPLATE, "copy_shift", result, "manage_schedule.copy_shift",
                  shift_id=shift_id)


# -- last week into this one --------------------------------------------------------------------

def _signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.config["SECRET_KEY"], salt="manage-schedule-copy-week")


def _fingerprint(page: CopyPage) -> list[Any]:
    """What the preview promised: the team, the weeks, each source at its version, and whether
    (and where) it is copied or why not."""
    return [str(page.week.team.id) if page.week.team else "", page.target.isoformat(),
            sorted([str(c.source.id), c.source.version,
                    c.body.start_date.isoformat() if c.body else "", c.kind or "create"]
                   for c in page.copies), page.callouts]


def _week_args() -> tuple[MultiDict[str, str], date, str | None]:
    """The query, the Monday it names, and an inline message when its week is no date or
    outside the dates kept (today's week is shown instead)."""
    args = MultiDict(request.args)
    args.setlist("day", [])
    text = args.get("week")
    try:
        day = date.fromisoformat(text) if text else None
    except ValueError:
        day = None
    if text and (day is None or not EARLIEST_DAY <= day <= LATEST_DAY):
        args.setlist("week", [])
        return args, week_start(today()), (
            f"“{text[:40]}” is not a week Shiftdesk can copy into: choose a date from "
            f"{EARLIEST_DAY.year} to {LATEST_DAY.year}. Showing this week instead.")
    return args, week_start(day or today()), None


def _week_page() -> CopyPage:
    """Last week's shifts planned into the week shown, each with the reason it is skipped."""
    client = api()
    args, monday, problem = _week_args()
    source = monday - timedelta(days=7)
    window = _window(monday)
    week, (last, around, leave) = build_week(args, extra=[
        _around(client, local_instant(source), local_instant(monday)),
        _around(client, *window), _leave(client, *window)])
    page = CopyPage(week=week, problem=problem)
    team = week.team.id if week.team else None
    sources = sorted((s for s in last if team is not None and s.team == team
                      and source <= local_day(s.start_date) < monday),
                     key=lambda s: (s.start_date, week.person(s.provider)))
    page.callouts = sum(1 for s in sources if s.is_callout)
    page.copies = plan_copies(week, [(s, 7) for s in sources if not s.is_callout], around, leave)
    page.plan = str(_signer().dumps(_fingerprint(page)))
    return page


def _week_kind(page: CopyPage) -> str:
    """What a week's result is of: the team and the week copied into."""
    return f"week:{page.week.team.id if page.week.team else ''}:{page.target.isoformat()}"


@bp.get("/manage/schedule/copy-week")
def copy_week() -> Response:
    """The preview of copying last week into this one (or what the last copy did)."""
    page = _week_page()
    page.result = kept_result(request.args.get("result"), _week_kind(page))
    return render(WEEK_TEMPLATE, fragment="copy_week", page=page)


@bp.post("/manage/schedule/copy-week")
def copy_week_save() -> Response:
    """Copy last week into this one as previewed; a changed week is previewed again (409)."""
    page = _week_page()
    form = WeekCopyForm()
    if page.problem is not None:
        return render(WEEK_TEMPLATE, fragment="copy_week", page=page, status=422)
    if page.week.team is None:
        abort(404)
    try:
        promised = _signer().loads(form.plan.data or "")
    except BadSignature:
        promised = None
    if promised != _fingerprint(page):
        page.conflict = True
        return render(WEEK_TEMPLATE, fragment="copy_week", page=page, status=409)
    copies = create_all(api(), page.copies)
    result = keep_result(page, _week_kind(page), copies)
    return _shown(page, WEEK_TEMPLATE, "copy_week", result, "manage_schedule.copy_week")
