"""The signing key in the database (`SHIFTDESK_SIGNING_KEY_STORE=database`): `init` makes it
once, no file is written, every app on that database signs and verifies with it, and an app
without one says what to run."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import select

from app import create_app
from app.api.db import Database
from app.api.migrate import upgrade
from app.api.models import AppSetting
from app.api.signing_keys import ROW, NoSigningKey, signing_key
from app.api.tokens import mint_access_token
from app.cli import main
from app.config import Settings
from tests.conftest import PG_AVAILABLE, _pg_execute, _pg_url


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'keys.db'}"
        return
    if not PG_AVAILABLE:
        pytest.skip("PostgreSQL is not reachable")
    name = f"shiftdesk_keys_{tmp_path.name.replace('-', '_').lower()}"[:60]
    _pg_execute(f'DROP DATABASE IF EXISTS "{name}"')
    _pg_execute(f'CREATE DATABASE "{name}"')
    yield _pg_url(name)
    _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _settings(url: str, tmp_path: Path) -> Settings:
    return Settings(database_url=url, signing_key_store="database",
                    signing_key_path=tmp_path / "never" / "key.json", rate_limits=False)


def test_init_stores_the_key_once_in_the_database_and_no_file(database_url, tmp_path):
    env = {"SHIFTDESK_DATABASE_URL": database_url, "SHIFTDESK_SIGNING_KEY_STORE": "database",
           "SHIFTDESK_SIGNING_KEY_PATH": str(tmp_path / "never" / "key.json")}
    for _ in range(2):  # idempotent: the second init keeps the first key
        result = CliRunner().invoke(main, ["init"], env=env)
        assert result.exit_code == 0, result.output
    database = Database(database_url)
    try:
        with database.unit_of_work() as session:
            rows = session.scalars(select(AppSetting.value).where(AppSetting.key == ROW)).all()
        assert len(rows) == 1
        assert rows[0]["kty"] == "RSA"
        assert "d" in rows[0]  # the private key
        assert signing_key(_settings(database_url, tmp_path), database).kid == rows[0]["kid"]
    finally:
        database.dispose()
    assert not (tmp_path / "never").exists()


def test_a_token_signed_by_one_app_verifies_in_another(database_url, tmp_path):
    upgrade(database_url)
    settings = _settings(database_url, tmp_path)
    database = Database(database_url)
    signing_key(settings, database, create=True)
    database.dispose()
    first, second = create_app(settings), create_app(settings)
    try:
        key = first.extensions["shiftdesk"].signing_key
        token = mint_access_token(key, subject="someone", issuer=settings.issuer,
                                  audience=settings.audience, ttl=60)
        claims = second.extensions["shiftdesk"].verifier.verify(token)
        assert claims["sub"] == "someone"
        assert second.extensions["shiftdesk"].signing_key.kid == key.kid
    finally:
        for app in (first, second):
            app.extensions["shiftdesk"].db.dispose()


def test_racing_creators_end_with_one_key(database_url, tmp_path):
    upgrade(database_url)
    settings = _settings(database_url, tmp_path)
    database = Database(database_url)
    barrier = threading.Barrier(3)
    kids: list[str] = []

    def create() -> None:
        barrier.wait()
        kids.append(signing_key(settings, database, create=True).kid)

    threads = [threading.Thread(target=create) for _ in range(3)]
    try:
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert len(kids) == 3
        assert len(set(kids)) == 1
    finally:
        database.dispose()


def test_an_app_without_a_stored_key_says_to_run_init(tmp_path):
    url = f"sqlite:///{tmp_path / 'empty.db'}"
    upgrade(url)
    with pytest.raises(NoSigningKey, match="run `shiftdesk init` first"):
        create_app(_settings(url, tmp_path))
    result = CliRunner().invoke(main, ["token", "a@example.com"],
                                env={"SHIFTDESK_DATABASE_URL": url,
                                     "SHIFTDESK_SIGNING_KEY_STORE": "database"})
    assert result.exit_code == 1
