"""The administrator's settings (blueprint `settings`): an index, labels, and read-only lists.

The read-only lists (pay codes, roles with their colours as the schedule shows them, employment
types, time-off policies with their accrual in words) show what the API lets a client read but
not change; each is a page at a time (cursor paging). Teams are listed the same way, with their
roles and one setting an administrator who may edit teams can change there: whether a shift
swap its lister accepted waits for a manager's approval (`team_swaps`, a button per team that
sends the value it sets, so sending it twice changes nothing more).

Labels: a list a page at a time (cursor paging), `new`/`create`, `edit`/`update` and
`confirm_delete`/`delete`. The confirmation says where the label is in use (the shifts that carry
it, by team, from the `usage` extension) before deleting takes it off them. Labels have no
version number, so the editor carries the `updatedAt` it loaded; `update` reads the label first
and, when someone else saved it meanwhile, shows the latest values beside the user's with
"Reload" and "Apply my change to the latest version" (the check precedes the write, so two saves
within the same second can still pass it: the API offers no conditional update for labels). A
label that no longer exists (deleted meanwhile, or a made-up id) is a message on the list, never
an error page after a form. Who may open these pages follows the API: editing labels
(`edit Label`); anyone else gets the not-allowed page. Must not import `app.api`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, abort, flash, request, url_for

from app.client import ApiClient, ApiProblem
from app.contract.employment_types import EmploymentTypeListQuery
from app.contract.labels import LabelCreate, LabelListQuery, LabelRead, LabelUpdate
from app.contract.pay_codes import PayCodeListQuery
from app.contract.roles import RoleListQuery
from app.contract.teams import TeamListQuery, TeamUpdate
from app.contract.time_off import TimeOffPolicyListQuery
from app.web import nav
from app.web.auth import api, current_user
from app.web.errors import error_page
from app.web.forms import apply_problem, page_cursor
from app.web.htmx import render, see_other
from app.web.settings import words
from app.web.settings.forms import DESCRIPTION_MAX, NAME_MAX, LabelForm

bp = Blueprint("settings", __name__)

PAGE_SIZE = 50
GONE = "That label no longer exists: someone may have deleted it. Here are the labels there are."


def _client() -> ApiClient:
    """The API, for a user who may edit labels (anyone else gets the not-allowed page)."""
    if not nav.can(current_user(), "edit", "Label"):
        abort(403)
    return api()


def _stamp(label: LabelRead) -> str:
    return label.updated_at.isoformat()


def _gone() -> Response:
    """No such label: a not-found page for a link, a message on the list after a form."""
    if request.method == "GET":
        return error_page(404, title="Label not found",
                          detail="There is no such label: someone may have deleted it.")
    flash(GONE, "error")
    return see_other(url_for("settings.labels"))


def _label(client: ApiClient, label_id: uuid.UUID) -> LabelRead | None:
    """The label, or None when the API has none of that id."""
    try:
        return client.get_label(label_id)
    except ApiProblem as problem:
        if problem.status == 404:
            return None
        raise


@bp.get("/admin/settings")
def index() -> Response:
    """What the administrator can keep here."""
    _client()
    return render("settings/index.html")


@dataclass(frozen=True)
class Listing:
    """One page of a settings list, with the links to the next and the first page."""

    page: Any
    next_url: str | None
    first_url: str | None


def _listing(endpoint: str, list_method: Any, query: type[Any],
             *others: Callable[[], Any]) -> tuple[Listing | Response, list[Any]]:
    """The page of `list_method` the `cursor` argument names, fetched at the same time as
    `others` (whose results come second). A stale or tampered cursor sends the user to the
    first page with a message."""
    cursor = page_cursor(request.args.get("cursor"))

    def fetch() -> Any:
        try:
            return list_method(query(page_size=PAGE_SIZE, cursor=cursor))
        except ApiProblem as problem:
            if problem.status != 400 or cursor is None:
                raise
            return problem

    page, *rest = ApiClient.concurrently(fetch, *others)
    if isinstance(page, ApiProblem):
        flash("That page is out of date. Here is the first page.", "error")
        return see_other(url_for(endpoint)), rest
    return Listing(page, url_for(endpoint, cursor=page.cursor) if page.cursor else None,
                   url_for(endpoint) if cursor else None), rest


@bp.get("/admin/settings/labels")
def labels() -> Response:
    """The labels by name, a page at a time."""
    listing, _ = _listing("settings.labels", _client().list_labels, LabelListQuery)
    if isinstance(listing, Response):
        return listing
    return render("settings/labels.html", fragment="label_list", listing=listing)


@bp.get("/admin/settings/pay-codes")
def pay_codes() -> Response:
    """The pay codes by name, each with what it pays (read-only: the API offers no writes)."""
    listing, _ = _listing("settings.pay_codes", _client().list_pay_codes, PayCodeListQuery)
    if isinstance(listing, Response):
        return listing
    return render("settings/pay_codes.html", fragment="setting_list", listing=listing,
                  pays=words.pay_code_value)


@bp.get("/admin/settings/teams")
def teams() -> Response:
    """The teams by name, each with its roles and whether its shift swaps wait for a manager
    (with a button to change that for whoever may edit teams)."""
    client = _client()
    listing, (roles,) = _listing(
        "settings.teams", client.list_teams, TeamListQuery,
        lambda: list(client.iterate(client.list_roles, RoleListQuery(page_size=200))))
    if isinstance(listing, Response):
        return listing
    by_team: dict[uuid.UUID, list[str]] = {}
    for role in roles:
        by_team.setdefault(role.team, []).append(role.name)
    return render("settings/teams.html", fragment="setting_list", listing=listing,
                  roles=by_team, swap_setting=words.swap_setting,
                  may_edit=nav.can(current_user(), "edit", "Team"),
                  cursor=request.args.get("cursor") or "")


SWAP_CHOICES = {"true": True, "false": False}
"""The values the swap-approval form sends: whether an accepted swap waits for a manager."""


@bp.post("/admin/settings/teams/<uuid:team_id>/swaps")
def team_swaps(team_id: uuid.UUID) -> Response:
    """Set whether the team's accepted shift swaps wait for a manager (`edit Team`), then back
    to the page of teams the form was on, saying what changed or why nothing did."""
    client = _client()
    if not nav.can(current_user(), "edit", "Team"):
        abort(403)
    cursor = request.form.get("cursor") or None
    back = see_other(url_for("settings.teams", cursor=cursor))
    wanted = SWAP_CHOICES.get(request.form.get("swaps_need_approval", ""))
    if wanted is None:
        flash("Choose whether shift swaps wait for a manager's approval.", "error")
        return back
    try:
        team = client.update_team(team_id, TeamUpdate(swaps_need_approval=wanted))
    except ApiProblem as problem:
        if problem.status >= 500:
            raise
        flash("That team no longer exists." if problem.status == 404 else problem.detail,
              "error")
        return back
    flash(words.swap_setting_changed(team.name, team.swaps_need_approval), "success")
    return back


@bp.get("/admin/settings/roles")
def roles() -> Response:
    """The roles by name with their team and colour, as the schedule shows them (read-only)."""
    listing, _ = _listing("settings.roles", _client().list_roles, RoleListQuery)
    if isinstance(listing, Response):
        return listing
    return render("settings/roles.html", fragment="setting_list", listing=listing)


@bp.get("/admin/settings/employment-types")
def employment_types() -> Response:
    """The employment types by name, in words (read-only)."""
    listing, _ = _listing("settings.employment_types", _client().list_employment_types,
                          EmploymentTypeListQuery)
    if isinstance(listing, Response):
        return listing
    return render("settings/employment_types.html", fragment="setting_list", listing=listing,
                  describe=words.employment_type)


@bp.get("/admin/settings/time-off-policies")
def time_off_policies() -> Response:
    """The time-off policies by name, with their pay code and accrual in words (read-only)."""
    listing, _ = _listing("settings.time_off_policies", _client().list_time_off_policies,
                          TimeOffPolicyListQuery)
    if isinstance(listing, Response):
        return listing
    return render("settings/time_off_policies.html", fragment="setting_list", listing=listing,
                  accrual=words.accrual)


def _form_page(template: str, form: LabelForm, status: int = 200, **context: Any) -> Response:
    return render(template, form=form, status=status, name_max=NAME_MAX,
                  description_max=DESCRIPTION_MAX, **context)


@bp.get("/admin/settings/labels/new")
def new_label() -> Response:
    """The form for a new label."""
    _client()
    return _form_page("settings/new_label.html", LabelForm(formdata=None))


@bp.post("/admin/settings/labels")
def create_label() -> Response:
    """Create the label."""
    client = _client()
    form = LabelForm()
    if not form.validate():
        return _form_page("settings/new_label.html", form, 422)
    try:
        created = client.create_label(LabelCreate(**form.values()))
    except ApiProblem as problem:
        if problem.status in (400, 409, 422):
            apply_problem(form, problem)
            return _form_page("settings/new_label.html", form, 422)
        raise
    flash(f"Label “{created.name}” created.", "success")
    return see_other(url_for("settings.labels"))


def _filled(label: LabelRead) -> LabelForm:
    form = LabelForm(formdata=None)
    form.name.data, form.description.data = label.name, label.description or ""
    form.color.data, form.loaded.data = label.color.upper(), _stamp(label)
    return form


@bp.get("/admin/settings/labels/<uuid:label_id>/edit")
def edit_label(label_id: uuid.UUID) -> Response:
    """The form for a label, as it is now."""
    client = _client()
    label = _label(client, label_id)
    if label is None:
        return _gone()
    return _form_page("settings/edit_label.html", _filled(label), label=label)


@dataclass(frozen=True)
class Difference:
    """One member of a label: the latest value beside the one the user tried to save."""

    label: str
    latest: str
    mine: str

    @property
    def differs(self) -> bool:
        """Whether the two differ."""
        return self.latest != self.mine


def _compare(latest: LabelRead, mine: dict[str, str | None]) -> list[Difference]:
    return [Difference("Name", latest.name, mine["name"] or ""),
            Difference("Description", latest.description or "None",
                       mine["description"] or "None"),
            Difference("Colour", latest.color.upper(), mine["color"] or "")]


@bp.post("/admin/settings/labels/<uuid:label_id>")
def update_label(label_id: uuid.UUID) -> Response:
    """Save the label, unless someone else saved it since the user loaded it."""
    client = _client()
    form = LabelForm()
    latest = _label(client, label_id)
    if latest is None:
        return _gone()
    if not form.validate():
        return _form_page("settings/edit_label.html", form, 422, label=latest)
    mine = form.values()
    if form.loaded.data != _stamp(latest):
        return _form_page("settings/edit_label.html", form, 409, label=latest, conflict=True,
                          compare=_compare(latest, mine), mine=mine, latest_stamp=_stamp(latest))
    try:
        saved = client.update_label(label_id, LabelUpdate(**mine))
    except ApiProblem as problem:
        if problem.status == 404:
            return _gone()
        if problem.status in (400, 409, 422):
            apply_problem(form, problem)
            return _form_page("settings/edit_label.html", form, 422, label=latest)
        raise
    flash(f"Label “{saved.name}” saved.", "success")
    return see_other(url_for("settings.labels"))


@bp.get("/admin/settings/labels/<uuid:label_id>/delete")
def confirm_delete_label(label_id: uuid.UUID) -> Response:
    """Ask before deleting a label, saying where it is in use."""
    client = _client()
    found = client.concurrently(lambda: _label(client, label_id),
                                lambda: _usage(client, label_id))
    label, usage = found
    if label is None or usage is None:
        return _gone()
    return render("settings/confirm_delete_label.html", label=label, usage=usage)


def _usage(client: ApiClient, label_id: uuid.UUID) -> Any:
    try:
        return client.label_usage(label_id)
    except ApiProblem as problem:
        if problem.status == 404:
            return None
        raise


@bp.post("/admin/settings/labels/<uuid:label_id>/delete")
def delete_label(label_id: uuid.UUID) -> Response:
    """Delete the label: it comes off every shift that carried it."""
    client = _client()
    name = request.form.get("name", "").strip()
    try:
        client.delete_label(label_id)
    except ApiProblem as problem:
        if problem.status == 404:
            return _gone()
        raise
    flash(f"Label “{name}” deleted." if name else "Label deleted.", "success")
    return see_other(url_for("settings.labels"))
