"""`shiftdesk accrue`: posts the accruals due, idempotently, as POST /v1/time-off/accruals."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import func, select

from app.api import models as m
from app.api.db import Database
from app.cli import main
from tests.factories import build_world, uid


def test_accrue_posts_what_is_due_once(tmp_path: Path):
    env = {"SHIFTDESK_DATABASE_URL": f"sqlite:///{tmp_path / 'instance' / 'cli.db'}",
           "SHIFTDESK_SIGNING_KEY_PATH": str(tmp_path / "instance" / "key.json")}
    assert CliRunner().invoke(main, ["init"], env=env).exit_code == 0
    database = Database(env["SHIFTDESK_DATABASE_URL"])
    try:
        with database.unit_of_work(write=True) as session:
            build_world(session)
            session.add(m.TimeOffAccrualSettings(
                policy_id=uid("policy:pto"), method="per_period", rate="8",
                start_date=date(2026, 1, 1), period="monthly"))

        first = CliRunner().invoke(main, ["accrue", "--through", "2026-04-01"], env=env)
        again = CliRunner().invoke(main, ["accrue", "--through", "2026-04-01"], env=env)
        unknown = CliRunner().invoke(main, ["accrue", "--policy", str(uid("nope"))], env=env)

        assert first.exit_code == 0, first.output
        assert "18 entries for 6 providers in 1 policies" in first.output
        assert "0 entries" in again.output
        assert unknown.exit_code == 1
        with database.unit_of_work() as session:
            assert session.scalar(select(func.count()).select_from(m.TimeOffLedgerEntry)) == 18
    finally:
        database.dispose()
