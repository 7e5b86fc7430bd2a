"""Signing in with OpenID Connect (authlib's Flask client) and keeping the tokens fresh.

Authorization code with PKCE (S256) as a public client. The tokens live only in the server-side
session: `session["auth"]` holds the access, refresh and ID tokens and when the access token
expires; it is refreshed 60 seconds before that. `api()` is the signed-in user's `ApiClient`,
`current_user()` their `/v1/users/me`. When the embedded provider and the API both run in this
process, back-channel calls (discovery, token, JWKS) stay in-process like the API client's;
otherwise they go over HTTP. Must never put a token into a page, a cookie or a log line.
"""

from __future__ import annotations

import hashlib
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any

import httpx
from authlib.integrations.base_client import OAuthError
from authlib.integrations.flask_client import OAuth
from authlib.integrations.flask_client.apps import FlaskOAuth2App
from authlib.integrations.httpx_client import OAuth2Client
from flask import Flask, current_app, g, request, session

from app.client import ApiClient, ApiUnavailable, own_context
from app.config import Settings
from app.contract.users import UserMe

REFRESH_MARGIN = 60  # seconds before expiry at which the access token is renewed
ROTATION_MEMORY = 120  # seconds a rotated refresh token's successor is remembered
SCOPE = "openid profile email"
TIMEOUT = httpx.Timeout(10.0, connect=3.0)
AUTH_KEY = "auth"
USER_KEY = "user"


class SessionExpired(Exception):
    """The user is not signed in (any more): send them to sign in and back."""


class SignInUnavailable(ApiUnavailable):
    """The OpenID provider could not be reached or answered nonsense."""


class _HttpxFlaskApp(FlaskOAuth2App):
    """authlib's Flask client on httpx, so discovery and tokens can go in-process."""

    client_cls = OAuth2Client


class _OAuth(OAuth):
    oauth2_client_cls = _HttpxFlaskApp


@dataclass
class Oidc:
    """The UI's OpenID Connect client."""

    issuer: str
    client: Any

    def metadata(self) -> dict[str, Any]:
        """The provider's discovery document (fetched once)."""
        try:
            return dict(self.client.load_server_metadata())
        except (httpx.HTTPError, ValueError) as exc:
            raise SignInUnavailable(f"could not read the sign-in provider's settings: {exc}") \
                from exc

    def authorize_redirect(self, redirect_uri: str) -> Any:
        """A redirect to the provider's sign-in page (state, nonce and PKCE kept in session)."""
        self.metadata()
        return self.client.authorize_redirect(redirect_uri)

    def authorize_access_token(self) -> dict[str, Any]:
        """Exchange the callback's code for tokens and check the ID token."""
        try:
            return _granted(dict(self.client.authorize_access_token()))
        except (httpx.HTTPError, ValueError) as exc:
            raise SignInUnavailable(f"the sign-in provider did not answer: {exc}") from exc

    def refresh(self, refresh_token: str) -> dict[str, Any]:
        """New tokens for a refresh token (the provider rotates it)."""
        try:
            return _granted(dict(self.client.fetch_access_token(grant_type="refresh_token",
                                                                refresh_token=refresh_token)))
        except (httpx.HTTPError, ValueError) as exc:
            raise SignInUnavailable(f"the sign-in provider did not answer: {exc}") from exc


def _granted(token: dict[str, Any]) -> dict[str, Any]:
    """A token response that grants tokens; an answer without them (a 429 problem from a busy
    provider) is the provider being unavailable, not a crash of the page that asked."""
    if not token.get("access_token"):
        raise ValueError(f"no access token in the answer ({token.get('status', 'no status')})")
    return token


def build_oidc(app: Flask, settings: Settings) -> Oidc:
    """The OIDC client for `settings`: embedded provider in-process, any other over HTTP."""
    issuer = (settings.oidc_issuer or settings.issuer).rstrip("/")
    client_kwargs: dict[str, Any] = {
        "scope": SCOPE,
        "code_challenge_method": "S256",
        "token_endpoint_auth_method": "none",
        "timeout": TIMEOUT,
    }
    if settings.oidc_issuer is None and settings.api_url is None:
        client_kwargs["transport"] = httpx.WSGITransport(app=own_context(app))
    oauth = _OAuth(app)
    client = oauth.register(
        "shiftdesk",
        client_id=settings.oidc_client_id,
        client_secret=None,
        server_metadata_url=f"{issuer}/.well-known/openid-configuration",
        client_kwargs=client_kwargs,
    )
    return Oidc(issuer=issuer, client=client)


def _state() -> Any:
    return current_app.extensions["shiftdesk_web"]


# -- tokens in the session ---------------------------------------------------------------------


def store_tokens(token: dict[str, Any], previous: dict[str, Any] | None = None,
                 ) -> dict[str, Any]:
    """The session's token record for a token response (keeping what a refresh left out)."""
    previous = previous or {}
    now = time.time()
    expires_at = token.get("expires_at")
    if expires_at is None:
        expires_at = now + float(token.get("expires_in") or 300)
    return {
        "access_token": token["access_token"],
        "refresh_token": token.get("refresh_token") or previous.get("refresh_token"),
        "id_token": token.get("id_token") or previous.get("id_token"),
        "expires_at": float(expires_at),
    }


class _Rotations:
    """Successors of recently rotated refresh tokens, so concurrent requests share one refresh."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: dict[str, tuple[float, dict[str, Any]]] = {}

    @staticmethod
    def _key(refresh_token: str) -> str:
        return hashlib.sha256(refresh_token.encode()).hexdigest()

    def refresh(self, oidc: Oidc, tokens: dict[str, Any]) -> dict[str, Any]:
        refresh_token = tokens.get("refresh_token")
        if not refresh_token:
            raise SessionExpired("no refresh token")
        key = self._key(refresh_token)
        with self._lock:
            now = time.time()
            for old in [k for k, (at, _) in self._seen.items() if now - at > ROTATION_MEMORY]:
                del self._seen[old]
            if key in self._seen:
                return self._seen[key][1]
            try:
                answer = oidc.refresh(refresh_token)
            except OAuthError as exc:
                raise SessionExpired(f"refresh refused: {exc.error}") from exc
            fresh = store_tokens(answer, previous=tokens)
            self._seen[key] = (now, fresh)
            return fresh


ROTATIONS = _Rotations()


def access_token() -> str:
    """The signed-in user's access token, renewed first when it expires within a minute."""
    tokens = session.get(AUTH_KEY)
    if not tokens or not tokens.get("access_token"):
        raise SessionExpired("not signed in")
    if time.time() >= float(tokens.get("expires_at", 0)) - REFRESH_MARGIN:
        tokens = ROTATIONS.refresh(_state().oidc, tokens)
        session[AUTH_KEY] = tokens
    return str(tokens["access_token"])


def signed_in() -> bool:
    """Whether the session holds tokens (they may still turn out to be expired)."""
    return bool(session.get(AUTH_KEY))


def forget_sign_in() -> None:
    """Drop the tokens and user from the session, keeping anything else (e.g. the provider's)."""
    session.pop(AUTH_KEY, None)
    session.pop(USER_KEY, None)
    g.pop("shiftdesk_me", None)
    g.pop("shiftdesk_api", None)


def api() -> ApiClient:
    """The API as the signed-in user sees it."""
    if "shiftdesk_api" not in g:
        g.shiftdesk_api = ApiClient(_state().http, access_token())
    client: ApiClient = g.shiftdesk_api
    return client


def current_user() -> UserMe:
    """The signed-in user and their permissions (`GET /v1/users/me`, once per request)."""
    if "shiftdesk_me" not in g:
        g.shiftdesk_me = api().me()
    me: UserMe = g.shiftdesk_me
    return me


def my_provider_id() -> uuid.UUID | None:
    """The signed-in user's provider id (None: not a provider), kept in the session.

    A page can then ask the API for this provider's records in the same concurrent round as
    `/users/me` rather than after it; the first page of a session asks `/users/me` first.
    """
    user = session.get(USER_KEY)
    user = dict(user) if isinstance(user, dict) else {}
    if "provider_id" not in user:
        me = current_user()
        user["provider_id"] = str(me.provider_id) if me.provider_id else None
        session[USER_KEY] = user
    known = user["provider_id"]
    return uuid.UUID(known) if known else None


def require_sign_in() -> None:
    """Before a UI view that is not public: make sure there are fresh tokens."""
    from app.web.security import is_public_endpoint, is_ui_request

    if is_ui_request() and not is_public_endpoint(request.endpoint):
        access_token()
