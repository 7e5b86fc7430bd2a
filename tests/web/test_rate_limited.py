"""A UI write refused by the API's rate limit: the person is sent back to the page with the
API's sentence (how long to wait), or, with htmx, keeps the page and reads it; never a raw 429.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable

from tests.web.conftest import Web

HX = {"HX-Request": "true"}


def _limited(make_web: Callable[..., Web]) -> Web:
    web = make_web(rate_limits=True, rate_limit_writes="1/minute")
    web.sign_in("admin@example.com")
    first = web.client.post(f"/probe/shift?id={uuid.uuid4()}", data={"csrf_token": web.csrf()},
                            headers={"Referer": "http://localhost/probe/page"})
    assert first.status_code == 303  # a 404 from the API, but it counted
    web.client.get("/probe/page")  # shows (and clears) that message
    return web


def test_rate_limited_full_post_goes_back_with_the_wait(make_web: Callable[..., Web]) -> None:
    web = _limited(make_web)
    response = web.client.post(f"/probe/shift?id={uuid.uuid4()}",
                               data={"csrf_token": web.csrf()},
                               headers={"Referer": "http://localhost/probe/page"})
    assert response.status_code == 303
    page = web.client.get("/probe/page").get_data(as_text=True)
    assert "Too many requests; try again in" in page


def test_rate_limited_partial_post_keeps_the_page(make_web: Callable[..., Web]) -> None:
    web = _limited(make_web)
    response = web.client.post(f"/probe/shift?id={uuid.uuid4()}",
                               headers={**HX, "X-CSRF-Token": web.csrf()})
    assert response.status_code == 429
    assert response.headers["HX-Reswap"] == "none"
    assert "Too many requests; try again in" in response.get_data(as_text=True)
