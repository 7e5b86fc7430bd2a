"""Balance resets (blueprint `balance_resets`): the administrator's CSV upload that sets time-off
balances, each upload's rows, and the uploads so far.

`/admin/balance-resets` shows the upload form, what the file holds (with the policies that keep
a balance and their ids) and the past uploads, newest first, a cursor page at a time. A refused
file (`invalid-balance-reset-rows`) comes back as a table of every bad row beside the form;
nothing was stored. A stored upload, or the same file again (the API answers with the first
upload), leads to `/admin/balance-resets/<id>`, which names each row's person and policy.
Only users who may create `BalanceReset` (administrators) see these pages; others get the
usual "can't open this page". Must not import `app.api`; it reaches the API only through
`app.client`.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, abort, current_app, flash, request, url_for
from werkzeug.exceptions import RequestEntityTooLarge

from app.client import ApiClient, ApiProblem, NotFound, ValidationProblem
from app.contract.balances import (
    BalanceResetUploadListQuery,
    BalanceResetUploadPage,
    BalanceResetUploadRead,
)
from app.contract.providers import ProviderListQuery
from app.contract.time_off import TimeOffPolicyListQuery, TimeOffPolicyRead
from app.web import nav
from app.web.auth import api, current_user
from app.web.balance_resets.forms import BalanceResetUploadForm
from app.web.filters import format_datetime
from app.web.forms import page_cursor
from app.web.htmx import is_partial, render, see_other
from app.web.time_off.balances import fraction, quantity, signed_quantity
from app.web.uploads import RowError, capitalized

bp = Blueprint("balance_resets", __name__)

TEMPLATE = "balance_resets/index.html"
PAGE_SIZE = 20
EVERY_STATUS = ["onboarding", "active", "dismissed", "unmanaged"]
_ROW_PATH = re.compile(r"^/rows/(\d+)/([A-Za-z]+)$")
_CODE_PREFIX = re.compile(r"^[a-z]+(?:-[a-z]+)+: ")


@dataclass(frozen=True)
class ResetLine:
    """One row of a stored upload as the page shows it."""

    row: int
    person: str
    policy: str
    balance: str
    effective_date: Any
    adjustment: str


def _require() -> None:
    """Only those who may upload resets use these pages (the API decides again)."""
    if not nav.can(current_user(), "create", "BalanceReset"):
        abort(403)


def row_errors(problem: ApiProblem) -> list[RowError]:
    """Every `/rows/<n>/<column>` failure of a refusal, by row, in staff words (a message's
    leading problem code, such as `provider-not-in-policy: `, left out)."""
    found: list[RowError] = []
    for error in problem.field_errors:
        match = _ROW_PATH.match(error.path)
        if match is None:
            continue
        found.append(RowError(int(match[1]), match[2],
                              capitalized(_CODE_PREFIX.sub("", error.message))))
    return sorted(found, key=lambda e: e.row)


def _policies(client: ApiClient) -> list[TimeOffPolicyRead]:
    return list(client.iterate(client.list_time_off_policies,
                               TimeOffPolicyListQuery(page_size=200)))


def _user_names(client: ApiClient, ids: set[uuid.UUID]) -> dict[uuid.UUID, str]:
    """The names of the users who uploaded (someone since removed: no name)."""
    ordered = sorted(ids, key=str)

    def name_of(user_id: uuid.UUID) -> Any:
        def call() -> str | None:
            try:
                return client.get_user(user_id).name
            except NotFound:
                return None
        return call

    names = client.concurrently(*(name_of(i) for i in ordered))
    return {i: n for i, n in zip(ordered, names, strict=True) if n}


def _uploads(client: ApiClient, cursor: str | None
             ) -> tuple[BalanceResetUploadPage, str | None]:
    """A page of the uploads; a cursor the API refuses (edited, or stale) shows the first."""
    try:
        return client.list_balance_resets(BalanceResetUploadListQuery(
            page_size=PAGE_SIZE, cursor=cursor)), None
    except ValidationProblem:
        if cursor is None:
            raise
        return (client.list_balance_resets(BalanceResetUploadListQuery(page_size=PAGE_SIZE)),
                "That page of uploads is no longer available; here are the newest.")


def _context(client: ApiClient) -> dict[str, Any]:
    """What the upload page shows beside the form: the policies that keep a balance and the
    uploads so far."""
    cursor = page_cursor(request.args.get("cursor"))
    policies, (uploads, notice) = client.concurrently(lambda: _policies(client),
                                                      lambda: _uploads(client, cursor))
    names = _user_names(client, {u.created_by_id for u in uploads.items if u.created_by_id})
    next_url = (url_for("balance_resets.index", cursor=uploads.cursor) + "#past-uploads"
                if uploads.cursor else None)
    first_url = (url_for("balance_resets.index") + "#past-uploads"
                 if cursor and notice is None else None)
    return {"policies": [p for p in policies if p.accrual is not None], "uploads": uploads.items,
            "names": names, "next_url": next_url, "first_url": first_url,
            "page_notice": notice}


@bp.get("/admin/balance-resets")
def index() -> Response:
    """The upload form, the file's columns, and the uploads so far."""
    _require()
    form = BalanceResetUploadForm(formdata=None)
    return render(TEMPLATE, form=form, errors=[], **_context(api()))


def _refused(form: BalanceResetUploadForm, status: int, errors: list[RowError] | None = None,
             ) -> Response:
    # The fragment is the form alone: only the whole page needs the policies and past uploads.
    context = {} if is_partial() else _context(api())
    return render(TEMPLATE, fragment="reset_upload", status=status, form=form,
                  errors=errors or [], **context)


@bp.post("/admin/balance-resets")
def create() -> Response:
    """Upload the file: a refusal shows every bad row; a stored upload (new or the same file
    again) opens its page."""
    _require()
    form = BalanceResetUploadForm()
    if not form.validate():
        return _refused(form, 422)
    name, content = form.content()
    try:
        upload, created = api().upload_balance_resets(name, content)
    except ApiProblem as problem:
        if problem.status not in (400, 413, 415, 422):
            raise
        errors = row_errors(problem)
        if errors:
            form.form_errors = [problem.detail]
        else:
            # Said as the API says it: column names stay as the file spells them.
            messages = [e.message for e in problem.field_errors] or [problem.detail]
            form.file.errors = [capitalized(m) for m in messages]
        return _refused(form, 422, errors)
    if created:
        flash(f"Balances set from “{name}”: {_rows(upload.row_count)}.", "success")
    else:
        flash(f"This file was already applied on {_when(upload)}; nothing changed. Here is "
              "that upload.", "success")
    return see_other(url_for("balance_resets.show", upload_id=upload.id))


@bp.errorhandler(RequestEntityTooLarge)
def too_large(_exc: RequestEntityTooLarge) -> Response:
    """A file beyond the app's body limit: said on the form, not on an error page."""
    form = BalanceResetUploadForm(formdata=None)
    form.file.errors = ["The file is too large to upload here. Split it into smaller files "
                        "(at most 1,000 rows each) and upload them one by one."]
    return _refused(form, 413)


def _rows(count: int) -> str:
    return "1 row" if count == 1 else f"{count} rows"


def _when(upload: BalanceResetUploadRead) -> str:
    return format_datetime(upload.created_at, current_app.config["SHIFTDESK"].zone)


def _lines(upload: BalanceResetUploadRead, people: dict[uuid.UUID, str],
           policies: dict[uuid.UUID, TimeOffPolicyRead]) -> list[ResetLine]:
    lines: list[ResetLine] = []
    for row in upload.rows:
        policy = policies.get(row.policy_id)
        unit = (policy.accrual_unit if policy is not None else None) or "hours"
        lines.append(ResetLine(
            row=row.row, person=people.get(row.provider_id, "A person no longer listed"),
            policy=policy.name if policy is not None else "A policy no longer listed",
            balance=quantity(fraction(row.balance), unit), effective_date=row.effective_date,
            adjustment=(signed_quantity(fraction(row.adjustment), unit)
                        if row.adjustment is not None else "")))
    return lines


@bp.get("/admin/balance-resets/<uuid:upload_id>")
def show(upload_id: uuid.UUID) -> Response:
    """One upload: who sent which file when, and what each row set."""
    _require()
    client = api()
    try:
        upload = client.get_balance_reset(upload_id)
    except NotFound:
        abort(404)
    providers, policies, names = client.concurrently(
        lambda: list(client.iterate(client.list_providers,
                                    ProviderListQuery(page_size=200, status=EVERY_STATUS))),
        lambda: _policies(client),
        lambda: _user_names(client, {upload.created_by_id} if upload.created_by_id else set()))
    people = {p.id: p.name or p.email for p in providers}
    lines = _lines(upload, people, {p.id: p for p in policies})
    return render("balance_resets/show.html", upload=upload, lines=lines,
                  uploader=names.get(upload.created_by_id) if upload.created_by_id else None)

