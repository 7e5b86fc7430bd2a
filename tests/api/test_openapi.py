"""The OpenAPI document at /v1/openapi.json: valid 3.1, complete (every declared endpoint, every
GET of the spec's endpoint index), extensions marked, problems documented as problem+json."""

from __future__ import annotations

import re
from typing import Any

import pytest
from openapi_spec_validator import validate

from app.api import routes
from app.api.routing import ENDPOINTS
from app.contract.problems import REGISTRY

# The GET rows of the endpoint index in /work/shared/spec/api-spec.md.
SPEC_GETS = frozenset({
    "/v1/appointment-types",
    "/v1/appointments",
    "/v1/appointments/{appointmentId}",
    "/v1/employment-types",
    "/v1/employment-types/{id}",
    "/v1/providers",
    "/v1/providers/count",
    "/v1/reporting/reports/runs",
    "/v1/reporting/reports/runs/{reportRunId}",
    "/v1/roles",
    "/v1/roles/{roleId}",
    "/v1/settings/labels",
    "/v1/settings/labels/{labelId}",
    "/v1/settings/pay-codes",
    "/v1/settings/pay-codes/{payCodeId}",
    "/v1/shifts",
    "/v1/shifts/{shiftId}",
    "/v1/teams",
    "/v1/teams/{teamId}",
    "/v1/time-off/policies",
    "/v1/time-off/policies/{policyId}",
    "/v1/time-off/requests",
    "/v1/time-off/requests/{requestId}",
    "/v1/time-off/requests/count",
    "/v1/timekeeping/timecard/{provider}",
    "/v1/timekeeping/timecard/me",
    "/v1/timekeeping/timesheet",
    "/v1/users",
    "/v1/users/{userId}",
})
SPEC_PAGINATED = ("/v1/appointments", "/v1/roles", "/v1/users")
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


@pytest.fixture(scope="module")
def document(api) -> dict[str, Any]:
    response = api.get("/v1/openapi.json", user=None)
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    return response.get_json()


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(METHOD, path, operation) for every operation of the document."""
    return [(method.upper(), path, op) for path, item in document["paths"].items()
            for method, op in item.items() if method in METHODS]


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """A schema with a top-level `$ref` followed."""
    while "$ref" in schema:
        name = schema["$ref"].removeprefix("#/components/schemas/")
        schema = document["components"]["schemas"][name]
    return schema


def problem_alternatives(document: dict[str, Any], schema: dict[str, Any],
                         ) -> list[tuple[str, dict[str, Any]]]:
    """(code, problem schema) for each code a problem response admits (from the `type`
    constants)."""
    alternatives = []
    for alternative in schema.get("oneOf", [schema]):
        problem = resolve(document, alternative)
        alternatives.append((problem["properties"]["type"]["const"].rpartition("#")[2], problem))
    return alternatives


def test_openapi_document_is_valid_openapi_3_1(document):
    assert document["openapi"].startswith("3.1.")
    validate(document)


def test_openapi_document_is_public_and_stable(api, document):
    again = api.get("/v1/openapi.json", user="provider@example.com").get_json()
    assert again == document


def test_openapi_lists_every_declared_endpoint(document):
    for endpoint in ENDPOINTS:
        operation = document["paths"][endpoint.openapi_path][endpoint.method.lower()]
        assert operation["operationId"] == endpoint.name
        assert operation["summary"] == endpoint.summary
        assert operation["tags"] == [endpoint.tag]
    assert len(operations(document)) == len(ENDPOINTS)


def test_openapi_lists_every_api_route_of_the_app(api, document):
    documented = {(m, p) for m, p, _ in operations(document)}
    for rule in api.app.url_map.iter_rules():
        if not rule.rule.startswith("/v1/") or rule.rule in ("/v1/openapi.json", "/v1/errors"):
            continue
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>",
                      lambda m: "{" + re.sub(r"_(.)", lambda c: c.group(1).upper(),
                                             m.group(1)) + "}", rule.rule)
        for method in rule.methods - {"HEAD", "OPTIONS"}:
            assert (method, path) in documented, f"{method} {path} is not in the OpenAPI document"


def test_openapi_lists_every_get_of_the_spec(document):
    missing = sorted(p for p in SPEC_GETS if "get" not in document["paths"].get(p, {}))
    assert missing == []


def test_openapi_marks_every_get_beyond_the_spec_as_extension(document):
    for method, path, operation in operations(document):
        if method != "GET":
            continue
        if path in SPEC_GETS:
            assert "x-shiftdesk-extension" not in operation, path
        else:
            assert operation.get("x-shiftdesk-extension") is True, path


def test_openapi_marks_users_me_as_extension(document):
    assert document["paths"]["/v1/users/me"]["get"]["x-shiftdesk-extension"] is True
    assert "x-shiftdesk-extension" not in document["paths"]["/v1/users"]["get"]


def test_openapi_documents_problems_as_problem_json(document):
    for method, path, operation in operations(document):
        for status, response in operation["responses"].items():
            if int(status) < 400:
                assert "application/problem+json" not in response.get("content", {})
                continue
            assert list(response["content"]) == ["application/problem+json"], (method, path)
            codes = [code for code, _ in problem_alternatives(
                document, response["content"]["application/problem+json"]["schema"])]
            assert codes, (method, path, status)
            for code in codes:
                assert REGISTRY[code].status == int(status), (method, path, code)
                assert f"`{code}`" in response["description"]


def test_openapi_problem_schemas_are_whole_documents_of_their_code(document):
    errors_url = "https://errors.shiftdesk.test/v1/errors"  # make_settings' errors URL
    for _, path, operation in operations(document):
        for status, response in operation["responses"].items():
            if int(status) < 400:
                continue
            schema = response["content"]["application/problem+json"]["schema"]
            for code, problem in problem_alternatives(document, schema):
                assert "allOf" not in problem, (path, code)
                assert problem["properties"]["type"]["const"] == f"{errors_url}#{code}"
                assert problem["properties"]["status"]["const"] == int(status)
                assert {"type", "title", "status", "detail", "instance"} <= set(
                    problem["properties"])
                members = REGISTRY[code].members
                assert set(problem["required"]) == {"type", "title", "status"} | {
                    name for name, kind in members.items() if not kind.endswith("?")}, code
                assert set(members) <= set(problem["properties"]), code


def test_openapi_types_the_field_errors_of_validation(document):
    validation = document["components"]["schemas"]["ValidationProblem"]
    assert validation["properties"]["errors"]["items"] == {
        "$ref": "#/components/schemas/FieldError"}
    assert document["components"]["schemas"]["FieldError"]["required"] == ["path", "message"]


def test_openapi_names_a_contact(document):
    assert document["info"]["contact"]["name"]


def test_openapi_problem_types_follow_the_errors_url_the_problems_carry(api):
    response = api.get("/v1/appointments/00000000-0000-4000-8000-000000000000")
    sent = response.get_json()["type"]
    document = api.get("/v1/openapi.json", user=None).get_json()
    assert document["components"]["schemas"]["AppointmentNotFoundProblem"]["properties"][
        "type"]["const"] == sent


def test_openapi_documents_authentication_and_authorization_problems(document):
    assert document["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"
    assert document["security"] == [{"bearer": []}]
    for method, path, operation in operations(document):
        if operation.get("security") == []:
            continue
        assert "unauthenticated" in codes_of(document, operation, "401"), (method, path)
        assert "unauthorized" in codes_of(document, operation, "403"), (method, path)


def codes_of(document: dict[str, Any], operation: dict[str, Any], status: str) -> list[str]:
    response = operation["responses"].get(status)
    if response is None:
        return []
    return [code for code, _ in problem_alternatives(
        document, response["content"]["application/problem+json"]["schema"])]


def test_openapi_documents_validation_where_input_is_parsed(document):
    for method, path, operation in operations(document):
        if operation["parameters"] or "requestBody" in operation:
            assert "validation" in codes_of(document, operation, "400"), (method, path)
        if "requestBody" in operation:
            assert "unsupported-media-type" in codes_of(document, operation, "415"), (method, path)
            assert "payload-too-large" in codes_of(document, operation, "413"), (method, path)
        if method != "GET" and operation["operationId"] not in (
                "search_appointment_slots", "dry_run_permission"):
            # Every write refuses in maintenance mode; slot search and a permission's dry run
            # are reads sent as POST.
            assert "maintenance-mode" in codes_of(document, operation, "503"), (method, path)


def test_openapi_documents_not_found_for_every_item_path(document):
    for method, path, operation in operations(document):
        if method == "GET" and re.search(r"/\{[^}]+\}$", path):
            assert any(c.endswith("-not-found") for c in codes_of(document, operation, "404")), path


def test_openapi_marks_extension_problem_codes(document):
    for _, path, operation in operations(document):
        for status, response in operation["responses"].items():
            if int(status) < 400:
                continue
            schema = response["content"]["application/problem+json"]["schema"]
            for code, problem in problem_alternatives(document, schema):
                marked = problem.get("x-shiftdesk-extension") is True
                assert marked == REGISTRY[code].extension, (path, code)


@pytest.mark.parametrize("path", SPEC_PAGINATED)
def test_openapi_documents_pagination_of_paginated_lists(document, path):
    operation = document["paths"][path]["get"]
    parameters = {p["name"]: p for p in operation["parameters"]}
    page_size = parameters["pageSize"]["schema"]
    assert (page_size["minimum"], page_size["maximum"], page_size["default"]) == (1, 200, 20)
    assert parameters["pageSize"]["in"] == "query"
    assert parameters["cursor"]["in"] == "query"
    page = resolve(document, operation["responses"]["200"]["content"]["application/json"][
        "schema"])
    assert page["required"] == ["items"]
    assert {"items", "cursor"} == set(page["properties"])


def test_openapi_declares_uuid_path_parameters(document):
    for method, path, operation in operations(document):
        for parameter in operation["parameters"]:
            if parameter["in"] == "path" and parameter["name"].lower().endswith("id"):
                assert parameter["schema"] == {"type": "string", "format": "uuid"}, (method, path)
                assert parameter["required"] is True


def _path_parameter_cases() -> list[Any]:
    routes.load()
    return [pytest.param(e.openapi_path, name, id=f"{e.openapi_path}:{name}")
            for e in sorted(ENDPOINTS, key=lambda e: e.openapi_path) if e.method == "GET"
            for name in re.findall(r"\{([^}]+)\}", e.openapi_path)]


@pytest.mark.parametrize(("path", "name"), _path_parameter_cases())
def test_openapi_declares_a_uuid_path_parameter_where_the_api_requires_one(api, document, path,
                                                                          name):
    url = re.sub(r"\{([^}]+)\}", lambda m: "not-a-uuid" if m.group(1) == name
                 else "00000000-0000-4000-8000-000000000000", path)
    response = api.get(url)
    requires_uuid = response.status_code == 400 and response.get_json().get("path") == name
    (parameter,) = [p for p in document["paths"][path]["get"]["parameters"] if p["name"] == name]
    assert (parameter["schema"].get("format") == "uuid") == requires_uuid


def test_a_sign_off_refusal_documents_each_blocking_item(document):
    problem = document["components"]["schemas"]["TimesheetNotReadyProblem"]
    items = resolve(document, problem["properties"]["blocking"]["items"])
    assert {"providerId", "type", "punchId", "shiftId"} <= set(items["properties"])
    assert {"providerId", "type"} <= set(items["required"])
