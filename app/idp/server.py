"""The OAuth 2.0 / OpenID Connect machinery, on authlib's server side: the built-in public client,
the authorization code grant (PKCE with S256 only, ID tokens) and the refresh token grant (rotation
with reuse detection), stored through SQLAlchemy.

Access tokens are the API's own (`app.api.tokens.mint_access_token`), so `/v1` verifies them
unchanged. The views open the transaction and pass it in on the `IdpRequest`; nothing here commits,
reads cookies or renders pages.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import secrets
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.integrations.flask_oauth2.requests import FlaskOAuth2Payload, FlaskOAuth2Request
from authlib.oauth2.rfc6749 import (
    AuthorizationCodeGrant,
    ClientMixin,
    InvalidRequestError,
    OAuth2Request,
    RefreshTokenGrant,
    TokenMixin,
    scope_to_list,
)
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oidc.core import AuthorizationCodeMixin, OpenIDCode
from authlib.oidc.core.grants.util import is_openid_scope
from flask import Request, Response
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet, RSAKey
from sqlalchemy import delete, exists, select, update
from sqlalchemy.orm import Session

from app.api.models import OAuthAuthorizationCode, OAuthRefreshToken, User
from app.api.tokens import ALGORITHM, mint_access_token
from app.config import Settings
from app.idp.accounts import active_user
from app.idp.redirects import POST_LOGOUT_PATHS, SIGN_IN_CALLBACK_PATHS, is_loopback_uri

log = logging.getLogger(__name__)

SCOPES = ("openid", "profile", "email", "offline_access")
GRANT_TYPES = ("authorization_code", "refresh_token")
CODE_TTL = timedelta(minutes=5)
ID_TOKEN_TTL = 3600
MAX_NONCE_LENGTH = 255


def secret_hash(value: str) -> str:
    """The stored form of a code or refresh token."""
    return hashlib.sha256(value.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


class IdpRequest(FlaskOAuth2Request):
    """The current Flask request as authlib sees it, carrying the transaction and the sign-in time.

    `OAuth2Request.__init__` is bypassed on purpose: it refuses plain-http URLs unless an
    environment variable is set, and only `app.config` reads the environment. Transport security
    is the deployment's (the IdP cookie is `Secure` off loopback).
    """

    def __init__(self, request: Request, session: Session, auth_time: int | None = None,
                 sign_in_id: uuid.UUID | None = None) -> None:
        self.method = request.method
        self.uri = request.url
        self.headers = request.headers
        self._body = None
        self._request = request
        self.payload = FlaskOAuth2Payload(request)
        self.client = None
        self.auth_method = None
        self.user = None
        self.authorization_code = None
        self.refresh_token = None
        self.credential = None
        self.session = session
        self.auth_time = auth_time
        self.sign_in_id = sign_in_id


def _session(request: OAuth2Request) -> Session:
    assert isinstance(request, IdpRequest)
    return request.session


class BuiltinClient(ClientMixin):
    """The one registered client: the staff UI, public (no secret), PKCE required."""

    id_token_signed_response_alg = ALGORITHM

    def __init__(self, settings: Settings) -> None:
        self.client_id = settings.oidc_client_id
        self._redirect_uris = settings.oidc_redirect_uris
        self._post_logout_uris = settings.oidc_post_logout_redirect_uris
        self._loopback = settings.oidc_loopback_redirects

    def get_client_id(self) -> str:
        """This client's id."""
        return self.client_id

    def get_default_redirect_uri(self) -> str | None:
        """The redirect URI when none is sent, if exactly one is registered (RFC 6749 §3.1.2.3)."""
        return self._redirect_uris[0] if len(self._redirect_uris) == 1 else None

    def get_allowed_scope(self, scope: str) -> str:
        """The requested scopes this server knows, in request order."""
        return " ".join(s for s in scope_to_list(scope or "") or [] if s in SCOPES)

    def check_redirect_uri(self, redirect_uri: str) -> bool:
        """Exact match with a registered URI, or a loopback callback on any port."""
        return redirect_uri in self._redirect_uris or (
            self._loopback and is_loopback_uri(redirect_uri, SIGN_IN_CALLBACK_PATHS)
        )

    def check_post_logout_redirect_uri(self, uri: str) -> bool:
        """Exact match with a registered post-logout URI, or a loopback page on any port."""
        return uri in self._post_logout_uris or (
            self._loopback and is_loopback_uri(uri, POST_LOGOUT_PATHS)
        )

    def check_client_secret(self, client_secret: str) -> bool:
        """A public client has no secret."""
        return False

    def check_endpoint_auth_method(self, method: str, endpoint: str) -> bool:
        """Only `none`: the client is public."""
        return method == "none"

    def check_response_type(self, response_type: str) -> bool:
        """Only the code flow."""
        return response_type == "code"

    def check_grant_type(self, grant_type: str) -> bool:
        """Codes and refresh tokens."""
        return grant_type in GRANT_TYPES


class IssuedCode(AuthorizationCodeMixin):
    """A stored authorization code as authlib's grants read it."""

    def __init__(self, row: OAuthAuthorizationCode) -> None:
        self.row = row

    def get_redirect_uri(self) -> str | None:
        """The redirect URI the code was issued for."""
        return self.row.redirect_uri

    def get_scope(self) -> str:
        """The granted scope."""
        return self.row.scope

    def get_nonce(self) -> str | None:
        """The client's nonce, echoed in the ID token."""
        return self.row.nonce

    def get_auth_time(self) -> int:
        """When the person signed in (seconds since the epoch)."""
        return int(self.row.auth_time.timestamp())


class IssuedRefreshToken(TokenMixin):
    """A stored refresh token as authlib's refresh grant reads it."""

    def __init__(self, row: OAuthRefreshToken) -> None:
        self.row = row

    def check_client(self, client: ClientMixin) -> bool:
        """Whether the token was issued to `client`."""
        return self.row.client_id == client.get_client_id()

    def get_scope(self) -> str:
        """The scope granted at sign-in."""
        return self.row.scope

    def get_expires_in(self) -> int:
        """Seconds left."""
        return max(0, int((self.row.expires_at - _now()).total_seconds()))

    def is_expired(self) -> bool:
        """Whether the token has expired."""
        return self.row.expires_at <= _now()

    def is_revoked(self) -> bool:
        """Whether the token was revoked or already rotated."""
        return self.row.revoked_at is not None or self.row.rotated_at is not None


def revoke_family(session: Session, family_id: uuid.UUID, *, now: datetime) -> None:
    """Revoke every refresh token issued from one sign-in."""
    session.execute(
        update(OAuthRefreshToken)
        .where(OAuthRefreshToken.family_id == family_id, OAuthRefreshToken.revoked_at.is_(None))
        .values(revoked_at=now)
    )


def revoke_sign_in(session: Session, sign_in_id: uuid.UUID, *, now: datetime) -> None:
    """Revoke every refresh token issued under one browser's sign-in at this provider (all the
    applications it signed in to), and the codes not yet exchanged."""
    session.execute(
        update(OAuthRefreshToken)
        .where(OAuthRefreshToken.sign_in_id == sign_in_id, OAuthRefreshToken.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    session.execute(
        update(OAuthAuthorizationCode)
        .where(OAuthAuthorizationCode.sign_in_id == sign_in_id,
               OAuthAuthorizationCode.used_at.is_(None))
        .values(used_at=now)
    )


class S256CodeChallenge(CodeChallenge):
    """PKCE as OAuth 2.1 wants it for public clients: a challenge is required, and only S256."""

    SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]
    DEFAULT_CODE_CHALLENGE_METHOD = "S256"
    CODE_CHALLENGE_METHODS = {"S256": CodeChallenge.CODE_CHALLENGE_METHODS["S256"]}

    def validate_code_challenge(self, grant: Any, redirect_uri: str) -> None:
        """Refuse an authorization request without an S256 code challenge."""
        data = grant.request.payload.data
        if not data.get("code_challenge"):
            raise InvalidRequestError("Missing 'code_challenge': PKCE with S256 is required.")
        if data.get("code_challenge_method") != "S256":
            raise InvalidRequestError("Unsupported 'code_challenge_method': use S256.")
        super().validate_code_challenge(grant, redirect_uri)

    def get_authorization_code_challenge(self, authorization_code: IssuedCode) -> str:
        """The challenge stored with the code."""
        return authorization_code.row.code_challenge

    def get_authorization_code_challenge_method(self, authorization_code: IssuedCode) -> str:
        """Always S256."""
        return authorization_code.row.code_challenge_method


class CodeGrant(AuthorizationCodeGrant):
    """Authorization code grant for the public client; codes are stored hashed and used once."""

    TOKEN_ENDPOINT_AUTH_METHODS = ["none"]

    def save_authorization_code(self, code: str, request: OAuth2Request) -> None:
        """Store the code's hash with everything the token request will be checked against."""
        session = _session(request)
        now = _now()
        session.execute(delete(OAuthAuthorizationCode)
                        .where(OAuthAuthorizationCode.expires_at < now))
        data = request.payload.data
        auth_time = request.auth_time if isinstance(request, IdpRequest) else None
        sign_in_id = request.sign_in_id if isinstance(request, IdpRequest) else None
        session.add(OAuthAuthorizationCode(
            sign_in_id=sign_in_id,
            code_hash=secret_hash(code),
            client_id=request.client.get_client_id(),
            user_id=request.user.id,
            redirect_uri=request.payload.redirect_uri,
            scope=request.client.get_allowed_scope(request.payload.scope or ""),
            nonce=data.get("nonce") or None,
            code_challenge=data["code_challenge"],
            code_challenge_method="S256",
            auth_time=datetime.fromtimestamp(auth_time, UTC) if auth_time else now,
            expires_at=now + CODE_TTL,
        ))

    def query_authorization_code(self, code: str, client: ClientMixin) -> IssuedCode | None:
        """The unused, unexpired code of `client`; a replayed code revokes what it issued."""
        session = _session(self.request)
        row = session.scalar(
            select(OAuthAuthorizationCode)
            .where(OAuthAuthorizationCode.code_hash == secret_hash(code))
            .with_for_update()
        )
        now = _now()
        if row is None or row.client_id != client.get_client_id():
            return None
        if row.used_at is not None:
            # RFC 6749 §4.1.2: a code used twice SHOULD revoke the tokens issued with it.
            log.warning("authorization code replayed; revoking token family %s", row.family_id)
            revoke_family(session, row.family_id, now=now)
            return None
        if row.expires_at <= now:
            return None
        return IssuedCode(row)

    def delete_authorization_code(self, authorization_code: IssuedCode) -> None:
        """Mark the code used (kept until it expires, to detect replays)."""
        authorization_code.row.used_at = _now()

    def authenticate_user(self, authorization_code: IssuedCode) -> User | None:
        """The person the code was issued to, if they may still sign in."""
        return active_user(_session(self.request), authorization_code.row.user_id)


class RotatingRefreshGrant(RefreshTokenGrant):
    """Refresh token grant: each use rotates the token; reusing an old one revokes them all."""

    TOKEN_ENDPOINT_AUTH_METHODS = ["none"]
    INCLUDE_NEW_REFRESH_TOKEN = True

    def authenticate_refresh_token(self, refresh_token: str) -> IssuedRefreshToken | None:
        """The live refresh token; a rotated one revokes its family (it was stolen or replayed)."""
        session = _session(self.request)
        row = session.scalar(
            select(OAuthRefreshToken)
            .where(OAuthRefreshToken.token_hash == secret_hash(refresh_token))
            .with_for_update()
        )
        now = _now()
        if row is None or row.revoked_at is not None:
            return None
        if row.rotated_at is not None:
            # OAuth 2.0 Security BCP §4.14.2: reuse of a rotated token ends the whole session.
            log.warning("rotated refresh token reused; revoking token family %s", row.family_id)
            revoke_family(session, row.family_id, now=now)
            return None
        if row.expires_at <= now:
            return None
        return IssuedRefreshToken(row)

    def authenticate_user(self, refresh_token: IssuedRefreshToken) -> User | None:
        """The token's person, if they may still sign in."""
        return active_user(_session(self.request), refresh_token.row.user_id)

    def revoke_old_credential(self, refresh_token: IssuedRefreshToken) -> None:
        """Mark the presented token rotated: it may never be used again."""
        refresh_token.row.rotated_at = _now()


def _half_hash(value: str) -> str:
    digest = hashlib.sha256(value.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest[: len(digest) // 2]).rstrip(b"=").decode("ascii")


def mint_id_token(
    key: RSAKey,
    *,
    user: User,
    issuer: str,
    client_id: str,
    nonce: str | None,
    auth_time: int,
    access_token: str,
    session_id: str,
    now: int | None = None,
) -> str:
    """Sign the OpenID Connect ID token of `user` for `client_id`.

    `sid` names the sign-in (its refresh token family): logging out with this token as
    `id_token_hint` revokes that family.
    """
    issued = int(now if now is not None else time.time())
    claims: dict[str, Any] = {
        "iss": issuer,
        "sub": str(user.id),
        "aud": client_id,
        "iat": issued,
        "exp": issued + ID_TOKEN_TTL,
        "auth_time": auth_time,
        "at_hash": _half_hash(access_token),
        "sid": session_id,
        "email": user.email,
        "name": user.name,
    }
    if nonce:
        claims["nonce"] = nonce
    return jwt.encode({"alg": ALGORITHM, "kid": key.kid, "typ": "JWT"}, claims, key,
                      algorithms=[ALGORITHM])


class IdTokens(OpenIDCode):
    """OpenID Connect on the code grant: nonce replay check and the ID token (joserfc-signed)."""

    def exists_nonce(self, nonce: str, request: OAuth2Request) -> bool:
        """Whether a code was already issued to this client with `nonce`."""
        if len(nonce) > MAX_NONCE_LENGTH:
            raise InvalidRequestError(f"The 'nonce' is longer than {MAX_NONCE_LENGTH} characters.")
        return bool(_session(request).scalar(select(exists().where(
            OAuthAuthorizationCode.client_id == request.payload.client_id,
            OAuthAuthorizationCode.nonce == nonce,
        ))))

    def process_token(self, grant: Any, response: tuple[int, dict[str, Any], Any]) -> Any:
        """Add the ID token when the `openid` scope was granted."""
        _, token, _ = response
        if not is_openid_scope(token.get("scope")):
            return token
        server: IdpServer = grant.server
        request = grant.request
        code: IssuedCode = request.authorization_code
        token["id_token"] = mint_id_token(
            server.key, user=request.user, issuer=server.settings.issuer,
            client_id=request.client.get_client_id(), nonce=code.get_nonce(),
            auth_time=code.get_auth_time(), access_token=token["access_token"],
            session_id=str(code.row.family_id),
        )
        return token


class IdpServer(AuthorizationServer):
    """authlib's authorization server bound to the built-in client, the app's key and tables."""

    def __init__(self, settings: Settings, key: RSAKey) -> None:
        super().__init__()
        self.settings = settings
        self.key = key
        self.public_keys = KeySet([RSAKey.import_key(key.as_dict(private=False))])
        self.client = BuiltinClient(settings)
        self.scopes_supported = list(SCOPES)
        self.register_token_generator("default", self._generate_token)
        self.register_grant(CodeGrant, [S256CodeChallenge(required=True), IdTokens()])
        self.register_grant(RotatingRefreshGrant)

    def query_client(self, client_id: str) -> BuiltinClient | None:
        """The built-in client, if that is the id asked for."""
        return self.client if client_id == self.client.client_id else None

    def create_oauth2_request(self, request: Any) -> OAuth2Request:
        """Views always pass an `IdpRequest` (it carries the transaction)."""
        if not isinstance(request, IdpRequest):
            raise TypeError("pass an IdpRequest to the IdP server")
        return request

    def handle_response(self, status_code: int, payload: Any, headers: Any) -> Response:
        """authlib's response, never cached."""
        response = super().handle_response(status_code, payload, headers)
        response.headers["Cache-Control"] = "no-store"
        return response

    def save_token(self, token: dict[str, Any], request: OAuth2Request) -> None:
        """Store the new refresh token's hash in the family of the code or token it came from."""
        refresh = token.get("refresh_token")
        if not refresh:
            return
        source = request.refresh_token or request.authorization_code
        session = _session(request)
        now = _now()
        session.execute(delete(OAuthRefreshToken).where(OAuthRefreshToken.expires_at < now))
        session.add(OAuthRefreshToken(
            token_hash=secret_hash(refresh),
            family_id=source.row.family_id,
            sign_in_id=source.row.sign_in_id,
            client_id=request.client.get_client_id(),
            user_id=request.user.id,
            scope=token.get("scope") or "",
            auth_time=source.row.auth_time,
            expires_at=now + timedelta(seconds=self.settings.refresh_token_ttl),
        ))

    def _generate_token(
        self,
        grant_type: str,
        client: ClientMixin,
        user: User | None = None,
        scope: str | None = None,
        expires_in: int | None = None,
        include_refresh_token: bool = True,
    ) -> dict[str, Any]:
        assert user is not None
        ttl = self.settings.access_token_ttl
        token: dict[str, Any] = {
            "token_type": "Bearer",
            "access_token": mint_access_token(
                self.key, subject=str(user.id), issuer=self.settings.issuer,
                audience=self.settings.audience, ttl=ttl,
            ),
            "expires_in": ttl,
        }
        if scope:
            token["scope"] = scope
        if include_refresh_token:
            token["refresh_token"] = secrets.token_urlsafe(48)
        return token

    def verify_id_token_hint(self, token: str) -> dict[str, Any] | None:
        """The claims of an ID token this server issued (expired ones too), or None."""
        try:
            decoded = jwt.decode(token, self.public_keys, algorithms=[ALGORITHM])
            # An expired hint is still a fine hint (RP-Initiated Logout 1.0 §2): skip `exp`.
            jwt.JWTClaimsRegistry(
                iss={"essential": True, "value": self.settings.issuer},
                sub={"essential": True},
                aud={"essential": True, "value": self.client.client_id},
            ).validate({k: v for k, v in decoded.claims.items() if k != "exp"})
        except (JoseError, ValueError, KeyError) as exc:
            log.info("id_token_hint refused: %s", exc)
            return None
        return dict(decoded.claims)

    def discovery(self) -> dict[str, Any]:
        """The OpenID Provider metadata (OpenID Connect Discovery 1.0 §3)."""
        base = self.settings.issuer.rstrip("/")
        return {
            "issuer": self.settings.issuer,
            "authorization_endpoint": f"{base}/authorize",
            "token_endpoint": f"{base}/token",
            "userinfo_endpoint": f"{base}/userinfo",
            "jwks_uri": f"{base}/jwks",
            "end_session_endpoint": f"{base}/logout",
            "scopes_supported": list(SCOPES),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": list(GRANT_TYPES),
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": [ALGORITHM],
            "token_endpoint_auth_methods_supported": ["none"],
            "code_challenge_methods_supported": ["S256"],
            "prompt_values_supported": ["none", "login"],
            "claims_supported": ["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce",
                                 "email", "name"],
        }
