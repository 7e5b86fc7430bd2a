"""Rate limits on sign-in, the token endpoint and `/v1` writes (Flask-Limiter).

Three kinds of request are limited, each per its own key: a sign-in form post per client
address and email, a token request per client id and address, and a `/v1` write per bearer
token (or address without one). Everything else — reads, pages, health checks, metrics — is
never counted. Counters live in Redis when `redis_url` is set (shared by every worker), in
memory otherwise; with Redis unreachable, limits fall back to this process's memory and never
refuse or crash a request for it. A refused `/v1` write answers 429 `rate-limited` with
`Retry-After`; the sign-in pages answer their own way (`app.idp.views`). Token requests count
only when refused (a bad code, secret or refresh token): every UI sign-in and refresh reaches
the token endpoint as the UI's one client from the UI host's address, so counting the granted
ones would cap a whole hospital's sign-ins at the token limit, while guessing is still held
back. The existing sign-in lockout (`login_max_failures`) is separate and unchanged. Must not
import the web UI.
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

from flask import Flask, Response, g, request
from flask_limiter import Limiter, RequestLimit
from flask_limiter.errors import RateLimitExceeded

from app.api.problems import ProblemError, problem_response
from app.config import Settings
from app.contract.problems import ProblemCode

SIGN_IN_ENDPOINTS = frozenset({"idp.signin", "idp.authorize"})
TOKEN_ENDPOINT = "idp.issue_token"
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
REDIS_TIMEOUT = 1
"""Seconds to wait for the counters' Redis: an outage costs a request one second at most."""


def request_kind() -> str | None:
    """Which limit this request counts against: `sign-in`, `token`, `write`, or None."""
    if request.method != "POST" and request.method not in WRITE_METHODS:
        return None
    if request.endpoint in SIGN_IN_ENDPOINTS and request.method == "POST":
        return "sign-in"
    if request.endpoint == TOKEN_ENDPOINT:
        return "token"
    if (request.path.startswith("/v1/") and request.method in WRITE_METHODS
            and request.endpoint is not None):
        return "write"
    return None


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:32]


def request_key() -> str:
    """The counter this request adds to: its kind and who sends it."""
    kind = request_kind() or "none"
    address = request.remote_addr or "unknown"
    if kind == "sign-in":
        email = (request.form.get("email") or "").strip().lower()
        return f"{kind}:{address}:{_digest(email)}"
    if kind == "token":
        client = request.form.get("client_id") or (
            request.authorization.username if request.authorization else "") or ""
        return f"{kind}:{address}:{client[:100]}"
    # A write: per bearer token (a digest: never the token itself in a store), not per a
    # subject read from an unverified token, which anyone could name to block someone else.
    bearer = request.headers.get("Authorization", "")
    return f"{kind}:token:{_digest(bearer)}" if bearer else f"{kind}:{address}"


def counts(response: Response) -> bool:
    """Whether this answered request adds to its counter: all but a granted token request."""
    return request_kind() != "token" or response.status_code >= 400


def retry_after() -> int:
    """Seconds until the breached limit lets this client in again (at least 1)."""
    return int(g.get("rate_limit_retry_after", 1))


def _on_breach(limit: RequestLimit) -> Response | None:
    # `reset_at` is rounded up to the next whole second: never wait longer than the window.
    wait = min(math.ceil(limit.reset_at - time.time()), limit.limit.get_expiry())
    g.rate_limit_retry_after = max(1, wait)
    return None


def rate_limited_problem(detail: str) -> ProblemError:
    """The 429 `rate-limited` problem of this request, with `retryAfter` and `Retry-After`."""
    seconds = retry_after()
    return ProblemError(ProblemCode.RATE_LIMITED, detail, retryAfter=seconds,
                        headers={"Retry-After": str(seconds)})


def install(app: Flask, settings: Settings) -> Limiter | None:
    """Limit `app`'s sign-in, token and write requests as `settings` say (None: off)."""
    if not settings.rate_limits:
        return None
    limits = {"sign-in": settings.rate_limit_sign_in, "token": settings.rate_limit_token,
              "write": settings.rate_limit_writes}
    options: dict[str, Any] = {}
    if settings.redis_url:
        options = {"socket_connect_timeout": REDIS_TIMEOUT, "socket_timeout": REDIS_TIMEOUT}
    limiter = Limiter(
        key_func=request_key,
        app=app,
        application_limits=[lambda: limits[request_kind() or "write"]],
        application_limits_deduct_when=counts,
        storage_uri=settings.redis_url or "memory://",
        storage_options=options,
        strategy="moving-window",
        key_prefix="shiftdesk-limits",
        swallow_errors=True,  # a storage outage never fails the request
        in_memory_fallback_enabled=True,  # and the limits still hold, per process
        on_breach=_on_breach,
        headers_enabled=False,  # the refusals carry Retry-After; others need no headers
    )
    limiter.request_filter(lambda: request_kind() is None)

    @app.errorhandler(RateLimitExceeded)
    def _refused(_exc: RateLimitExceeded) -> Response:
        return problem_response(rate_limited_problem(
            f"Too many requests; try again in {retry_after()} seconds."))

    return limiter
