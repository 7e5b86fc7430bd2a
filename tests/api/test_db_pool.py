"""PostgreSQL connections in the pool: a connection whose server side has gone is replaced at
checkout once it has rested; a request that meets one used moments ago runs once more on a new
connection, so that no request fails after a database restart."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, exc, text
from sqlalchemy.orm import Session

from app.api.db import make_engine
from tests.conftest import PG_AVAILABLE, WORKER, _pg_execute, _pg_url


@pytest.fixture
def database() -> Iterator[str]:
    """The URL of a scratch PostgreSQL database, dropped afterwards."""
    if not PG_AVAILABLE:
        pytest.skip("PostgreSQL is not running at 127.0.0.1:5432")
    name = f"sd_pool_{WORKER}_{uuid.uuid4().hex[:8]}"
    _pg_execute(f'CREATE DATABASE "{name}"')
    try:
        yield _pg_url(name)
    finally:
        _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _backend(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.scalar(text("SELECT pg_backend_pid()")))


def _terminate(pid: int) -> None:
    """End that server process, as a server restart or an idle timeout would, and wait for it."""
    _pg_execute(f"SELECT pg_terminate_backend({pid}, 5000)")


def test_a_rested_connection_the_server_dropped_is_replaced_at_checkout(database: str) -> None:
    engine = make_engine(database, ping_after_idle=0)
    try:
        dropped = _backend(engine)
        _terminate(dropped)
        assert _backend(engine) != dropped  # no error: the ping found it gone
    finally:
        engine.dispose()


def test_a_connection_used_moments_ago_is_not_pinged_again(database: str) -> None:
    # The server dropping a connection between two requests a moment apart is rare enough to
    # leave to the request, which runs again (below); pinging would cost every request a trip.
    engine = make_engine(database, ping_after_idle=3600)
    try:
        dropped = _backend(engine)
        _terminate(dropped)
        with Session(engine) as session:
            with pytest.raises(exc.OperationalError):
                session.scalar(text("SELECT pg_backend_pid()"))
            session.rollback()
        assert _backend(engine) != dropped  # the failure discarded it: the next one is new
    finally:
        engine.dispose()


def test_a_request_after_the_database_restarted_is_answered(fresh_api, world) -> None:
    """Every pooled connection dies with a restart; the first request on one is run again on a
    new connection instead of answering 500 (writes too: nothing of it was committed)."""
    if fresh_api.backend != "postgresql":
        pytest.skip("SQLite has no server to restart")
    assert fresh_api.get("/v1/teams").status_code == 200  # the pool holds a connection now
    name = fresh_api.db.engine.url.database
    _pg_execute("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                f"WHERE datname = '{name}' AND pid <> pg_backend_pid()")

    read = fresh_api.get("/v1/teams")
    assert read.status_code == 200, read.get_json()
    _pg_execute("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                f"WHERE datname = '{name}' AND pid <> pg_backend_pid()")
    write = fresh_api.post("/v1/settings/labels",
                           json={"name": "After the restart", "color": "#123456"})
    assert write.status_code == 201, write.get_json()
    labels = [item["name"] for page in fresh_api.walk("/v1/settings/labels", page_size=200)
              for item in page]
    assert labels.count("After the restart") == 1  # run again once, stored once
