"""Error pages chosen by path, and API problems as the UI shows them (STYLE §7): a page for a
full GET, a message and 303 back for a full POST, a status with the message out of band for
htmx; an unreachable API is a 503 page; maintenance mode switches on a read-only banner."""

from __future__ import annotations

import html
import socket
import uuid

import pytest

HX = {"HX-Request": "true"}


def test_unknown_ui_path_is_html_404_page(web):
    response = web.client.get("/no/such/page")
    assert response.status_code == 404
    assert response.mimetype == "text/html"
    body = response.get_data(as_text=True)
    assert "<h1 id=\"error-title\">Page not found</h1>" in body
    assert "<title>Page not found · Shiftdesk</title>" in body


def test_unknown_api_path_stays_problem_json(web):
    response = web.client.get("/v1/no/such/thing")
    assert response.status_code == 404
    assert response.mimetype == "application/problem+json"
    assert response.get_json()["type"].endswith("#route-not-found")


def test_wrong_method_on_ui_page_is_html_405_with_allow(web):
    response = web.client.post("/")
    assert response.status_code == 405
    assert response.mimetype == "text/html"
    assert "GET" in response.headers["Allow"]


def test_crash_in_ui_is_html_500_page(web):
    web.sign_in("provider@example.com")
    response = web.client.get("/probe/crash")
    assert response.status_code == 500
    body = response.get_data(as_text=True)
    assert "Something went wrong" in body
    assert "boom" not in body


def test_crash_in_ui_for_htmx_is_500_with_message_for_the_script(web):
    web.sign_in("provider@example.com")
    response = web.client.get("/probe/crash", headers=HX)
    assert response.status_code == 500
    assert response.headers["HX-Reswap"] == "none"
    assert 'id="messages"' in response.get_data(as_text=True)


def test_api_not_found_on_full_get_is_problem_page_with_detail(web):
    web.sign_in("admin@example.com")
    response = web.client.get(f"/probe/shift?id={uuid.uuid4()}")
    assert response.status_code == 404
    body = response.get_data(as_text=True)
    assert "<h1 id=\"error-title\">" in body
    assert "#shift-not-found" not in body  # staff see the title and detail, never the type


def test_api_forbidden_on_full_get_is_403_page_with_reason(web):
    web.sign_in("manager@example.com")
    response = web.client.get(f"/probe/time-off?id={web.world.ids['request_icu']}")
    assert response.status_code == 403
    body = response.get_data(as_text=True)
    assert "<h1 id=\"error-title\">" in body
    assert "unauthorized" not in body.lower().split("<main")[1]  # no codes, only sentences


def test_api_problem_on_full_post_goes_back_with_message(web):
    web.sign_in("admin@example.com")
    token = web.csrf()
    response = web.client.post(f"/probe/shift?id={uuid.uuid4()}", data={"csrf_token": token},
                               headers={"Referer": "http://localhost/probe/page?flash="})
    assert response.status_code == 303
    assert response.headers["Location"] == "/probe/page?flash="
    page = web.client.get("/probe/page").get_data(as_text=True)
    assert 'class="message message-error"' in page


def test_api_problem_on_partial_request_keeps_page_and_says_why(web):
    web.sign_in("admin@example.com")
    response = web.client.post(f"/probe/shift?id={uuid.uuid4()}",
                               headers={**HX, "X-CSRF-Token": web.csrf()})
    assert response.status_code == 404
    assert response.headers["HX-Reswap"] == "none"
    body = response.get_data(as_text=True)
    assert body.strip().startswith('<div id="messages"')
    assert 'hx-swap-oob="true"' in body


def test_maintenance_answer_to_full_post_goes_back_and_shows_read_only_banner(web):
    web.sign_in("provider@example.com")
    response = web.client.post("/probe/answer/503/maintenance-mode",
                               data={"csrf_token": web.csrf()},
                               headers={"Referer": "http://localhost/probe/page"})
    assert response.status_code == 303
    assert response.headers["Location"] == "/probe/page"
    page = web.client.get("/probe/page").get_data(as_text=True)
    assert "Read-only for maintenance." in page
    assert "The API answered maintenance-mode." in page


def test_maintenance_answer_to_partial_post_is_503_with_message(web):
    web.sign_in("provider@example.com")
    response = web.client.post("/probe/answer/503/maintenance-mode",
                               headers={**HX, "X-CSRF-Token": web.csrf()})
    assert response.status_code == 503
    assert response.headers["HX-Reswap"] == "none"
    assert "The API answered maintenance-mode." in response.get_data(as_text=True)


def test_read_only_banner_is_off_normally(web):
    web.sign_in("provider@example.com")
    assert "Read-only for maintenance." not in web.client.get("/").get_data(as_text=True)


def test_maintenance_mode_write_through_the_api_shows_read_only_banner(make_web):
    web = make_web(maintenance_mode=True)
    if not any(r.rule.endswith("/claim") for r in web.app.url_map.iter_rules()):
        pytest.skip("no /v1 write endpoint exists yet to answer maintenance-mode")
    web.sign_in("provider@example.com")
    response = web.client.post(f"/probe/shift?id={web.world.ids['open_ed']}",
                               data={"csrf_token": web.csrf()},
                               headers={"Referer": "http://localhost/probe/page"})
    assert response.status_code == 303
    assert "Read-only for maintenance." in web.client.get("/probe/page").get_data(as_text=True)


@pytest.mark.parametrize(("status", "code"), [(403, "unauthorized"), (409, "version-conflict"),
                                              (422, "shift-schedule-conflict")])
def test_problem_on_full_get_is_page_with_its_status(web, status, code):
    web.sign_in("provider@example.com")
    response = web.client.get(f"/probe/answer/{status}/{code}")
    assert response.status_code == status
    assert f"The API answered {code}." in response.get_data(as_text=True)


def test_unauthenticated_answer_sends_to_sign_in(web):
    web.sign_in("provider@example.com")
    response = web.client.get("/probe/answer/401/unauthenticated")
    assert response.status_code == 303
    assert response.headers["Location"] == "/signin?next=/probe/answer/401/unauthenticated"


@pytest.fixture
def closed_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_api_is_503_page(make_web, closed_port):
    web = make_web(api_url=f"http://127.0.0.1:{closed_port}")
    web.sign_in("provider@example.com")
    response = web.client.get("/")
    assert response.status_code == 503
    assert response.headers["Retry-After"] == "30"
    body = html.unescape(response.get_data(as_text=True))
    assert "Shiftdesk can't reach its server" in body
    nav = body[body.index('<ul class="nav-wide">'):body.index("</nav>")]
    assert nav.count("<li>") == 1  # Home only: the menu needs the API too; sign-out still works
    assert 'action="/signout"' in nav
