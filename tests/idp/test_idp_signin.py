"""The sign-in page and sign-out: inline errors, rate limiting and lockout, CSRF, no open redirects,
demo accounts, security headers and RP-initiated logout."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.idp.conftest import DEMO_HASH, PASSWORD, PROVIDER, REDIRECT_URI, Idp, query_of


def signin_page(idp: Idp, next_path: str | None = None) -> tuple[str, Any]:
    """The direct sign-in page's URL (with `next`) and the page itself."""
    url = "/auth/signin" + (f"?{urlencode({'next': next_path})}" if next_path else "")
    return url, idp.get(url)


def without(response: Any, text: str) -> str:
    """The page's HTML with `text` removed."""
    return response.get_data(as_text=True).replace(text, "")


def test_signin_page_is_accessible_and_script_free(shared_idp: Idp) -> None:
    _, page = signin_page(shared_idp)
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert '<label for="email">' in html
    assert '<label for="password">' in html
    assert "<title>Sign in" in html
    assert "<script" not in html
    assert not re.search(r"\son[a-z]+=", html)  # no inline event handlers either
    assert "aria-invalid" not in html


def test_idp_pages_send_strict_security_headers(shared_idp: Idp) -> None:
    page = shared_idp.get(shared_idp.authorize_url())
    csp = page.headers["Content-Security-Policy"]
    assert "default-src 'self'" in csp
    assert "frame-ancestors 'none'" in csp
    assert "script-src" not in csp or "'unsafe-inline'" not in csp
    # The form posts here, then redirects to the client: that origin must be allowed too.
    assert re.search(r"form-action 'self' http://127\.0\.0\.1:5000(;|$)", csp)
    assert page.headers["X-Frame-Options"] == "DENY"
    assert page.headers["Referrer-Policy"] == "no-referrer"
    assert page.headers["Cache-Control"] == "no-store"


def test_idp_cookie_is_httponly_and_samesite_lax(idp: Idp) -> None:
    response = idp.sign_in_at(idp.authorize_url())
    cookie = next(v for v in response.headers.getlist("Set-Cookie")
                  if v.startswith("shiftdesk_idp="))
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    assert "Path=/auth" in cookie


def test_idp_cookie_is_secure_off_loopback(shared_idp: Idp) -> None:
    response = shared_idp.browser.get("/auth/signin", base_url="http://staff.example.org")
    cookie = response.headers["Set-Cookie"]
    assert "Secure" in cookie


def test_wrong_password_shows_inline_error_and_keeps_email(idp: Idp) -> None:
    url, page = signin_page(idp)
    response = idp.post_form(url, {"email": PROVIDER, "password": "wrong"}, csrf_from=page)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "<title>Error: Sign in" in html
    assert 'role="alert"' in html
    assert 'href="#password">The email address or password is not right.' in html
    assert re.search(r'id="password"[^>]*aria-invalid="true" aria-describedby="password-error"',
                     html, re.S)
    assert '<p id="password-error"' in html
    assert f'value="{PROVIDER}"' in html
    assert 'value="wrong"' not in html


def test_unknown_email_fails_exactly_like_a_wrong_password(idp: Idp) -> None:
    url, page = signin_page(idp)
    wrong = idp.post_form(url, {"email": PROVIDER, "password": "wrong"}, csrf_from=page)
    unknown = idp.post_form(url, {"email": "nobody@example.com", "password": "wrong"},
                            csrf_from=page)
    assert unknown.status_code == wrong.status_code == 422
    assert without(unknown, "nobody@example.com") == without(wrong, PROVIDER)


def test_dismissed_person_cannot_sign_in(idp: Idp) -> None:
    url, page = signin_page(idp)
    response = idp.post_form(url, {"email": "gone@example.com", "password": PASSWORD},
                             csrf_from=page)
    assert response.status_code == 422


def test_empty_form_marks_each_field(idp: Idp) -> None:
    url, page = signin_page(idp)
    response = idp.post_form(url, {"email": "", "password": ""}, csrf_from=page)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert 'aria-describedby="email-error"' in html
    assert 'aria-describedby="password-error"' in html
    assert 'href="#email">Enter your email address.' in html


def test_sixth_quick_failure_is_refused_even_with_the_right_password(idp: Idp) -> None:
    url, page = signin_page(idp)
    for _ in range(5):
        failed = idp.post_form(url, {"email": PROVIDER, "password": "wrong"}, csrf_from=page)
        assert failed.status_code == 422
    refused = idp.post_form(url, {"email": PROVIDER, "password": PASSWORD}, csrf_from=page)
    assert refused.status_code == 429
    html = refused.get_data(as_text=True)
    assert "Too many failed sign-in attempts. Try again in 15 minutes." in html
    assert 'role="alert"' in html
    assert "<title>Error:" in html
    assert f'value="{PROVIDER}"' in html
    assert 0 < int(refused.headers["Retry-After"]) <= 900
    assert "Location" not in refused.headers
    # Still locked for the authorization flow: no code comes out.
    assert idp.sign_in_at(idp.authorize_url()).status_code == 429


def test_lockout_counts_per_email_and_client_address(idp: Idp) -> None:
    url, page = signin_page(idp)
    for _ in range(5):
        idp.post_form(url, {"email": PROVIDER, "password": "wrong"}, csrf_from=page)
    assert idp.post_form(url, {"email": "doctor@example.com", "password": PASSWORD},
                         csrf_from=page).status_code == 303
    elsewhere = idp.new_browser(remote_addr="10.1.2.3")
    assert elsewhere.code()


def test_successful_sign_in_clears_earlier_failures(idp: Idp) -> None:
    url, page = signin_page(idp)
    for _ in range(2):  # without the clearing, the second success would be the 10th attempt
        for _ in range(4):
            failed = idp.post_form(url, {"email": PROVIDER, "password": "wrong"}, csrf_from=page)
            assert failed.status_code == 422
        signed_in = idp.post_form(url, {"email": PROVIDER, "password": PASSWORD},
                                  csrf_from=page)
        assert signed_in.status_code == 303
        url, page = signin_page(idp)  # a new session: a new CSRF token


def test_lockout_limit_follows_settings(make_idp: Callable[..., Idp]) -> None:
    idp = make_idp(login_max_failures=2)
    url, page = signin_page(idp)
    for _ in range(2):
        idp.post_form(url, {"email": PROVIDER, "password": "wrong"}, csrf_from=page)
    assert idp.post_form(url, {"email": PROVIDER, "password": PASSWORD},
                         csrf_from=page).status_code == 429


def test_signin_goes_to_local_next_path(idp: Idp) -> None:
    url, page = signin_page(idp, "/shifts?week=2")
    response = idp.post_form(url, {"email": PROVIDER, "password": PASSWORD}, csrf_from=page)
    assert response.status_code == 303
    assert response.headers["Location"] == "/shifts?week=2"


@pytest.mark.parametrize("next_path", [
    "https://evil.example/",
    "//evil.example/path",
    "/\\evil.example",
    "/\t/evil.example",
    "javascript:alert(1)",
    "evil.example",
])
def test_signin_refuses_next_outside_this_site(shared_idp: Idp, next_path: str) -> None:
    url, refused = signin_page(shared_idp, next_path)
    assert refused.status_code == 400
    assert "Location" not in refused.headers
    _, page = signin_page(shared_idp)
    response = shared_idp.post_form(url, {"email": PROVIDER, "password": PASSWORD}, csrf_from=page)
    assert response.status_code == 400
    assert "Location" not in response.headers


@pytest.mark.parametrize("token", [None, "forged"])
def test_post_without_valid_csrf_token_is_refused(shared_idp: Idp, token: str | None) -> None:
    signin_page(shared_idp)  # the browser has an IdP cookie
    data = {"email": PROVIDER, "password": PASSWORD}
    if token:
        data["csrf_token"] = token
    for url in ("/auth/signin", shared_idp.authorize_url()):
        response = shared_idp.post_form(url, data)
        assert response.status_code == 400
        assert "Location" not in response.headers


def test_csrf_token_of_another_browser_is_refused(shared_idp: Idp) -> None:
    _, their_page = signin_page(shared_idp.new_browser())
    signin_page(shared_idp)
    response = shared_idp.post_form("/auth/signin", {"email": PROVIDER, "password": PASSWORD},
                             csrf_from=their_page)
    assert response.status_code == 400


def test_demo_accounts_are_listed_only_in_demo_mode(make_idp: Callable[..., Idp]) -> None:
    plain = make_idp()
    html = plain.get("/auth/signin").get_data(as_text=True)
    assert "admin@example.com" not in html
    assert "Demo accounts" not in html
    demo = make_idp(demo=True, password_hash=DEMO_HASH)
    html = demo.get("/auth/signin").get_data(as_text=True)
    for email in ("admin@example.com", "manager@example.com", "scheduler@example.com",
                  "provider@example.com"):
        assert f"Sign in as {email}" in html
    assert "<script" not in html


def test_demo_account_button_signs_in(make_idp: Callable[..., Idp]) -> None:
    demo = make_idp(demo=True, password_hash=DEMO_HASH)
    url = demo.authorize_url()
    page = demo.get(url)
    response = demo.post_form(url, {"email": "scheduler@example.com", "password": "demo"},
                              csrf_from=page)
    assert response.status_code == 302
    assert demo.exchange(query_of(response.headers["Location"])["code"]).status_code == 200


def test_logout_to_registered_uri_ends_the_session_and_returns_state(idp: Idp) -> None:
    tokens = idp.tokens()
    target = "http://127.0.0.1:5000/signed-out"
    response = idp.get("/auth/logout", query_string={
        "id_token_hint": tokens["id_token"], "post_logout_redirect_uri": target,
        "state": "bye"})
    assert response.status_code == 303
    assert response.headers["Location"] == f"{target}?state=bye"
    assert "shiftdesk_idp=;" in response.headers["Set-Cookie"]
    again = idp.get(idp.authorize_url())
    assert again.status_code == 200  # the sign-in page, no code
    assert 'name="password"' in again.get_data(as_text=True)
    assert idp.refresh(tokens["refresh_token"]).status_code == 400  # the sign-in is over


@pytest.mark.parametrize("target", [
    "https://evil.example/",
    "http://127.0.0.1:5000/elsewhere",
    "//evil.example/",
    REDIRECT_URI + "?x=1",
])
def test_logout_refuses_unregistered_post_logout_uri(idp: Idp, target: str) -> None:
    tokens = idp.tokens()
    response = idp.get("/auth/logout", query_string={
        "id_token_hint": tokens["id_token"], "post_logout_redirect_uri": target})
    assert response.status_code == 400
    assert "Location" not in response.headers
    assert "<title>Error:" in response.get_data(as_text=True)
    assert idp.get(idp.authorize_url()).status_code == 302  # still signed in


def test_logout_refuses_forged_id_token_hint(idp: Idp) -> None:
    tokens = idp.tokens()
    header, claims, _ = tokens["id_token"].split(".")
    response = idp.get("/auth/logout", query_string={"id_token_hint": f"{header}.{claims}.AAAA"})
    assert response.status_code == 400
    assert idp.get(idp.authorize_url()).status_code == 302  # still signed in


def test_logout_without_hint_asks_first_and_needs_csrf(idp: Idp) -> None:
    idp.code()
    page = idp.get("/auth/logout", query_string={
        "client_id": "shiftdesk-web", "post_logout_redirect_uri": "http://localhost:8000/"})
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "Sign out of Shiftdesk?" in html
    assert "form-action 'self' http://localhost:8000" in page.headers["Content-Security-Policy"]
    form = {"client_id": "shiftdesk-web", "post_logout_redirect_uri": "http://localhost:8000/"}
    assert idp.post_form("/auth/logout", form).status_code == 400
    assert idp.get(idp.authorize_url()).status_code == 302  # not signed out by a forged POST
    done = idp.post_form("/auth/logout", form, csrf_from=page)
    assert done.status_code == 303
    assert done.headers["Location"] == "http://localhost:8000/"
    assert idp.get(idp.authorize_url()).status_code == 200


def test_logout_without_target_shows_signed_out_page(idp: Idp) -> None:
    tokens = idp.tokens()
    response = idp.get("/auth/logout", query_string={"id_token_hint": tokens["id_token"]})
    assert response.status_code == 200
    assert "You are signed out" in response.get_data(as_text=True)


def _provider_cookie(idp: Idp) -> str:
    cookie = idp.browser.get_cookie("shiftdesk_idp", path="/auth")
    assert cookie is not None
    return cookie.value


def test_a_provider_cookie_kept_from_before_sign_out_signs_nobody_in(idp: Idp) -> None:
    idp.code()
    kept = _provider_cookie(idp)
    page = idp.get("/auth/logout")
    assert idp.post_form("/auth/logout", {}, csrf_from=page).status_code == 200

    idp.browser.set_cookie("shiftdesk_idp", kept, path="/auth")  # replayed, as a thief would
    again = idp.get(idp.authorize_url())

    assert again.status_code == 200  # the sign-in page, no code
    assert 'name="password"' in again.get_data(as_text=True)


def test_sign_out_revokes_the_refresh_tokens_of_that_sign_in_only(idp: Idp) -> None:
    mine = idp.tokens()
    other = idp.new_browser()
    theirs = other.tokens()
    page = idp.get("/auth/logout")  # no ID token: the person confirms

    assert idp.post_form("/auth/logout", {}, csrf_from=page).status_code == 200

    assert idp.refresh(mine["refresh_token"]).status_code == 400
    assert other.refresh(theirs["refresh_token"]).status_code == 200  # another browser's


def test_logout_posted_by_the_application_with_its_id_token_needs_no_form_of_ours(
        idp: Idp) -> None:
    tokens = idp.tokens()
    target = "http://127.0.0.1:5000/signed-out"
    response = idp.browser.post("/auth/logout", data={
        "id_token_hint": tokens["id_token"], "post_logout_redirect_uri": target})
    assert response.status_code == 303
    assert response.headers["Location"] == target
    assert idp.get(idp.authorize_url()).status_code == 200  # signed out: the sign-in page
    assert idp.refresh(tokens["refresh_token"]).status_code == 400
