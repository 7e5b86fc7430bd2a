"""`python -m tests.load load|soak`: the locust scenario (`tests/load/locustfile.py`) against the
app started as an operator starts it, headless, and one line of figures per run.

`load` (`make load`) runs, for each mode in `LOAD_MODES` (default `embedded scaled`) and each
count in `LOAD_USERS` (default `25 50 100`), `LOAD_SECONDS` (default 60) of the scenario, the
users started at `LOAD_SPAWN_RATE` a second (default: a tenth of them), and prints, once all
have run, one line per configuration, the modes side by side for each count:

    load: <mode> <users> users, <req/s> req/s, p50 <ms> ms, p95 <ms> ms, p99 <ms> ms, errors <n>

over every request of the run, sign-ins and the ramp included; errors are failed requests
(a 4xx or 5xx not expected by the journey, a refused connection) plus exceptions in the
scenario itself. Progress goes to stderr.

`soak` (`make soak`) runs `SOAK_USERS` (default 50) for `SOAK_MINUTES` (default 30) against
scale mode and prints the memory of all the app's processes (the sum of their proportional set
sizes: pages the workers share with their master count once) and the PostgreSQL connections to
its database at start (before the load), after the warm-up (a sixth of the run, five minutes at
most: `WARM_UP`) and at the end (before the load stops), and the memory's trend over the
second half of the run (`trend`), then the requests and the errors, which must be zero (the
exit status is 1 otherwise); each kind of failure is listed.

The modes:
- `embedded`: what `make run` starts, one `shiftdesk serve` process (1 worker of 8 threads) on
  a SQLite file, in a temporary folder.
- `scaled`: `make run-scaled PORT=…` (two UI and two API gunicorns and the report worker, on
  PostgreSQL and Redis), started as a subprocess with `SHIFTDESK_DATABASE_URL` naming a
  database this runner creates (`LOAD_DATABASE`, default `shiftdesk_load`, on
  `LOAD_POSTGRES_URL`, default the local server's `postgres` user) and drops afterwards, and
  `SHIFTDESK_REDIS_URL` (`LOAD_REDIS_URL`, default database 14 of the local Redis, emptied
  first). Without a `run-scaled` target in the Makefile it stops with a message saying so.

Both load the same organisation first, `shiftdesk init --scale LOAD_PROVIDERS` (default 300
providers in 8 teams), then give its providers and managers the demo password and add scheduler
accounts (`tests.load.accounts`), so each simulated person signs in as someone of their own.
API readers use `shiftdesk token admin@example.com` tokens. `LOAD_KEEP=1` keeps the folder
(locust's CSV files and logs, the server's log) and the database. `LOAD_USER_CLASSES` (say
`ApiReader`) runs only those kinds of simulated people: a soak of readers alone writes
nothing, so its data stays as it was.
"""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import httpx

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


def _log(message: str) -> None:
    print(f"[load] {message}", file=sys.stderr, flush=True)


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name) or default)


def _free_port(width: int = 1) -> int:
    """A port free on loopback, with the `width - 1` ports after it free too (scale mode
    takes PORT to PORT+2)."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            first = int(sock.getsockname()[1])
        if first + width > 65536:
            continue
        try:
            with contextlib.ExitStack() as held:
                for port in range(first, first + width):
                    probe = held.enter_context(socket.socket())
                    probe.bind(("127.0.0.1", port))
        except OSError:
            continue
        return first


@dataclass
class Target:
    """A started app: where it answers, its environment, the process at the root of it."""

    mode: str
    base: str
    env: dict[str, str]
    process: subprocess.Popen[bytes]
    database: str | None = None
    tokens: list[str] = field(default_factory=list)
    api: str = ""
    """Where /v1 and sign-in answer (the UI's address when empty: the embedded mode)."""


@dataclass
class Figures:
    """One locust run, summed over every request."""

    requests: int
    rate: float
    p50: float
    p95: float
    p99: float
    errors: int
    failures: list[str] = field(default_factory=list)
    """What failed, one line per kind: occurrences, the request and locust's error."""


def _run(args: list[str], env: dict[str, str], what: str, cwd: Path = ROOT) -> str:
    done = subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"load: {what} failed (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout


def _prepare(env: dict[str, str], workdir: Path) -> Path:
    """Load the organisation, give it sign-in-able accounts; the accounts file."""
    providers = _env_int("LOAD_PROVIDERS", 300)
    began = time.monotonic()
    _run([PYTHON, "-m", "app", "init", "--scale", str(providers)], env, "shiftdesk init",
         cwd=workdir)
    accounts = workdir / "accounts.json"
    _run([PYTHON, "-m", "tests.load.accounts", str(accounts)], env, "preparing the accounts")
    _log(f"organisation of {providers} providers ready in {time.monotonic() - began:.0f} s")
    return accounts


def _tokens(env: dict[str, str], workdir: Path) -> list[str]:
    """Admin bearer tokens, each different (their lifetimes differ by a second)."""
    return [_run([PYTHON, "-m", "app", "token", "admin@example.com", "--ttl", str(7200 + n)],
                 env, "shiftdesk token", cwd=workdir).strip() for n in range(4)]


def _wait_ready(target: Target, seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while True:
        if target.process.poll() is not None:
            raise SystemExit(f"load: the {target.mode} app stopped while starting (exit "
                             f"{target.process.returncode}); see its log")
        try:
            if all(httpx.get(base + "/healthz", timeout=5).status_code == 200
                   for base in {target.base, target.api or target.base}):
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise SystemExit(f"load: the {target.mode} app did not answer within {seconds} s")
        time.sleep(1)


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the process group this runner started (the server and everything it started)."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def _base_env(workdir: Path, port: int) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "SHIFTDESK_DEMO": "1",
        "SHIFTDESK_ISSUER": f"http://127.0.0.1:{port}/auth",
        "SHIFTDESK_SIGNING_KEY_PATH": str(workdir / "signing-key.json"),
        "SHIFTDESK_SECRET_KEY": "load-test-secret",
        "SHIFTDESK_LOG_LEVEL": os.environ.get("SHIFTDESK_LOG_LEVEL", "WARNING"),
    }


@contextlib.contextmanager
def embedded(workdir: Path) -> Iterator[tuple[Target, Path]]:
    """`make run`'s app: one `shiftdesk serve` on SQLite, in `workdir`."""
    port = _free_port()
    env = {**_base_env(workdir, port),
           "SHIFTDESK_DATABASE_URL": f"sqlite:///{workdir / 'shiftdesk.db'}"}
    accounts = _prepare(env, workdir)
    log = (workdir / "server-embedded.log").open("wb")
    process = subprocess.Popen([PYTHON, "-m", "app", "serve", "--port", str(port)], env=env,
                               cwd=workdir, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    target = Target("embedded", f"http://127.0.0.1:{port}", env, process)
    try:
        _wait_ready(target)
        target.tokens = _tokens(env, workdir)
        yield target, accounts
    finally:
        _stop(process)
        log.close()


def _postgres_admin() -> str:
    return os.environ.get("LOAD_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def _admin_sql(statement: str) -> list[tuple[object, ...]]:
    import psycopg

    with psycopg.connect(_postgres_admin(), autocommit=True) as connection:
        cursor = connection.execute(statement)  # type: ignore[arg-type]
        return list(cursor.fetchall()) if cursor.description else []


def _scaled_target_exists() -> bool:
    done = subprocess.run(["make", "-n", "run-scaled", "PORT=1"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    return done.returncode == 0


def require_scaled() -> None:
    """Stop with a message when this checkout has no `make run-scaled` yet."""
    if not _scaled_target_exists():
        raise SystemExit("load: scale mode needs `make run-scaled` (two UI and two API "
                         "gunicorns and the report worker on PostgreSQL and Redis), and this "
                         "checkout's Makefile has no run-scaled target yet. Run the embedded "
                         "mode alone with LOAD_MODES=embedded, or merge scale mode first.")


@contextlib.contextmanager
def scaled(workdir: Path) -> Iterator[tuple[Target, Path]]:
    """`make run-scaled` on a PostgreSQL database of its own and a Redis database emptied."""
    require_scaled()
    port = _free_port(3)
    name = os.environ.get("LOAD_DATABASE", "shiftdesk_load")
    server = _postgres_admin().rsplit("/", 1)[0].replace("postgresql://",
                                                         "postgresql+psycopg://", 1)
    redis_url = os.environ.get("LOAD_REDIS_URL", "redis://127.0.0.1:6379/14")
    _admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _admin_sql(f'CREATE DATABASE "{name}"')
    from redis import Redis

    Redis.from_url(redis_url).flushdb()
    api_port = _free_port(3)
    while abs(api_port - port) < 3:
        api_port = _free_port(3)
    # As run-scaled sets them for its processes: sign-in on the API's address, the key in the
    # database (so `shiftdesk token` here signs with the key the API processes verify with).
    env = {**_base_env(workdir, port), "SHIFTDESK_DATABASE_URL": f"{server}/{name}",
           "SHIFTDESK_REDIS_URL": redis_url, "PORT": str(port), "API_PORT": str(api_port),
           "SHIFTDESK_ISSUER": f"http://127.0.0.1:{api_port}/auth",
           "SHIFTDESK_SIGNING_KEY_STORE": "database"}
    try:
        accounts = _prepare(env, workdir)
        log = (workdir / "server-scaled.log").open("wb")
        # The venv this runner runs in, taken as installed (`-o`): make must neither build
        # another one in the checkout nor reinstall this one.
        venv = sys.prefix
        process = subprocess.Popen(["make", "-o", f"{venv}/.installed", "-o",
                                    f"{venv}/.installed-dev", "-o", f"{venv}/.installed-scale",
                                    "run-scaled", f"PORT={port}", f"VENV={venv}"],
                                   env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        target = Target("scaled", f"http://127.0.0.1:{port}", env, process, database=name,
                        api=f"http://127.0.0.1:{api_port}")
        try:
            _wait_ready(target)
            target.tokens = _tokens(env, workdir)
            yield target, accounts
        finally:
            _stop(process)
            log.close()
    finally:
        if not os.environ.get("LOAD_KEEP"):
            _admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


MODES = {"embedded": embedded, "scaled": scaled}


def run_locust(target: Target, accounts: Path, users: int, seconds: int, workdir: Path,
               ) -> Figures:
    """The scenario with `users` for `seconds` against `target`; its figures."""
    prefix = workdir / f"locust-{target.mode}-{users}"
    rate = os.environ.get("LOAD_SPAWN_RATE") or str(max(1, users // 10))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "LOAD_ACCOUNTS": str(accounts),
           "LOAD_TOKENS": " ".join(target.tokens), "LOAD_API_BASE": target.api}
    with (workdir / f"{prefix.name}.log").open("wb") as log:
        done = subprocess.run(
            [PYTHON, "-m", "locust", "-f", str(ROOT / "tests" / "load" / "locustfile.py"),
             "--headless", "--users", str(users), "--spawn-rate", rate,
             "--run-time", f"{seconds}s", "--stop-timeout", "10", "--host", target.base,
             "--csv", str(prefix), "--only-summary", "--loglevel", "WARNING",
             *os.environ.get("LOAD_USER_CLASSES", "").split()],
            env=env, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, check=False,
            timeout=seconds + 300)
    stats = prefix.with_name(prefix.name + "_stats.csv")
    if not stats.exists():
        raise SystemExit(f"load: locust wrote no figures (exit {done.returncode}); see "
                         f"{prefix}.log")
    with stats.open() as file:
        total = next(row for row in csv.DictReader(file) if row["Name"] == "Aggregated")
    exceptions = 0
    failures: list[str] = []
    with contextlib.suppress(FileNotFoundError), \
            prefix.with_name(prefix.name + "_failures.csv").open() as file:
        failures.extend(f"{row['Occurrences']} x {row['Method']} {row['Name']}: {row['Error']}"
                        for row in csv.DictReader(file))
    with contextlib.suppress(FileNotFoundError), \
            prefix.with_name(prefix.name + "_exceptions.csv").open() as file:
        for row in csv.DictReader(file):
            exceptions += int(row["Count"])
            failures.append(f"{row['Count']} x exception in the scenario: {row['Message']}")
    return Figures(requests=int(total["Request Count"]), rate=float(total["Requests/s"]),
                   p50=float(total["50%"]), p95=float(total["95%"]), p99=float(total["99%"]),
                   errors=int(total["Failure Count"]) + exceptions, failures=failures)


def _line(mode: str, users: int, figures: Figures) -> str:
    return (f"load: {mode} {users} users, {figures.rate:.1f} req/s, p50 {figures.p50:.0f} ms, "
            f"p95 {figures.p95:.0f} ms, p99 {figures.p99:.0f} ms, errors {figures.errors}")


@contextlib.contextmanager
def _workdir() -> Iterator[Path]:
    path = Path(tempfile.mkdtemp(prefix="shiftdesk-load-"))
    try:
        yield path
    finally:
        if os.environ.get("LOAD_KEEP"):
            _log(f"kept {path}")
        else:
            shutil.rmtree(path, ignore_errors=True)


SERVER_TROUBLE_LINES = 20


def server_trouble(workdir: Path) -> list[str]:
    """The servers' warning and error lines in `workdir`'s logs (the first
    `SERVER_TROUBLE_LINES`, then how many more): why a request failed, printed before the
    folder is deleted. The app logs JSON, a `level` each line; anything else a process wrote
    (a traceback, gunicorn's own lines) is kept when it says WARNING, ERROR or CRITICAL."""
    found: list[str] = []
    for log in sorted(workdir.rglob("server-*.log")):
        for line in log.read_text(errors="replace").splitlines():
            try:
                level = str(json.loads(line).get("level", ""))
            except (ValueError, AttributeError):
                level = next((word for word in ("CRITICAL", "ERROR", "WARNING") if word in line),
                             "")
            if level in ("WARNING", "ERROR", "CRITICAL"):
                found.append(f"{log.name}: {line}")
    if len(found) > SERVER_TROUBLE_LINES:
        extra = len(found) - SERVER_TROUBLE_LINES
        found = [*found[:SERVER_TROUBLE_LINES], f"... and {extra} more"]
    return found


def load() -> None:
    """Every mode at every user count; the lines, modes side by side."""
    modes = (os.environ.get("LOAD_MODES") or "embedded scaled").split()
    counts = [int(n) for n in (os.environ.get("LOAD_USERS") or "25 50 100").split()]
    seconds = _env_int("LOAD_SECONDS", 60)
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        raise SystemExit(f"load: unknown mode {unknown[0]!r}; modes: {', '.join(MODES)}")
    if "scaled" in modes:
        require_scaled()
    _log(f"{os.cpu_count()} cores; modes {' '.join(modes)}; users {counts}; {seconds} s each")
    results: dict[tuple[str, int], Figures] = {}
    with _workdir() as workdir:
        for mode in modes:
            folder = workdir / mode
            folder.mkdir()
            with MODES[mode](folder) as (target, accounts):
                for users in counts:
                    figures = run_locust(target, accounts, users, seconds, folder)
                    results[mode, users] = figures
                    _log(_line(mode, users, figures) + f" ({figures.requests} requests)")
        troubles = server_trouble(workdir) if any(f.errors for f in results.values()) else []
    for users in counts:
        for mode in modes:
            print(_line(mode, users, results[mode, users]), flush=True)
    for (mode, users), figures in results.items():
        for failure in figures.failures:
            print(f"load: {mode} {users} users failed: {failure}", flush=True)
    for line in troubles:
        print(f"load: server said: {line}", flush=True)


def _app_processes(root: subprocess.Popen[bytes]) -> list[object]:
    """The app's processes under `root`: gunicorn masters and workers, the report worker
    (not make, a shell or the process manager)."""
    import psutil

    found = []
    for process in psutil.Process(root.pid).children(recursive=True):
        with contextlib.suppress(psutil.Error):
            line = " ".join(process.cmdline())
            if "honcho" in line or process.name() in ("make", "sh", "bash"):
                continue
            found.append(process)
    return found


class Reading(NamedTuple):
    """Memory of the app's processes (MB, in all and by kind), their number, PostgreSQL
    connections (-1: no database to ask)."""

    memory: float
    processes: int
    connections: int
    by_kind: dict[str, float]

    def kinds(self) -> str:
        """The memory by kind of process: `api workers 420, ui workers 380, ...`."""
        return ", ".join(f"{kind} {mb:.0f}" for kind, mb in sorted(self.by_kind.items()))


def _kind(process: Any) -> str:
    """Which of the app's processes this is: a UI or API gunicorn master (it has forked its
    workers) or worker (a UI process is told the API's address), the report worker, or else
    its name."""
    line = " ".join(process.cmdline())
    if "gunicorn" not in line:
        return "report worker" if " worker" in line else process.name()
    role = "ui" if "SHIFTDESK_API_URL" in process.environ() else "api"
    return f"{role} {'masters' if process.children() else 'workers'}"  # a master forks


def _reading(target: Target) -> Reading:
    """Memory of the app's processes, in all and by kind (`_kind`), and the PostgreSQL
    connections to its database.

    The memory is the sum of their proportional set sizes: a page that gunicorn's workers
    still share with their master (the app is loaded before the fork) counts once, split
    between them, where a sum of resident sizes would count it in every process.
    """
    import psutil

    by_kind: dict[str, float] = {}
    processes = _app_processes(target.process)
    for process in processes:
        with contextlib.suppress(psutil.Error):
            pss = process.memory_full_info().pss / 1e6  # type: ignore[attr-defined]
            kind = _kind(process)
            by_kind[kind] = by_kind.get(kind, 0.0) + pss
    connections = -1
    if target.database:
        rows = _admin_sql("SELECT count(*) FROM pg_stat_activity WHERE datname = "
                          f"'{target.database}'")
        connections = int(rows[0][0])  # type: ignore[call-overload]
    return Reading(sum(by_kind.values()), len(processes), connections, by_kind)


WARM_UP = 300
"""Seconds at most of a soak before its "after warm-up" reading (a sixth of the run if shorter).
Every simulated person's first rounds fill the processes' caches (compiled statements, each
user's permission rules, templates): in soaks of 50 users the memory rose for four to six
minutes, then far more slowly (`docs/operations.md`)."""


def soak() -> None:
    """Mixed load against scale mode for SOAK_MINUTES; memory, connections and errors."""
    minutes = float(os.environ.get("SOAK_MINUTES") or 30)
    users = _env_int("SOAK_USERS", 50)
    mode = os.environ.get("SOAK_MODE") or "scaled"
    seconds = round(minutes * 60)
    warm = min(WARM_UP, seconds / 6)
    _log(f"{os.cpu_count()} cores; soak: {mode}, {users} users, {minutes:g} minutes")
    with _workdir() as workdir, MODES[mode](workdir) as (target, accounts):
        readings = {"at start": _reading(target)}
        samples: list[tuple[float, Reading]] = []
        stop = threading.Event()

        def sample() -> None:
            began = time.monotonic()
            if stop.wait(warm):
                return
            readings["after warm-up"] = _reading(target)
            while not stop.wait(30):
                elapsed = time.monotonic() - began
                if elapsed < seconds - 5:  # the last before the load stops counts as the end
                    reading = _reading(target)
                    samples.append((elapsed, reading))
                    readings["at end"] = reading
                    _log(f"{elapsed / 60:.1f} min: {reading.memory:.0f} MB in "
                         f"{reading.processes} processes ({reading.kinds()}), "
                         f"{reading.connections} PostgreSQL connections")

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        figures = run_locust(target, accounts, users, seconds, workdir)
        stop.set()
        sampler.join()
        troubles = server_trouble(workdir) if figures.errors else []
    for when, reading in readings.items():
        print(f"soak: {when}: memory {reading.memory:.0f} MB in {reading.processes} app "
              f"processes ({reading.kinds()}), PostgreSQL connections {reading.connections}",
              flush=True)
    print(f"soak: {mode} {users} users, {minutes:g} min: {figures.requests} requests, "
          f"{figures.rate:.1f} req/s, p50 {figures.p50:.0f} ms, p95 {figures.p95:.0f} ms, "
          f"p99 {figures.p99:.0f} ms, errors {figures.errors}", flush=True)
    half = [(when, reading.memory) for when, reading in samples if when >= seconds / 2]
    if len(half) >= 3:
        slope = trend(half) * 600
        print(f"soak: memory trend over the second half: {slope:+.0f} MB per 10 minutes "
              f"({slope / half[0][1] * 100:+.1f}%), from {len(half)} readings", flush=True)
    for failure in figures.failures:
        print(f"soak: failed: {failure}", flush=True)
    for line in troubles:
        print(f"soak: server said: {line}", flush=True)
    if figures.errors:
        sys.exit(1)


def trend(points: list[tuple[float, float]]) -> float:
    """The least-squares slope of `(seconds, MB)` readings, in MB a second (0 without two
    instants apart): a leak keeps a slope the whole run long; caches filling up flatten out."""
    try:
        return statistics.linear_regression([x for x, _ in points],
                                            [y for _, y in points]).slope
    except statistics.StatisticsError:
        return 0.0


def main() -> None:
    """`load` or `soak`."""
    what = sys.argv[1] if len(sys.argv) > 1 else "load"
    if what == "load":
        load()
    elif what == "soak":
        soak()
    else:
        raise SystemExit("usage: python -m tests.load load|soak")


if __name__ == "__main__":
    main()
