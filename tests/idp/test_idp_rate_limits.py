"""Rate limits on sign-in and the token endpoint (Flask-Limiter, `app.api.limits`): past the
limit the sign-in form comes back (429, `Retry-After`) saying how long to wait, and the token
endpoint answers a 429 `rate-limited` problem. The lockout after five failures is unchanged.
"""

from __future__ import annotations

from collections.abc import Callable

from tests.idp.conftest import PASSWORD, PROVIDER, Idp


def test_sign_in_past_the_limit_shows_the_form_with_the_wait(
        make_idp: Callable[..., Idp]) -> None:
    idp = make_idp(rate_limits=True, rate_limit_sign_in="2/minute")
    url = "/auth/signin"
    page = idp.get(url)
    for _ in range(2):
        assert idp.post_form(url, {"email": PROVIDER, "password": "wrong"},
                             csrf_from=page).status_code == 422
    refused = idp.post_form(url, {"email": PROVIDER, "password": PASSWORD}, csrf_from=page)
    assert refused.status_code == 429
    html = refused.get_data(as_text=True)
    seconds = int(refused.headers["Retry-After"])
    assert 0 < seconds <= 60
    assert f"Too many attempts, wait {seconds} second" in html
    assert 'role="alert"' in html
    assert f'value="{PROVIDER}"' in html
    assert 'action="/auth/signin"' in html
    # Another person at the same address is not held back.
    other = idp.post_form(url, {"email": "manager@example.com", "password": "wrong"},
                          csrf_from=page)
    assert other.status_code == 422


def test_authorize_sign_in_past_the_limit_keeps_the_authorization_request(
        make_idp: Callable[..., Idp]) -> None:
    idp = make_idp(rate_limits=True, rate_limit_sign_in="1/minute")
    assert idp.sign_in_at(idp.authorize_url(), PROVIDER, "wrong").status_code == 422
    refused = idp.sign_in_at(idp.authorize_url(), PROVIDER, PASSWORD)
    assert refused.status_code == 429
    html = refused.get_data(as_text=True)
    assert "Too many attempts, wait" in html
    assert 'action="/auth/authorize?' in html


def test_lockout_after_five_failures_still_applies_with_limits_on(
        make_idp: Callable[..., Idp]) -> None:
    idp = make_idp(rate_limits=True)
    page = idp.get("/auth/signin")
    for _ in range(5):
        idp.post_form("/auth/signin", {"email": PROVIDER, "password": "wrong"}, csrf_from=page)
    refused = idp.post_form("/auth/signin", {"email": PROVIDER, "password": PASSWORD},
                            csrf_from=page)
    assert refused.status_code == 429
    assert "Too many failed sign-in attempts" in refused.get_data(as_text=True)


def test_token_endpoint_past_the_limit_is_a_429_problem(make_idp: Callable[..., Idp]) -> None:
    idp = make_idp(rate_limits=True, rate_limit_token="2/minute")
    first = idp.exchange(idp.code())
    assert first.status_code == 200, first.get_json()
    for _ in range(2):
        assert idp.refresh("not-a-token").status_code == 400
    refused = idp.refresh("not-a-token")
    assert refused.status_code == 429
    assert refused.mimetype == "application/problem+json"
    body = refused.get_json()
    assert body["type"].endswith("#rate-limited")
    assert refused.headers["Retry-After"] == str(body["retryAfter"])


def test_granted_token_requests_are_not_counted(make_idp: Callable[..., Idp]) -> None:
    """Every UI sign-in and refresh reaches the token endpoint as the UI's one client from one
    address: granted requests past the limit still succeed; only refused ones count."""
    idp = make_idp(rate_limits=True, rate_limit_token="2/minute")
    granted = idp.exchange(idp.code())
    for _ in range(4):
        assert granted.status_code == 200, granted.get_json()
        granted = idp.refresh(granted.get_json()["refresh_token"])
    assert idp.refresh("not-a-token").status_code == 400
    assert idp.refresh("not-a-token").status_code == 400
    assert idp.refresh("not-a-token").status_code == 429
