"""The operators' endpoints at the app's root: `/healthz` (alive) and `/readyz` (ready to serve).

They answer without a session, a sign-in, CSRF or rate limits, and never through the UI's error
pages; `/readyz` reads only what it must (one connection, the migration table, a Redis PING).
Must not import the web UI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask import Flask, Response, jsonify

if TYPE_CHECKING:
    from app.api import ApiState

REDIS_TIMEOUT = 1.0
"""Seconds `/readyz` waits for Redis: a probe must answer before the orchestrator gives up."""


def _database_problem(state: ApiState) -> str | None:
    """Why the database cannot serve (unreachable, or not migrated to head), or None."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory
    from sqlalchemy.exc import SQLAlchemyError

    from app.api.migrate import alembic_config

    try:
        with state.db.engine.connect() as connection:
            current = set(MigrationContext.configure(connection).get_current_heads())
    except SQLAlchemyError as exc:
        return f"database unreachable ({type(exc).__name__})"
    heads = set(ScriptDirectory.from_config(alembic_config(state.db.url)).get_heads())
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


def install(app: Flask, state: ApiState) -> None:
    """Add `/healthz` and `/readyz` to `app`."""

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
