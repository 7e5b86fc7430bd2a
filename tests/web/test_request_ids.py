"""Request ids: every answer carries `X-Request-Id` (the caller's when sane, else a new one), and
the UI's calls to `/v1` pass it on, so the API's access lines carry the page's id.
"""

from __future__ import annotations

import logging
import re

import pytest

from tests.web.conftest import Web

ACCESS = "shiftdesk.access"


def _access_lines(caplog: pytest.LogCaptureFixture, prefix: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records
            if r.name == ACCESS and getattr(r, "path", "").startswith(prefix)]


def test_ui_request_id_reaches_the_api_access_lines(
        web: Web, caplog: pytest.LogCaptureFixture) -> None:
    web.sign_in("admin@example.com")
    caplog.set_level(logging.INFO, logger=ACCESS)
    response = web.client.get("/", headers={"X-Request-Id": "ward-7.req-42"})
    assert response.status_code == 200
    assert response.headers["X-Request-Id"] == "ward-7.req-42"
    api_lines = _access_lines(caplog, "/v1/")
    assert api_lines, "the home page calls the API"
    assert {r.request_id for r in api_lines} == {"ward-7.req-42"}
    page = [r for r in _access_lines(caplog, "/") if r.path == "/"]
    assert len(page) == 1
    assert page[0].request_id == "ward-7.req-42"
    assert page[0].status == 200
    assert page[0].route == "/"
    assert page[0].duration_ms >= 0


def test_missing_request_id_is_made_and_echoed(
        web: Web, caplog: pytest.LogCaptureFixture) -> None:
    web.sign_in("admin@example.com")
    caplog.set_level(logging.INFO, logger=ACCESS)
    response = web.client.get("/")
    made = response.headers["X-Request-Id"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert {r.request_id for r in _access_lines(caplog, "/v1/")} == {made}
    assert web.client.get("/").headers["X-Request-Id"] != made


@pytest.mark.parametrize("bad", ["x" * 65, "a b", "<script>", "id\u00e9", "-leading"])
def test_insane_request_id_is_replaced(web: Web, bad: str) -> None:
    response = web.client.get("/healthz", headers={"X-Request-Id": bad})
    assert re.fullmatch(r"[0-9a-f]{32}", response.headers["X-Request-Id"])


def test_api_and_error_answers_carry_the_request_id(web: Web) -> None:
    assert web.client.get("/v1/nowhere", headers={"X-Request-Id": "abc"}).headers[
        "X-Request-Id"] == "abc"
    assert web.client.get("/no-such-page", headers={"X-Request-Id": "def"}).headers[
        "X-Request-Id"] == "def"


def test_server_error_page_shows_the_request_id_as_reference(web: Web) -> None:
    web.sign_in("admin@example.com")
    response = web.client.get("/probe/crash", headers={"X-Request-Id": "crash-77"})
    assert response.status_code == 500
    assert "Error 500 · reference crash-77" in response.get_data(as_text=True)
    missing = web.client.get("/probe/nothing-here").get_data(as_text=True)
    assert "reference" not in missing  # only server-side errors need one
