"""The UI's request edge: CSRF on every form, sign-in redirects that keep where the user was
going and never leave the site, the OIDC start, server-side session cookies, security headers.
"""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlsplit

import pytest
from itsdangerous import TimestampSigner, URLSafeTimedSerializer

from app.web.security import content_security_policy, safe_next, sign_in_url

HX = {"HX-Request": "true"}


def _ui_post_rules(app):
    state = app.extensions["shiftdesk_web"]
    for rule in app.url_map.iter_rules():
        if "POST" in (rule.methods or ()) and rule.endpoint.split(".")[0] in state.blueprints:
            yield rule


def test_every_ui_form_rejects_post_without_csrf_token(web):
    web.sign_in("provider@example.com")
    rules = list(_ui_post_rules(web.app))
    assert {r.rule for r in rules} >= {"/signout", "/probe/save"}
    for rule in rules:
        path = re.sub(r"<uuid:\w+>", "00000000-0000-4000-8000-000000000000",
                      re.sub(r"<int:\w+>", "1", re.sub(r"<\w+>", "x", rule.rule)))
        response = web.client.post(path, data={"anything": "x"})
        assert response.status_code == 400, path
        body = response.get_data(as_text=True)
        assert "This form has expired" in body, path
    assert web.session().get("auth") is not None  # nothing happened: still signed in


def test_post_with_wrong_csrf_token_is_rejected(web):
    web.sign_in("provider@example.com")
    web.csrf()
    response = web.client.post("/probe/save", data={"csrf_token": "forged.token.value"})
    assert response.status_code == 400


def test_htmx_post_without_csrf_header_gets_message_out_of_band(web):
    web.sign_in("provider@example.com")
    response = web.client.post("/probe/save", headers=HX)
    assert response.status_code == 400
    assert response.headers["HX-Reswap"] == "none"
    assert 'hx-swap-oob="true"' in response.get_data(as_text=True)


def test_htmx_post_with_csrf_header_is_accepted(web):
    web.sign_in("provider@example.com")
    response = web.client.post("/probe/save", headers={**HX, "X-CSRF-Token": web.csrf()})
    assert response.status_code == 204


def test_signed_in_page_sets_csrf_header_for_htmx_on_body(web):
    web.sign_in("provider@example.com")
    body = web.client.get("/probe/page").get_data(as_text=True)
    # The token of the page's own forms (a signed token carries its second, so another
    # request's may differ).
    marker = 'name="csrf_token" value="'
    start = body.index(marker) + len(marker)
    token = body[start:body.index('"', start)]
    assert f"<body hx-boost=\"true\" hx-headers='{{\"X-CSRF-Token\": \"{token}\"}}'>" in body


@pytest.mark.parametrize(("target", "expected"), [
    ("/shifts/mine?week=2", "/shifts/mine?week=2"),
    ("https://evil.example/", "/"),
    ("//evil.example/", "/"),
    ("/\\evil.example", "/"),
    ("\\\\evil.example", "/"),
    ("javascript:alert(1)", "/"),
    ("/ok\r\nSet-Cookie: x=1", "/"),
    ("", "/"),
    (None, "/"),
])
def test_safe_next_accepts_only_paths_on_this_site(target, expected):
    assert safe_next(target) == expected


def test_page_without_sign_in_redirects_to_sign_in_with_next(web):
    response = web.client.get("/probe/page?flash=1")
    assert response.status_code == 303
    assert response.headers["Location"] == "/signin?next=/probe/page%3Fflash%3D1"


def test_htmx_request_without_sign_in_gets_hx_redirect(web):
    response = web.client.get("/probe/page", headers={**HX, "HX-Current-URL":
                                                       "http://localhost/probe/page?x=1"})
    assert response.status_code == 204
    assert response.headers["HX-Redirect"] == "/signin?next=/probe/page%3Fx%3D1"


def test_expired_session_without_refresh_token_goes_to_sign_in(web):
    web.sign_in("provider@example.com", expires_at=time.time() + 10)
    response = web.client.get("/probe/page")
    assert response.status_code == 303
    assert response.headers["Location"] == "/signin?next=/probe/page"
    assert web.session().get("auth") is None


def test_refused_refresh_token_goes_to_sign_in(web):
    web.sign_in("provider@example.com", expires_at=0, refresh_token="revoked-or-made-up")
    response = web.client.get("/probe/me")
    assert response.status_code == 303
    assert response.headers["Location"] == "/signin?next=/probe/me"


def test_token_the_api_rejects_ends_the_session(web):
    web.sign_in("provider@example.com", access_token="not-a-jwt")
    response = web.client.get("/probe/me")
    assert response.status_code == 303
    assert response.headers["Location"].startswith("/signin")
    assert web.session().get("auth") is None


def test_fresh_token_reaches_the_api(web):
    web.sign_in("scheduler@example.com")
    response = web.client.get("/probe/me")
    assert response.get_data(as_text=True) == "scheduler@example.com"


def test_sign_in_starts_authorization_code_with_pkce(web):
    response = web.client.get("/signin?next=/probe/page")
    assert response.status_code == 303
    location = urlsplit(response.headers["Location"])
    assert f"{location.scheme}://{location.netloc}{location.path}" == \
        "http://testserver/auth/authorize"
    query = parse_qs(location.query)
    assert query["response_type"] == ["code"]
    assert query["client_id"] == ["shiftdesk-web"]
    assert query["code_challenge_method"] == ["S256"]
    assert len(query["code_challenge"][0]) >= 43
    assert query["redirect_uri"] == ["http://localhost/signin/callback"]
    assert "openid" in query["scope"][0].split()
    assert query["state"]
    assert query["nonce"]
    assert web.session()["signin_next"] == "/probe/page"


def test_sign_in_drops_foreign_next(web):
    web.client.get("/signin?next=https://evil.example/")
    assert web.session()["signin_next"] == "/"


def test_sign_in_asked_by_htmx_reloads_the_whole_page(web):
    response = web.client.get("/signin?next=/probe/page", headers=HX)
    assert response.status_code == 204
    assert response.headers["HX-Redirect"] == "/signin?next=/probe/page"


@pytest.mark.parametrize("query", ["error=access_denied&state=x", "code=abc&state=unknown"])
def test_refused_or_stale_callback_shows_failure_page(web, query):
    response = web.client.get(f"/signin/callback?{query}")
    assert response.status_code == 400
    body = response.get_data(as_text=True)
    assert "Sign-in did not finish" in body
    assert 'role="alert"' in body
    assert web.session().get("auth") is None


def test_sign_out_forgets_session_and_ends_provider_session(web):
    web.sign_in("provider@example.com", id_token="an.id.token")
    response = web.client.post("/signout", data={"csrf_token": web.csrf()})
    assert response.status_code == 200
    assert "Location" not in response.headers
    page = response.get_data(as_text=True)
    # Handed on to the provider as a form POST: the ID token never appears in a URL.
    form = re.search(r'<form method="post" action="([^"]+)"[^>]*data-autosubmit>(.*?)</form>',
                     page, re.S)
    assert form is not None
    assert form.group(1) == "http://testserver/auth/logout"
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form.group(2)))
    assert fields["post_logout_redirect_uri"] == "http://localhost/signed-out"
    assert fields["id_token_hint"] == "an.id.token"
    assert "Finish signing out" in page
    assert not [key for key in web.session() if not key.startswith("_")]
    assert web.client.get("/probe/page").status_code == 303


def test_sign_out_page_asks_first(web):
    web.sign_in("provider@example.com")
    body = web.client.get("/signout").get_data(as_text=True)
    assert 'action="/signout"' in body
    assert 'name="csrf_token"' in body


def test_session_cookie_is_httponly_lax_and_not_secure_on_loopback(web):
    web.client.get("/signin")
    cookie = web.client.get_cookie("shiftdesk_session")
    assert cookie is not None
    assert cookie.http_only
    assert cookie.same_site == "Lax"
    assert not cookie.secure
    assert len(cookie.value) >= 32  # only an id: the data stays on the server


def test_session_cookie_is_secure_on_a_real_host(web):
    response = web.client.get("/signin", base_url="https://shiftdesk.example.org")
    header = next(h for h in response.headers.getlist("Set-Cookie")
                  if h.startswith("shiftdesk_session="))
    assert "Secure" in header
    assert "HttpOnly" in header
    assert "SameSite=Lax" in header


def test_api_ignores_a_signed_in_ui_session(web):
    web.sign_in("admin@example.com")
    assert web.client.get("/").status_code == 200
    response = web.client.get("/v1/teams")  # the session cookie, but no bearer token
    assert response.status_code == 401
    assert response.content_type == "application/problem+json"
    assert "Set-Cookie" not in response.headers
    assert "Cookie" not in response.headers.get("Vary", "")
    assert web.client.get("/").status_code == 200  # the UI session is untouched


def test_ui_pages_carry_security_headers(web):
    response = web.client.get("/")
    headers = response.headers
    assert headers["Content-Security-Policy"] == (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "frame-ancestors 'none'; form-action 'self' http://testserver; base-uri 'none'")
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "same-origin"
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["Cache-Control"] == "no-store"


def test_error_pages_carry_security_headers_too(web):
    headers = web.client.get("/nowhere").headers
    assert "Content-Security-Policy" in headers
    assert headers["X-Frame-Options"] == "DENY"


def test_api_and_provider_keep_their_own_headers(web):
    api = web.client.get("/v1/teams")
    assert "Content-Security-Policy" not in api.headers
    discovery = web.client.get("/auth/.well-known/openid-configuration")
    assert "style-src 'self'" not in discovery.headers.get("Content-Security-Policy", "")


def test_pages_have_no_inline_script_or_style(web):
    web.sign_in("admin@example.com")
    for path in ("/", "/nowhere", "/signout", "/signed-out", "/probe/page"):
        body = web.client.get(path).get_data(as_text=True)
        assert "<style" not in body, path
        assert " style=" not in body, path
        assert all('src="' in tag for tag in body.split("<script")[1:]), path
        assert " on" not in body.replace(" one", "").split("<body")[1].split(">")[0], path


def test_policy_lets_forms_reach_an_external_provider():
    policy = content_security_policy("https://login.example.org/realms/x")
    assert "form-action 'self' https://login.example.org;" in policy


def test_sign_in_url_keeps_query(web):
    with web.app.test_request_context("/probe/page?a=1&b=2"):
        assert sign_in_url() == "/signin?next=/probe/page%3Fa%3D1%26b%3D2"


@pytest.mark.parametrize("headers", [
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
    {"Origin": "https://evil.example"},
    {"Origin": "http://localhost.evil.example"},
])
def test_post_from_another_site_is_refused_even_with_the_token(web, headers):
    web.sign_in("provider@example.com")
    response = web.client.post("/probe/save", data={"csrf_token": web.csrf()}, headers=headers)
    assert response.status_code == 400
    assert "This form has expired" in response.get_data(as_text=True)


@pytest.mark.parametrize("headers", [
    {"Sec-Fetch-Site": "same-origin"},
    {"Sec-Fetch-Site": "none"},
    {"Origin": "http://localhost"},
    {"Origin": "null"},
    {},
])
def test_post_from_this_site_is_accepted(web, headers):
    web.sign_in("provider@example.com")
    response = web.client.post("/probe/save", data={"csrf_token": web.csrf()}, headers=headers)
    assert response.status_code in (204, 303)


def test_csrf_token_older_than_a_shift_is_refused(web):
    web.sign_in("provider@example.com")
    web.csrf()  # the session now holds its CSRF secret
    secret = web.session()["csrf_token"]

    class Yesterday(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - 13 * 3600

    old = URLSafeTimedSerializer(web.app.secret_key, salt="wtf-csrf-token",
                                 signer=Yesterday).dumps(secret)
    response = web.client.post("/probe/save", data={"csrf_token": old})
    assert response.status_code == 400
    fresh = web.client.post("/probe/save", data={"csrf_token": web.csrf()})
    assert fresh.status_code in (204, 303)
