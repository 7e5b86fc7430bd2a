"""The IdP's own sign-in session: a signed cookie (`shiftdesk_idp`) naming the sign-in held on the
server (who signed in and when), plus the seed of the CSRF token of the IdP's forms.

Deliberately not `flask.session`: the staff UI keeps its own server-side session. Must not touch
the database or render pages.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import uuid
from dataclasses import dataclass
from typing import Any

from flask import Request, Response
from itsdangerous import BadSignature, URLSafeTimedSerializer

from app.config import Settings

COOKIE = "shiftdesk_idp"
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class IdpSession:
    """One browser's state at the IdP; `user_id` is None until someone signs in."""

    csrf_seed: str
    user_id: uuid.UUID | None = None
    auth_time: int | None = None
    sign_in_id: uuid.UUID | None = None
    """The server's record of the sign-in (`IdpSignIn`); the views check it is still live."""

    @classmethod
    def anonymous(cls) -> IdpSession:
        """A session nobody has signed in to, with a fresh CSRF seed."""
        return cls(csrf_seed=secrets.token_urlsafe(24))

    @classmethod
    def signed_in(cls, user_id: uuid.UUID, auth_time: int,
                  sign_in_id: uuid.UUID) -> IdpSession:
        """A session of `user_id`, with a fresh CSRF seed (no fixation of the old one)."""
        return cls(csrf_seed=secrets.token_urlsafe(24), user_id=user_id, auth_time=auth_time,
                   sign_in_id=sign_in_id)


class SessionCookies:
    """Reads, writes and clears the IdP cookie; makes and checks CSRF tokens bound to it."""

    def __init__(self, settings: Settings) -> None:
        self._serializer = URLSafeTimedSerializer(settings.secret_key, salt="shiftdesk-idp")
        self._csrf_key = hashlib.sha256(f"idp-csrf\0{settings.secret_key}".encode()).digest()
        self._ttl = settings.idp_session_ttl
        self._development = settings.development

    def load(self, request: Request, *, now: int) -> IdpSession | None:
        """The session in the request's cookie, or None when absent, forged or expired."""
        raw = request.cookies.get(COOKIE)
        if not raw:
            return None
        try:
            data: dict[str, Any] = self._serializer.loads(raw, max_age=self._ttl)
            seed = str(data["c"])
            user_id = uuid.UUID(data["u"]) if data.get("u") else None
            auth_time = int(data["t"]) if data.get("t") is not None else None
            sign_in_id = uuid.UUID(data["s"]) if data.get("s") else None
        except (BadSignature, KeyError, TypeError, ValueError):
            return None
        if user_id is not None and (auth_time is None or sign_in_id is None
                                    or auth_time + self._ttl < now):
            return IdpSession(csrf_seed=seed)
        return IdpSession(csrf_seed=seed, user_id=user_id, auth_time=auth_time,
                          sign_in_id=sign_in_id)

    def save(self, response: Response, request: Request, idp_session: IdpSession) -> None:
        """Set the cookie to `idp_session`."""
        value = self._serializer.dumps({
            "c": idp_session.csrf_seed,
            "u": str(idp_session.user_id) if idp_session.user_id else None,
            "t": idp_session.auth_time,
            "s": str(idp_session.sign_in_id) if idp_session.sign_in_id else None,
        })
        response.set_cookie(COOKIE, value, max_age=self._ttl, path=self._path(request),
                            secure=self._secure(request), httponly=True, samesite="Lax")

    def clear(self, response: Response, request: Request) -> None:
        """Remove the cookie: nobody is signed in any more."""
        response.delete_cookie(COOKIE, path=self._path(request), secure=self._secure(request),
                               httponly=True, samesite="Lax")

    def csrf_token(self, idp_session: IdpSession) -> str:
        """The CSRF token the session's forms must send back."""
        return hmac.new(self._csrf_key, idp_session.csrf_seed.encode(), "sha256").hexdigest()

    def csrf_ok(self, idp_session: IdpSession, token: str | None) -> bool:
        """Whether `token` is this session's CSRF token."""
        return bool(token) and hmac.compare_digest(self.csrf_token(idp_session), str(token))

    def _secure(self, request: Request) -> bool:
        # Plain http is only acceptable in development or on this machine (`make run`).
        loopback = request.scheme == "http" and (request.host.rsplit(":", 1)[0].strip("[]")
                                                 in LOOPBACK_HOSTS)
        return not (self._development or loopback)

    @staticmethod
    def _path(request: Request) -> str:
        return f"{request.script_root}/auth"
