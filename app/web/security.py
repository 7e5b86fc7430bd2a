"""The UI's request edge: sign-in guard, CSRF check, security headers, safe redirects.

Every UI endpoint needs a signed-in user unless its view is marked `@public`. Every POST to a UI
endpoint carries the session's CSRF token, in the `csrf_token` form field or the `X-CSRF-Token`
header that `base.html` sets for htmx. UI pages get a strict content security policy without
inline script or style. Must not call the API (`app.web.auth` does, to refresh tokens) and
must never touch `/v1` or the sign-in provider's own pages.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

from flask import Flask, Response, current_app, request, url_for
from flask_wtf.csrf import CSRFError, generate_csrf, validate_csrf
from wtforms import ValidationError

F = TypeVar("F", bound=Callable[..., Any])

CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
LOOPBACK_NAMES = frozenset({"localhost"})


def public(view: F) -> F:
    """Mark a UI view as reachable without signing in."""
    view.shiftdesk_public = True  # type: ignore[attr-defined]
    return view


STATIC_ENDPOINTS = frozenset({"static", "styles"})
"""Files every visitor may fetch, the same for everyone: static files and the stylesheet
bundle (`app.web.assets`)."""


def is_public_endpoint(endpoint: str | None) -> bool:
    """Whether the endpoint's view was marked `@public` (static files count as public)."""
    if endpoint is None or endpoint in STATIC_ENDPOINTS:
        return True
    view = current_app.view_functions.get(endpoint)
    return bool(getattr(view, "shiftdesk_public", False))


def is_ui_request() -> bool:
    """Whether this request was routed to one of the UI's blueprints."""
    state = current_app.extensions.get("shiftdesk_web")
    return state is not None and request.blueprint in state.blueprints


def _under(path: str, prefix: str) -> bool:
    return bool(prefix) and prefix != "/" and (path == prefix or path.startswith(prefix + "/"))


def is_api_path(path: str) -> bool:
    """Whether `path` is the `/v1` API's."""
    return _under(path, "/v1")


OPERATIONS_PATHS = frozenset({"/healthz", "/readyz", "/metrics"})
"""The operators' endpoints (`app.api.operations`): no session, no sign-in, no UI pages."""


def is_operations_path(path: str) -> bool:
    """Whether `path` is a health check or the metrics (answered without any UI session)."""
    return path in OPERATIONS_PATHS


def is_ui_path(path: str, *, issuer_path: str) -> bool:
    """Whether `path` belongs to the UI: anything but `/v1`, the embedded provider's pages and
    the operators' endpoints."""
    return (not is_api_path(path) and not _under(path, issuer_path)
            and not is_operations_path(path))


# -- redirects --------------------------------------------------------------------------------


def safe_next(target: str | None, default: str = "/") -> str:
    """`target` when it is a path on this site, else `default` (no open redirects).

    Accepts only `/…` paths: no scheme, no host, no `//host` or `/\\host` (browsers read both
    as another site), no control characters or backslashes anywhere.
    """
    if not target or not target.startswith("/") or target.startswith(("//", "/\\")):
        return default
    if any(ord(ch) < 0x20 or ch in "\\\x7f" for ch in target):
        return default
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return default
    return target


def wanted_path() -> str:
    """The page the user asked for, to return to after signing in."""
    if request.method == "GET" and "HX-Request" not in request.headers:
        return safe_next(request.full_path.rstrip("?"))
    current = request.headers.get("HX-Current-URL") or request.referrer or ""
    parts = urlsplit(current)
    if parts.netloc and parts.netloc != request.host:
        return "/"
    return safe_next(parts.path + (f"?{parts.query}" if parts.query else ""))


def sign_in_url(next_path: str | None = None) -> str:
    """Where to send someone who must sign in, remembering where they were going."""
    target = safe_next(next_path if next_path is not None else wanted_path())
    return url_for("signin.start") + ("" if target == "/" else "?next=" + quote(target, safe="/"))


# -- CSRF ------------------------------------------------------------------------------------


def csrf_token() -> str:
    """The session's CSRF token for forms and the `X-CSRF-Token` header."""
    return generate_csrf()


CSRF_LIFETIME = 12 * 3600
"""Seconds a CSRF token stays good: one long shift with a page left open, as the session."""


def _cross_site() -> bool:
    """Whether the browser says the request comes from another site: `Sec-Fetch-Site`, else
    `Origin` naming another host (a second line behind the token; proxies may change the
    scheme, so the host alone is compared)."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site not in ("same-origin", "none")
    origin = request.headers.get("Origin")
    if origin is None or origin == "null":
        return False
    return urlsplit(origin).netloc != request.host


def check_csrf() -> None:
    """Refuse an unsafe request to the UI that another site sent, or that lacks the session's
    CSRF token (400)."""
    if request.method not in UNSAFE_METHODS or not is_ui_request():
        return
    if _cross_site():
        raise CSRFError("The request came from another site.")
    token = request.form.get(CSRF_FIELD) or request.headers.get(CSRF_HEADER)
    try:
        validate_csrf(token)
    except ValidationError as exc:
        raise CSRFError(str(exc.args[0]) if exc.args else "The CSRF token is invalid.") from exc


# -- cookies and headers ----------------------------------------------------------------------


def is_loopback(host: str) -> bool:
    """Whether `host` (maybe with a port) names this machine: localhost, 127/8 or ::1."""
    name = urlsplit(f"//{host}").hostname or ""
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def cookie_secure(development: bool) -> bool:
    """`Secure` on the session cookie except in development or when served on loopback."""
    if development:
        return False
    return not is_loopback(request.host) if request else True


def content_security_policy(issuer: str) -> str:
    """The UI's CSP: our own scripts and styles only; forms may also go to the sign-in server."""
    parts = urlsplit(issuer)
    form_action = "'self'" + (f" {parts.scheme}://{parts.netloc}" if parts.netloc else "")
    return "; ".join([
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "frame-ancestors 'none'",
        f"form-action {form_action}",
        "base-uri 'none'",
    ])


def install(app: Flask, *, issuer: str, issuer_path: str) -> None:
    """Hook the CSRF check and the security headers into `app`."""
    policy = content_security_policy(issuer)
    app.config.update(WTF_CSRF_TIME_LIMIT=CSRF_LIFETIME, WTF_CSRF_FIELD_NAME=CSRF_FIELD)

    @app.before_request
    def _csrf() -> None:
        check_csrf()

    @app.after_request
    def _headers(response: Response) -> Response:
        if not is_ui_path(request.path, issuer_path=issuer_path):
            return response
        headers = response.headers
        headers.setdefault("X-Content-Type-Options", "nosniff")
        headers.setdefault("Referrer-Policy", "same-origin")
        headers.setdefault("X-Frame-Options", "DENY")
        if request.endpoint not in STATIC_ENDPOINTS:
            headers.setdefault("Content-Security-Policy", policy)
            # Pages carry personal data and may be opened on shared ward computers.
            headers.setdefault("Cache-Control", "no-store")
        return response

    app.jinja_env.globals["csrf_token"] = csrf_token
