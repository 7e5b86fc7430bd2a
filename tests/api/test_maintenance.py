"""Maintenance mode: writes under /v1 answer 503 `maintenance-mode` with Retry-After, reads work.

Switched on by the `maintenance_mode` setting or by the `maintenance_mode` row of the database
(`shiftdesk maintenance on|off|status`), which every process rereads within seconds.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from app import create_app
from app.api import MAINTENANCE_CACHE_SECONDS
from app.api import models as m
from app.cli import main
from tests.conftest import Api, make_settings

DEMAND = "/v1/forecasting/demand"


def problem_code(response: Any) -> str:
    """The code a problem document's `type` ends with."""
    assert response.mimetype == "application/problem+json", response.data
    return response.get_json()["type"].rsplit("#", 1)[1]


def upload(api: Api, world: Any) -> Any:
    """A valid forecast upload."""
    return api.post(DEMAND, json=[{"role": str(world.ed_nurse_role),
                                   "startDate": "2026-05-01T12:00:00+0000",
                                   "endDate": "2026-05-01T16:00:00+0000", "demand": 1}])


def assert_read_only(api: Api, world: Any) -> None:
    """Writes are refused with 503 and Retry-After; reads still answer."""
    response = upload(api, world)
    assert response.status_code == 503
    assert problem_code(response) == "maintenance-mode"
    assert int(response.headers["Retry-After"]) > 0
    refused = api.patch(f"/v1/authorization/permissions/{world.admin}", json={"conditions": None})
    assert refused.status_code == 503
    assert api.get(DEMAND).status_code == 200
    assert api.get("/v1/teams", user="provider@example.com").status_code == 200


def test_writes_answer_503_when_setting_is_on(fresh_api, world, signing_key_path: Path):
    app = create_app(make_settings(fresh_api.db.url, signing_key_path, maintenance_mode=True))
    api = Api(app, world, fresh_api.backend)
    try:
        assert_read_only(api, world)
    finally:
        app.extensions["shiftdesk"].db.dispose()


def test_writes_answer_503_when_database_row_is_on(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as session:
        session.add(m.AppSetting(key="maintenance_mode", value=True))
    assert_read_only(fresh_api, world)


def test_writes_work_when_database_row_is_off(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as session:
        session.add(m.AppSetting(key="maintenance_mode", value=False))
    assert upload(fresh_api, world).status_code == 201


def test_maintenance_command_switches_writes_off_and_on(fresh_api, world):
    env = {"SHIFTDESK_DATABASE_URL": fresh_api.db.url, "SHIFTDESK_MAINTENANCE_MODE": ""}
    runner = CliRunner()
    assert runner.invoke(main, ["maintenance", "status"], env=env).output.strip() == "off"
    result = runner.invoke(main, ["maintenance", "on"], env=env)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "on"
    assert runner.invoke(main, ["maintenance", "status"], env=env).output.strip() == "on"
    assert_read_only(fresh_api, world)
    assert runner.invoke(main, ["maintenance", "off"], env=env).output.strip() == "off"
    # The API rereads the row at most every MAINTENANCE_CACHE_SECONDS: writes resume by then.
    deadline = time.monotonic() + MAINTENANCE_CACHE_SECONDS + 3
    while (status := upload(fresh_api, world).status_code) == 503:
        assert time.monotonic() < deadline, "writes did not resume"
        time.sleep(0.1)
    assert status == 201
