"""Permission rules (blueprint `permissions`, beta): the rules as a table, and an editor for one
rule's conditions that previews the change for a person before saving it.

`index` lists the rules role by role (who, action, subject, conditions in words, inverted), a
subject filter in the address, a page at a time. `show` is one rule with its editor: the
conditions as JSON text, a "Preview for" person (the managers of the providers by default, or
people found by name) and Preview, which asks the API's dry run (`preview`; htmx swaps the
editor in place, without JavaScript the same page is rendered). Save (`update`) appears with a
preview and saves what was previewed; conditions changed since are previewed again first, so no
administrator saves a change they have not seen the effect of. Text that is not JSON is marked
at its line and column; the API's validation paths (`/conditions/...`) are marked on the line
of a pretty-printed copy of the document. Who may open these pages follows the API: `edit
Permission`; anyone else gets the not-allowed page. Must not import `app.api`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, abort, flash, request, url_for

from app.client import ApiClient, ApiProblem
from app.contract.permissions import (
    EXTENSION_SUBJECTS,
    SPEC_SUBJECTS,
    PermissionDryRun,
    PermissionDryRunRead,
    PermissionListQuery,
    PermissionRead,
    PermissionUpdate,
)
from app.contract.providers import ProviderListQuery
from app.contract.users import UserListQuery
from app.web import nav
from app.web.auth import api, current_user
from app.web.errors import error_page
from app.web.forms import apply_problem, page_cursor
from app.web.htmx import render, see_other
from app.web.permissions import words
from app.web.permissions.forms import SEARCH_MAX, ConditionsForm

bp = Blueprint("permissions", __name__)

PAGE_SIZE = 50
SUBJECTS = tuple(sorted(SPEC_SUBJECTS + EXTENSION_SUBJECTS))
GONE = "That permission rule no longer exists. Here are the rules there are."


def _client() -> ApiClient:
    """The API, for a user who may edit permissions (anyone else gets the not-allowed page)."""
    if not nav.can(current_user(), "edit", "Permission"):
        abort(403)
    return api()


@dataclass(frozen=True)
class Listing:
    """One page of rules, with the links to the next and the first page."""

    page: Any
    next_url: str | None
    first_url: str | None


@bp.get("/admin/permissions")
def index() -> Response:
    """The rules role by role in evaluation order, optionally of one subject."""
    client = _client()
    subject = request.args.get("subject") or None
    if subject not in (None, *SUBJECTS):
        flash("There is no such subject. Here are all the rules.", "error")
        return see_other(url_for("permissions.index"))
    cursor = page_cursor(request.args.get("cursor"))
    try:
        page = client.list_permissions(PermissionListQuery.model_validate(
            {"pageSize": PAGE_SIZE, "cursor": cursor, "subject": subject}))
    except ApiProblem as problem:
        if problem.status != 400 or cursor is None:
            raise
        flash("That page is out of date. Here is the first page.", "error")
        return see_other(url_for("permissions.index", subject=subject))
    listing = Listing(
        page,
        url_for("permissions.index", subject=subject, cursor=page.cursor) if page.cursor
        else None,
        url_for("permissions.index", subject=subject) if cursor else None)
    return render("permissions/index.html", fragment="permission_list", listing=listing,
                  subject=subject, subjects=SUBJECTS, describe=words.describe_html,
                  compact=words.compact, actions=words.ACTIONS)


def _rule(client: ApiClient, permission_id: uuid.UUID) -> PermissionRead | None:
    try:
        return client.get_permission(permission_id)
    except ApiProblem as problem:
        if problem.status == 404:
            return None
        raise


def _gone() -> Response:
    """No such rule: a not-found page for a link, a message on the list after a form."""
    if request.method == "GET":
        return error_page(404, title="Permission rule not found",
                          detail="There is no such permission rule.")
    flash(GONE, "error")
    return see_other(url_for("permissions.index"))


def _people(client: ApiClient, search: str | None, chosen: str | None) -> list[tuple[str, str]]:
    """Whom a preview can be for: people found by name, else the providers' managers; the
    chosen person always among them."""
    if search:
        found = [(str(u.id), u.name) for u in client.list_users(
            UserListQuery(name=search, page_size=20)).items]
    else:
        managers = {str(p.manager.id): p.manager.name or "Unnamed"
                    for p in client.list_providers(ProviderListQuery(page_size=200)).items
                    if p.manager is not None}
        found = sorted(managers.items(), key=lambda item: (item[1], item[0]))
        if not found:
            found = [(str(u.id), u.name) for u in client.list_users(
                UserListQuery(page_size=20)).items]
    if chosen and chosen not in {value for value, _ in found}:
        try:
            person = client.get_user(uuid.UUID(chosen))
            found.insert(0, (str(person.id), person.name))
        except (ValueError, ApiProblem):
            pass  # not a person: the API's answer to the preview says so on the field
    return found


def _page(client: ApiClient, rule: PermissionRead, form: ConditionsForm, *, status: int = 200,
          preview: PermissionDryRunRead | None = None,
          problems: dict[str, list[str]] | None = None, notice: str | None = None,
          fragment: str | None = None) -> Response:
    search = (form.user_search.data or "").strip()
    if form.user_search.errors:
        search = ""
    form.user_id.choices = _people(client, search, form.user_id.data or None)
    if not form.user_id.data and form.user_id.choices:
        form.user_id.data = form.user_id.choices[0][0]
    lines: list[words.Line] = []
    if form.syntax_error is not None:
        line, column, why = form.syntax_error
        lines = words.text_lines(form.conditions.data or "", line,
                                 f"Column {column}: {why}.")
    elif problems:
        lines = words.json_lines(form.document(), problems)
    chosen = dict(form.user_id.choices).get(form.user_id.data or "", "this person")
    return render("permissions/show.html", fragment=fragment, status=status, rule=rule,
                  form=form, preview=preview, lines=lines, notice=notice, person=chosen,
                  describe=words.describe_html, actions=words.ACTIONS, search_max=SEARCH_MAX)


def _filled(rule: PermissionRead) -> ConditionsForm:
    form = ConditionsForm(formdata=None)
    form.conditions.data = words.pretty(rule.conditions)
    return form


@bp.get("/admin/permissions/<uuid:permission_id>")
def show(permission_id: uuid.UUID) -> Response:
    """One rule and its conditions' editor."""
    client = _client()
    rule = _rule(client, permission_id)
    if rule is None:
        return _gone()
    return _page(client, rule, _filled(rule))


def _refused(form: ConditionsForm, problem: ApiProblem) -> dict[str, list[str]] | None:
    """Put the API's refusal of the input on the form: the condition problems (by their pointer
    inside the document, for marking lines) on the conditions, the person on the picker.
    None when the problem is not about the input."""
    if problem.status == 404 and problem.code == "user-not-found":
        form.user_id.errors = ["There is no such person: choose one from the list."]
        return {}
    if problem.status != 400:
        return None
    problems: dict[str, list[str]] = {}
    messages: list[str] = []
    for error in problem.field_errors:
        if error.path == "/conditions" or error.path.startswith("/conditions/"):
            inside = error.path.removeprefix("/conditions")
            problems.setdefault(inside, []).append(error.message)
            messages.append(f"At {inside or 'the top'}: {error.message}.")
        elif error.path == "/userId":
            form.user_id.errors = ["Choose a person from the list."]
        else:
            apply_problem(form, problem)
    if messages:
        form.conditions.errors = messages
    elif not problem.field_errors:
        apply_problem(form, problem)
    return problems


def _dry_run(client: ApiClient, rule: PermissionRead, form: ConditionsForm, *,
             notice: str | None = None) -> Response:
    """The form's conditions previewed for its person: the editor with the preview, or with the
    API's problems marked (422)."""
    try:
        person = uuid.UUID(str(form.user_id.data or ""))
    except ValueError:
        form.user_id.errors = ["Choose a person from the list."]
        return _page(client, rule, form, status=422, fragment="permission_editor")
    try:
        preview = client.dry_run_permission(
            rule.id, PermissionDryRun(user_id=person, conditions=form.document()))
    except ApiProblem as problem:
        if problem.status == 404 and problem.code == "permission-not-found":
            return _gone()
        problems = _refused(form, problem)
        if problems is None:
            raise
        return _page(client, rule, form, status=422, problems=problems,
                     fragment="permission_editor")
    form.previewed.data = form.fingerprint()
    return _page(client, rule, form, preview=preview, notice=notice,
                 fragment="permission_editor")


def _posted(permission_id: uuid.UUID) -> tuple[ApiClient, PermissionRead | None, ConditionsForm]:
    client = _client()
    return client, _rule(client, permission_id), ConditionsForm()


@bp.get("/admin/permissions/<uuid:permission_id>/preview")
def preview_address(permission_id: uuid.UUID) -> Response:
    """The preview's address opened again (a reload after a post without JavaScript): the
    editor, as a preview is only ever of conditions sent with it."""
    _client()
    return see_other(url_for("permissions.show", permission_id=permission_id))


@bp.post("/admin/permissions/<uuid:permission_id>/preview")
def preview(permission_id: uuid.UUID) -> Response:
    """Preview the conditions for the chosen person; or, from "Find", list people by name."""
    client, rule, form = _posted(permission_id)
    if rule is None:
        return _gone()
    finding = "find" in request.form
    if not form.validate():
        return _page(client, rule, form, status=422, fragment="permission_editor")
    if finding:
        form.user_id.data = None
        return _page(client, rule, form, fragment="permission_editor")
    return _dry_run(client, rule, form)


@bp.post("/admin/permissions/<uuid:permission_id>")
def update(permission_id: uuid.UUID) -> Response:
    """Save the previewed conditions; conditions changed since their preview are previewed
    again instead, to be saved once seen."""
    client, rule, form = _posted(permission_id)
    if rule is None:
        return _gone()
    if not form.validate():
        return _page(client, rule, form, status=422, fragment="permission_editor")
    if form.previewed.data != form.fingerprint():
        return _dry_run(client, rule, form, notice=(
            "Check what this change does before saving: here is its preview. "
            "Press Save again to save it."))
    try:
        saved = client.update_permission(rule.id,
                                         PermissionUpdate(conditions=form.document()))
    except ApiProblem as problem:
        if problem.status == 404:
            return _gone()
        problems = _refused(form, problem)
        if problems is None:
            raise
        return _page(client, rule, form, status=422, problems=problems,
                     fragment="permission_editor")
    flash(f"Saved. The {saved.rbac_role_name or 'role'} rule\u2019s new conditions apply from the "
          "next page anyone opens.", "success")
    return see_other(url_for("permissions.show", permission_id=saved.id))

