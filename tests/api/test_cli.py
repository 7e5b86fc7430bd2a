"""The `shiftdesk` command line: init, token and serve, as scripts and people use them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from joserfc.jwk import KeySet

from app.api.db import Database
from app.api.tokens import Verifier, load_signing_key
from app.cli import main
from tests.factories import build_world, uid


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """Settings for a command run against a scratch SQLite database."""
    return {
        "SHIFTDESK_DATABASE_URL": f"sqlite:///{tmp_path / 'instance' / 'cli.db'}",
        "SHIFTDESK_SIGNING_KEY_PATH": str(tmp_path / "instance" / "key.json"),
        "SHIFTDESK_ISSUER": "http://cli.test/auth",
    }


def _init(env: dict[str, str]) -> None:
    result = CliRunner().invoke(main, ["init"], env=env)
    assert result.exit_code == 0, result.output


def test_init_creates_key_and_migrates_idempotently(env):
    _init(env)
    key_path = Path(env["SHIFTDESK_SIGNING_KEY_PATH"])
    assert key_path.exists()
    assert oct(key_path.stat().st_mode & 0o777) == "0o600"
    kid = load_signing_key(key_path).kid
    _init(env)  # again: nothing breaks, the key stays
    assert load_signing_key(key_path).kid == kid


def test_token_prints_only_a_verifiable_token(env):
    _init(env)
    database = Database(env["SHIFTDESK_DATABASE_URL"])
    with database.unit_of_work(write=True) as session:
        build_world(session)
    database.dispose()
    result = CliRunner().invoke(main, ["token", "Provider@Example.com", "--ttl", "120"], env=env)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    key = load_signing_key(Path(env["SHIFTDESK_SIGNING_KEY_PATH"]))
    public = KeySet.import_key_set({"keys": [key.as_dict(private=False)]})
    claims = Verifier(issuer="http://cli.test/auth", audience="shiftdesk-api",
                      keys=public).verify(lines[0])
    assert claims["sub"] == str(uid("user:provider@example.com"))
    assert claims["exp"] - claims["iat"] == 120


def test_token_for_unknown_email_fails_with_nothing_on_stdout(env):
    _init(env)
    result = CliRunner().invoke(main, ["token", "nobody@example.com"], env=env)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "No user with email nobody@example.com" in result.stderr


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serve_answers_ui_api_and_openapi(env):
    _init(env)
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "app", "serve", "--port", str(port)],
        env={**os.environ, **env, "WEB_CONCURRENCY": "2"}, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                home = httpx.get(base + "/signed-out", timeout=2)
                break
            except httpx.TransportError:
                assert process.poll() is None, process.stderr.read().decode()
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        assert home.status_code == 200
        assert "text/html" in home.headers["content-type"]
        document = httpx.get(base + "/v1/openapi.json", timeout=5)
        assert document.json()["openapi"] == "3.1.0"
        problem = httpx.get(base + "/v1/teams", timeout=5)
        assert problem.status_code == 401
        assert problem.headers["content-type"] == "application/problem+json"
        assert problem.json()["type"] == f"{base}/v1/errors#unauthenticated"
        assert httpx.get(base + "/", timeout=5).headers["location"] == "/signin"
    finally:
        process.terminate()
        process.wait(timeout=10)
        log = process.stderr.read().decode()
        process.stderr.close()
    assert log.count("Booting worker") == 2, log  # WEB_CONCURRENCY=2


@pytest.mark.parametrize(("environ", "args", "workers"), [
    ({}, [], 1),
    ({"WEB_CONCURRENCY": "3"}, [], 3),
    ({"WEB_CONCURRENCY": "3"}, ["--workers", "2"], 2),
])
def test_serve_takes_its_workers_from_web_concurrency_unless_told(monkeypatch, environ, args,
                                                                 workers):
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    context = main.commands["serve"].make_context("serve", list(args))
    assert context.params["workers"] == workers


def test_wsgi_entry_point_serves_the_app_with_its_collector_settled(env):
    _init(env)
    probe = ("import gc; from app import GC_THRESHOLDS; from app.wsgi import app; "
             "print(gc.get_freeze_count() > 10_000, gc.get_threshold() == GC_THRESHOLDS, "
             "gc.isenabled(), app.test_client().get('/v1/openapi.json').json['openapi'])")
    done = subprocess.run([sys.executable, "-c", probe], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True", "3.1.0"]
