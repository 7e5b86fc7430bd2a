"""Notifications (blueprint `notifications`): the signed-in user's notices, for every kind of
user.

`GET /notifications` lists them newest first, 20 a page ("Older" follows the cursor; a stale
or tampered cursor sends the user to the first page with a message), `?show=unread` only the
unread ones. Each shows whether it is unread, what happened, when, and links to its record's
page when the reader has one (`links.link`). `POST /notifications/<id>/read` marks one read
(the version shown; a notice changed meanwhile says so), `POST /notifications/read-all` every
unread one. Both redirect back to the list (htmx: `HX-Location`, so the header's bell is drawn
again with the new count). The bell itself is `base.html`'s, from `/v1/users/me`.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, Response, current_app, flash, g, request, url_for

from app.client import ApiProblem
from app.contract.notifications import NotificationListQuery, NotificationUpdate
from app.web.auth import api, current_user
from app.web.forms import page_cursor
from app.web.htmx import render, see_other
from app.web.notifications.forms import NotificationReadForm
from app.web.notifications.links import link

bp = Blueprint("notifications", __name__)

PAGE_SIZE = 20
SHOWS = ("all", "unread")


def _show(value: str | None) -> str:
    return value if value in SHOWS else "all"


def _url(show: str, cursor: str | None = None) -> str:
    args: dict[str, Any] = {}
    if show != "all":
        args["show"] = show
    if cursor:
        args["cursor"] = cursor
    return url_for("notifications.index", **args)


@bp.get("/notifications")
def index() -> Response:
    """The user's notifications, newest first."""
    show = _show(request.args.get("show"))
    cursor = page_cursor(request.args.get("cursor"))
    client = api()
    try:
        me, page = client.concurrently(client.me, lambda: client.list_notifications(
            NotificationListQuery(unread=True if show == "unread" else None,
                                  page_size=PAGE_SIZE, cursor=cursor)))
    except ApiProblem as problem:
        if problem.status != 400 or cursor is None:
            raise
        flash("That page is out of date. Here is the first page.", "error")
        return see_other(_url(show))
    g.shiftdesk_me = me  # the menu and the bell read it; no second call
    zone = current_app.extensions["shiftdesk_web"].settings.zone
    items = [(notice, link(notice, me, current_app.view_functions, zone))
             for notice in page.items]
    return render("notifications/index.html", items=items, show=show,
                  unread=me.unread_notifications, provider=me.provider_id is not None,
                  older_url=_url(show, page.cursor) if page.cursor else None,
                  newest_url=_url(show) if cursor else None)


@bp.post("/notifications/<uuid:notification_id>/read")
def read(notification_id: uuid.UUID) -> Response:
    """Mark one notification read."""
    show = _show(request.form.get("show"))
    form = NotificationReadForm()
    if not form.validate():
        flash("That notification could not be marked read; try again.", "error")
        return see_other(_url(show))
    try:
        api().update_notification(notification_id, NotificationUpdate(
            read=True, version=form.version.data))
    except ApiProblem as problem:
        if problem.code == "version-conflict":
            flash("That notification changed meanwhile (it was marked on another screen). "
                  "Here it is as it is now.", "error")
        elif problem.status == 404:
            flash("That notification is no longer there.", "error")
        else:
            raise
        return see_other(_url(show))
    flash("Marked read.", "success")
    return see_other(_url(show))


@bp.post("/notifications/read-all")
def read_all() -> Response:
    """Mark every unread notification read."""
    marked = api().mark_all_notifications_read()
    flash("Marked 1 notification read." if marked == 1 else
          f"Marked {marked} notifications read." if marked else "Nothing was unread.",
          "success")
    return see_other(_url(_show(request.form.get("show"))))


def unread_count() -> int | None:
    """The signed-in user's unread count for the bell (from `/v1/users/me`, read once a
    request for the menu anyway), or None when there is no user to ask about."""
    try:
        return current_user().unread_notifications
    except Exception:  # an error page draws its header without asking again
        return None
