"""Appointments (blueprint `appointments`): list, detail, outcome, reschedule and cancel.

Every page makes one round of concurrent API calls. Every change sends the `version` the page
was drawn with; a `version-conflict` answers with the conflict page: what changed since (the
form's signed `seen` against the latest read), what the user tried, "reload", and "apply my
change to the latest version" (the same change re-sent with the latest version). Reschedule
searches slots for the same type (and by default the same provider), or takes typed times. Must
not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import date, datetime, time, timedelta
from typing import Any

from flask import Blueprint, Response, current_app, flash, request, url_for
from itsdangerous import BadSignature, URLSafeSerializer
from werkzeug.datastructures import MultiDict

from app.client import ApiClient, ApiProblem
from app.client.errors import VersionConflict
from app.contract.appointments import (
    AppointmentListQuery,
    AppointmentRead,
    AppointmentUpdate,
    SlotCriteria,
    SlotSearch,
    SlotSearchResult,
)
from app.contract.common import parse_timestamp
from app.contract.teams import TeamListQuery
from app.web.appointments.forms import (
    STATUSES,
    AppointmentFilterForm,
    CancelForm,
    ChangeForm,
    OutcomeForm,
    RescheduleForm,
)
from app.web.auth import api
from app.web.filters import format_datetime
from app.web.forms import apply_problem, filter_chips, page_cursor
from app.web.htmx import render, see_other
from app.web.slots import windows
from app.web.slots.forms import is_uuid
from app.web.slots.views import PAGE, catalog_calls, guarded, now, remember_me, zone

bp = Blueprint("appointments", __name__)

PAGE_SIZE = 25
FILTERS = ("status", "type", "provider", "team", "member", "start", "end")
"""The list's filters, in the order their chips show."""
SEEN_FIELDS = ("status", "providerId", "startDate", "endDate", "memberId", "location",
               "actualStartDate", "actualEndDate", "cancellationReason")
LABELS = {"status": "Status", "providerId": "Provider", "startDate": "Starts",
          "endDate": "Ends", "memberId": "Member id", "location": "Location",
          "actualStartDate": "Actually started", "actualEndDate": "Actually ended",
          "cancellationReason": "Cancellation reason"}
_TIMES = {"startDate", "endDate", "actualStartDate", "actualEndDate"}


# -- what the page showed --------------------------------------------------------------------


def _seen_signer() -> URLSafeSerializer:
    return URLSafeSerializer(current_app.secret_key, salt="appointment-seen")


def seen_token(appointment: AppointmentRead) -> str:
    """The members a change form shows, signed for its hidden `seen` field (with the
    appointment's id, so a token of another appointment is worth nothing)."""
    data = appointment.model_dump(mode="json", by_alias=True)
    picked = {key: data.get(key) for key in SEEN_FIELDS}
    return _seen_signer().dumps({"id": str(appointment.id), "seen": picked})


def read_seen(token: str | None, appointment_id: uuid.UUID) -> dict[str, Any] | None:
    """What a page showed of this appointment, from its `seen` field; None when missing, or
    altered, or of another appointment (the browser sent it back, so it is checked)."""
    if not token:
        return None
    try:
        data = _seen_signer().loads(token)
    except BadSignature:
        return None
    if not isinstance(data, dict) or data.get("id") != str(appointment_id):
        return None
    seen = data.get("seen")
    return seen if isinstance(seen, dict) else None


def _shown(key: str, value: Any, names: dict[str, str]) -> str:
    if value in (None, ""):
        return "—"
    if key in _TIMES:
        return format_datetime(value, zone())
    if key == "providerId":
        return names.get(str(value), str(value))
    if key == "status":
        return dict(STATUSES).get(str(value), str(value))
    return str(value)


def changes_since(seen: dict[str, Any] | None, latest: AppointmentRead,
                  names: dict[str, str]) -> list[tuple[str, str, str]]:
    """(member, as the page showed it, as it is now) for every member that changed since."""
    if seen is None:
        return []
    now_data = latest.model_dump(mode="json", by_alias=True)
    changed = []
    for key in SEEN_FIELDS:
        before, after = seen.get(key), now_data.get(key)
        if key in _TIMES and before and after:
            same = parse_timestamp(before) == parse_timestamp(after)
        else:
            same = before == after
        if not same:
            changed.append((LABELS[key], _shown(key, before, names), _shown(key, after, names)))
    return changed


# -- helpers -----------------------------------------------------------------------------------


def _names(providers: Any) -> dict[str, str]:
    return {str(p.id): p.name or p.email for p in providers.items}


def _local(day: date, at: time) -> datetime:
    return datetime.combine(day, at, tzinfo=zone())


def _load(client: ApiClient, appointment_id: uuid.UUID, *more: Callable[[], Any]) -> list[Any]:
    me, types, providers, appointment, *rest = client.concurrently(
        *catalog_calls(client), lambda: client.get_appointment(appointment_id), *more)
    remember_me(me)
    return [types, providers, appointment, *rest]


def _type_of(types: Any, appointment: AppointmentRead) -> Any:
    return next((t for t in types.items if t.name == appointment.type), None)


def conflict(client: ApiClient, appointment_id: uuid.UUID, form: ChangeForm, action: str,
             tried: str) -> Response:
    """The version-conflict page: what changed since, what the user tried, and two ways on."""
    _types, providers, latest = _load(client, appointment_id)
    names = _names(providers)
    resend = [(key, value) for key, value in request.form.items(multi=True)
              if key not in ("csrf_token", "version", "seen")]
    seen = read_seen(form.seen.data, appointment_id)
    if seen is None:
        flash("This page could not tell what you saw before (the form was changed on its way); "
              "compare your change with the appointment as it is now.", "error")
    return render("appointments/conflict.html", status=409, appointment=latest,
                  changes=changes_since(seen, latest, names),
                  tried=tried, resend=resend, action=action, seen=seen_token(latest),
                  provider_name=names.get(str(latest.provider_id), "Unknown provider"))


def _save(client: ApiClient, appointment_id: uuid.UUID, form: ChangeForm, body: AppointmentUpdate,
          *, action: str, tried: str, done: str, again: Callable[[], Response]) -> Response:
    try:
        client.update_appointment(appointment_id, body)
    except VersionConflict:
        return conflict(client, appointment_id, form, action, tried)
    except ApiProblem as problem:
        if problem.status in (400, 409, 422):
            apply_problem(form, problem)
            return again()
        raise
    flash(done, "success")
    return see_other(url_for("appointments.show", appointment_id=appointment_id))


# -- list and detail ---------------------------------------------------------------------------


def _chosen(field: Any) -> str | None:
    """A filter's choice; None for none, or only blanks (`Optional` lets those through)."""
    return (field.data or "").strip() or None


@bp.get("/appointments")
def index() -> Response:
    """Appointments matching the filters (kept in the URL), a page at a time."""
    client = api()
    args = request.args
    form = AppointmentFilterForm(formdata=args if args else None)
    if not args:
        form.start.data = now().astimezone(zone()).date()
    valid = form.validate() if args else True
    query: dict[str, Any] = {"page_size": PAGE_SIZE}
    if valid:
        query.update({
            "provider_id": _chosen(form.provider), "team_id": _chosen(form.team),
            "status": _chosen(form.status), "type": _chosen(form.type),
            "member_id": (form.member.data or "").strip() or None,
            "start_date": windows.midnight(form.start.data, zone()) if form.start.data else None,
            "end_date": (windows.midnight(form.end.data + timedelta(days=1), zone())
                         if form.end.data else None),
            "cursor": page_cursor(args.get("cursor")),
        })
    listing = AppointmentListQuery(**{k: v for k, v in query.items() if v is not None})
    me, types, providers, teams, page = client.concurrently(
        *catalog_calls(client), lambda: client.list_teams(TeamListQuery(page_size=PAGE)),
        guarded(lambda: client.list_appointments(listing)))
    remember_me(me)
    names = _names(providers)
    form.provider.choices = [("", "Any provider"), *sorted(names.items(), key=lambda i: i[1])]
    form.team.choices = [("", "Any team"), *((str(t.id), t.name) for t in teams.items)]
    form.type.choices = [("", "Any type"), *((t.name, t.name) for t in types.items)]
    if form.type.data and form.type.data not in dict(form.type.choices):
        form.type.choices.append((form.type.data, form.type.data))
    problem = None
    if isinstance(page, ApiProblem):
        apply_problem(form, page)
        problem, page = page.detail, None
    kept = MultiDict(args)
    kept.poplist("cursor")
    if not args and form.start.data:
        kept["start"] = form.start.data.isoformat()
    next_url = None
    if page is not None and page.cursor:
        kept_next = MultiDict(kept)
        kept_next["cursor"] = page.cursor
        next_url = url_for("appointments.index", **kept_next.to_dict(flat=False))
    first_url = (url_for("appointments.index", **kept.to_dict(flat=False))
                 if args.get("cursor") else None)
    status = 422 if (not valid or problem) else 200
    chips = filter_chips(form, FILTERS, kept, url_for("appointments.index"))
    return render("appointments/index.html", fragment="appointment_table", status=status,
                  form=form, page=page, names=names, next_url=next_url, first_url=first_url,
                  problem=problem, chips=chips,
                  clear_url=url_for("appointments.index", start=""))


def _outcome_form(appointment: AppointmentRead) -> OutcomeForm:
    form = OutcomeForm(formdata=None)
    start = parse_timestamp(appointment.actual_start_date or appointment.start_date)
    end = parse_timestamp(appointment.actual_end_date or appointment.end_date)
    form.actual_day.data = start.astimezone(zone()).date()
    form.actual_start.data = start.astimezone(zone()).time().replace(second=0, microsecond=0)
    form.actual_end.data = end.astimezone(zone()).time().replace(second=0, microsecond=0)
    form.status.data = "no-show" if appointment.status == "no-show" else "occurred"
    return form


def _show(appointment_id: uuid.UUID, *, form: OutcomeForm | None = None,
          status: int = 200) -> Response:
    client = api()
    types, providers, appointment = _load(client, appointment_id)
    names = _names(providers)
    outcome = form or _outcome_form(appointment)
    outcome.version.data = appointment.version
    outcome.seen.data = seen_token(appointment)
    kind = _type_of(types, appointment)
    started = parse_timestamp(appointment.start_date) <= now()
    return render("appointments/show.html", status=status, appointment=appointment,
                  provider_name=names.get(str(appointment.provider_id), "Unknown provider"),
                  kind=kind, outcome=outcome, reschedule=reschedule_url(appointment, kind),
                  outcome_open=started or form is not None or appointment.status != "upcoming")


@bp.get("/appointments/<uuid:appointment_id>")
def show(appointment_id: uuid.UUID) -> Response:
    """One appointment with what can be done to it."""
    return _show(appointment_id)


@bp.post("/appointments/<uuid:appointment_id>/outcome")
def outcome(appointment_id: uuid.UUID) -> Response:
    """Mark an appointment occurred or no-show, with the actual times."""
    form = OutcomeForm()
    if not form.validate():
        return _show(appointment_id, form=form, status=422)
    body: dict[str, Any] = {"version": form.version.data, "status": form.status.data}
    day = form.actual_day.data
    if form.actual_start.data and form.actual_end.data and day is not None:
        body["actual_start_date"] = _local(day, form.actual_start.data)
        body["actual_end_date"] = _local(day, form.actual_end.data)
    else:
        body["actual_start_date"] = body["actual_end_date"] = None
    label = "occurred" if form.status.data == "occurred" else "a no-show"
    return _save(api(), appointment_id, form, AppointmentUpdate(**body),
                 action=url_for("appointments.outcome", appointment_id=appointment_id),
                 tried=f"Mark it {label}", done=f"Marked {label}.",
                 again=lambda: _show(appointment_id, form=form, status=422))


# -- reschedule ----------------------------------------------------------------------------------


def _plan_of(appointment: AppointmentRead, kind: Any) -> tuple[str, str, date] | None:
    """What the reschedule search needs from the appointment: type id, provider, its day."""
    if kind is None or appointment.status != "upcoming":
        return None
    first = parse_timestamp(appointment.start_date).astimezone(zone()).date()
    return str(kind.id), str(appointment.provider_id), first


def _hinted_plan(args: MultiDict[str, str]) -> tuple[str, str, date] | None:
    """The plan the link to this page carried (`type`, `provider`, `from`), if readable."""
    type_id, provider_id = args.get("type", ""), args.get("provider", "")
    try:
        first = date.fromisoformat(args.get("from", ""))
    except ValueError:
        return None
    if not (is_uuid(type_id) and is_uuid(provider_id)):
        return None
    return type_id, provider_id, first


def reschedule_url(appointment: AppointmentRead, kind: Any, **extra: Any) -> str:
    """The reschedule page of `appointment`, carrying what its slot search needs."""
    plan = _plan_of(appointment, kind)
    hints = ({"type": plan[0], "provider": plan[1], "from": plan[2].isoformat()}
             if plan else {})
    return url_for("appointments.edit", appointment_id=appointment.id, **hints, **extra)


def _reschedule_page(appointment_id: uuid.UUID, *, form: RescheduleForm | None = None,
                     status: int = 200) -> Response:
    """The reschedule page in one round of calls when its link carried the search's plan.

    The slot search needs the appointment's type, provider and day; the link from the detail
    page carries them, so the search runs alongside the reads. Should the appointment have
    changed since (or the link lack them), the search runs again with the real ones.
    """
    client = api()
    args = request.args
    pick = args.get("range", "around")
    pick = pick if pick in ("around", "today", "week", "next-week") else "around"
    any_provider = args.get("anyone") == "1"

    def window_for(plan: tuple[str, str, date]) -> windows.Window:
        if pick == "around":  # the seven days from the appointment's current day
            return windows.days(plan[2], plan[2] + timedelta(days=6), zone(), now())
        return windows.quick(pick, now(), zone())

    def search(plan: tuple[str, str, date]) -> Callable[[], Any]:
        window = window_for(plan)
        if window.start >= window.end:
            return lambda: None
        body = SlotSearch(
            appointment_type_id=plan[0], start_date=window.start, end_date=window.end,
            limit=20,
            requirements=None if any_provider else SlotCriteria(provider_ids=[plan[1]]),
            preferences=SlotCriteria(provider_ids=[plan[1]]))
        return guarded(lambda: client.search_slots(body))

    hinted = _hinted_plan(args)
    me, types, providers, appointment, found = client.concurrently(
        *catalog_calls(client), lambda: client.get_appointment(appointment_id),
        search(hinted) if hinted else (lambda: None))
    remember_me(me)
    kind = _type_of(types, appointment)
    plan = _plan_of(appointment, kind)
    if plan != hinted:
        found = search(plan)() if plan else None
    first = parse_timestamp(appointment.start_date).astimezone(zone()).date()
    window = window_for(plan or ("", "", first))
    names = _names(providers)
    if form is None:
        form = RescheduleForm(formdata=None)
        start = parse_timestamp(appointment.start_date).astimezone(zone())
        form.provider_id.data = str(appointment.provider_id)
        form.day.data, form.start_time.data = start.date(), start.time()
    form.provider_id.choices = sorted(names.items(), key=lambda i: i[1])
    form.version.data = appointment.version
    form.seen.data = seen_token(appointment)
    slots = found.results if isinstance(found, SlotSearchResult) else []
    links = [(value, text, reschedule_url(appointment, kind, range=value,
                                          anyone="1" if any_provider else None))
             for value, text in (("around", "Its week"), ("today", "Today"),
                                 ("week", "This week"), ("next-week", "Next week"))]
    toggle = reschedule_url(appointment, kind, range=pick, anyone=None if any_provider else "1")
    return render("appointments/reschedule.html", status=status, appointment=appointment,
                  kind=kind, form=form, slots=slots, names=names, pick=pick,
                  any_provider=any_provider, window=window, links=links, toggle=toggle,
                  search_problem=found.detail if isinstance(found, ApiProblem) else None,
                  provider_name=names.get(str(appointment.provider_id), "Unknown provider"))


@bp.get("/appointments/<uuid:appointment_id>/reschedule")
def edit(appointment_id: uuid.UUID) -> Response:
    """Reschedule: free slots of the same type (and provider), or typed new times."""
    return _reschedule_page(appointment_id)


@bp.post("/appointments/<uuid:appointment_id>/reschedule")
def reschedule(appointment_id: uuid.UUID) -> Response:
    """Move the appointment to a slot or to typed times."""
    form = RescheduleForm()
    form.provider_id.choices = []
    if not form.validate():
        return _reschedule_page(appointment_id, form=form, status=422)
    client = api()
    if form.start_date.data:
        start = parse_timestamp(form.start_date.data)
        end = parse_timestamp(form.end_date.data) if form.end_date.data else None
    else:
        assert form.day.data is not None
        assert form.start_time.data is not None
        start = _local(form.day.data, form.start_time.data)
        end = _local(form.day.data, form.end_time.data) if form.end_time.data else None
    if end is None:
        current = client.get_appointment(appointment_id)
        end = start + (parse_timestamp(current.end_date) - parse_timestamp(current.start_date))
    body = AppointmentUpdate(version=form.version.data, start_date=start, end_date=end,
                             provider_id=uuid.UUID(form.provider_id.data))
    when = format_datetime(start, zone())
    return _save(client, appointment_id, form, body,
                 action=url_for("appointments.reschedule", appointment_id=appointment_id),
                 tried=f"Move it to {when}", done=f"Rescheduled to {when}.",
                 again=lambda: _reschedule_page(appointment_id, form=form, status=422))


# -- cancel --------------------------------------------------------------------------------------


def _cancel_page(appointment_id: uuid.UUID, *, form: CancelForm | None = None,
                 status: int = 200) -> Response:
    client = api()
    _types, providers, appointment = _load(client, appointment_id)
    form = form or CancelForm(formdata=None)
    form.version.data = appointment.version
    form.seen.data = seen_token(appointment)
    names = _names(providers)
    return render("appointments/cancel.html", status=status, appointment=appointment, form=form,
                  provider_name=names.get(str(appointment.provider_id), "Unknown provider"))


@bp.get("/appointments/<uuid:appointment_id>/cancel")
def confirm_cancel(appointment_id: uuid.UUID) -> Response:
    """Ask for the reason before cancelling."""
    return _cancel_page(appointment_id)


@bp.post("/appointments/<uuid:appointment_id>/cancel")
def cancel(appointment_id: uuid.UUID) -> Response:
    """Cancel the appointment with the reason given."""
    form = CancelForm()
    if not form.validate():
        return _cancel_page(appointment_id, form=form, status=422)
    body = AppointmentUpdate(version=form.version.data, status="cancelled",
                             cancellation_reason=form.cancellation_reason.data.strip())
    return _save(api(), appointment_id, form, body,
                 action=url_for("appointments.cancel", appointment_id=appointment_id),
                 tried=f"Cancel it: “{form.cancellation_reason.data.strip()}”",
                 done="Appointment cancelled.",
                 again=lambda: _cancel_page(appointment_id, form=form, status=422))
