"""The `payroll` report end to end: POST a run, let the job build it, download the CSV.

The shared world's Emergency team (see tests/api/test_sign_offs.py): on 2 March 2026 Pat
Provider worked an approved session (696 minutes against 690 scheduled) and the other
Emergency providers punched nothing, so the team's 2 March can be signed off; on 3 March Pat's
clock-in is pending and never closed. This module adds a "Nights" team whose only provider works
night shifts across local midnight (New York): an ordinary one, one on each DST night, and a
minute split by midnight into two half minutes; her name and importedId start like formulas.
"""

from __future__ import annotations

import csv
import io
import time
import uuid
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from app import create_app
from app.api import models as m
from app.contract.common import format_timestamp
from tests.conftest import Api, Template, make_settings
from tests.factories import DAYS, START, make_provider, make_role, make_shift, make_team, uid
from tests.problems import problem_of

RUNS = "/v1/reporting/reports/runs"
SIGN_OFFS = "/v1/timekeeping/timesheet/sign-offs"
TIMESHEET = "/v1/timekeeping/timesheet"
ADMIN, MANAGER = "admin@example.com", "manager@example.com"
HEADER = ["importedId", "providerId", "provider", "date", "payCode", "payCodeId", "role",
          "roleId", "scheduledMinutes", "actualMinutes", "status", "signOffIds"]
REG = str(uid("pay:REG"))
NIGHT_TEAM = uid("team:Nights")
NIGHT_ROLE = str(uid("role:Nights:Registered Nurse"))
NORA = uid("user:nora.night@example.com")
NORA_NAME = "+Nora Night"
NORA_IMPORTED = "=HYPERLINK(\"http://x\")"


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _window(start: datetime, end: datetime, team: uuid.UUID) -> dict[str, str]:
    return {"startDate": format_timestamp(start), "endDate": format_timestamp(end),
            "teamId": str(team)}


FIRST_DAY = (_at("2026-03-02T05:00"), _at("2026-03-03T05:00"))
TWO_DAYS = (_at("2026-03-02T05:00"), _at("2026-03-04T05:00"))
NIGHTS = {
    # name: (shift or None, clock-in, clock-out, report window)
    "ordinary": ((_at("2026-03-21T02:00"), _at("2026-03-21T11:00")),  # 22:00-07:00 EDT
                 _at("2026-03-21T01:58"), _at("2026-03-21T11:03"),
                 (_at("2026-03-20T04:00"), _at("2026-03-22T04:00"))),
    "spring-forward": ((_at("2026-03-08T03:00"), _at("2026-03-08T11:00")),  # 22:00 EST-07:00 EDT
                       _at("2026-03-08T03:00"), _at("2026-03-08T11:00"),
                       (_at("2026-03-07T05:00"), _at("2026-03-09T04:00"))),
    "fall-back": ((_at("2026-11-01T02:00"), _at("2026-11-01T12:00")),  # 22:00 EDT-07:00 EST
                  _at("2026-11-01T02:00"), _at("2026-11-01T12:00"),
                  (_at("2026-10-31T04:00"), _at("2026-11-02T05:00"))),
    "split-minute": (None, _at("2026-04-11T03:59:30"), _at("2026-04-11T04:00:30"),  # 23:59:30
                     (_at("2026-04-10T04:00"), _at("2026-04-12T04:00"))),
}


def _add_nights(api: Api) -> None:
    """The Nights team, Nora and her nights (approved punches on one timecard)."""
    with api.db.unit_of_work(write=True) as session:
        team = make_team(session, "Nights", shorthand_name="NT")
        role = make_role(session, team, "Registered Nurse")
        nora = make_provider(session, "nora.night@example.com", team, NORA_NAME,
                             default_role_id=role.id, imported_id=NORA_IMPORTED)
        session.flush()
        card = m.Timecard(provider_id=nora.id, period_start=_at("2026-03-01T05:00"),
                          period_end=_at("2026-12-01T05:00"))
        session.add(card)
        session.flush()
        for shift, clock_in, clock_out, _report_window in NIGHTS.values():
            if shift is not None:
                hours = int((shift[1] - shift[0]).total_seconds() // 3600)
                make_shift(session, provider=nora, team=team, role=role, start=shift[0],
                           hours=hours, break_at=None)
            for action, moment in (("clock_in", clock_in), ("clock_out", clock_out)):
                session.add(m.TimecardPunch(timecard_id=card.id, provider_id=nora.id,
                                            action=action, state="approved", time=moment))


@pytest.fixture(scope="module")
def nights_api(template: Template, signing_key_path: Path,
               tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """A client on this module's own copy of the world plus the Nights team. Tests may start
    runs on it (they read nothing back but their own) and must write nothing else."""
    url, drop = template.copy(tmp_path_factory.mktemp("payroll"))
    app = create_app(make_settings(url, signing_key_path))
    api = Api(app, template.world, template.backend)
    _add_nights(api)
    yield api
    app.extensions["shiftdesk"].db.dispose()
    drop()


def _run(api: Api, parameters: dict[str, Any], user: str = ADMIN) -> dict[str, Any]:
    """POST a payroll run as `user` and poll it (bounded) until it leaves `running`."""
    response = api.post(RUNS, user=user, json={"reportId": "payroll", "parameters": parameters})
    assert response.status_code == 201, response.get_json()
    run_id = response.get_json()["id"]
    deadline = time.monotonic() + 30
    while True:
        body = api.get(f"{RUNS}/{run_id}").get_json()
        if body["status"] != "running" or time.monotonic() > deadline:
            return body
        time.sleep(0.02)


def _payroll(api: Api, parameters: dict[str, Any], user: str = ADMIN
             ) -> tuple[str, list[dict[str, str]]]:
    """Run the payroll report to completion: the file's name and its rows."""
    done = _run(api, parameters, user)
    assert done["status"] == "completed", done
    link = api.get(f"{RUNS}/{done['id']}/download").get_json()
    response = api.get(urlsplit(link["url"]).path, user=None)
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    text = response.get_data(as_text=True)
    assert text.splitlines()[0].split(",") == HEADER
    return done["file"]["name"], list(csv.DictReader(io.StringIO(text)))


def _minutes(rows: list[dict[str, str]]) -> list[tuple[str, str, str, int, int]]:
    return [(r["date"], r["payCode"], r["role"], int(r["scheduledMinutes"]),
             int(r["actualMinutes"])) for r in rows]



# Final and preliminary -----------------------------------------------------------------------


def test_payroll_is_final_only_while_sign_offs_cover_every_providers_window(fresh_api, world):
    signed = fresh_api.post(SIGN_OFFS, user=MANAGER, json=_window(*FIRST_DAY, world.ed))
    assert signed.status_code == 201, signed.get_json()
    first = signed.get_json()["id"]

    name, rows = _payroll(fresh_api, _window(*FIRST_DAY, world.ed))
    assert name.startswith("payroll-2")
    assert "preliminary" not in name
    assert {(r["status"], r["signOffIds"]) for r in rows} == {("signed-off", first)}
    pat = [r for r in rows if r["providerId"] == str(world.provider)]
    assert _minutes(pat) == [("2026-03-02", "REG", "Registered Nurse", 690, 696)]
    doctor = [r for r in rows if r["providerId"] == str(world.doctor)]
    assert _minutes(doctor) == [("2026-03-02", "REG", "Physician", 690, 0)]
    assert {r["provider"] for r in rows} == {"Pat Provider", "Dana Doctor", "Ed Nurse 1",
                                             "Ed Nurse 2", "Ed Nurse 3"}

    # The doctor alone is signed off for 3 March: the two days are his, not the team's.
    more = fresh_api.post(SIGN_OFFS, user=MANAGER, json={
        **_window(FIRST_DAY[1], TWO_DAYS[1], world.ed), "providerIds": [str(world.doctor)]})
    assert more.status_code == 201, more.get_json()
    name, rows = _payroll(fresh_api, _window(*TWO_DAYS, world.ed))
    assert name.startswith("payroll-preliminary-")
    assert {r["status"] for r in rows} == {"preliminary"}
    covered = {r["providerId"]: r["signOffIds"] for r in rows}
    assert covered[str(world.doctor)] == f"{first} {more.get_json()['id']}"
    assert covered[str(world.provider)] == ""
    assert [r["date"] for r in rows if r["providerId"] == str(world.doctor)] == [
        "2026-03-02", "2026-03-03"]

    assert fresh_api.delete(f"{SIGN_OFFS}/{first}", user=ADMIN).status_code == 204
    name, rows = _payroll(fresh_api, _window(*FIRST_DAY, world.ed))
    assert name.startswith("payroll-preliminary-")
    assert {(r["status"], r["signOffIds"]) for r in rows} == {("preliminary", "")}


def test_payroll_of_an_open_range_is_preliminary(nights_api, world):
    name, rows = _payroll(nights_api, _window(*TWO_DAYS, world.ed))
    assert name.startswith("payroll-preliminary-")
    assert name.endswith(".csv")
    assert rows
    assert {r["status"] for r in rows} == {"preliminary"}
    # Pat's clock-in of 3 March never closed: no time is paid for it until it is corrected.
    pat = [r for r in rows if r["providerId"] == str(world.provider)]
    assert _minutes(pat) == [("2026-03-02", "REG", "Registered Nurse", 690, 696),
                             ("2026-03-03", "REG", "Registered Nurse", 690, 0)]


# Local days -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("night", "expected"), [
    ("ordinary", [("2026-03-20", 120, 122), ("2026-03-21", 420, 423)]),
    ("spring-forward", [("2026-03-07", 120, 120), ("2026-03-08", 360, 360)]),
    ("fall-back", [("2026-10-31", 120, 120), ("2026-11-01", 480, 480)]),
    # 30 s before midnight, 30 s after: the minute completes, and is paid, on the second day.
    ("split-minute", [("2026-04-11", 0, 1)]),
])
def test_payroll_splits_a_night_at_local_midnight(nights_api, night, expected):
    _name, rows = _payroll(nights_api, _window(*NIGHTS[night][3], NIGHT_TEAM))
    assert [(r["date"], int(r["scheduledMinutes"]), int(r["actualMinutes"])) for r in rows] \
        == expected
    assert {(r["payCode"], r["payCodeId"], r["role"], r["roleId"]) for r in rows} == {
        ("REG", REG, "Registered Nurse", NIGHT_ROLE)}


def test_payroll_rows_add_up_to_the_timesheet_totals(nights_api, world):
    cases = [(world.ed, (START - timedelta(days=1), START + timedelta(days=DAYS + 3)))]
    cases += [(NIGHT_TEAM, (NIGHTS["spring-forward"][3][0], NIGHTS["fall-back"][3][1]))]
    for team, (start, end) in cases:
        _name, rows = _payroll(nights_api, _window(start, end, team))
        summed: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
        for r in rows:
            figures = summed[(r["providerId"], r["payCodeId"], r["roleId"])]
            figures[0] += int(r["scheduledMinutes"])
            figures[1] += int(r["actualMinutes"])
        expected: dict[tuple[str, str, str], list[int]] = {}
        for provider in {r["providerId"] for r in rows}:
            sheet = nights_api.get(TIMESHEET, query_string={
                "provider": provider, "startDate": format_timestamp(start),
                "endDate": format_timestamp(end)}).get_json()
            for total in sheet["payCodeTotals"]:
                if total["scheduled"] or total["actual"]:
                    expected[(provider, total["payCodeId"], total["roleId"] or "")] = [
                        total["scheduled"], total["actual"]]
        assert dict(summed) == expected
        assert len(rows) > len(expected)  # more than one day per total: really split


# Parameters and rights ------------------------------------------------------------------------


@pytest.mark.parametrize(("team", "message"), [
    (None, "is required"),
    ("not-a-uuid", "must be a UUID"),
    (str(uid("team:nowhere")), "there is no team"),
])
def test_payroll_refuses_a_missing_or_unknown_team(nights_api, team, message):
    parameters = {"startDate": format_timestamp(FIRST_DAY[0]),
                  "endDate": format_timestamp(FIRST_DAY[1])}
    if team is not None:
        parameters["teamId"] = team
    body = problem_of(nights_api.post(RUNS, json={"reportId": "payroll",
                                                "parameters": parameters}),
                    400, "report-parameter-validation")
    assert body["path"] == "/parameters/teamId"
    assert message in body["message"]


def test_payroll_refuses_a_parameter_it_does_not_take(nights_api, world):
    body = problem_of(nights_api.post(RUNS, json={"reportId": "payroll", "parameters": {
        **_window(*FIRST_DAY, world.ed), "preliminary": True}}), 400,
        "report-parameter-validation")
    assert body["path"] == "/parameters/preliminary"


def test_payroll_lists_only_providers_whose_timesheets_the_creator_may_view(nights_api, world):
    _name, rows = _payroll(nights_api, _window(*FIRST_DAY, world.ed), user=MANAGER)
    assert {r["providerId"] for r in rows} == {
        str(world.provider), str(world.doctor), *(str(uid(f"user:ed.nurse{i}@example.com"))
                                                  for i in range(1, 4))}
    # The Emergency manager may not view Intensive Care's timesheets: a file with no rows.
    name, rows = _payroll(nights_api, _window(*FIRST_DAY, world.icu), user=MANAGER)
    assert rows == []
    assert name.startswith("payroll-preliminary-")


def test_payroll_refuses_providers(nights_api, world):
    response = nights_api.post(RUNS, user="provider@example.com", json={
        "reportId": "payroll", "parameters": _window(*FIRST_DAY, world.ed)})
    problem_of(response, 403, "unauthorized")


def test_payroll_defuses_cells_that_would_run_as_formulas(nights_api):
    _name, rows = _payroll(nights_api, _window(*NIGHTS["ordinary"][3], NIGHT_TEAM))
    assert {(r["importedId"], r["provider"], r["providerId"]) for r in rows} == {
        ("'" + NORA_IMPORTED, "'" + NORA_NAME, str(NORA))}
