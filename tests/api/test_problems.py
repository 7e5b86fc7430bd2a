"""Problem details under /v1: unknown routes, wrong methods, bodies that are not JSON or too large,
query and path validation, never an HTML page, and the /v1/errors page that every `type` names."""

from __future__ import annotations

import os
import re
import uuid
from html.parser import HTMLParser
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from app import create_app
from app.api import models as m
from app.api import routes
from app.api.routing import ENDPOINTS, Endpoint
from app.contract.problems import REGISTRY
from tests.conftest import Api, make_settings

ERRORS_URL = "https://errors.shiftdesk.test/v1/errors"
RFC_9457 = {"type", "title", "status", "detail", "instance"}

routes.load()
BODY_ENDPOINTS = [e for e in ENDPOINTS if e.body is not None]
"""Every endpoint that reads a JSON body; the body checks below run against each of them."""


def assert_problem(response: Any, status: int, code: str, path: str) -> dict[str, Any]:
    """Assert a complete problem document of `code` for a request to `path`; return it."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    body = response.get_json()
    assert set(body) >= RFC_9457
    assert body["type"] == f"{ERRORS_URL}#{code}"
    assert body["title"] == REGISTRY[code].title
    assert body["status"] == status
    assert isinstance(body["detail"], str)
    assert body["detail"]
    assert body["instance"] == path
    return body


def concrete(endpoint: Endpoint) -> str:
    """The endpoint's path with every path parameter filled with a fresh UUID."""
    return re.sub(r"\{[^}]+\}", lambda _: str(uuid.uuid4()), endpoint.openapi_path)


ADDRESSED = {
    "appointmentId": m.Appointment, "appointmentTypeId": m.AppointmentType,
    "labelId": m.Label, "permissionId": m.Permission, "shiftId": m.Shift,
    "requestId": m.TimeOffRequest, "punchId": m.TimecardPunch,
    "overtimeRuleId": m.OvertimeRule, "roundingRuleId": m.RoundingRule,
    "workRuleId": m.WorkRule, "teamId": m.Team,
    "policyId": m.TimeOffPolicy,
    "availabilityId": m.Availability, "exceptionId": m.AvailabilityException,
    "notificationId": m.Notification,
    "listingId": m.ShiftSwapListing, "applicationId": m.ShiftSwapApplication,
}
"""The objects the path parameters of body endpoints name."""


def addressed(api: Api, endpoint: Endpoint) -> str:
    """The endpoint's path naming objects that exist, so that the body is what gets checked
    (an unknown object answers 404 whatever the body)."""
    def existing(match: re.Match[str]) -> str:
        with api.db.unit_of_work() as session:
            return str(session.scalars(select(ADDRESSED[match.group(1)].id).limit(1)).one())

    return re.sub(r"\{([^}]+)\}", existing, endpoint.openapi_path)


# --- unknown routes and wrong methods -------------------------------------------------------

@pytest.mark.parametrize("path", ["/v1/does/not/exist", "/v1", "/v1/", "/v1/teams/",
                                  "/v1/teams/x/members", "/v1/%E2%9C%93"])
def test_unknown_route_answers_route_not_found(api, path):
    response = api.get(path)
    body = assert_problem(response, 404, "route-not-found", response.request.path)
    assert "/v1/openapi.json" in body["detail"]


def test_unknown_route_answers_problem_even_when_html_is_accepted(api):
    response = api.get("/v1/does/not/exist", headers={"Accept": "text/html"})
    assert_problem(response, 404, "route-not-found", "/v1/does/not/exist")


def test_unknown_route_answers_problem_without_a_token(api):
    response = api.get("/v1/does/not/exist", user=None)
    assert_problem(response, 404, "route-not-found", "/v1/does/not/exist")


@pytest.mark.parametrize("method", ["HEAD", "OPTIONS"])
def test_unknown_route_answers_problem_status_for_head_and_options(api, method):
    response = api.request(method, "/v1/does/not/exist")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"


def test_head_of_a_list_answers_like_get_without_body(api):
    response = api.request("HEAD", "/v1/teams")
    assert response.status_code == 200
    assert response.mimetype == "application/json"
    assert response.data == b""


def test_options_of_a_list_lists_methods_without_html(api):
    response = api.request("OPTIONS", "/v1/teams")
    assert response.status_code == 200
    assert {m.strip() for m in response.headers["Allow"].split(",")} >= {"GET", "OPTIONS"}
    assert response.data == b""


@pytest.mark.parametrize(("method", "path"), [
    ("DELETE", "/v1/teams"),
    ("POST", "/v1/users"),
    ("PUT", "/v1/users/me"),
    ("PATCH", "/v1/openapi.json"),
])
def test_wrong_method_answers_method_not_allowed_with_allow(api, method, path):
    response = api.request(method, path)
    body = assert_problem(response, 405, "method-not-allowed", path)
    allowed = [m.strip() for m in response.headers["Allow"].split(",")]
    assert "GET" in allowed
    assert method not in allowed
    assert body["allowed"] == allowed
    assert method in body["detail"]


def test_wrong_method_on_an_item_answers_method_not_allowed(api, world):
    path = f"/v1/teams/{world.ed}"
    response = api.request("DELETE", path)
    assert_problem(response, 405, "method-not-allowed", path)


def test_non_api_path_answers_html_not_problem(api):
    response = api.get("/v1x/teams", headers={"Accept": "application/json"})
    assert response.status_code == 404
    assert response.mimetype != "application/problem+json"


# --- bodies ---------------------------------------------------------------------------------

@pytest.mark.parametrize("endpoint", BODY_ENDPOINTS, ids=lambda e: e.name)
@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded",
                                          "multipart/form-data; boundary=x", None])
def test_write_answers_unsupported_media_type_when_body_is_not_json(api, endpoint, content_type):
    path = addressed(api, endpoint)
    response = api.request(endpoint.method, path, data='{"name": "x"}',
                           content_type=content_type)
    body = assert_problem(response, 415, "unsupported-media-type", path)
    assert "application/json" in body["detail"]


@pytest.mark.parametrize("endpoint", BODY_ENDPOINTS, ids=lambda e: e.name)
@pytest.mark.parametrize("data", ['{"name": ', "", "   ", "nope", b"\xff\xfe{}", "{'a': 1}"],
                         ids=["truncated", "empty", "blank", "bare-word", "not-utf8", "quotes"])
def test_write_answers_validation_at_root_when_json_is_malformed(api, endpoint, data):
    path = addressed(api, endpoint)
    response = api.request(endpoint.method, path, data=data, content_type="application/json")
    body = assert_problem(response, 400, "validation", path)
    assert body["path"] == "/"
    assert body["errors"] == [{"path": "/", "message": body["message"]}]


@pytest.mark.parametrize("endpoint", [e for e in BODY_ENDPOINTS if e.path_params],
                         ids=lambda e: e.name)
@pytest.mark.parametrize(("data", "content_type"), [
    ('{"name": ', "application/json"),
    ("", "application/json"),
    ('{"version": "one", "colour": 5}', "application/json"),
    ('{"name": "x"}', "text/plain"),
], ids=["truncated", "empty", "invalid", "not-json"])
def test_write_answers_not_found_for_an_unknown_object_whatever_the_body(api, endpoint, data,
                                                                        content_type):
    # The path's object's code comes first (a body may name other objects that do not exist).
    code = next(c for c in endpoint.codes if c.endswith("-not-found"))
    path = concrete(endpoint)
    response = api.request(endpoint.method, path, data=data, content_type=content_type)
    assert_problem(response, 404, code, path)


@pytest.mark.parametrize("endpoint", BODY_ENDPOINTS, ids=lambda e: e.name)
@pytest.mark.parametrize("data", ["[" * 100_000 + "]" * 100_000, '{"a":' * 40 + "1" + "}" * 40,
                                  "[" * 33 + "]" * 33],
                         ids=["thousands-deep", "objects-40-deep", "arrays-33-deep"])
def test_write_answers_validation_for_a_body_nested_too_deep(api, endpoint, data):
    path = addressed(api, endpoint)
    response = api.request(endpoint.method, path, data=data, content_type="application/json")
    body = assert_problem(response, 400, "validation", path)
    assert body["path"] == "/"
    assert "deeper than 32 levels" in body["message"]
    anonymous = api.request(endpoint.method, path, user=None, data=data,
                            content_type="application/json")
    assert_problem(anonymous, 401, "unauthenticated", path)


@pytest.mark.parametrize("endpoint", BODY_ENDPOINTS, ids=lambda e: e.name)
@pytest.mark.parametrize(("data", "where"), [
    ('{"note": "night\\u0000shift"}', "/note"),
    ('{"items": [{"a": 1}, {"b": ["x", "\\u0000"]}]}', "/items/1/b/1"),
    ('{"a/b": {"c\\u0000": 1}}', "/a~1b"),
], ids=["in-a-value", "deep-in-a-list", "in-a-key"])
def test_write_answers_validation_for_a_nul_character_anywhere_in_the_body(api, endpoint, data,
                                                                          where):
    """PostgreSQL cannot keep NUL in text: it is refused with the place it was found, before
    the body's own checks, on both databases."""
    path = addressed(api, endpoint)
    response = api.request(endpoint.method, path, data=data, content_type="application/json")
    body = assert_problem(response, 400, "validation", path)
    assert body["path"] == where
    assert "NUL" in body["message"]


@pytest.mark.parametrize("endpoint", [e for e in BODY_ENDPOINTS if e.path_params],
                         ids=lambda e: e.name)
def test_write_answers_unauthenticated_before_not_found(api, endpoint):
    path = concrete(endpoint)
    response = api.request(endpoint.method, path, user=None, data="{}",
                           content_type="application/json")
    assert_problem(response, 401, "unauthenticated", path)


@pytest.mark.parametrize("endpoint", BODY_ENDPOINTS, ids=lambda e: e.name)
def test_write_answers_payload_too_large_beyond_the_limit(fresh_api, endpoint):
    app = create_app(make_settings(fresh_api.db.url, fresh_api.settings.signing_key_path,
                                   max_body_bytes=256))
    small = Api(app, fresh_api.world, fresh_api.backend)
    path = concrete(endpoint)
    try:
        response = small.request(endpoint.method, path, data='{"name": "' + "x" * 300 + '"}',
                                 content_type="application/json")
        body = assert_problem(response, 413, "payload-too-large", path)
        assert body["maxBytes"] == 256
        assert "256" in body["detail"]
    finally:
        app.extensions["shiftdesk"].db.dispose()


# --- query and path validation --------------------------------------------------------------

def test_query_validation_reports_every_failure(api):
    response = api.get("/v1/users", query_string={"pageSize": 0, "type": "robot",
                                                  "name": "x" * 51})
    body = assert_problem(response, 400, "validation", "/v1/users")
    paths = [e["path"] for e in body["errors"]]
    assert sorted(paths) == ["name", "pageSize", "type"]
    assert body["path"] == paths[0]
    assert body["message"] == body["errors"][0]["message"]
    assert all(e["message"] for e in body["errors"])


@pytest.mark.parametrize(("query", "path"), [
    ({"pageSize": "many"}, "pageSize"),
    ({"pageSize": 201}, "pageSize"),
    ({"pageSize": -1}, "pageSize"),
    ({"status": "retired"}, "status"),
    ({"type": "user,android"}, "type"),
    ({"cursor": "x" * 2001}, "cursor"),
    ({"cursor": "not-a-cursor"}, "cursor"),
])
def test_query_validation_names_the_parameter(api, query, path):
    response = api.get("/v1/users", query_string=query)
    body = assert_problem(response, 400, "validation", "/v1/users")
    assert body["path"] == path
    assert [e["path"] for e in body["errors"]] == [path]


def test_query_validation_refuses_a_cursor_of_another_list(api):
    first = api.get("/v1/users", query_string={"pageSize": 1}).get_json()
    assert first["cursor"]
    response = api.get("/v1/teams", query_string={"cursor": first["cursor"]})
    body = assert_problem(response, 400, "validation", "/v1/teams")
    assert body["path"] == "cursor"


def test_query_validation_refuses_a_cursor_with_other_filters(api):
    first = api.get("/v1/users", query_string={"pageSize": 1}).get_json()
    response = api.get("/v1/users", query_string={"cursor": first["cursor"], "name": "a"})
    body = assert_problem(response, 400, "validation", "/v1/users")
    assert body["path"] == "cursor"


@pytest.mark.parametrize("path", ["/v1/teams/not-a-uuid", "/v1/users/123",
                                  "/v1/teams/00000000-0000-0000-0000-00000000000g"])
def test_path_validation_names_the_path_parameter(api, path):
    body = assert_problem(api.get(path), 400, "validation", path)
    assert body["path"] in {"teamId", "userId"}


def test_unknown_item_answers_its_not_found_code(api):
    path = f"/v1/teams/{uuid.uuid4()}"
    assert_problem(api.get(path), 404, "team-not-found", path)


# --- the errors page ------------------------------------------------------------------------

class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.extend(value for name, value in attrs if name == "id" and value)


def test_errors_page_lists_every_code_with_an_anchor(api):
    response = api.get("/v1/errors", user=None)
    assert response.status_code == 200
    assert response.mimetype == "text/html"
    parser = _Ids()
    parser.feed(response.get_data(as_text=True))
    assert set(REGISTRY) <= set(parser.ids)
    assert len(parser.ids) == len(set(parser.ids))
    page = response.get_data(as_text=True)
    for code, info in REGISTRY.items():
        assert f"<code>{code}</code>" in page
        assert info.title.replace("'", "&#39;") in page


def test_problem_type_points_at_this_server_without_configured_errors_url(fresh_api):
    app = create_app(make_settings(fresh_api.db.url, fresh_api.settings.signing_key_path,
                                   errors_url=None))
    try:
        response = Api(app, fresh_api.world, fresh_api.backend).get("/v1/nope")
        assert response.get_json()["type"] == "http://localhost/v1/errors#route-not-found"
    finally:
        app.extensions["shiftdesk"].db.dispose()


# --- dates at the calendar's ends -----------------------------------------------------------

OUT_OF_RANGE = ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "1899-12-31T23:59:59+0000",
                "3000-01-01T00:00:00+0000"]


def _timestamp_queries() -> list[tuple[Endpoint, str]]:
    found = []
    for endpoint in ENDPOINTS:
        if endpoint.method != "GET" or endpoint.query is None:
            continue
        for name, info in endpoint.query.model_fields.items():
            if "datetime" in str(info.annotation):
                found.append((endpoint, info.alias or name))
    return found


@pytest.mark.parametrize(("endpoint", "parameter"), _timestamp_queries(),
                         ids=lambda v: v if isinstance(v, str) else v.name)
@pytest.mark.parametrize("value", OUT_OF_RANGE)
def test_query_timestamps_outside_the_supported_range_are_validation(api, world, endpoint,
                                                                     parameter, value):
    path = endpoint.openapi_path.replace("{provider}", str(world.provider))
    if "{" in path:
        path = addressed(api, endpoint)
    response = api.get(path, query_string={parameter: value, "provider": str(world.provider)})
    body = assert_problem(response, 400, "validation", path)
    [error] = [e for e in body["errors"] if e["path"] == parameter]
    assert "between 1900-01-01 and 2999-12-31" in error["message"]


@pytest.mark.parametrize("value", OUT_OF_RANGE)
def test_body_timestamps_outside_the_supported_range_are_validation(api, world, value):
    appointment = api.post("/v1/appointments", user="scheduler@example.com", json={
        "type": "Follow-up", "providerId": str(world.doctor), "startDate": value,
        "endDate": "2026-03-02T10:00:00Z", "memberId": "m-1"})
    assert_problem(appointment, 400, "validation", "/v1/appointments")
    assert appointment.get_json()["path"] == "/startDate"
    with api.db.unit_of_work() as session:
        type_id = session.scalars(select(m.AppointmentType.id).limit(1)).one()
    search = api.post("/v1/appointments/slots", user="scheduler@example.com", json={
        "appointmentTypeId": str(type_id), "startDate": "2026-03-02T00:00:00Z",
        "endDate": value})
    body = assert_problem(search, 400, "validation", "/v1/appointments/slots")
    assert "/endDate" in {e["path"] for e in body["errors"]}


# --- hostile query values -------------------------------------------------------------------

HOSTILE_VALUES = ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", "2026-02-30T00:00:00Z", "-1",
                  "0", "99999999999999999999", "1e309", "nan", "", " ", "x" * 5000, "\x00", "%ff",
                  "<script>", "' OR '1'='1", "00000000-0000-0000-0000-000000000000",
                  "not-a-uuid", "true", "[]", "{}", "🩺" * 100, ",,,", "a,b,c"]
HOSTILE_EXAMPLES = int(os.environ.get("SHIFTDESK_FUZZ_EXAMPLES", "10"))


def _query_names(endpoint: Endpoint) -> list[str]:
    assert endpoint.query is not None
    return [info.alias or name for name, info in endpoint.query.model_fields.items()]


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e.method == "GET" and e.query
                                      and not e.path_params], ids=lambda e: e.name)
def test_hostile_query_values_never_answer_a_server_error(api, endpoint):
    names = _query_names(endpoint)

    @settings(max_examples=HOSTILE_EXAMPLES, deadline=None,
              derandomize=not os.environ.get("SHIFTDESK_FUZZ_EXAMPLES"),
              suppress_health_check=list(HealthCheck))
    @given(st.dictionaries(st.sampled_from(names),
                           st.one_of(st.sampled_from(HOSTILE_VALUES), st.text(max_size=30)),
                           min_size=1, max_size=4))
    def probe(query: dict[str, str]) -> None:
        response = api.get(endpoint.openapi_path, query_string=query)
        assert response.status_code < 500, (query, response.get_data(as_text=True)[:300])
        assert response.mimetype in ("application/json", "application/problem+json")

    probe()


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e.method == "GET" and e.query
                                      and not e.path_params], ids=lambda e: e.name)
def test_a_nul_character_in_any_query_parameter_is_a_validation_problem(api, endpoint):
    for name in _query_names(endpoint):
        response = api.get(endpoint.openapi_path, query_string={name: "a\x00b"})
        body = assert_problem(response, 400, "validation", endpoint.openapi_path)
        assert body["path"] == name
        assert "NUL" in body["message"]


@pytest.mark.parametrize(("path", "query"), [
    ("/v1/shifts", {"pageSize": "0"}),
    ("/v1/shifts", {"startDate": "0001-01-01T00:00:00Z"}),
    ("/v1/time-off/requests", {"status": "nonsense"}),
    ("/v1/shifts/not-a-uuid", {}),
])
def test_anonymous_callers_get_unauthenticated_before_any_validation(api, path, query):
    response = api.get(path, user=None, query_string=query)
    assert_problem(response, 401, "unauthenticated", path)


# --- authorize before validating ------------------------------------------------------------

GUARDED = [e for e in ENDPOINTS if e.permits]
"""Every endpoint that declares the permissions a caller needs to use it at all."""
NOBODY = "bot@example.com"
"""A signed-in caller that holds no permission at all (the payroll bot has no role)."""


def test_the_caller_without_rights_holds_none(api):
    assert GUARDED, "no endpoint declares the permissions it needs"
    me = api.get("/v1/users/me", user=NOBODY).get_json()
    assert me["permissions"] == []


@pytest.mark.parametrize("endpoint", GUARDED, ids=lambda e: e.name)
def test_a_caller_without_the_right_is_refused_before_the_input_is_read(api, endpoint):
    """Authenticate, then authorize, then validate: a caller who may not use the endpoint at
    all learns nothing of what it sent (nor whether the object it names exists)."""
    path = re.sub(r"\{[^}]+\}", "not-a-uuid", endpoint.openapi_path)
    kw: dict[str, Any] = {"query_string": {"pageSize": "0", "startDate": "0001-01-01"}}
    if endpoint.body is not None:
        kw.update(data='{"name": ', content_type="application/json")
    response = api.request(endpoint.method, path, user=NOBODY, **kw)
    assert_problem(response, 403, "unauthorized", path)
    for unknown in (concrete(endpoint), addressed(api, endpoint)
                    if endpoint.body is not None else concrete(endpoint)):
        response = api.request(endpoint.method, unknown, user=NOBODY, json={})
        assert_problem(response, 403, "unauthorized", unknown)


@pytest.mark.parametrize("endpoint", GUARDED, ids=lambda e: e.name)
def test_the_openapi_operation_names_the_permissions_it_needs(api, endpoint):
    operation = api.get("/v1/openapi.json").get_json()["paths"][endpoint.openapi_path][
        endpoint.method.lower()]
    assert operation["x-shiftdesk-permits"] == [
        {"action": action, "subject": subject} for action, subject in endpoint.permits]
    assert "403" in operation["responses"]
