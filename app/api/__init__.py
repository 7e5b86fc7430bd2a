"""The `/v1` service: wiring of the blueprint, error rendering, OpenAPI and the errors page.

`init_app` attaches the API to the one Flask app. Errors under `/v1` always leave as RFC 9457
problem documents — unknown routes, wrong methods, oversized bodies and crashes included —
chosen by path, never by `Accept`; elsewhere the UI's handlers answer.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from joserfc.jwk import KeySet, RSAKey
from werkzeug.exceptions import HTTPException

from app.api.db import Database
from app.api.jobs.queue import JobQueue, email_after_commit, make_queue
from app.api.models import AppSetting
from app.api.pagination import Paginator
from app.api.problems import ProblemError, errors_base_url, problem_response
from app.api.signing_keys import signing_key as stored_signing_key
from app.api.tokens import Verifier
from app.config import Settings
from app.contract.problems import REGISTRY, ProblemCode

log = logging.getLogger(__name__)

MAINTENANCE_CACHE_SECONDS = 2.0
"""How long one process trusts what it read of the `maintenance_mode` setting row."""

OPENAPI_DOCUMENTS_KEPT = 4
"""How many OpenAPI documents (one per errors URL, see `openapi_document`) one app keeps built."""


@dataclass
class ApiState:
    """What the API keeps per app: settings, database, token verifier, cursor signer."""

    settings: Settings
    db: Database
    verifier: Verifier
    paginator: Paginator
    signing_key: RSAKey | None
    jobs: JobQueue | None = None
    _maintenance: tuple[float, bool] = (float("-inf"), False)

    def maintenance_mode(self) -> bool:
        """Whether writes are refused right now: the setting, or the `maintenance_mode` row.

        The row is read at most every `MAINTENANCE_CACHE_SECONDS` per process.
        """
        if self.settings.maintenance_mode:
            return True
        checked_at, value = self._maintenance
        if time.monotonic() - checked_at < MAINTENANCE_CACHE_SECONDS:
            return value
        with self.db.unit_of_work() as session:
            row = session.get(AppSetting, "maintenance_mode")
            value = bool(row is not None and row.value is True)
        self._maintenance = (time.monotonic(), value)
        return value


def is_api_request() -> bool:
    """Whether the current request is under `/v1` (errors then answer as problems)."""
    return request.path == "/v1" or request.path.startswith("/v1/")


def _http_problem(exc: HTTPException) -> ProblemError:
    status = exc.code or 500
    if status == 404:
        return ProblemError(ProblemCode.ROUTE_NOT_FOUND,
                            f"There is no endpoint at {request.path}; see /v1/openapi.json.")
    if status == 405:
        allowed = sorted(getattr(exc, "valid_methods", None) or [])
        return ProblemError(
            ProblemCode.METHOD_NOT_ALLOWED,
            f"{request.method} is not allowed here; use {', '.join(allowed)}.",
            headers={"Allow": ", ".join(allowed)},
            allowed=allowed,
        )
    if status == 413:
        limit = request.max_content_length or 0
        return ProblemError(ProblemCode.PAYLOAD_TOO_LARGE,
                            f"The body is larger than {limit} bytes.", maxBytes=limit)
    if status == 415:
        return ProblemError(ProblemCode.UNSUPPORTED_MEDIA_TYPE, "Send the body as JSON.")
    if status < 500:
        return ProblemError(ProblemCode.VALIDATION, exc.description or "Bad request.",
                            path="", message=exc.description or "bad request")
    return ProblemError(ProblemCode.INTERNAL_ERROR, "Something went wrong on our side.")


def _register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ProblemError)
    def _problem(exc: ProblemError) -> Response:
        return problem_response(exc)

    previous_http = app.error_handler_spec.get(None, {}).get(None, {}).get(HTTPException)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Any:
        if is_api_request():
            return problem_response(_http_problem(exc))
        if previous_http is not None:
            return previous_http(exc)
        return exc

    @app.errorhandler(Exception)
    def _crash(exc: Exception) -> Any:
        if isinstance(exc, HTTPException):  # pragma: no cover - routed above
            return _http(exc)
        log.exception("unhandled error on %s %s", request.method, request.path)
        if is_api_request():
            return problem_response(
                ProblemError(ProblemCode.INTERNAL_ERROR, "Something went wrong on our side.")
            )
        raise exc


def init_app(app: Flask, settings: Settings) -> ApiState:
    """Attach the `/v1` API to `app`."""
    from app.api import limits, operations, routes
    from app.api.routing import bp

    routes.load()
    database = Database(settings.database_url)
    if settings.jwks_url:
        signing_key = None
        verifier = Verifier(issuer=settings.issuer, audience=settings.audience,
                            jwks_url=settings.jwks_url)
    else:
        signing_key = stored_signing_key(settings, database)
        public = RSAKey.import_key(signing_key.as_dict(private=False))
        verifier = Verifier(issuer=settings.issuer, audience=settings.audience,
                            keys=KeySet([public]))
    state = ApiState(
        settings=settings,
        db=database,
        verifier=verifier,
        paginator=Paginator(settings.secret_key),
        signing_key=signing_key,
    )
    state.jobs = make_queue(settings, state.db)
    if settings.smtp_host:  # notices become emails once their transaction commits
        email_after_commit(state.db.sessions, state.jobs)
    app.extensions["shiftdesk"] = state
    if "api" not in app.blueprints:
        app.register_blueprint(bp)

    @app.get("/v1/openapi.json")
    def openapi_document() -> Response:
        from app.api.openapi import build_document

        # Problem `type`s are constants of the document, so it depends on the errors URL: the
        # configured one, or this host's own page (a few hosts at most; the oldest goes).
        documents = app.extensions.setdefault("shiftdesk_openapi", {})
        errors_url = errors_base_url()
        if errors_url not in documents:
            while len(documents) >= OPENAPI_DOCUMENTS_KEPT:
                del documents[next(iter(documents))]
            documents[errors_url] = build_document(errors_url)
        return jsonify(documents[errors_url])

    @app.get("/v1/errors")
    def error_codes() -> str:
        codes = sorted(REGISTRY.items(), key=lambda item: (item[1].status, item[0]))
        return render_template("api/errors.html", codes=codes)

    @app.after_request
    def _api_headers(response: Response) -> Response:
        if is_api_request():
            # Answers carry personal data and depend on the bearer token: never cache or sniff.
            response.headers.setdefault("Cache-Control", "no-store")
            response.headers["X-Content-Type-Options"] = "nosniff"
            response.vary.add("Authorization")
        return response

    _register_error_handlers(app)
    operations.install(app, state)
    limits.install(app, settings)
    return state
