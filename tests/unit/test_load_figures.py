"""The figures `make load`, `make soak` and `make bench-scale` print: the one-line format the
issue fixes, and the bench table's verdicts on the targets (no server, no database)."""

from __future__ import annotations

import re

from tests.bench.scale import table
from tests.load.__main__ import Figures, _line


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
            "coverage_cpu": coverage / 2}


def test_bench_table_says_which_targets_hold() -> None:
    lines = table({500: _size(10, 200, .7, 20), 2000: _size(15, 250, .65, 20),
                   8000: _size(30, 260, .6, 21)})
    assert len(lines) == 2 + 3 + 3
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
