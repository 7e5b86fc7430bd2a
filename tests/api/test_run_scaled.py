"""`make run-scaled`'s preparation (deploy/run_scaled.py) on PostgreSQL: the database is made
when missing and left alone when there, and the demo goes only into a database without users."""

from __future__ import annotations

import os

import psycopg
import pytest
from sqlalchemy.engine import make_url

from app.api.db import Database
from app.api.migrate import upgrade
from deploy.run_scaled import create_database, has_users
from tests.conftest import PG_ADMIN, PG_AVAILABLE, _pg_execute, _pg_url
from tests.factories import build_world

pytestmark = pytest.mark.skipif(not PG_AVAILABLE, reason="PostgreSQL is not reachable")


def _exists(name: str) -> bool:
    with psycopg.connect(PG_ADMIN) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                            (name,)).fetchone() is not None


def test_the_database_is_made_once_then_seeded_only_while_empty():
    name = f"shiftdesk_run_scaled_{os.getpid()}"
    url = _pg_url(name)
    _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    try:
        create_database(url)
        assert _exists(name)
        create_database(url)  # already there: nothing happens
        upgrade(url)
        assert not has_users(url)
        database = Database(url)
        with database.unit_of_work(write=True) as session:
            build_world(session)
        database.dispose()
        assert has_users(url)
    finally:
        _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_sqlite_url_needs_no_database_made(tmp_path):
    url = f"sqlite:///{tmp_path / 'x.db'}"
    create_database(url)
    assert make_url(url).database is not None
    assert not (tmp_path / "x.db").exists()  # `shiftdesk init` makes the file
