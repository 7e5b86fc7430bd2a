"""Appointment types (blueprint `appointment_types`): list, create, edit and archive.

Every page makes one round of concurrent API calls: the user, the types, the roles (for the
allowed-roles choice) and the providers (whose skills are the requirement editor's choices). The
skill requirement is edited as up to three "any of" rows (see `skills`); a stored requirement the
rows cannot express is kept unless the user unticks "keep". Must not import `app.api`; it reaches
the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from typing import Any

from flask import Blueprint, Response, abort, flash, url_for

from app.client import ApiClient, ApiProblem
from app.contract.appointment_types import (
    AppointmentTypeCreate,
    AppointmentTypeRead,
    AppointmentTypeUpdate,
)
from app.contract.roles import RoleListQuery
from app.web import nav
from app.web.appointment_types import skills
from app.web.appointment_types.forms import AppointmentTypeForm
from app.web.auth import api
from app.web.forms import apply_problem
from app.web.htmx import render, see_other
from app.web.slots.views import PAGE, catalog_calls, remember_me

bp = Blueprint("appointment_types", __name__)


def _load(client: ApiClient) -> tuple[Any, Any, Any, Any]:
    me, types, providers, roles = client.concurrently(
        *catalog_calls(client), lambda: client.list_roles(RoleListQuery(page_size=PAGE)))
    remember_me(me)
    return me, types, providers, roles


def _role_names(roles: Any) -> dict[str, str]:
    return {str(r.id): f"{r.name} ({r.team_name})" for r in roles.items}


def _find(types: Any, type_id: uuid.UUID) -> AppointmentTypeRead:
    kind = next((t for t in types.items if t.id == type_id), None)
    if kind is None:
        abort(404)
    return kind


def _choices(form: AppointmentTypeForm, providers: Any, roles: Any,
             kind: AppointmentTypeRead | None = None) -> None:
    form.allowed_roles.choices = sorted(_role_names(roles).items(), key=lambda i: i[1])
    extra = form.picked_options()
    if kind is not None:
        extra += [v for row in (skills.to_groups(kind.skill_requirement) or []) for v in row]
    options = skills.options(providers.items, extra)
    for f in (form.group_1, form.group_2, form.group_3):
        f.choices = options


def _requirement(form: AppointmentTypeForm, kind: AppointmentTypeRead | None) -> Any:
    if kind is not None and skills.to_groups(kind.skill_requirement) is None \
            and form.keep_requirement.data:
        return kind.skill_requirement
    return skills.from_groups(form.groups())


@bp.get("/appointment-types")
def index() -> Response:
    """Every appointment type that is offered (archived ones are not)."""
    me, types, _providers, roles = _load(api())
    return render("appointment_types/index.html", types=types.items,
                  role_names=_role_names(roles), describe=skills.describe,
                  can_edit=nav.can(me, "edit", "AppointmentType"),
                  can_create=nav.can(me, "create", "AppointmentType"))


@bp.get("/appointment-types/new")
def new() -> Response:
    """The form for a new appointment type."""
    _me, _types, providers, roles = _load(api())
    form = AppointmentTypeForm(formdata=None)
    _choices(form, providers, roles)
    return render("appointment_types/new.html", form=form)


@bp.post("/appointment-types")
def create() -> Response:
    """Create the appointment type."""
    client = api()
    form = AppointmentTypeForm()
    _me, _types, providers, roles = _load(client)
    _choices(form, providers, roles)
    if not form.validate():
        return render("appointment_types/new.html", form=form, status=422)
    body = AppointmentTypeCreate(name=form.name.data.strip(), length=form.length.data,
                                 allowed_roles=list(form.allowed_roles.data) or None,
                                 skill_requirement=skills.from_groups(form.groups()))
    try:
        created = client.create_appointment_type(body)
    except ApiProblem as problem:
        if problem.status in (400, 409, 422):
            apply_problem(form, problem)
            return render("appointment_types/new.html", form=form, status=422)
        raise
    flash(f"Appointment type “{created.name}” created.", "success")
    return see_other(url_for("appointment_types.index"))


def _edit_form(kind: AppointmentTypeRead) -> AppointmentTypeForm:
    form = AppointmentTypeForm(formdata=None)
    form.name.data, form.length.data = kind.name, kind.length
    form.allowed_roles.data = [str(r) for r in kind.allowed_roles or []]
    rows = skills.to_groups(kind.skill_requirement)
    form.keep_requirement.data = rows is None
    for f, row in zip((form.group_1, form.group_2, form.group_3), rows or [], strict=False):
        f.data = row
    return form


@bp.get("/appointment-types/<uuid:type_id>/edit")
def edit(type_id: uuid.UUID) -> Response:
    """The form for an existing appointment type."""
    _me, types, providers, roles = _load(api())
    kind = _find(types, type_id)
    form = _edit_form(kind)
    _choices(form, providers, roles, kind)
    return render("appointment_types/edit.html", form=form, kind=kind,
                  representable=skills.to_groups(kind.skill_requirement) is not None,
                  describe=skills.describe)


@bp.post("/appointment-types/<uuid:type_id>")
def update(type_id: uuid.UUID) -> Response:
    """Save the appointment type."""
    client = api()
    _me, types, providers, roles = _load(client)
    kind = _find(types, type_id)
    form = AppointmentTypeForm()
    _choices(form, providers, roles, kind)
    context = {"kind": kind, "describe": skills.describe,
               "representable": skills.to_groups(kind.skill_requirement) is not None}
    if not form.validate():
        return render("appointment_types/edit.html", form=form, status=422, **context)
    body = AppointmentTypeUpdate(name=form.name.data.strip(), length=form.length.data,
                                 allowed_roles=list(form.allowed_roles.data) or None,
                                 skill_requirement=_requirement(form, kind))
    try:
        saved = client.update_appointment_type(type_id, body)
    except ApiProblem as problem:
        if problem.status in (400, 409, 422):
            apply_problem(form, problem)
            return render("appointment_types/edit.html", form=form, status=422, **context)
        raise
    flash(f"Appointment type “{saved.name}” saved.", "success")
    return see_other(url_for("appointment_types.index"))


@bp.get("/appointment-types/<uuid:type_id>/archive")
def confirm_delete(type_id: uuid.UUID) -> Response:
    """Ask before archiving a type."""
    _me, types, _providers, _roles = _load(api())
    return render("appointment_types/confirm_delete.html", kind=_find(types, type_id))


@bp.post("/appointment-types/<uuid:type_id>/archive")
def delete(type_id: uuid.UUID) -> Response:
    """Archive the type: it is no longer offered; booked appointments keep it."""
    client = api()
    client.archive_appointment_type(type_id)
    flash("Appointment type archived. It is no longer offered for booking.", "success")
    return see_other(url_for("appointment_types.index"))
