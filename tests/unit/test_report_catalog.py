"""The report catalog's pure parts: parameter checks, CSV cells, coverage buckets and sums."""

from __future__ import annotations

import csv
import io
import uuid
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.api.domain.intervals import Interval
from app.api.jobs.reports import (
    CATALOG,
    MAX_WINDOW_DAYS,
    buckets,
    check_parameters,
    coverage,
    render_csv,
    wire_parameters,
)
from app.api.problems import ProblemError

NY = ZoneInfo("America/New_York")
T0 = datetime(2026, 3, 2, 12, tzinfo=UTC)
ROLE = uuid.UUID("00000000-0000-4000-8000-000000000001")


def test_catalog_holds_the_demo_reports_with_a_window():
    assert set(CATALOG) == {"timesheet-summary", "time-off-summary", "appointments-by-provider",
                            "shift-coverage", "payroll"}
    for report in CATALOG.values():
        names = [p.name for p in report.parameters]
        assert names[:3] == ["startDate", "endDate", "teamId"]


def test_check_parameters_parses_and_normalises():
    team = uuid.uuid4()
    parsed = check_parameters(CATALOG["shift-coverage"], {
        "startDate": "2026-03-02T07:00:00-05:00", "endDate": "2026-03-03T12:00:00Z",
        "teamId": str(team), "bucket": "day"})
    assert parsed == {"startDate": T0, "endDate": T0 + timedelta(days=1), "teamId": team,
                      "bucket": "day"}
    assert wire_parameters(parsed) == {"startDate": "2026-03-02T12:00:00+0000",
                                       "endDate": "2026-03-03T12:00:00+0000",
                                       "teamId": str(team), "bucket": "day"}


@pytest.mark.parametrize(("raw", "path"), [
    ({"endDate": "2026-03-03T00:00:00Z"}, "/parameters/startDate"),
    ({"startDate": "2026-03-03T00:00:00Z", "endDate": "2026-03-03T00:00:00Z"},
     "/parameters/endDate"),
    ({"startDate": 5, "endDate": "2026-03-03T00:00:00Z"}, "/parameters/startDate"),
    ({"startDate": "2026-03-01T00:00:00Z", "endDate": "2026-03-03T00:00:00Z", "teamId": 7},
     "/parameters/teamId"),
    ({"startDate": "2026-03-01T00:00:00Z", "endDate": "2026-03-03T00:00:00Z", "x": 1},
     "/parameters/x"),
])
def test_check_parameters_refuses_with_path(raw, path):
    with pytest.raises(ProblemError) as caught:
        check_parameters(CATALOG["timesheet-summary"], raw)
    assert caught.value.code == "report-parameter-validation"
    assert caught.value.members["path"] == path
    assert caught.value.members["message"]


def test_check_parameters_refuses_window_longer_than_limit():
    start = T0
    end = start + timedelta(days=MAX_WINDOW_DAYS, seconds=1)
    with pytest.raises(ProblemError):
        check_parameters(CATALOG["time-off-summary"], {
            "startDate": start.isoformat(), "endDate": end.isoformat()})


def test_render_csv_formats_cells_and_defuses_formulas():
    data = render_csv(["a", "b", "c", "d", "e"],
                      [[T0, 1.5, 2.0, None, "=HYPERLINK(1)"], [ROLE, -0.25, 3, True, "x,y"]])
    rows = list(csv.reader(io.StringIO(data.decode())))
    assert rows == [["a", "b", "c", "d", "e"],
                    ["2026-03-02T12:00:00+0000", "1.5", "2", "", "'=HYPERLINK(1)"],
                    [str(ROLE), "-0.25", "3", "true", "x,y"]]


def test_buckets_cut_days_at_local_midnight_across_dst():
    # 2026-03-08 is 23 hours long in New York.
    start = datetime(2026, 3, 7, 5, tzinfo=UTC)
    days = buckets(Interval(start, start + timedelta(days=3)), "day", NY)
    assert [(d.end - d.start) / timedelta(hours=1) for d in days] == [24, 23, 24, 1]


def test_buckets_cut_hours_and_clip_to_window():
    start = T0 + timedelta(minutes=30)
    hours = buckets(Interval(start, start + timedelta(hours=2)), "hour", NY)
    assert [(h.start.minute, h.end.minute) for h in hours] == [(30, 0), (0, 0), (0, 30)]


def test_coverage_weighs_staff_and_demand_by_time():
    slots = buckets(Interval(T0, T0 + timedelta(hours=2)), "hour", NY)
    table = coverage(slots, [(ROLE, Interval(T0, T0 + timedelta(minutes=90)))],
                     [(ROLE, Interval(T0 + timedelta(minutes=30), T0 + timedelta(hours=2)), 4.0)])
    assert table == {(ROLE, 0): (1.0, 2.0), (ROLE, 1): (0.5, 4.0)}


@given(st.lists(st.tuples(st.integers(0, 600), st.integers(1, 600)), max_size=20))
def test_coverage_keeps_total_staff_time(spans):
    slots = buckets(Interval(T0, T0 + timedelta(hours=24)), "hour", NY)
    scheduled = [(ROLE, Interval(T0 + timedelta(minutes=a), T0 + timedelta(minutes=a + b)))
                 for a, b in spans]
    table = coverage(slots, scheduled, [])
    total = sum(staff * 60 for (_, _), (staff, _) in table.items())
    assert total == pytest.approx(sum(b for _, b in spans))
