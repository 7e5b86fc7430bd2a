"""Health checks: `/healthz` answers while the process lives; `/readyz` is green only with the
database reachable and migrated to head, and Redis reachable when one is configured.

Both answer without a session or a token, on either backend.
"""

from __future__ import annotations

import socket
from pathlib import Path

from alembic import command
from alembic.script import ScriptDirectory

from app import create_app
from app.api.migrate import alembic_config
from tests.conftest import Api, make_settings


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends


def test_healthz_answers_ok_without_signing_in(api: Api) -> None:
    response = api.client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok"}
    assert "Set-Cookie" not in response.headers
    assert response.headers["Cache-Control"] == "no-store"


def test_readyz_answers_ok_with_the_database_at_head(api: Api) -> None:
    response = api.client.get("/readyz")
    assert response.status_code == 200, response.get_json()
    assert response.get_json() == {"status": "ok", "checks": {"database": "ok"}}
    assert "Set-Cookie" not in response.headers


def test_readyz_is_red_with_a_migration_pending(fresh_api: Api) -> None:
    url = fresh_api.settings.database_url
    config = alembic_config(url)
    head = ScriptDirectory.from_config(config).get_current_head()
    older = ScriptDirectory.from_config(config).get_revision(head).down_revision
    command.stamp(config, older, purge=True)
    response = fresh_api.client.get("/readyz")
    assert response.status_code == 503
    body = response.get_json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"].startswith("database not migrated to head")
    assert fresh_api.client.get("/healthz").status_code == 200  # alive all the same


def test_readyz_is_red_with_the_database_unreachable(signing_key_path: Path) -> None:
    url = f"postgresql+psycopg://postgres@127.0.0.1:{_closed_port()}/shiftdesk"
    app = create_app(make_settings(url, signing_key_path))
    client = app.test_client()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.get_json()["checks"]["database"].startswith("database unreachable")
    assert client.get("/healthz").status_code == 200
    app.extensions["shiftdesk"].db.dispose()


def test_readyz_is_red_with_redis_configured_and_unreachable(
        api: Api, signing_key_path: Path, tmp_path: Path) -> None:
    settings = make_settings(api.settings.database_url, signing_key_path,
                             redis_url=f"redis://127.0.0.1:{_closed_port()}/0",
                             session_dir=tmp_path / "sessions")
    app = create_app(settings)
    client = app.test_client()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.get_json()["checks"] == {
        "database": "ok", "redis": "redis unreachable (ConnectionError)"}
    # The UI's session outage page is for pages, not for the probes.
    assert client.get("/healthz").status_code == 200
    app.extensions["shiftdesk"].db.dispose()
