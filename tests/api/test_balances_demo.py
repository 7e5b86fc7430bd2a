"""The demo's balances: PTO and sick leave keep a balance, and their members have a year of
ledger (accruals, carry-over, usage of approved requests) that sums exactly, within the caps."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

import pytest
from sqlalchemy import select

from app.api import models as m
from app.api.db import Database
from app.api.demo import load_demo
from app.api.demo.state import demo_id
from app.api.migrate import upgrade
from tests.api.test_demo import NOW, settings_for


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("balances-demo") / "demo.db"
    upgrade(f"sqlite:///{path}")
    database = Database(f"sqlite:///{path}")
    load_demo(database, settings_for(database.url), now=NOW)
    yield database
    database.dispose()


def test_demo_pto_and_sick_leave_keep_a_balance(demo: Database):
    with demo.unit_of_work() as session:
        settings = {s.policy_id: s for s in session.scalars(select(m.TimeOffAccrualSettings))}

    assert set(settings) == {demo_id("policy:pto"), demo_id("policy:sick")}
    assert settings[demo_id("policy:pto")].rate == "4.6"


def test_demo_gives_a_year_of_ledger_within_the_caps(demo: Database):
    with demo.unit_of_work() as session:
        provider = session.scalar(select(m.User.id).where(
            m.User.email == "provider@example.com"))
        rows = list(session.scalars(select(m.TimeOffLedgerEntry)))

    balances: dict[tuple[object, object], Fraction] = defaultdict(Fraction)
    for row in rows:
        balances[row.provider_id, row.policy_id] += Fraction(row.amount_numerator,
                                                             row.amount_denominator)
    pto = demo_id("policy:pto")
    accruals = [r for r in rows if r.provider_id == provider and r.policy_id == pto
                and r.kind == "accrual"]
    assert len(accruals) == 26
    assert all(Fraction(-16) <= b for (_, p), b in balances.items() if p == pto)
    assert all(b <= 200 for (_, p), b in balances.items() if p == pto)
    assert len({r.source_key for r in rows}) == len(rows)
