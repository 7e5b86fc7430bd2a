"""`python -m tests.bench.scale` (`make bench-scale`): does the app's speed hold as the
organisation grows? Builds organisations of 500, 2,000 and 8,000 providers (`BENCH_SIZES`) on
PostgreSQL, each in a database it creates and drops (`shiftdesk init --scale N`: the demo
builder's multi-row inserts), and prints one table:

- slot search p50/p95 over 14-day windows (in-process, `slot_search_figures`);
- a 60-person team's two-week timesheet, every page, the median of `--timesheet-runs` runs
  (in-process; the team made of exactly 60 providers, `_bench_team`);
- `GET /v1/shifts?pageSize=20` throughput as a ratio to a bare Flask endpoint on the same
  gunicorn as deployed, 2 worker processes (`throughput_rates`, taking turns in slices),
  and what one request of each cost in processor time, in gunicorn, in PostgreSQL and in the
  load generator (on a machine whose cores they share, the ratio of the rates is that of
  those sums);
- the coverage of a 60-provider team's fortnight (14 days at 60 minutes; the organisation's
  first team made that size, `tests.bench.coverage._team_of`), p50 of `--coverage-runs`.

Beside them, the app's own processor time for the in-process figures (the database's is not
in it): on a busy machine, the wall-clock figures include waiting for a core.
Then the targets at 2,000 providers (slot search p50 <= 20 ms, timesheet <= 0.3 s, ratio >=
0.6) and, from 2,000 to 8,000 providers, the growth of the per-team figures, the timesheet and
the coverage (target < 1.5x), and apart that of slot search and the list, which are not per
team (a search looks at every provider the type allows).
Each size is measured by a child process of its own (`--measure`), so no size's caches or
connections carry over to the next. The server is `LOAD_POSTGRES_URL`'s (default the local one,
user `postgres`); the database `BENCH_DATABASE` (default `shiftdesk_bench_scale`).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.bench.__main__ import (
    ROOT,
    _bench_team,
    _env,
    _percentile,
    _timesheet_runs,
    _token,
    slot_search_figures,
    throughput_rates,
)
from tests.bench.coverage import _team_of

TEAM_SIZE = 60
LIST = "/v1/shifts?pageSize=20"
TARGETS = "slot search p50 <= 20 ms, timesheet <= 0.3 s, list ratio >= 0.6"


def _admin_url() -> str:
    return os.environ.get("LOAD_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def _admin_sql(statement: str) -> None:
    import psycopg

    with psycopg.connect(_admin_url(), autocommit=True) as connection:
        connection.execute(statement)  # type: ignore[arg-type]


def measure(env: dict[str, str], args: argparse.Namespace) -> dict[str, Any]:
    """Every figure of one organisation (the one `env` names)."""
    figures: dict[str, Any] = {}
    found, _rounds = throughput_rates(env, args.seconds, [LIST])
    figures["list_rate"], figures["bare_rate"] = found[LIST].rate, found["/bench/bare"].rate
    figures["list_costs"], figures["bare_costs"] = found[LIST].costs(), found["/bench/bare"].costs()
    figures["slot_p50"], figures["slot_p95"], statuses, figures["slot_cpu"] = (
        slot_search_figures(env, args.slot_runs))
    figures["slot_statuses"] = sorted(statuses)

    from app import serving_app
    from app.config import Settings

    os.environ.update(env)
    app = serving_app(Settings.from_env())
    client = app.test_client()
    headers = {"Authorization": f"Bearer {_token(env, 'admin@example.com')}"}
    # Coverage first: its team is the first by name, which the timesheet's team would be.
    with app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        first, _size, shifts = _team_of(session, TEAM_SIZE)
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    params = {"teamId": str(first), "interval": "60",
              "startDate": (now - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "endDate": (now + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")}
    coverage: list[float] = []
    coverage_cpu: list[float] = []
    for _ in range(args.coverage_runs + 1):
        began, began_cpu = time.perf_counter(), time.thread_time()
        response = client.get("/v1/forecasting/coverage", query_string=params, headers=headers)
        coverage.append((time.perf_counter() - began) * 1000)
        coverage_cpu.append((time.thread_time() - began_cpu) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"coverage: HTTP {response.status_code} {response.get_json()}")
    figures["coverage_p50"] = _percentile(coverage[1:], .5)
    figures["coverage_cpu"] = _percentile(coverage_cpu[1:], .5)
    figures["coverage_shifts"] = shifts

    team = _bench_team(app, TEAM_SIZE, f"Bench team of {TEAM_SIZE}")
    _timesheet_runs(client, headers, team, 1)  # the first run pays for warm-up
    began_cpu = time.thread_time()
    samples, sheets = _timesheet_runs(client, headers, team, args.timesheet_runs)
    figures["timesheet_ms"] = _percentile(samples, .5)
    figures["timesheet_cpu_ms"] = (time.thread_time() - began_cpu) * 1000 / len(samples)
    figures["timesheet_sheets"] = sheets
    app.extensions["shiftdesk"].db.dispose()
    return figures


def _growth(small: dict[str, Any], large: dict[str, Any], key: str) -> float:
    return float(large[key]) / max(float(small[key]), 1e-9)


def table(results: dict[int, dict[str, Any]]) -> list[str]:
    """The printed table, the targets at 2,000 and the growth to 8,000."""
    lines = [f"bench-scale on {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}",
             f"{'providers':>9} | {'init':>6} | {'slot p50':>8} | {'slot p95':>8} | "
             f"{'timesheet 60':>12} | {'list req/s':>10} | {'bare req/s':>10} | "
             f"{'ratio':>5} | {'coverage 60':>11} | app processor time: slot, timesheet, "
             "coverage"]
    for size, f in sorted(results.items()):
        lines.append(
            f"{size:>9} | {f['init_s']:>5.0f}s | {f['slot_p50']:>5.1f} ms | "
            f"{f['slot_p95']:>5.1f} ms | {f['timesheet_ms'] / 1000:>10.3f} s | "
            f"{f['list_rate']:>10.0f} | {f['bare_rate']:>10.0f} | "
            f"{f['list_rate'] / f['bare_rate']:>5.2f} | {f['coverage_p50']:>8.1f} ms | "
            f"{f['slot_cpu']:.1f} ms, {f['timesheet_cpu_ms'] / 1000:.3f} s, "
            f"{f['coverage_cpu']:.1f} ms")
    for size, f in sorted(results.items()):
        lines.append(f"{size:>9}: the bare endpoint {f['bare_costs']}; the list {f['list_costs']}")
    at = results.get(2000)
    if at is not None:
        met = [at["slot_p50"] <= 20, at["timesheet_ms"] <= 300,
               at["list_rate"] / at["bare_rate"] >= 0.6]
        lines.append(f"targets at 2000 ({TARGETS}): "
                     f"{'met' if all(met) else 'MISSED'} "
                     f"(slot {'ok' if met[0] else 'missed'}, timesheet "
                     f"{'ok' if met[1] else 'missed'}, ratio {'ok' if met[2] else 'missed'})")
    if at is not None and 8000 in results:
        big = results[8000]
        grown = {"timesheet": _growth(at, big, "timesheet_ms"),
                 "coverage": _growth(at, big, "coverage_p50"),
                 "timesheet processor time": _growth(at, big, "timesheet_cpu_ms"),
                 "coverage processor time": _growth(at, big, "coverage_cpu")}
        words = ", ".join(f"{name} x{value:.2f}" for name, value in grown.items())
        verdict = "met" if max(grown.values()) < 1.5 else "MISSED"
        lines.append(f"per-team growth 2000 -> 8000 (target < 1.5x): {words}: {verdict}")
        # Slot search is not per team: it searches every provider the type allows.
        lines.append(f"organisation-wide growth 2000 -> 8000: slot search p50 "
                     f"x{_growth(at, big, 'slot_p50'):.2f} (processor time "
                     f"x{_growth(at, big, 'slot_cpu'):.2f}), list throughput "
                     f"x{_growth(at, big, 'list_rate'):.2f}")
    return lines


def main() -> None:
    """Build, measure and drop each size; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=os.environ.get("BENCH_SIZES", "500 2000 8000"))
    parser.add_argument("--slot-runs", type=int, default=60)
    parser.add_argument("--timesheet-runs", type=int, default=5)
    parser.add_argument("--coverage-runs", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=6.0,
                        help="throughput: seconds per endpoint")
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # a child: the database URL
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="shiftdesk-bench-scale-") as tmp:
        workdir = Path(tmp)
        if args.measure:
            env = _env(Path(os.environ["BENCH_WORKDIR"]), args.measure)
            print(json.dumps(measure(env, args)))
            return
        name = os.environ.get("BENCH_DATABASE", "shiftdesk_bench_scale")
        server = _admin_url().rsplit("/", 1)[0].replace("postgresql://",
                                                       "postgresql+psycopg://", 1)
        url = f"{server}/{name}"
        env = {**_env(workdir, url), "BENCH_WORKDIR": str(workdir), "PYTHONPATH": str(ROOT),
               "SHIFTDESK_LOG_LEVEL": "WARNING"}
        results: dict[int, dict[str, Any]] = {}
        for size in (int(n) for n in args.sizes.split()):
            _admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            _admin_sql(f'CREATE DATABASE "{name}"')
            try:
                began = time.perf_counter()
                subprocess.run([sys.executable, "-m", "app", "init", "--scale", str(size)],
                               env=env, check=True, cwd=ROOT, stderr=subprocess.DEVNULL)
                built = time.perf_counter() - began
                print(f"[bench-scale] {size} providers built in {built:.0f} s", file=sys.stderr,
                      flush=True)
                child = [sys.executable, "-m", "tests.bench.scale", "--measure", url,
                         "--slot-runs", str(args.slot_runs),
                         "--timesheet-runs", str(args.timesheet_runs),
                         "--coverage-runs", str(args.coverage_runs),
                         "--seconds", str(args.seconds)]
                out = subprocess.run(child, env=env, check=True, cwd=ROOT, capture_output=True,
                                     text=True)
                results[size] = {**json.loads(out.stdout.strip().splitlines()[-1]),
                                 "init_s": built}
                print(f"[bench-scale] {size}: {results[size]}", file=sys.stderr, flush=True)
            finally:
                _admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    for line in table(results):
        print(line)


if __name__ == "__main__":
    main()
