"""What scale mode and the image are told: gunicorn's settings from the environment
(`app/gunicorn_conf.py`), the Procfile's processes and their environment
(`deploy/run_scaled.py`), and the image's entry point roles."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
from pathlib import Path

import pytest

import app.gunicorn_conf
from deploy.run_scaled import PROCFILE, process_environment

CHECKOUT = Path(__file__).resolve().parents[2]
ENTRYPOINT = CHECKOUT / "deploy" / "docker-entrypoint.sh"


def _conf(monkeypatch: pytest.MonkeyPatch, **env: str):
    for name in ("GUNICORN_BIND", "WEB_CONCURRENCY", "GUNICORN_THREADS", "GUNICORN_TIMEOUT",
                 "PROMETHEUS_MULTIPROC_DIR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return importlib.reload(app.gunicorn_conf)


def test_gunicorn_settings_come_from_the_environment(monkeypatch):
    conf = _conf(monkeypatch)
    assert (conf.bind, conf.workers, conf.threads, conf.timeout) == (["127.0.0.1:8000"], 2, 8, 60)
    assert conf.worker_class == "gthread"
    conf = _conf(monkeypatch, GUNICORN_BIND="0.0.0.0:9000, 127.0.0.1:9001", WEB_CONCURRENCY="4",
                 GUNICORN_THREADS="16", GUNICORN_TIMEOUT="120")
    assert conf.bind == ["0.0.0.0:9000", "127.0.0.1:9001"]
    assert (conf.workers, conf.threads, conf.timeout) == (4, 16, 120)


def test_gunicorn_empties_the_metrics_folder_when_it_starts(monkeypatch, tmp_path):
    folder = tmp_path / "metrics"
    folder.mkdir()
    (folder / "counter_123.db").write_bytes(b"old")
    (folder / "keep.txt").write_text("not a metrics file")
    conf = _conf(monkeypatch, PROMETHEUS_MULTIPROC_DIR=str(folder))
    conf.on_starting(None)
    assert sorted(p.name for p in folder.iterdir()) == ["keep.txt"]


def test_procfile_runs_two_ui_two_api_processes_and_a_worker():
    names = re.findall(r"^(\w+):", PROCFILE.read_text(), flags=re.MULTILINE)
    assert names == ["ui1", "ui2", "api1", "api2", "worker"]
    lines = dict(re.findall(r"^(\w+): (.*)$", PROCFILE.read_text(), flags=re.MULTILINE))
    for ui in ("ui1", "ui2"):
        assert "SHIFTDESK_API_URL=$SCALED_API_URL" in lines[ui]  # over HTTP only
    for api in ("api1", "api2"):
        assert "SHIFTDESK_API_URL" not in lines[api]
    assert all("--reuse-port" in lines[name] for name in ("ui1", "ui2", "api1", "api2"))


def test_every_process_shares_the_key_store_and_sign_in_address(tmp_path):
    env = process_environment({"PATH": "/usr/bin", "SHIFTDESK_DATABASE_URL": "x"},
                              host="127.0.0.1", ui_port=8000, api_port=8010,
                              ui_ports=(8001, 8002), api_ports=(8011, 8012),
                              metrics=tmp_path / "m")
    assert env["SHIFTDESK_SIGNING_KEY_STORE"] == "database"
    assert env["SHIFTDESK_ISSUER"] == "http://127.0.0.1:8010/auth"
    assert env["SCALED_API_URL"] == "http://127.0.0.1:8010"
    assert (env["SCALED_UI_BIND"], env["SCALED_UI2_BIND"]) == ("127.0.0.1:8000", "127.0.0.1:8002")
    assert env["SHIFTDESK_DATABASE_URL"] == "x"
    assert sorted(p.name for p in (tmp_path / "m").iterdir()) == ["api1", "api2", "ui1", "ui2"]
    assert env["MALLOC_ARENA_MAX"] == "2"  # threaded workers' memory stays near one peak


def test_an_operators_malloc_arena_setting_wins(tmp_path):
    env = process_environment({"PATH": "/usr/bin", "MALLOC_ARENA_MAX": "4"}, host="127.0.0.1",
                              ui_port=8000, api_port=8010, ui_ports=(8001, 8002),
                              api_ports=(8011, 8012), metrics=tmp_path / "m")
    assert env["MALLOC_ARENA_MAX"] == "4"


def _entrypoint(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("SHIFTDESK_", "GUNICORN"))}
    return subprocess.run(["sh", str(ENTRYPOINT), *args], env={**clean, **env},
                          capture_output=True, text=True, timeout=30, check=False)


def test_the_ui_role_needs_the_api_address():
    result = _entrypoint("ui")
    assert result.returncode == 2
    assert "set SHIFTDESK_API_URL" in result.stderr


def test_the_healthcheck_fails_while_nothing_serves_and_passes_other_commands_through():
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, not listening: refused
        result = _entrypoint("healthcheck", GUNICORN_BIND=f"0.0.0.0:{port},127.0.0.1:1")
    assert result.returncode != 0
    assert f"/healthz on port {port}" in result.stderr
    assert _entrypoint("echo", "hello").stdout == "hello\n"


def test_run_scaled_names_the_ports_already_taken():
    import socket

    from deploy.run_scaled import ports_in_use

    with socket.socket() as busy, socket.socket() as free:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        free.bind(("127.0.0.1", 0))
        taken, unused = busy.getsockname()[1], free.getsockname()[1]
        free.close()
        assert ports_in_use("127.0.0.1", [taken, unused]) == [taken]
