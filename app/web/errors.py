"""The UI's error handling: HTML error pages by path, problems from the API, expired sessions.

Handlers live on the app and choose by path: `/v1` (and the embedded provider's pages) keep
whatever handler was registered before ours — the API's problem+json — while every other path
gets an HTML page. Problems not tied to a form (STYLE §7): a full GET shows
`errors/problem.html` with the problem's status; a full POST goes back (303) with the problem as
a message; a partial request gets the status, `HX-Reswap: none` and the message out of band.
An expired session goes to sign in and back; an unreachable API is a 503 page; the API's
`maintenance-mode` switches on a read-only banner. Must not call the API from a handler.
"""

from __future__ import annotations

import logging
import time
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, Response, flash, g, render_template, request, session
from werkzeug.exceptions import HTTPException

from app.client import ApiProblem, ApiUnavailable, Maintenance, Unauthenticated
from app.web.auth import SessionExpired, forget_sign_in
from app.web.htmx import is_partial, leave_to, render
from app.web.security import is_ui_path, safe_next, sign_in_url

log = logging.getLogger(__name__)

READ_ONLY_KEY = "read_only_until"
READ_ONLY_SECONDS = 300

TITLES = {
    400: "The request could not be understood",
    403: "You can't open this page",
    404: "Page not found",
    405: "That action isn't available here",
    413: "That upload is too large",
    422: "Please check what you entered",
    429: "Too many attempts",
    500: "Something went wrong",
    503: "Shiftdesk is unavailable",
}
DETAILS = {
    403: "Your account does not have access to this page. Ask an administrator if you need it.",
    404: "The page may have moved, or the link may be mistyped. Check the address, or go back "
         "to your home page.",
    405: "Use the buttons on the page rather than typing the address.",
    500: "We could not finish that. Nothing was saved. Please try again in a moment.",
}
CSRF_DETAIL = ("This form was open for too long or came from another site, so it was not sent. "
               "Go back, reload the page and try again.")


def read_only() -> bool:
    """Whether the API said recently that it is read-only for maintenance."""
    until = session.get(READ_ONLY_KEY) if session else None
    return bool(until and float(until) > time.time())


def _partial_problem(status: int, message: str) -> Response:
    body = render_template("_partials/messages.html", oob=True, extra=[("error", message)])
    response = Response(body, status=status, mimetype="text/html")
    response.headers["HX-Reswap"] = "none"
    for header in ("HX-Request", "HX-Boosted", "HX-History-Restore-Request"):
        response.vary.add(header)
    return response


def _back() -> str:
    """The same-site page the user came from, else this path (for POST → 303 back)."""
    referrer = urlsplit(request.referrer or "")
    if referrer.netloc == request.host and referrer.path:
        return safe_next(referrer.path + (f"?{referrer.query}" if referrer.query else ""),
                         request.path)
    return request.path


def error_page(status: int, *, title: str | None = None, detail: str | None = None,
               template: str = "errors/problem.html", headers: dict[str, str] | None = None,
               ) -> Response:
    """An error as a page, or for a partial request as an out-of-band message."""
    g.shiftdesk_error = True
    title = title or TITLES.get(status, "Something went wrong")
    detail = detail or DETAILS.get(status, "")
    if is_partial():
        return _partial_problem(status, f"{title}. {detail}".strip() if detail else title)
    reference = g.get("request_id") if status >= 500 else None
    return render(template, status=status, headers=headers, status_code=status, title=title,
                  detail=detail, reference=reference)


def problem_answer(problem: ApiProblem) -> Response:
    """A problem from the API that no form took (STYLE §7)."""
    if is_partial():
        return _partial_problem(problem.status, problem.detail)
    if request.method == "POST":
        flash(problem.detail, "error")
        return leave_to(_back())
    return error_page(problem.status, title=problem.title, detail=problem.detail)


def install(app: Flask, *, issuer_path: str) -> None:
    """Register the UI's error handlers, keeping earlier handlers for non-UI paths."""
    spec = app.error_handler_spec.get(None, {}).get(None, {})
    previous_http = spec.get(HTTPException)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Any:
        if not is_ui_path(request.path, issuer_path=issuer_path):
            return previous_http(exc) if previous_http is not None else exc
        status = exc.code or 500
        if status == 400 and exc.__class__.__name__ == "CSRFError":
            return error_page(400, title="This form has expired", detail=CSRF_DETAIL)
        if status >= 500:
            return error_page(status)
        headers = {"Allow": ", ".join(exc.valid_methods)} if getattr(
            exc, "valid_methods", None) else None
        return error_page(status, headers=headers)

    @app.errorhandler(SessionExpired)
    def _expired(_exc: SessionExpired) -> Response:
        forget_sign_in()
        return leave_to(sign_in_url())

    @app.errorhandler(Unauthenticated)
    def _unauthenticated(_exc: Unauthenticated) -> Response:
        forget_sign_in()
        return leave_to(sign_in_url())

    @app.errorhandler(Maintenance)
    def _maintenance(exc: Maintenance) -> Response:
        session[READ_ONLY_KEY] = time.time() + READ_ONLY_SECONDS
        return problem_answer(exc)

    @app.errorhandler(ApiProblem)
    def _problem(exc: ApiProblem) -> Response:
        return problem_answer(exc)

    @app.errorhandler(ApiUnavailable)
    def _unavailable(exc: ApiUnavailable) -> Response:
        log.warning("API unavailable on %s %s: %s", request.method, request.path, exc)
        return error_page(
            503, title="Shiftdesk can't reach its server",
            detail="Your last action may not have been saved. Wait a moment, then reload the "
                   "page to check.",
            headers={"Retry-After": "30"},
        )
