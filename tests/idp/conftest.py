"""Fixtures for the embedded OpenID Connect provider: an app on a database of its own where some
people have passwords, and a browser-like helper that walks the sign-in and token flows.

The shared organisation has no passwords; `make_idp` sets them (werkzeug scrypt) before a test.
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from sqlalchemy import select
from werkzeug.security import generate_password_hash

from app import create_app
from app.api.models import User
from tests.conftest import Api, Template, make_settings

PASSWORD = "correct horse battery staple"
CLIENT_ID = "shiftdesk-web"
REDIRECT_URI = "http://127.0.0.1:5000/signin/callback"
PROVIDER = "provider@example.com"
# Cheap scrypt parameters keep the suite fast; checking reads them from the stored hash.
PASSWORD_HASH = generate_password_hash(PASSWORD, method="scrypt:1024:8:1")
DEMO_HASH = generate_password_hash("demo", method="scrypt:1024:8:1")


def pkce_pair() -> tuple[str, str]:
    """A fresh PKCE code verifier and its S256 challenge."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def csrf_token(html: str) -> str:
    """The CSRF token of the (first) form on a page."""
    match = re.search(r'name="csrf_token" value="([^"]+)"', html)
    assert match, "the page has no CSRF token"
    return match.group(1)


def query_of(location: str) -> dict[str, str]:
    """The query parameters of a redirect's Location, one value each."""
    return {k: v[0] for k, v in parse_qs(urlsplit(location).query).items()}


class Idp:
    """A browser (its own cookie jar) and a client application talking to one test app's IdP."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self.browser = api.app.test_client()
        self.verifier, self.challenge = pkce_pair()

    def new_browser(self, remote_addr: str = "127.0.0.1") -> Idp:
        """Another browser on the same app (no cookies), optionally from another address."""
        other = Idp(self.api)
        other.browser.environ_base["REMOTE_ADDR"] = remote_addr
        return other

    def authorize_params(self, **overrides: str | None) -> dict[str, str]:
        """A valid authorization request of the built-in client; None drops a parameter."""
        params: dict[str, str | None] = {
            "response_type": "code",
            "client_id": CLIENT_ID,
            "redirect_uri": REDIRECT_URI,
            "scope": "openid email profile",
            "state": "state-123",
            "nonce": secrets.token_urlsafe(12),
            "code_challenge": self.challenge,
            "code_challenge_method": "S256",
            **overrides,
        }
        return {k: v for k, v in params.items() if v is not None}

    def authorize_url(self, **overrides: str | None) -> str:
        """The authorization endpoint URL for `authorize_params(**overrides)`."""
        return "/auth/authorize?" + urlencode(self.authorize_params(**overrides))

    def get(self, url: str, **kw: Any) -> Any:
        """GET in this browser."""
        return self.browser.get(url, **kw)

    def post_form(self, url: str, data: dict[str, str], *, csrf_from: Any = None) -> Any:
        """POST a form in this browser, with the CSRF token of page `csrf_from` if given."""
        body = dict(data)
        if csrf_from is not None:
            body["csrf_token"] = csrf_token(csrf_from.get_data(as_text=True))
        return self.browser.post(url, data=body)

    def sign_in_at(self, url: str, email: str = PROVIDER, password: str = PASSWORD) -> Any:
        """Open the sign-in page at `url` and submit it."""
        page = self.get(url)
        assert page.status_code == 200, page.get_data(as_text=True)
        return self.post_form(url, {"email": email, "password": password}, csrf_from=page)

    def code(self, email: str = PROVIDER, password: str = PASSWORD, **overrides: str | None,
             ) -> str:
        """Sign in through the authorization endpoint and return the code sent back."""
        response = self.sign_in_at(self.authorize_url(**overrides), email, password)
        assert response.status_code == 302, response.get_data(as_text=True)
        params = query_of(response.headers["Location"])
        assert "code" in params, response.headers["Location"]
        return params["code"]

    def exchange(self, code: str, **overrides: str | None) -> Any:
        """POST the code to the token endpoint (the client's back channel, no cookies)."""
        data: dict[str, str | None] = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT_URI,
            "client_id": CLIENT_ID,
            "code_verifier": self.verifier,
            **overrides,
        }
        return self.api.app.test_client().post(
            "/auth/token", data={k: v for k, v in data.items() if v is not None})

    def refresh(self, refresh_token: str, **overrides: str | None) -> Any:
        """Use a refresh token at the token endpoint."""
        data: dict[str, str | None] = {
            "grant_type": "refresh_token",
            "refresh_token": refresh_token,
            "client_id": CLIENT_ID,
            **overrides,
        }
        return self.api.app.test_client().post(
            "/auth/token", data={k: v for k, v in data.items() if v is not None})

    def tokens(self, email: str = PROVIDER, **overrides: str | None) -> dict[str, Any]:
        """Run the whole code + PKCE flow and return the token response."""
        response = self.exchange(self.code(email, **overrides))
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def me(self, access_token: str) -> Any:
        """GET /v1/users/me with `access_token`."""
        return self.api.app.test_client().get(
            "/v1/users/me", headers={"Authorization": f"Bearer {access_token}"})


@pytest.fixture
def make_idp(template: Template, signing_key_path: Path, tmp_path: Path,
             ) -> Iterator[Callable[..., Idp]]:
    """Build an app (settings overridable) on a database of its own, with passwords set."""
    cleanups: list[Callable[[], None]] = []

    def build(*, password_hash: str = PASSWORD_HASH, **overrides: Any) -> Idp:
        url, drop = template.copy(tmp_path)
        app = create_app(make_settings(url, signing_key_path, **overrides))
        api = Api(app, template.world, template.backend)
        with api.db.unit_of_work(write=True) as session:
            for user in session.scalars(select(User).where(User.type == "user")):
                user.password_hash = password_hash

        def cleanup() -> None:
            api.db.dispose()
            drop()

        cleanups.append(cleanup)
        return Idp(api)

    yield build
    for cleanup in cleanups:
        cleanup()


@pytest.fixture
def idp(make_idp: Callable[..., Idp]) -> Idp:
    """The IdP of an app with default settings; everyone (but bots) has the test password."""
    return make_idp()


@pytest.fixture
def shared_idp(api: Api) -> Idp:
    """The IdP of the shared read-only app, for tests that never sign in (nobody has a password)."""
    return Idp(api)
