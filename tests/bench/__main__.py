"""`python -m tests.bench`: measure the /v1 API on a `--scale` organisation and print figures.

Prints, each next to its target:
- slot search p50/p95 over 14-day windows on a 2000-provider organisation (target p50 < 50 ms);
- requests per second of GET /v1/shifts and GET /v1/appointments under gunicorn as deployed
  (`app.gunicorn_conf`: 2 processes of 8 threads, keep-alive) next to a bare Flask JSON
  endpoint on the same gunicorn, as a ratio (target ≥ 0.5);
- the time to compute a two-week timesheet for a whole team of 500 providers (target < 1 s),
  without a work rule and under daily, weekly and rounding rules (their ratio: target <= 1.2),
  the median of several runs, and the first run apart;
- the payroll export's time for 500 providers over two weeks: the `payroll` report run as the
  worker runs it (built, rendered and stored), the median of several runs and its row count;
- the time to accrue a year of time off for 2,000 providers (`tests/bench/balances.py`);
- the coverage endpoint's p50/p95 for a 200-provider team over 14 days at 60 minutes
  (`tests/bench/coverage.py`, target p50 <= 30 ms);
- the time to import 10,000 people from a CSV, checked and then sent in batches of 1,000, and
  the same file again (`tests/bench/people_import.py`).
Every loop is bounded in count and time and talks only to 127.0.0.1.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import select, update
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _env(workdir: Path, url: str | None) -> dict[str, str]:
    return {
        **os.environ,
        "SHIFTDESK_DATABASE_URL": url or f"sqlite:///{workdir / 'bench.db'}",
        "SHIFTDESK_SIGNING_KEY_PATH": str(workdir / "key.json"),
        "SHIFTDESK_SECRET_KEY": "bench-secret",
    }


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _token(env: dict[str, str], email: str) -> str:
    out = subprocess.run([sys.executable, "-m", "app", "token", email, "--ttl", "3600"],
                         env=env, check=True, capture_output=True, text=True, cwd=ROOT)
    return out.stdout.strip()


def bench_slot_search(env: dict[str, str], runs: int) -> None:
    """Slot search latency through the whole app, in-process (no network in the figure)."""
    p50, p95, statuses, _cpu = slot_search_figures(env, runs)
    print(f"slot search, 14-day window, {runs} runs: p50 {p50:.1f} ms, p95 {p95:.1f} ms "
          f"(target p50 < 50 ms); statuses {sorted(statuses)}")


def slot_search_figures(env: dict[str, str], runs: int,
                        ) -> tuple[float, float, set[int], float]:
    """Slot search over 14-day windows `runs` times in-process: p50 and p95 in milliseconds,
    the statuses answered, and the p50 of this process's processor time per search (what a
    busy machine's queueing leaves out; the database's own time is not in it)."""
    os.environ.update(env)
    from app import create_app
    from app.api.models import AppointmentType
    from app.config import Settings

    app = create_app(Settings.from_env())
    client = app.test_client()
    headers = {"Authorization": f"Bearer {_token(env, 'scheduler@example.com')}"}
    with app.extensions["shiftdesk"].db.unit_of_work() as session:
        types = [t.id for t in session.scalars(
            select(AppointmentType).where(AppointmentType.archived_at.is_(None)))]
    start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    samples: list[float] = []
    cpu: list[float] = []
    statuses: set[int] = set()
    for index in range(runs):
        body = {
            "appointmentTypeId": str(types[index % len(types)]),
            "startDate": (start + timedelta(hours=index % 48)).strftime("%Y-%m-%dT%H:%M:%S+0000"),
            "endDate": (start + timedelta(days=14, hours=index % 48))
            .strftime("%Y-%m-%dT%H:%M:%S+0000"),
            "limit": 10,
        }
        began, began_cpu = time.perf_counter(), time.thread_time()
        response = client.post("/v1/appointments/slots", json=body, headers=headers)
        samples.append((time.perf_counter() - began) * 1000)
        cpu.append((time.thread_time() - began_cpu) * 1000)
        statuses.add(response.status_code)
    app.extensions["shiftdesk"].db.dispose()
    return (_percentile(samples, .5), _percentile(samples, .95), statuses,
            _percentile(cpu, .5))


def _timesheet_runs(client: Any, headers: dict[str, str], team_id: Any, runs: int
                    ) -> tuple[list[float], int]:
    """Every page of the team's two-week timesheet, `runs` times: milliseconds per run and
    the number of sheets."""
    end = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    samples: list[float] = []
    sheets = 0
    for _ in range(runs):
        params: dict[str, Any] = {
            "team": str(team_id), "pageSize": 200,
            "startDate": (end - timedelta(days=14)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "endDate": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        began = time.perf_counter()
        sheets = 0
        while True:
            response = client.get("/v1/timekeeping/timesheet", query_string=params,
                                  headers=headers)
            if response.status_code != 200:
                raise SystemExit(f"timesheet: HTTP {response.status_code} "
                                 f"{response.get_json()}")
            body = response.get_json()
            sheets += len(body["items"])
            if not body["cursor"]:
                break
            params["cursor"] = body["cursor"]
        samples.append((time.perf_counter() - began) * 1000)
    return samples, sheets


def _ruled_work_rule(client: Any, headers: dict[str, str], zone: str) -> str:
    """A work rule with daily (over 8 at 1.5, over 12 at 2), weekly (over 40) and quarter-hour
    rounding rules, made through the API; its id."""
    codes = client.get("/v1/settings/pay-codes", query_string={"pageSize": 200},
                       headers=headers).get_json()["items"]
    by_value = {c["value"]: c["id"] for c in codes if c["type"] == "hours"}
    overtime, double = by_value.get(1.5), by_value.get(2.0)
    if overtime is None or double is None:
        raise SystemExit("bench: the organisation has no 1.5 and 2.0 hours pay codes")

    def post(path: str, body: dict[str, Any]) -> str:
        response = client.post(path, json=body, headers=headers)
        if response.status_code != 201:
            raise SystemExit(f"bench: {path}: HTTP {response.status_code} "
                             f"{response.get_json()}")
        return str(response.get_json()["id"])

    rules = [post("/v1/settings/overtime-rules", {"name": name, "kind": kind,
                                                  "thresholdMinutes": minutes,
                                                  "payCodeId": code})
             for name, kind, minutes, code in (
                 ("Bench daily 8", "daily", 480, overtime),
                 ("Bench daily 12", "daily", 720, double),
                 ("Bench weekly 40", "weekly", 2400, overtime))]
    rounding = post("/v1/settings/rounding-rules", {"name": "Bench quarter hour",
                                                    "intervalMinutes": 15, "mode": "nearest"})
    return post("/v1/settings/work-rules", {
        "name": "Bench daily, weekly and rounding", "timeZone": zone,
        "effectiveFrom": "2000-01-02", "weekStartDay": 6, "overtimeRuleIds": rules,
        "roundingRuleId": rounding})


def bench_timesheet(env: dict[str, str], team_size: int, runs: int) -> None:
    """A two-week timesheet for one team of `team_size` providers, through the API in-process:
    every page of it, `runs` times over (nothing is kept between runs), first with no work rule
    (every minute regular), then under a rule set with daily, weekly and rounding rules.
    Prints each median (target < 1 s), the ratio of the two (target <= 1.2) and, apart, each
    first run, which also pays for the process's first statements and imports. The app is
    built as a server builds it (`serving_app`), garbage-collector settings included."""
    os.environ.update(env)
    from app import serving_app
    from app.config import Settings

    settings = Settings.from_env()
    app = serving_app(settings)
    team_id = _bench_team(app, team_size)
    headers = {"Authorization": f"Bearer {_token(env, 'admin@example.com')}"}
    client = app.test_client()
    rule = _ruled_work_rule(client, headers, settings.timezone)
    medians: dict[str, float] = {}
    for label, assigned in (("no work rule", None), ("daily+weekly+rounding rules", rule)):
        response = client.put(f"/v1/teams/{team_id}/work-rule", json={"workRuleId": assigned},
                              headers=headers)
        if response.status_code != 200:
            raise SystemExit(f"bench: assigning the rule: HTTP {response.status_code} "
                             f"{response.get_json()}")
        samples, sheets = _timesheet_runs(client, headers, team_id, runs)
        medians[label] = _percentile(samples, .5)
        print(f"two-week timesheet for a team of {sheets} providers, {label}, {runs} runs: "
              f"median {medians[label]:.0f} ms (target < 1000 ms); first run "
              f"{samples[0]:.0f} ms")
    ratio = medians["daily+weekly+rounding rules"] / medians["no work rule"]
    print(f"timesheet with pay rules / without: {ratio:.2f} (target <= 1.2)")


PAYROLL_TEAM = "Payroll export bench"
"""The team the payroll benchmark makes of exactly `--team-size` providers."""


def _bench_team(app: Any, team_size: int, name: str | None = None) -> Any:
    """Move the first `team_size` providers (by id) into a team; its id. The team is the first
    by name (one of the organisation's own, as for the timesheet), or the one called `name`,
    made when missing, which then holds exactly those providers."""
    from app.api.models import Provider, Team

    with app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        if name is None:
            team = session.scalars(select(Team).where(Team.name != PAYROLL_TEAM)
                                   .order_by(Team.name)).first()
        else:
            team = session.scalars(select(Team).where(Team.name == name)).first()
            if team is None:
                team = Team(name=name)
                session.add(team)
                session.flush()
        ids = list(session.scalars(select(Provider.id).order_by(Provider.id).limit(team_size)))
        session.execute(update(Provider).where(Provider.id.in_(ids)).values(team_id=team.id))
        return team.id


def bench_payroll(env: dict[str, str], team_size: int, runs: int) -> None:
    """The payroll export of one team of `team_size` providers over the last two weeks, run
    `runs` times as the worker runs it (`execute_report_run`: build, render and store the CSV)
    on runs stored `running` by the admin. Prints the median, the first run and the rows."""
    os.environ.update(env)
    from app import serving_app
    from app.api.jobs.context import JobContext
    from app.api.jobs.reports import execute_report_run
    from app.api.models import Provider, ReportRun, User
    from app.config import Settings

    settings = Settings.from_env()
    app = serving_app(settings)
    db = app.extensions["shiftdesk"].db
    team_id = _bench_team(app, team_size, PAYROLL_TEAM)
    end = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    parameters = {"teamId": str(team_id),
                  "startDate": (end - timedelta(days=14)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                  "endDate": end.strftime("%Y-%m-%dT%H:%M:%SZ")}
    samples: list[float] = []
    rows, size, name = 0, 0, ""
    with db.unit_of_work() as session:
        providers = len(session.scalars(select(Provider.id).where(Provider.team_id == team_id))
                        .all())
    for _ in range(runs):
        with db.unit_of_work(write=True) as session:
            admin = session.scalars(select(User.id).where(User.email == "admin@example.com")).one()
            run = ReportRun(report_id="payroll", created_by_id=admin, status="running",
                            parameters=parameters)
            session.add(run)
            session.flush()
            run_id = run.id
        began = time.perf_counter()
        status = execute_report_run(JobContext(db, settings), run_id)
        samples.append(time.perf_counter() - began)
        with db.unit_of_work() as session:
            done = session.get(ReportRun, run_id)
            assert done is not None
            if status != "completed" or done.file_content is None:
                print(f"payroll export: run {status}: {done.error}")
                return
            rows = done.file_content.count(b"\n") - 1
            size, name = len(done.file_content), done.file_name or ""
    print(f"bench: payroll export {providers} providers x 14 days: "
          f"{_percentile(samples, .5):.2f} s, {rows} rows (median of {runs} runs; first run "
          f"{samples[0]:.2f} s; {size / 1e6:.1f} MB, {name})")


def _load(url: str, headers: dict[str, str], seconds: float, threads: int) -> int:
    """How many requests one URL answers to `threads` keep-alive clients in `seconds`."""
    done = 0
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def worker() -> None:
        nonlocal done
        count = 0
        with httpx.Client(headers=headers, timeout=10) as client:
            while time.monotonic() < stop and count < 100_000:
                response = client.get(url)
                response.raise_for_status()
                count += 1
        with lock:
            done += count

    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    return done


def _processor_seconds(pids: list[int]) -> float:
    """The processor time (user and system) these processes have used so far, read from
    /proc (Linux; every thread included); a process gone meanwhile counts nothing."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _family(pid: int) -> list[int]:
    """A gunicorn master and its workers."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    return [pid, *map(int, children)]


def _database_backends(env: dict[str, str]) -> list[int]:
    """The PostgreSQL server processes serving the bench database's other connections (the
    app's), when that server runs on this machine; none for SQLite or a remote server."""
    url = make_url(env["SHIFTDESK_DATABASE_URL"])
    if url.get_backend_name() != "postgresql" or url.host not in {"127.0.0.1", "localhost"}:
        return []
    import psycopg

    with psycopg.connect(url.set(drivername="postgresql").render_as_string(False)) as db:
        rows = db.execute("SELECT pid FROM pg_stat_activity WHERE datname = current_database()"
                          " AND pid <> pg_backend_pid()").fetchall()
    return [pid for (pid,) in rows]


@dataclass
class Throughput:
    """One endpoint under load: requests per second, and the processor time one request cost,
    in milliseconds, in the gunicorn processes, in PostgreSQL (None when its server is not on
    this machine) and in the load generator (httpx on 4 threads)."""

    rate: float
    server_ms: float
    database_ms: float | None
    client_ms: float

    def costs(self) -> str:
        database = "" if self.database_ms is None else f" + PostgreSQL {self.database_ms:.2f}"
        return (f"gunicorn {self.server_ms:.2f}{database} + client {self.client_ms:.2f} ms "
                "of processor time a request")


def bench_throughput(env: dict[str, str], seconds: float) -> None:
    """GET /v1/shifts and /v1/appointments against a bare JSON endpoint on one gunicorn."""
    paths = ["/v1/shifts?pageSize=20", "/v1/appointments?pageSize=20"]
    found, rounds = throughput_rates(env, seconds, paths)
    bare = found["/bench/bare"]
    print(f"bare Flask JSON endpoint: {bare.rate:.0f} req/s ({rounds} slices of "
          f"{seconds / rounds:.1f} s, taking turns with the endpoints below); {bare.costs()}")
    for path in paths:
        print(f"GET {path}: {found[path].rate:.0f} req/s, ratio {found[path].rate / bare.rate:.2f} "
              f"to bare Flask (target ≥ 0.5); {found[path].costs()}")


def throughput_rates(env: dict[str, str], seconds: float, paths: list[str],
                     ) -> tuple[dict[str, Throughput], int]:
    """Each of `paths` (as the admin) and the bare endpoint (`/bench/bare`) under load on one
    gunicorn with the deployed settings (`app.gunicorn_conf`, 2 worker processes), and the
    number of slices they took turns in.

    On a machine whose cores the server, the database and the load generator share, the rates'
    ratio is that of the processor time a request costs in all three together, which
    `Throughput` splits.
    """
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "-c", "python:app.gunicorn_conf",
         "--log-level", "warning", "tests.bench.wsgi:app"],
        env={**env, "GUNICORN_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "2"}, cwd=ROOT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(base + "/bench/bare", timeout=2)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("gunicorn did not start") from None
                time.sleep(0.2)
        headers = {"Authorization": f"Bearer {_token(env, 'admin@example.com')}"}
        # The endpoints take turns in short slices, so that a change in the machine's load (it
        # may be shared) weighs on each of them alike instead of skewing the ratios.
        targets = [("/bench/bare", {}), *((path, headers) for path in paths)]
        for path, sent in targets:  # connections opened, statements prepared
            _load(base + path, sent, min(1.0, seconds / 4), 4)
        rounds = max(1, round(seconds / 2))
        # Per endpoint: requests, seconds, and processor seconds of gunicorn, PostgreSQL and us.
        totals = {path: [0.0] * 5 for path, _ in targets}
        for _ in range(rounds):
            for path, sent in targets:
                servers, backends = _family(server.pid), _database_backends(env)
                began = (time.monotonic(), _processor_seconds(servers),
                         _processor_seconds(backends), time.process_time())
                done = _load(base + path, sent, seconds / rounds, 4)
                ended = (time.monotonic(), _processor_seconds(servers),
                         _processor_seconds(backends), time.process_time())
                sample = (done, *(end - start for end, start in zip(ended, began, strict=True)))
                totals[path] = [total + part for total, part in zip(totals[path], sample,
                                                                    strict=True)]
        database = bool(_database_backends(env))
        return {path: Throughput(rate=done / elapsed, server_ms=1000 * server_s / done,
                                 database_ms=1000 * database_s / done if database else None,
                                 client_ms=1000 * client_s / done)
                for path, (done, elapsed, server_s, database_s, client_s) in totals.items()
                }, rounds
    finally:
        server.terminate()
        server.wait(timeout=20)


def main() -> None:
    """Parse options, build the organisation once, run every benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=int, default=2000)
    parser.add_argument("--database-url", default=None, help="default: a temporary SQLite file")
    parser.add_argument("--slot-runs", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--team-size", type=int, default=500)
    parser.add_argument("--timesheet-runs", type=int, default=5)
    parser.add_argument("--payroll-runs", type=int, default=3)
    parser.add_argument("--balance-providers", type=int, default=2000)
    parser.add_argument("--coverage-team-size", type=int, default=200)
    parser.add_argument("--coverage-runs", type=int, default=30)
    parser.add_argument("--import-people", type=int, default=10_000)
    parser.add_argument("--only", choices=["throughput", "slots", "timesheet", "payroll",
                                           "balances", "coverage", "people-import"],
                        action="append",
                        help="run only these benchmarks (repeatable); default: all")
    parser.add_argument("--workdir", type=Path, default=None,
                        help="keep the organisation here and reuse it when it exists "
                             "(default: a temporary directory, built afresh)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="shiftdesk-bench-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        env = _env(workdir, args.database_url)
        if args.workdir is None or not (workdir / "bench.db").exists():
            began = time.perf_counter()
            subprocess.run([sys.executable, "-m", "app", "init", "--scale", str(args.scale)],
                           env=env, check=True, cwd=ROOT, stderr=subprocess.DEVNULL)
            print(f"init --scale {args.scale}: {time.perf_counter() - began:.1f} s")
        else:  # a kept organisation: bring its database to this checkout's migrations
            subprocess.run([sys.executable, "-m", "app", "init"], env=env, check=True, cwd=ROOT,
                           stderr=subprocess.DEVNULL)
        only = set(args.only or ["throughput", "slots", "timesheet", "payroll", "balances",
                                 "people-import", "coverage"])
        if "throughput" in only:
            bench_throughput(env, args.seconds)
        if "slots" in only:
            bench_slot_search(env, args.slot_runs)
        if "timesheet" in only:
            bench_timesheet(env, args.team_size, args.timesheet_runs)
        if "payroll" in only:
            bench_payroll(env, args.team_size, args.payroll_runs)
        if "balances" in only:
            from tests.bench.balances import bench_balances

            bench_balances(env, args.balance_providers)
        if "people-import" in only:
            from tests.bench.people_import import bench_people_import

            bench_people_import(env, _token(env, "admin@example.com"), args.import_people)
        if "coverage" in only:  # last: it moves providers out of the first team
            from tests.bench.coverage import bench_coverage

            bench_coverage(env, _token(env, "admin@example.com"), args.coverage_team_size,
                           args.coverage_runs)


if __name__ == "__main__":
    main()
