"""The in-process transport (`build_http(wsgi_app=...)`): each API call is a request of its own,
as over HTTP, even made from inside a page's request and side by side with others."""

from __future__ import annotations

from flask import Flask, g, request

from app import request_ids
from app.client import ApiClient, build_http


def _probe_app() -> Flask:
    """One Flask app for the page and the API alike, as the embedded default serves them."""
    app = Flask("probe")

    @app.get("/v1/probe")
    def probe() -> dict[str, object]:
        seen = g.get("marker")
        g.marker = "api"
        return {"seen": seen, "requestId": request.headers.get(request_ids.HEADER)}

    return app


def test_calls_made_side_by_side_from_a_page_share_nothing_with_it_or_each_other():
    app = _probe_app()
    http = build_http(wsgi_app=app)
    with app.test_request_context("/page"):
        g.marker = "page"
        before = request_ids.begin("page-request-id")
        try:
            answers = ApiClient.concurrently(
                *(lambda: http.get("/v1/probe").json() for _ in range(6)))
        finally:
            request_ids.end(before)
        assert g.marker == "page", "an API call wrote on the page's request globals"
    assert [answer["seen"] for answer in answers] == [None] * 6
    assert {answer["requestId"] for answer in answers} == {"page-request-id"}


def test_a_call_after_another_starts_from_empty_request_globals():
    app = _probe_app()
    http = build_http(wsgi_app=app)
    with app.test_request_context("/page"):
        first = http.get("/v1/probe").json()
        second = http.get("/v1/probe").json()
    assert (first["seen"], second["seen"]) == (None, None)
