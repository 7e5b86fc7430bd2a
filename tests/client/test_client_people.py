"""ApiClient's people calls against the real API app in-process: the provider count and one
provider, an employment type, importing people and set-password links, typed, with problems
as exceptions."""

from __future__ import annotations

import uuid

import pytest

from app.client import ApiClient, Conflict, NotFound, ValidationProblem, build_http
from app.contract.people import PersonImportRow
from app.contract.providers import ProviderFilter
from tests.factories import uid


@pytest.fixture
def http(fresh_api):
    client = build_http(wsgi_app=fresh_api.app)
    yield client
    client.close()


def admin(api, http) -> ApiClient:
    return ApiClient(http, api.token("admin@example.com"))


def test_count_and_get_provider_are_typed(fresh_api, http, world):
    client = admin(fresh_api, http)
    assert client.count_providers(ProviderFilter(name="pat")).count == 1
    provider = client.get_provider(world.provider)
    assert provider.name == "Pat Provider"
    assert client.get_employment_type(provider.employment_type).name == "Full-time staff"
    with pytest.raises(NotFound):
        client.get_provider(uuid.uuid4())


def test_import_people_then_again_and_a_password_link(fresh_api, http, world):
    client = admin(fresh_api, http)
    row = PersonImportRow(name="Client Person", email="client.person@example.org",
                          type="provider", imported_id="C-1", team_id=world.ed,
                          role_id=world.ed_nurse_role, employment_type_id=uid("et:ft"))
    first = client.import_people([row])
    assert (first.created, first.updated) == (1, 0)
    assert first.people[0].password_link is not None
    again = client.import_people([row])
    assert (again.created, again.updated) == (0, 1)
    assert again.people[0].id == first.people[0].id
    link = client.create_password_link(first.people[0].id)
    assert link.user_id == first.people[0].id
    assert link.token != first.people[0].password_link.token


def test_import_problems_are_exceptions(fresh_api, http, world):
    client = admin(fresh_api, http)
    clash = PersonImportRow(name="Clash", email="manager@example.com", type="user",
                            imported_id="C-2")
    with pytest.raises(Conflict) as caught:
        client.import_people([clash])
    assert caught.value.code == "email-in-use"
    wrong = PersonImportRow(name="Wrong", email="wrong@example.org", type="user",
                            imported_id="C-3", team_id=world.ed)
    with pytest.raises(ValidationProblem) as refused:
        client.import_people([wrong])
    assert [e.path for e in refused.value.field_errors] == ["/0/teamId"]
