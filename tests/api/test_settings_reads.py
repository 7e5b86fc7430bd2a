"""Reading settings through /v1: labels and pay codes — fields, pages, not-found, who may read."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from tests.factories import uid

LABELS = "/v1/settings/labels"
PAY_CODES = "/v1/settings/pay-codes"
TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$")
LABEL_FIELDS = {"id", "createdAt", "updatedAt", "name", "description", "color"}
PAY_CODE_FIELDS = {"id", "name", "shorthandName", "hexColor", "type", "value"}
READERS = ["admin@example.com", "provider@example.com", "manager@example.com",
           "scheduler@example.com", "bot@example.com"]


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


# Labels ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("user", READERS)
def test_list_labels_returns_spec_fields_to_any_signed_in_user(api, user):
    body = api.get(LABELS, user=user).get_json()
    assert body["cursor"] is None
    labels = body["items"]
    for label in labels:
        assert set(label) == LABEL_FIELDS
        assert TIMESTAMP.match(label.pop("createdAt"))
        assert TIMESTAMP.match(label.pop("updatedAt"))
    assert labels == [
        {"id": str(uid("label:charge")), "name": "Charge nurse", "description": "Leads the shift",
         "color": "#9467BD"},
        {"id": str(uid("label:float")), "name": "Float", "description": None,
         "color": "#8C564B"},
    ]


def test_get_label_returns_label_with_null_description(api):
    response = api.get(f"{LABELS}/{uid('label:float')}", user="provider@example.com")
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == LABEL_FIELDS
    assert body["name"] == "Float"
    assert body["description"] is None
    assert TIMESTAMP.match(body["updatedAt"])


# Pay codes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("user", READERS)
def test_list_pay_codes_returns_spec_fields_to_any_signed_in_user(api, user):
    body = api.get(PAY_CODES, user=user).get_json()
    assert body["cursor"] is None
    assert body["items"] == [
        {"id": str(uid("pay:ONC")), "name": "On-call stipend", "shorthandName": "ONC",
         "hexColor": "#F58518", "type": "money", "value": 50.0},
        {"id": str(uid("pay:PTO")), "name": "Paid time off", "shorthandName": "PTO",
         "hexColor": "#72B7B2", "type": "hours", "value": 1.0},
        {"id": str(uid("pay:REG")), "name": "Regular", "shorthandName": "REG",
         "hexColor": "#4C78A8", "type": "hours", "value": 1.0},
    ]


def test_get_pay_code_returns_pay_code(api):
    response = api.get(f"{PAY_CODES}/{uid('pay:REG')}", user="manager@example.com")
    assert response.status_code == 200
    body = response.get_json()
    assert set(body) == PAY_CODE_FIELDS
    assert (body["shorthandName"], body["type"], body["value"]) == ("REG", "hours", 1.0)


# Shared: not found, malformed ids, sign-in, pages ------------------------------------------------


@pytest.mark.parametrize(("path", "code"), [(LABELS, "label-not-found"),
                                            (PAY_CODES, "pay-code-not-found")])
def test_get_answers_not_found_when_id_is_unknown(api, path, code):
    missing = uuid.uuid4()
    response = api.get(f"{path}/{missing}")
    assert response.status_code == 404
    assert problem_code(response) == code
    assert str(missing) in response.get_json()["detail"]


@pytest.mark.parametrize(("path", "parameter"), [(LABELS, "labelId"),
                                                 (PAY_CODES, "payCodeId")])
def test_get_rejects_malformed_id(api, path, parameter):
    assert_validation(api.get(f"{path}/42"), parameter)


@pytest.mark.parametrize("path", [LABELS, PAY_CODES, f"{LABELS}/{uid('label:float')}",
                                  f"{PAY_CODES}/{uid('pay:REG')}"])
def test_reads_require_sign_in(api, path):
    response = api.get(path, user=None)
    assert response.status_code == 401
    assert problem_code(response) == "unauthenticated"


@pytest.mark.parametrize("path", [LABELS, PAY_CODES])
@pytest.mark.parametrize("size", [1, 2])
def test_walk_returns_every_item_once_in_order(api, path, size):
    everything = [i["id"] for i in items(api.get(path, query_string={"pageSize": 200}))]
    pages = api.walk(path, page_size=size)
    walked = [i["id"] for page in pages for i in page]
    assert walked == everything
    assert len(set(walked)) == len(walked)
    assert all(len(page) == size for page in pages[:-1])


@pytest.mark.parametrize("path", [LABELS, PAY_CODES])
@pytest.mark.parametrize("size", ["0", "201"])
def test_list_rejects_page_size_out_of_range(api, path, size):
    assert_validation(api.get(path, query_string={"pageSize": size}), "pageSize")


@pytest.mark.parametrize(("source", "target"), [(LABELS, PAY_CODES), (PAY_CODES, LABELS)])
def test_list_rejects_cursor_of_another_list(api, source, target):
    cursor = api.get(source, query_string={"pageSize": 1}).get_json()["cursor"]
    assert cursor
    assert_validation(api.get(target, query_string={"cursor": cursor}), "cursor")
    tampered = cursor[:5] + ("A" if cursor[5] != "A" else "B") + cursor[6:]
    assert_validation(api.get(source, query_string={"cursor": tampered}), "cursor")
