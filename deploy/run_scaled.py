"""`make run-scaled`: Shiftdesk in scale mode on this machine, under honcho and the `Procfile`.

Two UI gunicorn processes (reaching the API over HTTP only), two API gunicorn processes and a
report worker, against PostgreSQL and Redis, with nothing kept on a process's local disk:
UI sessions, rate-limit counters and the report queue in Redis; data, report files and the
signing key in PostgreSQL. Before starting them it creates the database when missing,
migrates it and makes the signing key (`shiftdesk init`), and loads the demo organisation
into a database without users. Then it becomes honcho, which stops every process together.

Environment (all optional):

| variable | default |
| --- | --- |
| `SHIFTDESK_DATABASE_URL` | `postgresql+psycopg://postgres@127.0.0.1:5432/shiftdesk_scaled` |
| `SHIFTDESK_REDIS_URL` | `redis://127.0.0.1:6379/0` |
| `PORT` | `8000`: the UI at http://127.0.0.1:PORT (processes: PORT+1, PORT+2) |
| `API_PORT` | PORT+10: `/v1` and sign-in (`/auth`) (processes: API_PORT+1, API_PORT+2) |
| `HOST` | `127.0.0.1`: the address every process binds and the URLs name |
| `WEB_CONCURRENCY`, `GUNICORN_THREADS` | workers (2) and threads (8) of each gunicorn |
| `SHIFTDESK_SECRET_KEY` | the development value; shared by every process |
| `SHIFTDESK_DEMO` | `1`: text logs and the demo accounts on the sign-in page |
| `SCALED_METRICS` | a folder per run under the system's temporary folder |

and every other `SHIFTDESK_*` setting, which all five processes receive.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

import psycopg
from sqlalchemy.engine import make_url

CHECKOUT = Path(__file__).resolve().parents[1]
PROCFILE = CHECKOUT / "Procfile"
DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/shiftdesk_scaled"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


def process_environment(base: Mapping[str, str], *, host: str, ui_port: int, api_port: int,
                        ui_ports: tuple[int, int], api_ports: tuple[int, int],
                        metrics: Path) -> dict[str, str]:
    """What the `Procfile`'s processes read: `base` plus the addresses, the shared settings
    and the venv's commands first on the PATH."""
    api_url = f"http://{host}:{api_port}"
    env = dict(base)
    env.update(
        SCALED_UI_BIND=f"{host}:{ui_port}", SCALED_API_BIND=f"{host}:{api_port}",
        SCALED_UI1_BIND=f"{host}:{ui_ports[0]}", SCALED_UI2_BIND=f"{host}:{ui_ports[1]}",
        SCALED_API1_BIND=f"{host}:{api_ports[0]}", SCALED_API2_BIND=f"{host}:{api_ports[1]}",
        SCALED_API_URL=api_url, SCALED_METRICS=str(metrics),
        SHIFTDESK_ISSUER=f"{api_url}/auth",
        # Every process signs and verifies with one key, kept in the database.
        SHIFTDESK_SIGNING_KEY_STORE="database",
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{base.get('PATH', '')}",
    )
    # glibc gives each thread that allocates its own malloc arena (up to eight a core), and
    # memory freed in one is not reused by another: a gthread worker's footprint then creeps up
    # towards the sum of its threads' peaks. Two arenas a process keep it near one peak.
    env.setdefault("MALLOC_ARENA_MAX", "2")
    for process in ("ui1", "ui2", "api1", "api2"):
        (metrics / process).mkdir(parents=True, exist_ok=True)
    return env


def ports_in_use(host: str, ports: list[int]) -> list[int]:
    """Which of `ports` something on `host` already listens on (or holds)."""
    taken = []
    for port in ports:
        with socket.socket() as sock:
            try:
                sock.bind((host, port))
            except OSError:
                taken.append(port)
    return taken


def create_database(url: str) -> None:
    """Create the PostgreSQL database of `url` when it does not exist yet."""
    parsed = make_url(url)
    if not parsed.drivername.startswith("postgresql") or not parsed.database:
        return
    admin = parsed.set(drivername="postgresql", database="postgres")
    with psycopg.connect(admin.render_as_string(hide_password=False), autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                              (parsed.database,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{parsed.database}"')  # type: ignore[arg-type]
            print(f"run-scaled: created the database {parsed.database}", file=sys.stderr)


def has_users(url: str) -> bool:
    """Whether the (migrated) database holds anyone yet."""
    from sqlalchemy import func, select

    from app.api.db import Database
    from app.api.models import User

    database = Database(url)
    try:
        with database.unit_of_work() as session:
            return bool(session.scalar(select(func.count()).select_from(User)))
    finally:
        database.dispose()


def main() -> int:
    env = dict(os.environ)
    env.setdefault("SHIFTDESK_DATABASE_URL", DEFAULT_DATABASE_URL)
    env.setdefault("SHIFTDESK_REDIS_URL", DEFAULT_REDIS_URL)
    env.setdefault("SHIFTDESK_DEMO", "1")
    host = env.get("HOST") or "127.0.0.1"
    ui_port = int(env.get("PORT") or 8000)
    api_port = int(env.get("API_PORT") or ui_port + 10)
    metrics = Path(env.get("SCALED_METRICS") or tempfile.mkdtemp(prefix="shiftdesk-scaled-"))
    env = process_environment(env, host=host, ui_port=ui_port, api_port=api_port,
                              ui_ports=(ui_port + 1, ui_port + 2),
                              api_ports=(api_port + 1, api_port + 2), metrics=metrics)
    ports = [ui_port, ui_port + 1, ui_port + 2, api_port, api_port + 1, api_port + 2]
    taken = ports_in_use(host, ports)
    if taken:
        print(f"run-scaled: port {', '.join(map(str, taken))} on {host} is in use; choose "
              f"others with PORT (UI: PORT to PORT+2) and API_PORT (API_PORT to API_PORT+2).",
              file=sys.stderr)
        return 1
    url = env["SHIFTDESK_DATABASE_URL"]
    create_database(url)
    shiftdesk = shutil.which("shiftdesk", path=env["PATH"]) or "shiftdesk"
    subprocess.run([shiftdesk, "init"], env=env, check=True)
    if not has_users(url):
        subprocess.run([shiftdesk, "init", "--demo"], env=env, check=True)
    print(f"run-scaled: the UI at http://{host}:{ui_port}/ (processes on {ui_port + 1} and "
          f"{ui_port + 2}), /v1 and sign-in at http://{host}:{api_port}/ (processes on "
          f"{api_port + 1} and {api_port + 2}), a report worker; Ctrl-C stops them all.",
          file=sys.stderr)
    honcho = shutil.which("honcho", path=env["PATH"]) or "honcho"
    os.execvpe(honcho, [honcho, "--procfile", str(PROCFILE), "--app-root", str(CHECKOUT),
                        "start"], env)
    return 0  # pragma: no cover - execvpe does not return


if __name__ == "__main__":
    sys.exit(main())
