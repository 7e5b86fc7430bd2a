"""The figures `make load`, `make soak` and `make bench-scale` print: the one-line format the
issue fixes, and the bench table's verdicts on the targets (no server, no database)."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

from tests.bench.__main__ import Throughput, _processor_seconds
from tests.bench.scale import table
from tests.load.__main__ import (
    SERVER_TROUBLE_LINES,
    Figures,
    Reading,
    _kind,
    _line,
    server_trouble,
    trend,
)


def test_load_line_has_the_agreed_format() -> None:
    line = _line("scaled", 50, Figures(requests=900, rate=14.96, p50=41.2, p95=310.0,
                                       p99=812.7, errors=0))
    assert line == ("load: scaled 50 users, 15.0 req/s, p50 41 ms, p95 310 ms, p99 813 ms, "
                    "errors 0")
    assert re.fullmatch(r"load: \w+ \d+ users, [\d.]+ req/s, p50 \d+ ms, p95 \d+ ms, "
                        r"p99 \d+ ms, errors \d+", line)


def _size(slot: float, timesheet_ms: float, ratio: float, coverage: float) -> dict[str, float]:
    return {"init_s": 10, "slot_p50": slot, "slot_p95": slot * 2, "slot_cpu": slot / 2,
            "timesheet_ms": timesheet_ms, "timesheet_cpu_ms": timesheet_ms / 2,
            "list_rate": 100 * ratio, "bare_rate": 100, "coverage_p50": coverage,
            "coverage_cpu": coverage / 2,
            "bare_costs": Throughput(100, 1.5, 0.0, 1.25).costs(),
            "list_costs": Throughput(100 * ratio, 3.0, 1.0, 1.5).costs()}


def test_bench_table_says_which_targets_hold() -> None:
    lines = table({500: _size(10, 200, .7, 20), 2000: _size(15, 250, .65, 20),
                   8000: _size(30, 260, .6, 21)})
    assert len(lines) == 2 + 3 + 3 + 3
    assert lines[5] == ("      500: the bare endpoint gunicorn 1.50 + PostgreSQL 0.00 + client "
                        "1.25 ms of processor time a request; the list gunicorn 3.00 + PostgreSQL "
                        "1.00 + client 1.50 ms of processor time a request")
    assert lines[-3].startswith("targets at 2000")
    assert ": met" in lines[-3]
    assert lines[-2].startswith("per-team growth")
    assert lines[-2].endswith(": met")
    assert "slot search p50 x2.00" in lines[-1]


def test_bench_table_misses_a_per_team_figure_that_grows() -> None:
    lines = table({2000: _size(15, 250, .65, 20), 8000: _size(15, 400, .65, 20)})
    assert "timesheet x1.60" in lines[-2]
    assert lines[-2].endswith("MISSED")


def test_bench_table_names_each_missed_target() -> None:
    lines = table({2000: _size(25, 400, .5, 20)})
    assert "MISSED (slot missed, timesheet missed, ratio missed)" in lines[-1]


def test_throughput_leaves_the_database_out_when_it_is_not_on_this_machine() -> None:
    assert Throughput(500, 1.234, None, 1.0).costs() == (
        "gunicorn 1.23 + client 1.00 ms of processor time a request")


def test_processor_seconds_add_up_the_processes_and_skip_the_gone() -> None:
    sum(range(2_000_000))  # some processor time of our own
    own = _processor_seconds([os.getpid()])
    assert own > 0
    assert abs(own - time.process_time()) < 0.05  # /proc counts in clock ticks
    # No process has a pid above 2**22 (Linux's highest pid_max): it counts nothing.
    assert own <= _processor_seconds([os.getpid(), 2**22 + 1]) < own + 0.05


_PROCESSES: list[_Process] = []


class _Process:
    """What `_kind` asks of a psutil process."""

    def __init__(self, line: str, env: dict[str, str] | None = None,
                 parent: _Process | None = None, name: str = "python") -> None:
        self.line, self.env, self.parent_process, self.process_name = line, env or {}, parent, name

    def cmdline(self) -> list[str]:
        return self.line.split()

    def environ(self) -> dict[str, str]:
        return self.env

    def children(self) -> list[_Process]:
        return [p for p in _PROCESSES if p.parent_process is self]

    def name(self) -> str:
        return self.process_name


def test_soak_memory_is_told_apart_by_kind_of_process() -> None:
    honcho = _Process("python honcho start")
    gunicorn = "python gunicorn -c python:app.gunicorn_conf app.wsgi:app"
    ui = {"SHIFTDESK_API_URL": "http://127.0.0.1:8010"}
    shell = _Process(f"/bin/sh -c SHIFTDESK_API_URL=x {gunicorn}", {}, honcho, "sh")
    ui_master = _Process(gunicorn, ui, shell)
    api_master = _Process(gunicorn, {}, honcho)
    ui_worker, api_worker = _Process(gunicorn, ui, ui_master), _Process(gunicorn, {}, api_master)
    report_worker = _Process("python shiftdesk worker", {}, honcho)
    _PROCESSES[:] = [honcho, shell, ui_master, api_master, ui_worker, api_worker, report_worker]
    assert _kind(ui_master) == "ui masters"
    assert _kind(ui_worker) == "ui workers"
    assert _kind(api_master) == "api masters"
    assert _kind(api_worker) == "api workers"
    assert _kind(report_worker) == "report worker"
    assert _kind(_Process("python shiftdesk serve", {}, None, "shiftdesk")) == "shiftdesk"
    reading = Reading(30.0, 3, 4, {"ui workers": 20.0, "api workers": 10.0})
    assert reading.kinds() == "api workers 10, ui workers 20"


def test_soak_trend_tells_a_leak_from_caches_that_filled() -> None:
    leak = [(60.0 * minute, 1000 + 3.0 * minute) for minute in range(15, 31)]
    assert abs(trend(leak) * 600 - 30) < 1e-9  # 3 MB a minute: 30 MB per 10 minutes
    settled = [(60.0 * minute, 1190 + (minute % 3)) for minute in range(15, 31)]
    assert abs(trend(settled) * 600) < 2
    assert trend([(900.0, 1000.0), (900.0, 1010.0)]) == 0.0  # no time between: no slope


def test_a_failed_run_prints_what_the_servers_warned_of(tmp_path: Path) -> None:
    unavailable = {"level": "WARNING", "logger": "shiftdesk.web",
                   "message": "API unavailable on POST /clock/punches: timed out"}
    lines = [
        "10:00:01 ui1.1 | " + json.dumps({"level": "INFO", "message": "GET / 200"}),
        "10:00:02 ui1.1 | " + json.dumps(unavailable),
        "10:00:03 api1.1 | [2026-11-27 10:00:03 +0000] [42] [CRITICAL] WORKER TIMEOUT (pid:43)",
        json.dumps({"level": "ERROR", "message": "boom"}),
        "an ordinary line",
    ]
    (tmp_path / "scaled").mkdir()
    (tmp_path / "scaled" / "server-scaled.log").write_text("\n".join(lines))
    (tmp_path / "locust.log").write_text("WARNING: not a server's line\n")

    said = server_trouble(tmp_path)

    assert said == [f"server-scaled.log: {line}" for line in lines[1:4]]


def test_a_flood_of_warnings_is_cut_short(tmp_path: Path) -> None:
    line = json.dumps({"level": "WARNING", "message": "slow"})
    (tmp_path / "server-embedded.log").write_text("\n".join([line] * (SERVER_TROUBLE_LINES + 5)))

    said = server_trouble(tmp_path)

    assert len(said) == SERVER_TROUBLE_LINES + 1
    assert said[-1] == "... and 5 more"
