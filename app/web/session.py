"""Server-side sessions (Flask-Session): files under `settings.session_dir`, or Redis.

The browser holds only a random session id in an `HttpOnly`, `SameSite=Lax` cookie (`Secure`
except in development or on loopback); tokens and everything else stay on the server. Must not
store anything in the cookie itself and must not call the API.

With Redis unreachable, a request gets a null session and is marked (`store_down`): the UI then
answers 503 with a page that says so, and the next request after Redis is back works again (the
client reconnects by itself).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from cachelib.file import FileSystemCache
from flask import Flask, Request, Response
from flask import request as current_request
from flask_session.base import ServerSideSession, ServerSideSessionInterface
from flask_session.cachelib import CacheLibSessionInterface
from flask_session.redis import RedisSessionInterface

from app.config import Settings
from app.web.security import cookie_secure, is_api_path, is_operations_path

log = logging.getLogger(__name__)

COOKIE_NAME = "shiftdesk_session"
STORE_DOWN = "shiftdesk.session_store_down"
"""Set in the WSGI environ of a request whose session store could not be reached."""
LIFETIME = timedelta(hours=12)  # one long shift; active sessions renew with each token refresh
FILE_THRESHOLD = 20_000  # cachelib prunes sessions beyond this many files


class _UiSessionPolicy(ServerSideSessionInterface):
    """`Secure` decided per request: loopback hosts are served over plain HTTP in development.

    The `/v1` API gets no session: it authenticates every request by its bearer token, so a
    cookie sent along is never looked up and its answers never set one.
    """

    development: bool = False

    def get_cookie_secure(self, app: Flask) -> bool:
        return cookie_secure(self.development)

    def open_session(self, app: Flask, request: Request) -> ServerSideSession | None:
        if is_api_path(request.path) or is_operations_path(request.path):
            return None  # Flask then uses a null session, and saves nothing
        return super().open_session(app, request)


class FileSessions(_UiSessionPolicy, CacheLibSessionInterface):
    """Sessions as files (mode 600) in one directory."""


class RedisSessions(_UiSessionPolicy, RedisSessionInterface):
    """Sessions in Redis, shared by every worker and host; an outage is a mark, not a crash."""

    def open_session(self, app: Flask, request: Request) -> ServerSideSession | None:
        from redis.exceptions import RedisError

        try:
            return super().open_session(app, request)
        except RedisError as exc:
            log.warning("session store unreachable: %s", exc)
            request.environ[STORE_DOWN] = True
            return None  # Flask's null session: reads find nothing, nothing is saved

    def save_session(self, app: Flask, session: Any, response: Response) -> None:
        from redis.exceptions import RedisError

        try:
            super().save_session(app, session, response)
        except RedisError as exc:  # the answer is decided; the change of session is lost
            log.warning("session store unreachable while saving: %s", exc)


def store_down() -> bool:
    """Whether this request's session store could not be reached."""
    return bool(current_request.environ.get(STORE_DOWN))


def install(app: Flask, settings: Settings) -> None:
    """Make `app` keep its sessions on the server."""
    app.config.update(
        SESSION_COOKIE_NAME=COOKIE_NAME,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        PERMANENT_SESSION_LIFETIME=LIFETIME,
        # Write the session only when it changed: fewer writes, and a request that did not
        # touch the tokens never puts back the ones a concurrent request just rotated.
        SESSION_REFRESH_EACH_REQUEST=False,
    )
    interface: Any
    if settings.redis_url:
        import redis

        interface = RedisSessions(app, client=redis.Redis.from_url(settings.redis_url),
                                  key_prefix="shiftdesk:session:")
    else:
        settings.session_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        cache = FileSystemCache(str(settings.session_dir), threshold=FILE_THRESHOLD, mode=0o600)
        interface = FileSessions(app, client=cache, key_prefix="session:")
    interface.development = settings.development
    app.session_interface = interface
