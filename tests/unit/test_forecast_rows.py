"""Reading a demand forecast CSV (`app.web.demand_forecast.rows`): site times across the DST
changes, offsets, role names and ids, and what a file as a whole may not be."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from app.contract.roles import RoleRead
from app.web.demand_forecast.rows import MAX_ROWS, FileProblem, RoleIndex, read_forecast

ZONE = ZoneInfo("America/New_York")
ED, ICU = uuid.uuid4(), uuid.uuid4()


def _role(name: str, team: uuid.UUID, team_name: str) -> RoleRead:
    return RoleRead(id=uuid.uuid4(), created_at=datetime(2026, 1, 1, tzinfo=UTC), name=name,
                    team=team, team_name=team_name, hex_color="#1F77B4")


NURSE_ED = _role("Registered Nurse", ED, "Emergency")
NURSE_ICU = _role("Registered Nurse", ICU, "Intensive Care")
DOCTOR = _role("Physician", ED, "Emergency")
ROLES = RoleIndex.of([NURSE_ED, NURSE_ICU, DOCTOR])


def _read(*rows: str, header: str = "role,start,end,demand"):
    content = "\n".join([header, *rows]).encode()
    return read_forecast(content, ROLES, ZONE, max_bytes=1_000_000)


def test_site_times_become_utc_on_both_sides_of_a_dst_change():
    lines, errors = _read("Physician,2026-03-07 19:00,2026-03-08 07:00,2",
                          "Physician,2026-10-31 19:00,2026-11-01 07:00,1.5")
    assert errors == []
    assert [(x.start, x.end) for x in lines] == [
        (datetime(2026, 3, 8, 0, 0, tzinfo=UTC), datetime(2026, 3, 8, 11, 0, tzinfo=UTC)),
        (datetime(2026, 10, 31, 23, 0, tzinfo=UTC), datetime(2026, 11, 1, 12, 0, tzinfo=UTC))]
    assert [x.demand for x in lines] == [2.0, 1.5]


def test_a_time_the_clocks_skip_is_a_row_error():
    _, errors = _read("Physician,2026-03-08 02:30,2026-03-08 07:00,2")
    assert [(e.row, e.column) for e in errors] == [(1, "start")]
    assert "the clocks skip it" in errors[0].message


def test_times_with_an_offset_are_taken_as_written():
    lines, errors = _read("Physician,2026-03-02T07:00-05:00,2026-03-02T19:00Z,2")
    assert errors == []
    assert (lines[0].start, lines[0].end) == (datetime(2026, 3, 2, 12, 0, tzinfo=UTC),
                                              datetime(2026, 3, 2, 19, 0, tzinfo=UTC))


def test_roles_by_name_team_or_id_and_the_columns_in_any_order():
    lines, errors = _read(f"2,2026-03-02 07:00,{NURSE_ICU.id},2026-03-02 19:00",
                          "2,2026-03-02 07:00,  registered   NURSE (emergency) ,2026-03-02 19:00",
                          "1,2026-03-02 07:00,PHYSICIAN,2026-03-02 19:00",
                          header="demand,start,role,end")
    assert errors == []
    assert [x.role for x in lines] == [NURSE_ICU.id, NURSE_ED.id, DOCTOR.id]


def test_the_same_window_written_two_ways_is_a_duplicate():
    _, errors = _read("Physician,2026-03-02 07:00,2026-03-02 19:00,2",
                      "Physician,2026-03-02T12:00Z,2026-03-03T00:00+00:00,3")
    assert [(e.row, e.column) for e in errors] == [(2, "role")]
    assert errors[0].message.startswith("Row 1 already gives this role and window")


@pytest.mark.parametrize(("content", "message"), [
    (b"", "holds no rows"),
    (b"role;start;end;demand\n", "it lacks"),
    (b"role,start,end,demand,demand\n", "it repeats"),
    (b"role,start,end,demand\n", "the header but no rows"),
    ("role,start,end,demand\nPhysician,2026-03-02 07:00,2026-03-02 19:00,2\n".encode("utf-16"),
     "not UTF-8"),
])
def test_a_file_that_cannot_be_read(content, message):
    with pytest.raises(FileProblem, match=message):
        read_forecast(content, ROLES, ZONE, max_bytes=1_000_000)


def test_limits_of_size_and_rows():
    with pytest.raises(FileProblem, match="larger than"):
        read_forecast(b"role,start,end,demand\n" + b"x" * 200, ROLES, ZONE, max_bytes=100)
    rows = [f"Physician,2026-03-02 07:00,2026-03-02 19:{i % 60:02d},1" for i in range(MAX_ROWS + 1)]
    with pytest.raises(FileProblem, match="more than 20,000 rows"):
        _read(*rows)
