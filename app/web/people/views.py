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
Must not import `app.api`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, abort, flash, request, url_for

from app.client import ApiClient, ApiProblem, NotFound
from app.contract.employment_types import EmploymentTypeRead
from app.contract.providers import ProviderFilter, ProviderListQuery, ProviderWithRelations
from app.contract.users import UserListQuery, UserRead
from app.web import nav
from app.web.auth import api, current_user
from app.web.errors import error_page
from app.web.htmx import render, see_other
from app.web.people.forms import NAME_MAX, STATUS_VALUES, DirectoryFilterForm

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
    cursor = request.args.get("cursor") or None
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
    return render("people/show.html", person=person)
