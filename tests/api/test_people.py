"""Reading people through /v1: roles, employment types and providers — fields, filters, pages,
visibility and the number of SQL statements a page costs."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from app.api import models as m
from tests.factories import make_provider, uid

ROLES = "/v1/roles"
EMPLOYMENT_TYPES = "/v1/employment-types"
PROVIDERS = "/v1/providers"
COUNT = "/v1/providers/count"
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$")

ROLE_FIELDS = {"id", "createdAt", "name", "team", "teamName", "hexColor"}
EMPLOYMENT_TYPE_FIELDS = {"id", "name", "type", "compensationTimePeriod", "amountWorked",
                          "createdAt", "updatedAt"}
PROVIDER_FIELDS = {
    "id", "name", "email", "hireDate", "jobTitle", "status", "teamId", "licensedRegions",
    "employmentType", "payPeriodTemplate", "importedId", "lastSyncedAt", "personalInfo",
    "dailyHours", "minWeeklyHours", "maxWeeklyHours", "region", "nationalProviderIdentifier",
    "additionalInfo", "customFields",
    # Provider with relations:
    "enrollments", "skills", "skillLicensedRegion", "skillEnrollment", "manager", "team",
    "roles",  # extension: the roles the provider holds
}

ED_ACTIVE = ["Dana Doctor", "Ed Nurse 1", "Ed Nurse 2", "Ed Nurse 3", "Pat Provider"]
ICU_ACTIVE = ["Icu Nurse 1", "Icu Nurse 2", "Ivy Icu"]
ACTIVE = sorted(ED_ACTIVE + ICU_ACTIVE)


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


def assert_validation(response: Any, path: str) -> None:
    """Assert a 400 `validation` problem about `path`."""
    assert response.status_code == 400, response.get_json()
    assert problem_code(response) == "validation"
    assert response.get_json()["path"] == path


def items(response: Any) -> list[dict[str, Any]]:
    """The items of a page, asserting the page came back."""
    assert response.status_code == 200, response.get_json()
    return response.get_json()["items"]


def names(response: Any) -> list[str]:
    """Names of a page's items."""
    return [item["name"] for item in items(response)]


def flat(pages: list[list[dict[str, Any]]]) -> list[str]:
    """Ids of every item of a walk, in order."""
    return [item["id"] for page in pages for item in page]


def first_cursor(api: Any, path: str, **query: Any) -> str:
    """The cursor after the first item of a list."""
    response = api.get(path, query_string={"pageSize": 1, **query})
    assert response.status_code == 200, response.get_json()
    cursor = response.get_json()["cursor"]
    assert cursor
    return cursor


# Roles -------------------------------------------------------------------------------------------


def test_list_roles_returns_spec_fields_with_team_names(api, world):
    roles = items(api.get(ROLES))
    assert [r["name"] for r in roles] == ["Physician", "Registered Nurse", "Registered Nurse"]
    for role in roles:
        assert set(role) == ROLE_FIELDS
        assert TIMESTAMP.match(role["createdAt"])
    by_id = {r["id"]: r for r in roles}
    assert by_id[str(world.icu_nurse_role)]["team"] == str(world.icu)
    assert by_id[str(world.icu_nurse_role)]["teamName"] == "Intensive Care"
    assert by_id[str(world.icu_nurse_role)]["hexColor"] == "#2CA02C"
    assert by_id[str(world.ed_doctor_role)]["teamName"] == "Emergency"


def test_list_roles_filters_by_team(api, world):
    roles = items(api.get(ROLES, query_string={"team": str(world.ed)}))
    assert sorted(r["id"] for r in roles) == sorted([str(world.ed_nurse_role),
                                                     str(world.ed_doctor_role)])
    assert {r["team"] for r in roles} == {str(world.ed)}


def test_list_roles_returns_empty_page_when_team_is_unknown(api):
    response = api.get(ROLES, query_string={"team": str(uuid.uuid4())})
    assert response.get_json() == {"items": [], "cursor": None}


def test_list_roles_rejects_malformed_team(api):
    assert_validation(api.get(ROLES, query_string={"team": "ward-3"}), "team")


@pytest.mark.parametrize("user", ["provider@example.com", "scheduler@example.com",
                                  "bot@example.com"])
def test_list_roles_answers_any_signed_in_user(api, user):
    assert len(items(api.get(ROLES, user=user))) == 3


def test_get_role_returns_role(api, world):
    response = api.get(f"{ROLES}/{world.ed_nurse_role}", user="provider@example.com")
    assert response.status_code == 200
    body = response.get_json()
    assert TIMESTAMP.match(body.pop("createdAt"))
    assert body == {"id": str(world.ed_nurse_role), "name": "Registered Nurse",
                    "team": str(world.ed), "teamName": "Emergency", "hexColor": "#1F77B4"}


# Employment types --------------------------------------------------------------------------------


def test_list_employment_types_returns_spec_fields(api):
    types = items(api.get(EMPLOYMENT_TYPES, user="provider@example.com"))
    assert [t["name"] for t in types] == ["Full-time staff", "Per diem"]
    for kind in types:
        assert set(kind) == EMPLOYMENT_TYPE_FIELDS
        assert TIMESTAMP.match(kind["createdAt"])
        assert TIMESTAMP.match(kind["updatedAt"])
    assert types[1] | {"createdAt": None, "updatedAt": None} == {
        "id": str(uid("et:pd")), "name": "Per diem", "type": "contractor",
        "compensationTimePeriod": "hourly", "amountWorked": "temporary",
        "createdAt": None, "updatedAt": None,
    }


def test_list_employment_types_walks_pages(api):
    pages = api.walk(EMPLOYMENT_TYPES, page_size=1)
    assert flat(pages) == [str(uid("et:ft")), str(uid("et:pd"))]


def test_get_employment_type_returns_type(api):
    response = api.get(f"{EMPLOYMENT_TYPES}/{uid('et:ft')}", user="manager@example.com")
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == EMPLOYMENT_TYPE_FIELDS
    assert (body["type"], body["compensationTimePeriod"], body["amountWorked"]) == (
        "employee", "hourly", "full_time")


# Not found and malformed ids ---------------------------------------------------------------------


@pytest.mark.parametrize(("path", "code"), [
    (ROLES, "role-not-found"),
    (EMPLOYMENT_TYPES, "employment-type-not-found"),
    (PROVIDERS, "provider-not-found"),
])
def test_get_answers_not_found_when_id_is_unknown(api, path, code):
    missing = uuid.uuid4()
    response = api.get(f"{path}/{missing}")
    assert response.status_code == 404
    assert problem_code(response) == code
    assert str(missing) in response.get_json()["detail"]


@pytest.mark.parametrize(("path", "parameter"), [
    (ROLES, "roleId"),
    (EMPLOYMENT_TYPES, "id"),
    (PROVIDERS, "providerId"),
])
def test_get_rejects_malformed_id(api, path, parameter):
    assert_validation(api.get(f"{path}/not-a-uuid"), parameter)


@pytest.mark.parametrize("path", [ROLES, f"{ROLES}/{uid('role:Emergency:Physician')}",
                                  EMPLOYMENT_TYPES, PROVIDERS, COUNT])
def test_reads_require_sign_in(api, path):
    response = api.get(path, user=None)
    assert response.status_code == 401
    assert problem_code(response) == "unauthenticated"


# Providers: fields -------------------------------------------------------------------------------


def test_list_providers_returns_provider_with_relations(api, world):
    found = items(api.get(PROVIDERS, query_string={"name": "Pat"}))
    assert len(found) == 1
    pat = found[0]
    assert set(pat) == PROVIDER_FIELDS
    assert pat == {
        "id": str(world.provider),
        "name": "Pat Provider",
        "email": "provider@example.com",
        "hireDate": None,
        "jobTitle": "Registered Nurse",
        "status": "active",
        "teamId": str(world.ed),
        "licensedRegions": ["NY"],
        "employmentType": str(uid("et:ft")),
        "payPeriodTemplate": {"type": "biweekly", "startDate": "2026-02-23T05:00:00+0000"},
        "importedId": None,
        "lastSyncedAt": None,
        "personalInfo": None,
        "dailyHours": None,
        "minWeeklyHours": None,
        "maxWeeklyHours": None,
        "region": None,
        "nationalProviderIdentifier": None,
        "additionalInfo": None,
        "customFields": {},
        "enrollments": [],
        "skills": [{"skillName": "certification", "values": ["ACLS"]},
                   {"skillName": "language", "values": ["Spanish"]}],
        "skillLicensedRegion": ["NY"],
        "skillEnrollment": [],
        "manager": {"id": str(world.manager), "name": "Morgan Manager"},
        "team": {"id": str(world.ed), "name": "Emergency", "shorthandName": "ED"},
        "roles": [{"id": str(world.ed_nurse_role), "name": "Registered Nurse"}],
    }


def test_list_providers_gives_null_employment_type_when_none(api):
    found = items(api.get(PROVIDERS, query_string={"name": "Icu Nurse 1"}))
    assert [p["name"] for p in found] == ["Icu Nurse 1"]
    assert found[0]["employmentType"] is None
    assert found[0]["skills"] == []
    assert found[0]["manager"]["id"] == str(uid("user:icu.manager@example.com"))


def test_get_provider_shows_enrollments_timestamps_and_nulls(fresh_api):
    with fresh_api.db.unit_of_work(write=True) as session:
        floater = make_provider(session, "floater@example.com", None, "Flo Floater",
                                licensed_regions=["NJ", "NY"], custom_fields=None,
                                pay_period_template=None,
                                hire_date=datetime(2024, 1, 15, 13, 30, 5, tzinfo=UTC),
                                skills={"licensed_region": ["NJ"], "language": ["Polish", "Czech"]})
        floater.enrollments = [m.Enrollment(name="Medicaid"), m.Enrollment(name="Aetna")]
        floater.name = None  # the spec allows a provider without a name
        floater_id = floater.id
    response = fresh_api.get(f"{PROVIDERS}/{floater_id}")
    assert response.status_code == 200, response.get_json()
    body = response.get_json()
    assert set(body) == PROVIDER_FIELDS
    assert body["name"] is None
    assert body["hireDate"] == "2024-01-15T13:30:05+0000"
    assert body["teamId"] is None
    assert body["team"] is None
    assert body["manager"] is None
    assert body["payPeriodTemplate"] is None
    assert body["customFields"] == {}
    assert [e["name"] for e in body["enrollments"]] == ["Aetna", "Medicaid"]
    assert all(set(e) == {"id", "name"} for e in body["enrollments"])
    assert body["skillEnrollment"] == ["Aetna", "Medicaid"]
    assert body["skillLicensedRegion"] == ["NJ", "NY"]
    assert body["skills"] == [{"skillName": "language", "values": ["Czech", "Polish"]},
                              {"skillName": "licensed_region", "values": ["NJ"]}]


def test_get_provider_is_marked_as_extension_in_openapi(api):
    paths = api.get("/v1/openapi.json").get_json()["paths"]
    assert paths["/v1/providers/{providerId}"]["get"]["x-shiftdesk-extension"] is True
    assert "x-shiftdesk-extension" not in paths["/v1/providers"]["get"]
    assert "x-shiftdesk-extension" not in paths["/v1/providers/count"]["get"]
    assert "/v1/employment-types/{id}" in paths


# Providers: filters ------------------------------------------------------------------------------


def test_list_providers_defaults_to_onboarding_and_active(api):
    assert names(api.get(PROVIDERS)) == ACTIVE


def test_list_providers_filters_by_status(api):
    assert names(api.get(PROVIDERS, query_string={"status": "dismissed"})) == ["Gone Away"]
    both = names(api.get(PROVIDERS, query_string={"status": "active,dismissed"}))
    assert both == sorted([*ACTIVE, "Gone Away"])
    repeated = names(api.get(PROVIDERS, query_string=[("status", "active"),
                                                      ("status", "dismissed")]))
    assert repeated == both
    assert names(api.get(PROVIDERS, query_string={"status": "onboarding"})) == []


def test_list_providers_rejects_unknown_status(api):
    assert_validation(api.get(PROVIDERS, query_string={"status": "retired"}), "status")


def test_list_providers_filters_by_team(api, world):
    assert names(api.get(PROVIDERS, query_string={"teamId": str(world.icu)})) == ICU_ACTIVE
    found = items(api.get(PROVIDERS, query_string={"teamId": str(world.ed)}))
    assert {p["teamId"] for p in found} == {str(world.ed)}
    assert [p["name"] for p in found] == ED_ACTIVE


def test_list_providers_rejects_malformed_team_id(api):
    assert_validation(api.get(PROVIDERS, query_string={"teamId": "ER"}), "teamId")


@pytest.mark.parametrize("text", ["nurse", "NURSE", "NuRsE", "urse "])
def test_list_providers_matches_name_case_insensitively_and_partially(api, text):
    expected = ["Ed Nurse 1", "Ed Nurse 2", "Ed Nurse 3", "Icu Nurse 1", "Icu Nurse 2"]
    assert names(api.get(PROVIDERS, query_string={"name": text})) == expected


@pytest.mark.parametrize("text", ["%", "_", "Ed_Nurse", "Ed%Nurse", "\\"])
def test_list_providers_takes_name_wildcards_literally(api, text):
    assert names(api.get(PROVIDERS, query_string={"name": text})) == []


def test_list_providers_finds_names_containing_wildcards(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as session:
        team = session.get(m.Team, world.ed)
        make_provider(session, "pool@example.com", team, "Float_Pool 100%")
        make_provider(session, "poolx@example.com", team, "FloatXPool 1000")
    assert names(fresh_api.get(PROVIDERS, query_string={"name": "t_p"})) == ["Float_Pool 100%"]
    assert names(fresh_api.get(PROVIDERS, query_string={"name": "0%"})) == ["Float_Pool 100%"]


def test_list_providers_rejects_name_longer_than_50(api):
    assert names(api.get(PROVIDERS, query_string={"name": "x" * 50})) == []
    assert_validation(api.get(PROVIDERS, query_string={"name": "x" * 51}), "name")


@pytest.mark.parametrize("query", [
    {},
    {"status": "active,dismissed"},
    {"status": "dismissed"},
    {"name": "nurse"},
    {"teamId": str(uid("team:Intensive Care"))},
    {"teamId": str(uid("team:Emergency")), "status": "active,dismissed", "name": "a"},
])
@pytest.mark.parametrize("user", ["admin@example.com", "manager@example.com",
                                  "provider@example.com"])
def test_count_providers_matches_walked_list(api, query, user):
    walked = flat(api.walk(PROVIDERS, page_size=2, query_string=query, user=user))
    response = api.get(COUNT, query_string=query, user=user)
    assert response.status_code == 200
    assert response.get_json() == {"count": len(walked)}


def test_count_providers_rejects_bad_filters(api):
    assert_validation(api.get(COUNT, query_string={"status": "gone"}), "status")
    assert_validation(api.get(COUNT, query_string={"name": "y" * 51}), "name")


# Providers: visibility ---------------------------------------------------------------------------


def test_list_providers_shows_a_provider_only_themself(api, world):
    found = items(api.get(PROVIDERS, user="provider@example.com",
                          query_string={"status": "onboarding,active,dismissed,unmanaged"}))
    assert [p["id"] for p in found] == [str(world.provider)]
    count = api.get(COUNT, user="provider@example.com").get_json()
    assert count == {"count": 1}


def test_list_providers_shows_a_manager_exactly_their_team(api, world):
    found = items(api.get(PROVIDERS, user="manager@example.com",
                          query_string={"status": "active,dismissed", "pageSize": 200}))
    assert [p["name"] for p in found] == sorted([*ED_ACTIVE, "Gone Away"])
    assert {p["teamId"] for p in found} == {str(world.ed)}
    other_team = api.get(PROVIDERS, user="manager@example.com",
                         query_string={"teamId": str(world.icu)})
    assert items(other_team) == []


def test_list_providers_shows_a_scheduler_everyone(api):
    assert names(api.get(PROVIDERS, user="scheduler@example.com")) == ACTIVE


def test_get_provider_lets_a_provider_read_themself(api, world):
    response = api.get(f"{PROVIDERS}/{world.provider}", user="provider@example.com")
    assert response.status_code == 200
    assert response.get_json()["email"] == "provider@example.com"


@pytest.mark.parametrize(("user", "other"), [
    ("provider@example.com", uid("user:doctor@example.com")),
    ("manager@example.com", uid("user:icu.nurse@example.com")),
])
def test_get_provider_refuses_providers_the_caller_may_not_view(api, user, other):
    response = api.get(f"{PROVIDERS}/{other}", user=user)
    assert response.status_code == 403
    assert problem_code(response) == "unauthorized"
    body = response.get_json()
    assert (body["action"], body["resource"]) == ("view", "Provider")


def test_get_provider_lets_a_manager_read_their_team(api, world):
    response = api.get(f"{PROVIDERS}/{world.doctor}", user="manager@example.com")
    assert response.status_code == 200
    assert response.get_json()["name"] == "Dana Doctor"


# Pagination --------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [ROLES, PROVIDERS, EMPLOYMENT_TYPES])
@pytest.mark.parametrize("size", [1, 2, 3])
def test_walk_returns_every_item_once_in_order(api, path, size):
    everything = flat(api.walk(path, page_size=200))
    pages = api.walk(path, page_size=size)
    walked = flat(pages)
    assert walked == everything
    assert len(set(walked)) == len(walked)
    assert all(len(page) == size for page in pages[:-1])
    assert 1 <= len(pages[-1]) <= size or (len(pages) == 1 and not everything)


def test_walk_keeps_filters_across_pages(api, world):
    query = {"teamId": str(world.ed), "status": "active,dismissed"}
    walked = api.walk(PROVIDERS, page_size=2, query_string=query)
    assert [p["name"] for page in walked for p in page] == sorted([*ED_ACTIVE, "Gone Away"])


def test_walk_lists_providers_without_a_name_last(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as session:
        team = session.get(m.Team, world.ed)
        for email in ("nameless@example.com", "nameless2@example.com"):
            make_provider(session, email, team, "Placeholder").name = None
    everything = flat(fresh_api.walk(PROVIDERS, page_size=200))
    assert len(everything) == len(ACTIVE) + 2
    assert set(everything[-2:]) == {str(uid("user:nameless@example.com")),
                                    str(uid("user:nameless2@example.com"))}
    for size in (1, 2, 3):
        assert flat(fresh_api.walk(PROVIDERS, page_size=size)) == everything


def test_last_page_has_null_cursor(api):
    body = api.get(ROLES, query_string={"pageSize": 3}).get_json()
    assert len(body["items"]) == 3
    assert body["cursor"] is None
    body = api.get(PROVIDERS, query_string={"pageSize": 7}).get_json()
    assert isinstance(body["cursor"], str)


@pytest.mark.parametrize("path", [ROLES, PROVIDERS, EMPLOYMENT_TYPES])
@pytest.mark.parametrize("size", ["0", "201", "-1", "ten"])
def test_list_rejects_page_size_out_of_range(api, path, size):
    assert_validation(api.get(path, query_string={"pageSize": size}), "pageSize")


@pytest.mark.parametrize("path", [ROLES, PROVIDERS])
def test_list_rejects_tampered_cursor(api, path):
    cursor = first_cursor(api, path)
    tampered = cursor[:5] + ("A" if cursor[5] != "A" else "B") + cursor[6:]
    assert_validation(api.get(path, query_string={"cursor": tampered}), "cursor")
    assert_validation(api.get(path, query_string={"cursor": "garbage"}), "cursor")


@pytest.mark.parametrize(("source", "target"), [
    (ROLES, PROVIDERS), (PROVIDERS, ROLES), (EMPLOYMENT_TYPES, ROLES),
])
def test_list_rejects_cursor_of_another_list(api, source, target):
    cursor = first_cursor(api, source)
    assert_validation(api.get(target, query_string={"cursor": cursor}), "cursor")


def test_list_providers_rejects_cursor_reused_with_other_filters(api, world):
    cursor = first_cursor(api, PROVIDERS, teamId=str(world.ed))
    ok = api.get(PROVIDERS, query_string={"cursor": cursor, "teamId": str(world.ed)})
    assert ok.status_code == 200
    for query in ({"teamId": str(world.icu)}, {}, {"teamId": str(world.ed), "name": "e"},
                  {"teamId": str(world.ed), "status": "dismissed"}):
        response = api.get(PROVIDERS, query_string={"cursor": cursor, **query})
        assert_validation(response, "cursor")


def test_list_roles_rejects_cursor_reused_with_other_team(api, world):
    cursor = first_cursor(api, ROLES, team=str(world.ed))
    assert_validation(api.get(ROLES, query_string={"cursor": cursor}), "cursor")


# Cost --------------------------------------------------------------------------------------------


def test_list_providers_costs_the_same_statements_whatever_the_page_size(api):
    api.get(PROVIDERS)  # warm up anything done once per app
    with api.count_queries() as small:
        first = api.get(PROVIDERS, query_string={"pageSize": 2})
    with api.count_queries() as large:
        every = api.get(PROVIDERS, query_string={"pageSize": 50})
    with api.count_queries() as later:
        api.get(PROVIDERS, query_string={"pageSize": 2, "cursor": first.get_json()["cursor"]})
    assert len(items(first)) == 2
    assert len(items(every)) == len(ACTIVE)
    assert len(small) == len(large) == len(later), (small, large)


def test_list_roles_costs_the_same_statements_whatever_the_page_size(api):
    api.get(ROLES)
    with api.count_queries() as small:
        api.get(ROLES, query_string={"pageSize": 1})
    with api.count_queries() as large:
        api.get(ROLES, query_string={"pageSize": 50})
    assert len(small) == len(large)
