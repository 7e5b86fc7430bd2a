"""Fixtures of the administrator's pages: one copy of the seeded database per test worker,
with the overtime (1.5) and double-time (2.0) pay codes the presets pay under (the seeded world
has none), and a fresh app on it per test, signed in as the administrator.

The pay-rules tests write (rules they name themselves, teams they give them), so each reads
what it changed rather than assuming a clean database.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.api import models as m
from app.api.db import Database
from tests.factories import World, uid
from tests.web.conftest import Web, build_web

ADMIN = "admin@example.com"


@pytest.fixture(scope="session")
def pay_db(web_db: tuple[str, World], tmp_path_factory: pytest.TempPathFactory,
           ) -> tuple[str, World]:
    """The seeded database with overtime and double-time pay codes, copied once per worker."""
    url, world = web_db
    target = tmp_path_factory.mktemp("admin-db") / "admin.db"
    shutil.copyfile(url.removeprefix("sqlite:///"), target)
    database = Database(f"sqlite:///{target}")
    with database.unit_of_work(write=True) as session:
        session.add_all([
            m.PayCode(id=uid("pay:OT"), name="Overtime", shorthand_name="OT",
                      hex_color="#E45756", type="hours", value=1.5),
            m.PayCode(id=uid("pay:DT"), name="Double time", shorthand_name="DT",
                      hex_color="#F28E2B", type="hours", value=2.0)])
    database.dispose()
    return f"sqlite:///{target}", world


@pytest.fixture
def aweb(pay_db: tuple[str, World], signing_key_path: Path, tmp_path: Path) -> Iterator[Web]:
    """A fresh app (its own session store) on the worker's pay-rules database, signed in as the
    administrator."""
    web = build_web(pay_db, signing_key_path, tmp_path / "sessions")
    web.sign_in(ADMIN)
    yield web
    web.app.extensions["shiftdesk"].db.dispose()
