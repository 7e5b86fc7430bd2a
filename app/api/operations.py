"""The operators' endpoints at the app's root: `/healthz` (alive), `/readyz` (ready to serve)
and `/metrics` (Prometheus), with the hooks that count every request.

They answer without a session, a sign-in, CSRF or rate limits, and never through the UI's error
pages; `/readyz` reads only what it must (one connection, the migration table, a Redis PING).
`/metrics` answers a scraper with the `metrics_token` bearer token, or, without a token
configured, direct loopback requests only (no `X-Forwarded-For`: not through a local proxy);
anyone else gets a 404. Must not import the web UI.
"""

from __future__ import annotations

import functools
import hmac
import time
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, abort, g, jsonify, request

from app.api import metrics

if TYPE_CHECKING:
    from app.api import ApiState

REDIS_TIMEOUT = 1.0
"""Seconds `/readyz` waits for Redis: a probe must answer before the orchestrator gives up."""


@functools.cache
def _heads(url: str) -> frozenset[str]:
    """The code's newest migrations (read from the scripts once per process)."""
    from alembic.script import ScriptDirectory

    from app.api.migrate import alembic_config

    return frozenset(ScriptDirectory.from_config(alembic_config(url)).get_heads())


def _database_problem(state: ApiState) -> str | None:
    """Why the database cannot serve (unreachable, or not migrated to head), or None."""
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy.exc import SQLAlchemyError

    try:
        with state.db.engine.connect() as connection:
            current = set(MigrationContext.configure(connection).get_current_heads())
    except SQLAlchemyError as exc:
        return f"database unreachable ({type(exc).__name__})"
    heads = _heads(state.db.url)
    if current != heads:
        have = ", ".join(sorted(current)) or "none"
        return f"database not migrated to head (at {have}; head {', '.join(sorted(heads))})"
    return None


def _redis_problem(url: str) -> str | None:
    """Why Redis cannot be reached, or None."""
    from redis import Redis
    from redis.exceptions import RedisError

    client = Redis.from_url(url, socket_connect_timeout=REDIS_TIMEOUT,
                            socket_timeout=REDIS_TIMEOUT)
    try:
        client.ping()
    except RedisError as exc:
        return f"redis unreachable ({type(exc).__name__})"
    finally:
        client.close()
    return None


def readiness(state: ApiState) -> dict[str, Any]:
    """Each check's outcome (`ok` or why not) and whether all of them passed."""
    checks: dict[str, str] = {"database": _database_problem(state) or "ok"}
    if state.settings.redis_url:
        checks["redis"] = _redis_problem(state.settings.redis_url) or "ok"
    return {"status": "ok" if all(v == "ok" for v in checks.values()) else "unavailable",
            "checks": checks}


LOOPBACK = frozenset({"127.0.0.1", "::1"})


def may_scrape(token: str | None) -> bool:
    """Whether this request may read `/metrics` (see the module's note)."""
    if token:
        sent = request.headers.get("Authorization", "")
        return hmac.compare_digest(sent.encode(), f"Bearer {token}".encode())
    return request.remote_addr in LOOPBACK and "X-Forwarded-For" not in request.headers


def gauges(state: ApiState) -> list[tuple[str, str, float]]:
    """The database pool's use and the job queue's depth, as they are now."""
    pool = state.db.engine.pool
    values: list[tuple[str, str, float]] = []
    for name, what, read in (
        ("shiftdesk_db_pool_size", "Connections the pool keeps", "size"),
        ("shiftdesk_db_pool_checked_out", "Pool connections in use now", "checkedout"),
    ):
        method = getattr(pool, read, None)
        if callable(method):
            values.append((name, what, float(method())))
    depth = state.jobs.depth() if state.jobs is not None else None
    if depth is not None:
        values.append(("shiftdesk_job_queue_depth", "Report jobs waiting to start", depth))
    return values


def install(app: Flask, state: ApiState) -> None:
    """Add `/healthz`, `/readyz` and `/metrics` to `app`, and count its requests."""

    @app.before_request
    def _started() -> None:
        g.metrics_started = time.perf_counter()

    @app.after_request
    def _count(response: Response) -> Response:
        started = g.get("metrics_started")
        if started is not None:
            rule = request.url_rule.rule if request.url_rule is not None else None
            metrics.observe_request(request.method, rule, response.status_code,
                                    time.perf_counter() - started)
        return response

    @app.get("/metrics")
    def prometheus_metrics() -> Response:
        """The Prometheus text exposition of this process (or of every worker)."""
        if not may_scrape(state.settings.metrics_token):
            abort(404)
        body = metrics.scrape(gauges(state), state.settings.prometheus_multiproc_dir)
        return Response(body, mimetype=None, content_type=metrics.CONTENT_TYPE,
                        headers={"Cache-Control": "no-store"})

    @app.get("/healthz")
    def healthz() -> Response:
        """The process is alive and answers requests (it checks nothing else)."""
        response = jsonify({"status": "ok"})
        response.headers["Cache-Control"] = "no-store"
        return response

    @app.get("/readyz")
    def readyz() -> Response:
        """The database is reachable and at the newest migration, Redis too when configured."""
        body = readiness(state)
        response = jsonify(body)
        response.status_code = 200 if body["status"] == "ok" else 503
        response.headers["Cache-Control"] = "no-store"
        return response
