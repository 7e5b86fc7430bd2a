"""Availability (blueprint `availability`): the provider's weekly pattern and days off.

`GET /availability` shows the provider's exceptions (days off, or days they are available
despite the pattern) from today on, and the weekly pattern form: the latest version's date and
rows (weekday, from, to, kind). `POST /availability` saves it: the same date changes that
version (with the version loaded: a `version-conflict` is shown inline and saving again applies
the change to the latest), another date starts a new version from that date (the earlier one
still applies before it). "Add a row" answers the form with one more row, without JavaScript.
`GET /availability/exceptions/new` and `POST /availability/exceptions` add an exception;
`GET /availability/exceptions/<id>/edit` and `POST /availability/exceptions/<id>` change one;
`GET|POST /availability/exceptions/<id>/delete` asks, then deletes. Problems come back inline.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from datetime import date, time
from typing import Any

from flask import Blueprint, Response, current_app, flash, g, url_for

from app.client import ApiClient, ApiProblem
from app.client.errors import VersionConflict
from app.contract.availability import (
    AvailabilityCreate,
    AvailabilityExceptionListQuery,
    AvailabilityExceptionRead,
    AvailabilityExceptionUpdate,
    AvailabilityListQuery,
    AvailabilityRead,
    AvailabilityUpdate,
)
from app.web.auth import api, my_provider_id
from app.web.availability.forms import ExceptionForm, PatternForm
from app.web.availability.words import KIND_WORDS, range_words
from app.web.filters import site_today
from app.web.forms import apply_problem
from app.web.htmx import render, see_other

bp = Blueprint("availability", __name__)

BLANK_ROWS = 1
"""Blank rows under the pattern's rows (without JavaScript, "Add a row" answers one more)."""


def _today() -> date:
    return site_today(current_app.extensions["shiftdesk_web"].settings.zone)


def _reads(client: ApiClient, provider: uuid.UUID | None) -> list[Any]:
    """The page's one concurrent round: the user, their pattern versions, their exceptions
    from today on."""
    if provider is None:
        return [client.me(), [], []]
    today = _today()
    me, patterns, exceptions = client.concurrently(
        client.me,
        lambda: client.list_availabilities(AvailabilityListQuery(provider_id=provider,
                                                                 page_size=200)),
        lambda: client.list_availability_exceptions(AvailabilityExceptionListQuery(
            provider_id=provider, start_date=today, page_size=200)))
    return [me, list(patterns.items), list(exceptions.items)]


def _keep_version(field: Any, version: int | None) -> None:
    """Put the latest version in the hidden field (it re-renders what was submitted)."""
    field.data = version
    field.raw_data = [] if version is None else [str(version)]


def _latest(patterns: list[AvailabilityRead]) -> AvailabilityRead | None:
    return max(patterns, key=lambda p: p.effective_from, default=None)


def _parse(clock: str) -> time | None:
    if clock == "24:00":
        return time(0)
    hours, minutes = (int(part) for part in clock.split(":"))
    return time(hours, minutes)


def _filled(pattern: AvailabilityRead | None) -> PatternForm:
    """The form as the latest version has it (today's date and no rows without one)."""
    form = PatternForm(formdata=None, effective_from=(
        pattern.effective_from if pattern else _today()),
        version=pattern.version if pattern else None)
    for rule in pattern.rules if pattern else ():
        form.rules.append_entry({"weekday": rule.weekday, "start_time": _parse(rule.start_time),
                                 "end_time": _parse(rule.end_time), "kind": rule.kind})
    for _ in range(BLANK_ROWS):
        form.rules.append_entry()
    return form


def _page(form: PatternForm, patterns: list[AvailabilityRead],
          exceptions: list[AvailabilityExceptionRead], *, status: int = 200) -> Response:
    latest = _latest(patterns)
    earlier = sorted((p for p in patterns if latest and p.id != latest.id),
                     key=lambda p: p.effective_from, reverse=True)
    return render("availability/index.html", fragment="availability_pattern", status=status,
                  form=form, latest=latest, earlier=earlier, today=_today(),
                  exceptions=sorted(exceptions, key=lambda e: e.start_date),
                  provider=g.get("shiftdesk_me_provider"), range_words=range_words,
                  kind_words=KIND_WORDS)


def _load() -> tuple[list[AvailabilityRead], list[AvailabilityExceptionRead]]:
    me, patterns, exceptions = _reads(api(), my_provider_id())
    g.shiftdesk_me = me
    g.shiftdesk_me_provider = me.provider_id
    return patterns, exceptions


@bp.get("/availability")
def index() -> Response:
    """The provider's days off and weekly pattern."""
    patterns, exceptions = _load()
    return _page(_filled(_latest(patterns)), patterns, exceptions)


@bp.post("/availability")
def update() -> Response:
    """Save the weekly pattern (or add a row to the form)."""
    patterns, exceptions = _load()
    form = PatternForm()
    if form.add_row.data:
        if len(form.rules) < form.rules.max_entries:
            form.rules.append_entry()
        return _page(form, patterns, exceptions)
    if not form.validate():
        return _page(form, patterns, exceptions, status=422)
    if g.shiftdesk_me_provider is None:
        form.form_errors = ["Only providers state their availability."]
        return _page(form, patterns, exceptions, status=422)
    latest = _latest(patterns)
    client = api()
    same = latest is not None and latest.effective_from == form.effective_from.data
    try:
        if same and latest is not None:
            client.update_availability(latest.id, AvailabilityUpdate(
                version=form.version.data if form.version.data is not None else latest.version,
                rules=form.rule_bodies()))
        else:
            client.create_availability(AvailabilityCreate(
                effective_from=form.effective_from.data, rules=form.rule_bodies()))
    except VersionConflict as conflict:
        form.form_errors = [
            "Your availability changed since you opened this page (in another tab or on "
            "another device). Your rows are still here: save again to replace it with them, "
            "or reload the page to see it."]
        _keep_version(form.version, conflict.current_version)
        return _page(form, patterns, exceptions, status=422)
    except ApiProblem as problem:
        if problem.status not in (400, 403, 404, 409, 422):
            raise
        apply_problem(form, problem)
        return _page(form, patterns, exceptions, status=422)
    flash("Your weekly availability is saved." if same else
          "Your weekly availability is saved. It applies from the date you chose.", "success")
    return see_other(url_for("availability.index"))


# -- exceptions ----------------------------------------------------------------------------------

def _exception_page(form: ExceptionForm, *, editing: AvailabilityExceptionRead | None = None,
                    status: int = 200) -> Response:
    return render("availability/exception.html", fragment="exception_form", status=status,
                  form=form, editing=editing)


@bp.get("/availability/exceptions/new")
def new_exception() -> Response:
    """The form for a day off (or days)."""
    today = _today()
    return _exception_page(ExceptionForm(formdata=None, start_date=today, end_date=today))


@bp.post("/availability/exceptions")
def create_exception() -> Response:
    """Add an exception."""
    form = ExceptionForm()
    if not form.validate():
        return _exception_page(form, status=422)
    try:
        api().create_availability_exception(form.to_contract())
    except ApiProblem as problem:
        if problem.status not in (400, 403, 404, 409, 422):
            raise
        apply_problem(form, problem)
        return _exception_page(form, status=422)
    flash("Added to your availability.", "success")
    return see_other(url_for("availability.index"))


@bp.get("/availability/exceptions/<uuid:exception_id>/edit")
def edit_exception(exception_id: uuid.UUID) -> Response:
    """Change an exception."""
    found = api().get_availability_exception(exception_id)
    form = ExceptionForm(formdata=None, start_date=found.start_date, end_date=found.end_date,
                         kind=found.kind, note=found.note or "", version=found.version)
    return _exception_page(form, editing=found)


@bp.post("/availability/exceptions/<uuid:exception_id>")
def update_exception(exception_id: uuid.UUID) -> Response:
    """Save a changed exception, at the version loaded."""
    client = api()
    found = client.get_availability_exception(exception_id)
    form = ExceptionForm()
    if not form.validate():
        return _exception_page(form, editing=found, status=422)
    body = AvailabilityExceptionUpdate(
        version=form.version.data, start_date=form.start_date.data, end_date=form.end_date.data,
        kind=form.kind.data, note=(form.note.data or "").strip() or None)
    try:
        client.update_availability_exception(exception_id, body)
    except VersionConflict as conflict:
        form.form_errors = ["This day off changed since you opened it. Your changes are still "
                            "here: save again to apply them to the latest version."]
        _keep_version(form.version, conflict.current_version)
        return _exception_page(form, editing=found, status=422)
    except ApiProblem as problem:
        if problem.status not in (400, 403, 409, 422):
            raise
        apply_problem(form, problem)
        return _exception_page(form, editing=found, status=422)
    flash("Saved.", "success")
    return see_other(url_for("availability.index"))


@bp.get("/availability/exceptions/<uuid:exception_id>/delete")
def confirm_delete_exception(exception_id: uuid.UUID) -> Response:
    """Ask before deleting an exception."""
    found = api().get_availability_exception(exception_id)
    return render("availability/confirm_delete.html", found=found)


@bp.post("/availability/exceptions/<uuid:exception_id>/delete")
def delete_exception(exception_id: uuid.UUID) -> Response:
    """Delete an exception."""
    try:
        api().delete_availability_exception(exception_id)
    except ApiProblem as problem:
        if problem.status != 404:
            raise
    flash("Deleted from your availability.", "success")
    return see_other(url_for("availability.index"))

