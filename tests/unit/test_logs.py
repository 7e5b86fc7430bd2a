"""Log lines and request ids as units: the JSON line's fields, and the client passing the id on
over HTTP as in process."""

from __future__ import annotations

import contextvars
import json
import logging

import httpx

from app import logs, request_ids
from app.client import build_http
from app.config import Settings


def _record(message: str, **extra: object) -> logging.LogRecord:
    request_ids.stamp_log_records()
    record = logging.getLogger("shiftdesk.test").makeRecord(
        "shiftdesk.test", logging.WARNING, __file__, 1, message, (), None, extra=extra)
    return record


def test_json_line_has_timestamp_level_logger_message_and_request_id() -> None:
    before = request_ids.begin("req-1")
    try:
        record = _record("hello", status=201)
    finally:
        request_ids.end(before)
    line = json.loads(logs.formatter("json").format(record))
    assert line["level"] == "WARNING"
    assert line["logger"] == "shiftdesk.test"
    assert line["message"] == "hello"
    assert line["request_id"] == "req-1"
    assert line["status"] == 201
    assert line["timestamp"].startswith("20")


def test_text_line_names_the_request_id() -> None:
    # A new, empty context: outside any request (whatever tests before left in this thread).
    record = contextvars.Context().run(_record, "plain")
    assert "[None] plain" in logs.formatter("text").format(record)


def test_log_format_defaults_to_text_in_development_and_json_otherwise() -> None:
    assert logs.log_format(Settings()) == "json"
    assert logs.log_format(Settings(demo=True)) == "text"
    assert logs.log_format(Settings(development=True, log_format="json")) == "json"


def test_client_sends_the_current_request_id_over_http() -> None:
    contextvars.Context().run(_client_sends_the_current_request_id)


def _client_sends_the_current_request_id() -> None:
    seen: list[str | None] = []
    http = build_http(base_url="http://api.test")
    http._transport = httpx.MockTransport(  # the network transport, swapped for a fake
        lambda r: (seen.append(r.headers.get("X-Request-Id")), httpx.Response(204))[1])
    before = request_ids.begin("from-the-page")
    try:
        http.get("/v1/users/me")
    finally:
        request_ids.end(before)
    http.get("/v1/users/me")
    assert seen == ["from-the-page", None]
