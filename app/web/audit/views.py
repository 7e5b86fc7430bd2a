"""The audit trail (blueprint `audit`): `/admin/audit`, what was written through the API.

Each event says when, who, what they did to which record (a link to the record's page where the
UI has one) and each changed field before and after. Filters (who, what, record id, days) are a
GET form kept in the URL, folded under "Filter"; events come newest first, a cursor page at a
time ("Older"). Record pages link here with `subject` and `recordId` through the template
global `history_url`, shown only to users who may read the trail (`manage AuditEvent`, as the
API decides: administrators). Must not import `app.api`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from flask import Blueprint, Response, abort, current_app, request, url_for
from werkzeug.datastructures import MultiDict
from werkzeug.routing import BuildError

from app.client import ApiProblem
from app.contract.audit import AuditEventQuery, AuditEventRead
from app.contract.users import UserListQuery
from app.web import nav
from app.web.audit import words
from app.web.audit.forms import AuditFilterForm
from app.web.auth import api, current_user
from app.web.forms import apply_problem, filter_chips, page_cursor
from app.web.htmx import render
from app.web.slots import windows
from app.web.slots.views import guarded, remember_me, zone

bp = Blueprint("audit", __name__)

PAGE_SIZE = 25
FILTERS = ("actor", "subject", "record", "start", "end")
"""The filters, in the order their chips show."""

RECORD_PAGES: dict[str, tuple[str, str]] = {
    "Shift": ("manage_schedule.edit", "shift_id"),
    "TimeOffRequest": ("manage_time_off.show", "request_id"),
    "Appointment": ("appointments.show", "appointment_id"),
    "AppointmentType": ("appointment_types.edit", "type_id"),
    "Label": ("settings.edit_label", "label_id"),
    "BalanceReset": ("balance_resets.show", "upload_id"),
}
"""The UI page of a record, by subject: endpoint and its id argument."""


def can_read() -> bool:
    """Whether the signed-in user may read the audit trail (as the menu decides)."""
    return nav.can(current_user(), "manage", "AuditEvent")


@bp.app_template_global()
def history_url(subject: str, record_id: Any) -> str | None:
    """The audit trail of one record, for users who may read it (None for anyone else)."""
    if not can_read():
        return None
    return url_for("audit.index", subject=subject, recordId=str(record_id))


def record_url(event: AuditEventRead) -> str | None:
    """The page of the event's record, where the UI has one and the record still exists."""
    page = RECORD_PAGES.get(event.subject)
    if page is None or event.action == "delete" or event.record_deleted:
        return None
    try:
        record = uuid.UUID(event.record_id)
    except ValueError:
        return None
    endpoint, argument = page
    if endpoint not in current_app.view_functions:
        return None
    try:
        return url_for(endpoint, **{argument: record})
    except BuildError:  # pragma: no cover - every page above takes its id
        return None


@dataclass(frozen=True)
class Change:
    """One changed field as the page shows it."""

    field: str
    before: list[str]
    after: list[str]


def changes(event: AuditEventRead) -> list[Change]:
    """The event's changed fields in words, in the order the API sent them."""
    where = zone()
    return [Change(words.field_word(name), words.value_lines(change.before, where),
                   words.value_lines(change.after, where))
            for name, change in event.changes.items()]


def _query(form: AuditFilterForm, cursor: str | None) -> AuditEventQuery:
    where = zone()
    data: dict[str, Any] = {
        "page_size": PAGE_SIZE,
        "actor_id": (form.actor.data or "").strip() or None,
        "subject": form.subject.data or None,
        "record_id": (form.record.data or "").strip() or None,
        "from_": windows.midnight(form.start.data, where) if form.start.data else None,
        "to": (windows.midnight(form.end.data + timedelta(days=1), where)
               if form.end.data else None),
        "cursor": cursor,
    }
    return AuditEventQuery(**{k: v for k, v in data.items() if v is not None})


@bp.get("/admin/audit")
def index() -> Response:
    """The events matching the filters (kept in the URL), newest first, a page at a time."""
    if not can_read():
        abort(403)
    client = api()
    args = MultiDict(request.args)
    # Record pages link with the API's names; the form's fields are `subject` and `record`.
    if "recordId" in args and "record" not in args:
        args["record"] = args.pop("recordId")
    form = AuditFilterForm(formdata=args if args else None)
    valid = form.validate() if args else True
    cursor = page_cursor(args.get("cursor"))
    query = _query(form, cursor) if valid else None
    call = (guarded(lambda: client.list_audit_events(query)) if query is not None
            else (lambda: None))
    me, users, page = client.concurrently(
        client.me,
        guarded(lambda: client.list_users(UserListQuery(
            page_size=200, type=["user", "bot"],
            status=["onboarding", "active", "dismissed", "unmanaged"]))),
        call)
    remember_me(me)
    names = ({} if isinstance(users, ApiProblem)
             else {str(u.id): u.name for u in users.items})
    form.actor.choices = [("", "Anyone"), *sorted(names.items(), key=lambda i: i[1].lower())]
    if form.actor.data and form.actor.data not in names:
        form.actor.choices.append((form.actor.data, "Someone else"))
    problem = None
    if isinstance(page, ApiProblem):
        if page.status != 400:
            raise page
        apply_problem(form, page)
        problem, page = page.detail, None
    kept = MultiDict(args)
    kept.poplist("cursor")
    older_url = None
    if page is not None and page.cursor:
        kept_next = MultiDict(kept)
        kept_next["cursor"] = page.cursor
        older_url = url_for("audit.index", **kept_next.to_dict(flat=False))
    newest_url = url_for("audit.index", **kept.to_dict(flat=False)) if cursor else None
    status = 422 if (not valid or problem) else 200
    chips = filter_chips(form, FILTERS, kept, url_for("audit.index"))
    return render("audit/index.html", fragment="audit_list", status=status, form=form,
                  page=page, problem=problem, chips=chips, older_url=older_url,
                  newest_url=newest_url, clear_url=url_for("audit.index"),
                  record_url=record_url, changes=changes, words=words)
