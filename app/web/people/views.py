"""People (blueprint `people`): the directory of users and providers, and a person's page.

`index` lists providers (`GET /v1/providers`, with their team), everyone who signs in or API
clients (`GET /v1/users?type=`), by name, a cursor page at a time, with the name search, type
and status kept in the URL and the provider count (`GET /v1/providers/count`, the same name and
status) beside them; the list and the count are read at the same time. A name longer than the
API's 50 characters, or a tampered choice, is shown on its field and nothing is asked of the
API; a stale or tampered cursor sends the user to the first page with a message. `show` is one
person: their user record and, for a provider, team, manager, roles, skills, licensed regions,
employment type and pay period template, each saying "None" when empty. Who may open these
pages follows the menu: `create User` (administrators); anyone else gets the not-allowed page.

The import (`/admin/people/import`) reads a CSV of people (`rows.read_people`: every row
checked first, team, role and employment type by name or id; any bad row answers 422 with a
table of row, column and message, and nothing is sent), then sends it in batches of the API's
size (`POST /v1/people/import`, lowered to the `maxBatchSize` a `batch-size-exceeded` reports),
exactly as the demand forecast upload does: without JavaScript every batch and then a redirect
to the result (`/admin/people/imports/<token>`); with htmx a progress bar whose form posts the
next batch (`…/rows-from/<rows sent>`) as it loads. The result lists the people created and
updated, each new person's set-password link to copy, and offers them all as a CSV. The API
matches people on `importedId`, so importing a file again updates, never duplicates. A person's
page makes a new set-password link ("Create a set-password link"), shown there once.
Must not import `app.api`.
"""

from __future__ import annotations

import csv
import io
import secrets
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, abort, current_app, flash, request, session, url_for
from werkzeug.exceptions import RequestEntityTooLarge

from app.client import ApiClient, ApiProblem, NotFound
from app.contract.employment_types import EmploymentTypeListQuery, EmploymentTypeRead
from app.contract.people import MAX_PEOPLE_BATCH, PeopleImportResult, PersonImportRow
from app.contract.providers import (
    PayPeriodTemplate,
    ProviderFilter,
    ProviderListQuery,
    ProviderWithRelations,
)
from app.contract.roles import RoleListQuery
from app.contract.teams import TeamListQuery
from app.contract.users import UserListQuery, UserRead
from app.web import nav
from app.web.auth import api, current_user
from app.web.errors import error_page
from app.web.forms import page_cursor
from app.web.htmx import is_partial, render, see_other
from app.web.manage_schedule.calendar import today, week_start, zone
from app.web.people.forms import NAME_MAX, STATUS_VALUES, DirectoryFilterForm, PeopleImportForm
from app.web.people.rows import COLUMNS, MAX_ROWS, FileProblem, read_people, too_large
from app.web.people.rows import Directory as Lookups
from app.web.uploads import BatchedUpload, RowError

bp = Blueprint("people", __name__)

PAGE_SIZE = 25
TEMPLATE = "people/index.html"
FILTERS = ("name", "type", "status")


def _client() -> ApiClient:
    """The API, for a user who may add people (anyone else gets the not-allowed page)."""
    if not nav.can(current_user(), "create", "User"):
        abort(403)
    return api()


@dataclass
class Directory:
    """One page of the directory as the template shows it."""

    form: DirectoryFilterForm
    kind: str
    providers: list[ProviderWithRelations]
    users: list[UserRead]
    provider_count: int | None
    next_url: str | None
    first_url: str | None
    filtered: bool

    @property
    def records(self) -> int:
        """How many people this page lists."""
        return len(self.providers) + len(self.users)


def _url(args: dict[str, str], **changes: str | None) -> str:
    """The directory's address with `args`, changed by `changes` (None removes one)."""
    merged = {**args, **changes}
    pairs = [(key, value) for key, value in merged.items() if value]
    return url_for("people.index") + ("?" + urlencode(pairs) if pairs else "")


def _read(client: ApiClient, form: DirectoryFilterForm, cursor: str | None,
          ) -> tuple[Any, int]:
    """The page of people and the provider count, read at the same time."""
    name = (form.name.data or "").strip() or None
    statuses: Any = STATUS_VALUES[form.status.data]
    if form.type.data == "provider":
        def people() -> Any:
            return client.list_providers(ProviderListQuery(
                name=name, status=statuses, page_size=PAGE_SIZE, cursor=cursor))
    else:
        def people() -> Any:
            return client.list_users(UserListQuery(
                name=name, status=statuses, type=[form.type.data], page_size=PAGE_SIZE,
                cursor=cursor))

    def count() -> int:
        return client.count_providers(ProviderFilter(name=name, status=statuses)).count

    page, total = ApiClient.concurrently(people, count)
    return page, total


@bp.get("/admin/people")
def index() -> Response:
    """The directory: people by name, filtered, a page at a time, and how many providers match."""
    client = _client()
    args = {key: request.args.get(key, "") for key in FILTERS if request.args.get(key)}
    cursor = page_cursor(request.args.get("cursor"))
    form = DirectoryFilterForm(formdata=request.args)
    valid = form.validate()
    directory = Directory(form=form, kind=form.type.data if form.type.data in ("user", "bot")
                          else "provider", providers=[], users=[], provider_count=None,
                          next_url=None, first_url=_url(args) if cursor else None,
                          filtered=bool(args))
    if not valid:
        return render(TEMPLATE, fragment="people_list", directory=directory, name_max=NAME_MAX,
                      status=422)
    try:
        page, directory.provider_count = _read(client, form, cursor)
    except ApiProblem as problem:
        if problem.status != 400 or cursor is None:
            raise
        flash("That page is out of date. Here is the first page.", "error")
        return see_other(_url(args))
    if directory.kind == "provider":
        directory.providers = page.items
    else:
        directory.users = page.items
    directory.next_url = _url(args, cursor=page.cursor) if page.cursor else None
    return render(TEMPLATE, fragment="people_list", directory=directory, name_max=NAME_MAX)


@dataclass
class Person:
    """Who a person is, as their page shows them."""

    user: UserRead
    provider: ProviderWithRelations | None
    employment_type: EmploymentTypeRead | None


def _or_none(call: Any) -> Any:
    """The answer of `call`, or None when the API has no such record."""
    try:
        return call()
    except NotFound:
        return None


def read_person(client: ApiClient, person_id: uuid.UUID) -> Person | None:
    """The user and, if they are one, the provider of `person_id` (None when there is none)."""
    user, provider = ApiClient.concurrently(
        lambda: _or_none(lambda: client.get_user(person_id)),
        lambda: _or_none(lambda: client.get_provider(person_id)))
    if user is None:
        return None
    employment_type = None
    if provider is not None and provider.employment_type is not None:
        employment_type = _or_none(lambda: client.get_employment_type(provider.employment_type))
    return Person(user=user, provider=provider, employment_type=employment_type)


def not_found_page() -> Response:
    """There is no such person."""
    return error_page(404, title="Person not found",
                      detail="There is no one with that address in the directory.")


@bp.get("/admin/people/<uuid:person_id>")
def show(person_id: uuid.UUID) -> Response:
    """One person: who they are, their team, manager, roles, skills and how they are paid."""
    person = read_person(_client(), person_id)
    if person is None:
        return not_found_page()
    return render("people/show.html", person=person, link=_shown_link(person_id))


# -- set-password links -----------------------------------------------------------------------

LINK_KEY = "people_password_link"
"""The session key of the set-password link just made (shown once, on the person's page)."""


def link_url(token: str) -> str:
    """The address of a set-password link at the embedded sign-in service."""
    issuer = str(current_app.config["SHIFTDESK"].issuer).rstrip("/")
    return f"{issuer}/set-password/{token}"


@bp.post("/admin/people/<uuid:person_id>/password-link")
def password_link(person_id: uuid.UUID) -> Response:
    """Make a new set-password link (ending the earlier ones) and show it on the person's page."""
    client = _client()
    try:
        link = client.create_password_link(person_id)
    except NotFound:
        flash("That person no longer exists.", "error")
        return see_other(url_for("people.index"))
    except ApiProblem as problem:
        if problem.status not in (403, 409):
            raise
        flash(problem.detail or problem.title, "error")
        return see_other(url_for("people.show", person_id=person_id))
    session[LINK_KEY] = {"user_id": str(person_id), "url": link_url(link.token),
                         "expires_at": link.expires_at.isoformat()}
    flash("A new set-password link is ready below. Earlier links of this person no longer "
          "work.", "success")
    return see_other(url_for("people.show", person_id=person_id))


def _shown_link(person_id: uuid.UUID) -> dict[str, Any] | None:
    """The link just made for this person, once (the session forgets it when shown)."""
    kept = session.get(LINK_KEY)
    if not isinstance(kept, dict) or kept.get("user_id") != str(person_id):
        return None
    session.pop(LINK_KEY, None)
    return {"url": kept["url"], "expires_at": datetime.fromisoformat(kept["expires_at"])}


# -- importing people from a CSV file ------------------------------------------------------------

IMPORT_TEMPLATE = "people/import.html"
IMPORT_KEY = "people_import"
"""The session key of the user's current import (one at a time; a new file replaces it)."""
SHOWN_ERRORS = 500
"""Bad-row messages listed at most; the caption says how many there are."""
SHOWN_PEOPLE = 200
"""People listed on the result page at most; the CSV of the result has them all."""
_COLUMN_OF = {"name": "name", "email": "email", "type": "type", "teamId": "team",
              "roleId": "role", "employmentTypeId": "employment_type",
              "payPeriodTemplate": "pay_period", "importedId": "imported_id"}


@bp.url_value_preprocessor
def _file_limit(endpoint: str | None, _values: dict[str, Any] | None) -> None:
    # As on the demand forecast page: this page takes files of up to `max_upload_bytes`, set
    # before anything (the CSRF check included) parses the body.
    if endpoint == "people.import_file":
        request.max_content_length = _max_bytes() + 64 * 1024


def _max_bytes() -> int:
    return int(current_app.config["SHIFTDESK"].max_upload_bytes)


@dataclass
class PeopleUpload(BatchedUpload):
    """The user's current import: the checked rows still to send (`[file row, name, email,
    type, team, role, employment type, pay period, its start, imported id]`), how far it got,
    how it ended and whom it created or updated (`[file row, name, email, outcome, id, link or
    None]`, with their set-password links)."""

    KEY = IMPORT_KEY
    COLUMN_OF = _COLUMN_OF
    ROW_AT = 0
    UNAVAILABLE = "The server could not import people just now."

    created: int = 0
    updated: int = 0
    people: list[list[Any]] = field(default_factory=list)

    def post(self, client: ApiClient, chunk: list[list[Any]]) -> PeopleImportResult:
        return client.import_people([_wire(r) for r in chunk])

    def record(self, chunk: list[list[Any]], result: PeopleImportResult) -> None:
        for person in result.people:
            row = chunk[person.index]
            link = link_url(person.password_link.token) if person.password_link else None
            self.people.append([row[0], row[1], row[2], person.outcome, str(person.id), link])
        self.created += result.created
        self.updated += result.updated


def _lookups(client: ApiClient) -> Lookups:
    """The teams, roles and employment types a file's names are looked up in."""
    teams, roles, kinds = ApiClient.concurrently(
        lambda: list(client.iterate(client.list_teams, TeamListQuery(page_size=200))),
        lambda: list(client.iterate(client.list_roles, RoleListQuery(page_size=200))),
        lambda: list(client.iterate(client.list_employment_types,
                                    EmploymentTypeListQuery(page_size=200))))
    return Lookups.of(teams, roles, kinds)


def _import_page(form: PeopleImportForm, *, status: int = 200,
                 errors: list[RowError] | None = None,
                 upload: PeopleUpload | None = None) -> Response:
    context: dict[str, Any] = {}
    if not is_partial():
        found = _lookups(api())
        context = {"lookups": found, "columns": COLUMNS, "max_rows": MAX_ROWS,
                   "max_mb": f"{_max_bytes() / (1024 * 1024):.3g}", "zone_name": zone().key}
    if upload is not None and upload.failed_rows:
        errors = [RowError(*r) for r in upload.failed_rows]
    return render(IMPORT_TEMPLATE, fragment="people_import", status=status, form=form,
                  errors=errors or [], shown=SHOWN_ERRORS, upload=upload,
                  shown_people=SHOWN_PEOPLE, **context)


@bp.get("/admin/people/import")
def import_form() -> Response:
    """The import form, what the file holds, the names it may use and a template."""
    _client()
    return _import_page(PeopleImportForm(formdata=None))


@bp.get("/admin/people/import/template.csv")
def import_template() -> Response:
    """A CSV to start from: the header, a provider of the first team and a user."""
    found = _lookups(_client())
    team = found.teams[0] if found.teams else None
    role = next((r for r in found.roles if team is not None and r.team == team.id), None)
    kind = found.employment_types[0] if found.employment_types else None
    monday = week_start(today())
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    writer.writerow(["Alex Example", "alex.example@example.org", "provider",
                     team.name if team else "", role.name if role else "",
                     kind.name if kind else "", "biweekly", monday.isoformat(), "HR-0001"])
    writer.writerow(["Robin Example", "robin.example@example.org", "user", "", "", "", "", "",
                     "HR-0002"])
    return Response(out.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": 'attachment; filename="people-template.csv"'})


def _count(rows: int) -> str:
    return "1 row" if rows == 1 else f"{rows:,} rows"


@bp.post("/admin/people/import")
def import_file() -> Response:
    """Read the file: bad rows come back as a table and nothing is sent; a good file is sent
    (with htmx: the first step of the progress bar; without: every batch, then the result)."""
    client = _client()
    form = PeopleImportForm()
    if not form.validate():
        return _import_page(form, status=422)
    name, content = form.content()
    try:
        lines, errors = read_people(content, _lookups(client), zone(), max_bytes=_max_bytes())
    except FileProblem as problem:
        form.file.errors = [str(problem)]
        return _import_page(form, status=422)
    if errors:
        form.form_errors = [f"“{name}” was not imported: {_count(len({e.row for e in errors}))} "
                            "to fix, listed below. No one was added or changed."]
        return _import_page(form, status=422, errors=errors)
    upload = PeopleUpload(
        token=secrets.token_urlsafe(12), file_name=name, total=len(lines),
        batch=MAX_PEOPLE_BATCH,
        rows=[[x.row, x.name, x.email, x.type, _text(x.team_id), _text(x.role_id),
               _text(x.employment_type_id), x.pay_period,
               x.pay_period_start.isoformat() if x.pay_period_start else None, x.imported_id]
              for x in lines])
    if is_partial():
        upload.save()
        return _import_page(form, upload=upload)
    upload.send_all(client)
    return see_other(url_for("people.import_result", token=upload.token))


def _text(value: uuid.UUID | None) -> str | None:
    return str(value) if value is not None else None


def _wire(row: list[Any]) -> PersonImportRow:
    template = (PayPeriodTemplate(type=row[7], start_date=datetime.fromisoformat(row[8]))
                if row[7] else None)
    return PersonImportRow(
        name=row[1], email=row[2], type=row[3], imported_id=row[9],
        team_id=uuid.UUID(row[4]) if row[4] else None,
        role_id=uuid.UUID(row[5]) if row[5] else None,
        employment_type_id=uuid.UUID(row[6]) if row[6] else None,
        pay_period_template=template)


@bp.post("/admin/people/imports/<token>/rows-from/<int:offset>")
def send(token: str, offset: int) -> Response:
    """Send the batch of the current import that starts after `offset` sent rows (once: a
    repeated post of a batch already sent sends nothing) and answer the next step, or the
    result."""
    _client()
    upload = PeopleUpload.kept(token)
    if upload is None:
        return _import_gone()
    upload.send_from(offset, api())
    if upload.finished and not is_partial():
        return see_other(url_for("people.import_result", token=token))
    return _import_page(PeopleImportForm(formdata=None), upload=upload)


@bp.get("/admin/people/imports/<token>")
def import_result(token: str) -> Response:
    """The current import: its progress, or whom it created and updated."""
    _client()
    upload = PeopleUpload.kept(token)
    if upload is None:
        return _import_gone()
    return _import_page(PeopleImportForm(formdata=None), upload=upload)


@bp.get("/admin/people/imports/<token>/people.csv")
def import_people_csv(token: str) -> Response:
    """Everyone the import created or updated, with the new people's set-password links."""
    _client()
    upload = PeopleUpload.kept(token)
    if upload is None:
        return _import_gone()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["row", "name", "email", "outcome", "id", "set_password_link"])
    for person in upload.people:
        writer.writerow([*person[:5], person[5] or ""])
    return Response(out.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": 'attachment; filename="imported-people.csv"',
        "Cache-Control": "no-store"})


def _import_gone() -> Response:
    """An import this session no longer holds: say so on the form."""
    form = PeopleImportForm(formdata=None)
    form.form_errors = ["That import is no longer in progress here (a newer file replaced it, "
                        "or you signed in again). People it sent stay imported; to be sure of "
                        "the rest, import the file again: people already imported are updated, "
                        "not added twice."]
    return _import_page(form, status=404)


@bp.errorhandler(RequestEntityTooLarge)
def file_too_large(_exc: RequestEntityTooLarge) -> Response:
    """A file beyond the page's limit: said on the form, not on an error page."""
    form = PeopleImportForm(formdata=None)
    form.file.errors = [too_large(_max_bytes())]
    return _import_page(form, status=413)
