"""Pages and fragments (STYLE §6): one URL renders its page or, for a partial request, its named
block; `Vary` names the htmx headers; post/redirect/get; messages out of band; the home page and
menu of each kind of user."""

from __future__ import annotations

import json

import pytest

from app.client import ApiClient
from app.web import nav

HX = {"HX-Request": "true"}


def test_page_renders_whole_document_without_htmx(web):
    web.sign_in("provider@example.com")
    response = web.client.get("/probe/page")
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    assert body.lstrip().startswith("<!doctype html>")
    assert '<ul id="probe-list">' in body
    assert {"HX-Request", "HX-Boosted", "HX-History-Restore-Request"} <= set(response.vary)


def test_partial_request_renders_named_block_alone(web):
    web.sign_in("provider@example.com")
    response = web.client.get("/probe/page", headers=HX)
    body = response.get_data(as_text=True).strip()
    assert response.status_code == 200
    assert body.startswith('<ul id="probe-list">')
    assert "<html" not in body
    assert "Probe page" not in body
    assert 'id="messages"' not in body  # nothing pending, nothing out of band
    assert "HX-Request" in response.vary


@pytest.mark.parametrize("extra", [{"HX-Boosted": "true"}, {"HX-History-Restore-Request": "true"}])
def test_boosted_or_history_request_gets_whole_page(web, extra):
    web.sign_in("provider@example.com")
    response = web.client.get("/probe/page", headers={**HX, **extra})
    assert response.get_data(as_text=True).lstrip().startswith("<!doctype html>")


def test_partial_response_carries_pending_messages_out_of_band(web):
    web.sign_in("provider@example.com")
    response = web.client.get("/probe/page?flash=Saved", headers=HX)
    body = response.get_data(as_text=True)
    assert body.strip().startswith('<ul id="probe-list">')
    assert '<div id="messages" role="status" aria-live="polite" hx-swap-oob="true">' in body
    assert "Saved" in body


def test_full_page_shows_messages_in_place(web):
    web.sign_in("provider@example.com")
    body = web.client.get("/probe/page?flash=Saved").get_data(as_text=True)
    assert 'hx-swap-oob' not in body
    region = body[body.index('<div id="messages"'):]
    assert region.index("Saved") < region.index("</div>")


def test_render_macro_returns_one_record(web):
    web.sign_in("provider@example.com")
    response = web.client.get("/probe/row/7", headers=HX)
    assert response.get_data(as_text=True).strip() == '<li id="item-7">Item 7</li>'
    assert "HX-Request" in response.vary


def test_post_redirects_with_303_then_shows_message(web):
    web.sign_in("provider@example.com")
    response = web.client.post("/probe/save", data={"csrf_token": web.csrf()})
    assert response.status_code == 303
    assert response.headers["Location"] == "/probe/page"
    assert "Saved." in web.client.get("/probe/page").get_data(as_text=True)


def test_partial_post_answers_with_hx_location_instead_of_redirect(web):
    web.sign_in("provider@example.com")
    response = web.client.post("/probe/save", headers={**HX, "X-CSRF-Token": web.csrf()})
    assert response.status_code == 204
    location = json.loads(response.headers["HX-Location"])
    assert location["path"] == "/probe/page"
    assert location["target"] == "body"
    assert "Location" not in response.headers


def test_home_sends_visitors_straight_to_sign_in(web):
    response = web.client.get("/")
    assert response.status_code == 303
    assert response.headers["Location"] == "/signin"


@pytest.mark.parametrize(("email", "groups"), [
    ("provider@example.com", ["My work"]),
    ("manager@example.com", ["My teams"]),
    ("scheduler@example.com", ["Appointments"]),
    ("admin@example.com", ["All teams", "Appointments", "Administration"]),
])
def test_home_shows_each_kind_of_work_of_the_user(web, email, groups):
    web.sign_in(email)
    body = web.client.get("/").get_data(as_text=True)
    headings = [line.split(">")[1].split("<")[0] for line in body.splitlines()
                if '<h2 id="area-' in line]
    assert headings == groups


def test_admin_home_links_to_working_pages_of_all_teams_and_the_api_documents(web):
    web.sign_in("admin@example.com")
    body = web.client.get("/").get_data(as_text=True)
    areas = body.split('id="home-areas"', 1)[1]
    links = [part.split('"', 1)[0] for part in areas.split('href="')[1:]]
    assert links == ["/manage/time-off", "/manage/timesheets", "/manage/schedule",
                     "/manage/swaps", "/slots",
                     "/appointments", "/appointment-types", "/admin/pay-rules",
                     "/admin/balance-resets", "/admin/people", "/admin/settings",
                     "/admin/permissions", "/admin/audit", "/manage/demand-forecast",
                     "/admin/reports",
                     "/v1/openapi.json", "/v1/errors"]
    for link in links:
        assert web.client.get(link).status_code == 200, link
    assert "on their way" not in body


def test_menu_lists_only_pages_that_exist(web):
    client = ApiClient(web.app.extensions["shiftdesk_web"].http,
                       web.token("provider@example.com"))
    me = client.me()
    shown = nav.menu(me, {"clock.index", "time_off.index", "slots.index"})
    assert [item.label for item in shown] == ["Clock", "Time off"]  # no right to slots.index


def test_home_fragment_is_the_areas_block(web):
    web.sign_in("scheduler@example.com")
    response = web.client.get("/", headers=HX)
    assert response.get_data(as_text=True).strip().startswith('<div id="home-areas"')
