"""The team schedule's coverage strip, row by row (`app.web.manage_schedule.coverage`): each
local hour one cell whose mark is hidden from screen readers and whose words are shown only to
them, on ordinary days and on the two days a year the clocks change."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from app.contract.forecasting import CoverageInterval, CoverageRead, CoverageRole
from app.web.manage_schedule.coverage import strips

ZONE = ZoneInfo("America/New_York")


def _row(day: date, figures: dict[int, tuple[float, float]]) -> list[str]:
    """The `<td>` cells of `day`'s row for one role with hourly intervals (UTC hours from the
    local midnight to the next) whose (demand, scheduled) `figures` gives by elapsed hour;
    the others are quiet."""
    start = datetime.combine(day, datetime.min.time(), ZONE).astimezone(UTC)
    end = datetime.combine(day + timedelta(days=1), datetime.min.time(), ZONE).astimezone(UTC)
    hours = int((end - start).total_seconds() // 3600)
    intervals = []
    for n in range(hours):
        demand, scheduled = figures.get(n, (0.0, 0.0))
        intervals.append(CoverageInterval(
            start_date=start + timedelta(hours=n), end_date=start + timedelta(hours=n + 1),
            demand=demand, scheduled=scheduled, open=0.0, gap=demand - scheduled))
    coverage = CoverageRead(
        team_id=uuid.uuid4(), start_date=start, end_date=end, interval=60,
        time_zone=ZONE.key, roles=[CoverageRole(
            role_id=uuid.uuid4(), role_name="Registered Nurse", has_forecast=True,
            short_hours=0.0, intervals=intervals)])
    (strip,) = strips(coverage, [day], ZONE)
    (row,) = strip.days
    return re.findall(r"<td[^>]*>.*?</td>", str(row.row()))


def _words(cell: str) -> list[str]:
    return re.findall(r'<span class="visually-hidden">([^<]*)</span>', cell)


def _marks(cell: str) -> list[str]:
    return re.findall(r'<span class="cov-cell ([^"]*)" aria-hidden="true">([^<]*)</span>', cell)


def test_an_ordinary_day_has_24_cells_each_hour_in_words_and_a_mark_only_where_needed():
    cells = _row(date(2026, 3, 2), {9: (2.0, 1.0), 10: (2.0, 2.0), 11: (1.0, 3.0)})
    assert len(cells) == 24
    assert _words(cells[9]) == ["9:00 AM: 2 needed, 1 scheduled, 1 short"]
    assert _marks(cells[9]) == [("cov-short", "\u22121")]
    assert _marks(cells[10]) == [("cov-met", "\u2713")]
    assert _marks(cells[11]) == [("cov-over", "+2")]
    # A quiet hour says so in words, and shows nothing: no empty chip.
    assert _words(cells[3]) == ["3:00 AM: 0 needed, 0 scheduled"]
    assert "cov-cell" not in cells[3]


def test_the_day_the_clocks_go_forward_says_its_2_am_does_not_exist():
    cells = _row(date(2026, 3, 8), {})  # 23 hours
    assert len(cells) == 24
    assert _words(cells[2]) == ["No such hour: the clocks go forward"]
    assert _marks(cells[2]) == [("cov-none", "")]
    assert _words(cells[3])[0].startswith("3:00 AM")


def test_the_day_the_clocks_go_back_shows_both_1_ams_side_by_side():
    # Elapsed hours 1 and 2 are 1 AM daylight time and 1 AM standard time; the first is short.
    cells = _row(date(2026, 11, 1), {1: (2.0, 1.0)})  # 25 hours
    assert len(cells) == 24
    words = _words(cells[1])
    assert len(words) == 2
    assert words[0].endswith("2 needed, 1 scheduled, 1 short")
    assert words[1].endswith("0 needed, 0 scheduled")
    # Beside a marked interval the quiet one keeps its (empty) chip, so each stays in its place.
    assert _marks(cells[1]) == [("cov-short", "\u22121"), ("cov-quiet", "")]
    assert _words(cells[2])[0].startswith("2:00 AM")
