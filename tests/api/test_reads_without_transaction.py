"""A GET runs its statements without a transaction on PostgreSQL (`unit_of_work(transaction=
False)`): no BEGIN and COMMIT round trips, the same data read, and no way to write by mistake
(each statement would commit on its own). The pooled connection goes back to transactions for
the next unit of work."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import delete, select, text

from app.api.db import ReadOnlyUnitOfWork
from app.api.models import AppSetting

KEY = "test_reads_without_transaction"


def _statement_starts(session) -> tuple[object, object]:
    """The transaction start time seen by two statements some milliseconds apart."""
    first = session.scalar(text("SELECT now()"))
    time.sleep(0.01)
    return first, session.scalar(text("SELECT now()"))


def test_each_statement_of_a_read_is_its_own_transaction_on_postgresql(fresh_api) -> None:
    if fresh_api.backend != "postgresql":
        pytest.skip("SQLite reads keep their transaction: it costs no round trip there")
    with fresh_api.db.unit_of_work(transaction=False) as session:
        first, second = _statement_starts(session)
    assert first != second  # now() is the start of each statement's own transaction
    with fresh_api.db.unit_of_work() as session:
        first, second = _statement_starts(session)
    assert first == second  # one transaction for the unit of work


def _add_setting(database, *, fail: bool = False, **unit: bool) -> None:
    """Add a setting row in a unit of work, and with `fail` raise before its end."""
    with database.unit_of_work(**unit) as session:
        session.add(AppSetting(key=KEY, value=True))
        session.flush()
        if fail:
            raise RuntimeError("half-way")


def _delete_settings(database) -> None:
    with database.unit_of_work(transaction=False) as session:
        session.execute(delete(AppSetting).where(AppSetting.key == "maintenance_mode"))


def test_a_read_that_tries_to_write_is_refused_and_writes_nothing(fresh_api) -> None:
    with pytest.raises(ReadOnlyUnitOfWork):
        _add_setting(fresh_api.db, transaction=False)
    with pytest.raises(ReadOnlyUnitOfWork):
        _delete_settings(fresh_api.db)
    with fresh_api.db.unit_of_work() as session:
        assert session.get(AppSetting, KEY) is None


def test_a_unit_of_work_that_writes_always_has_a_transaction(fresh_api) -> None:
    with pytest.raises(ValueError, match="transaction"), \
            fresh_api.db.unit_of_work(write=True, transaction=False):
        pass


def test_the_connection_returns_to_transactions_after_a_read(fresh_api) -> None:
    """A write after a read on the same pooled connection is still all or nothing."""
    with fresh_api.db.unit_of_work(transaction=False) as session:
        session.scalar(select(AppSetting.key).limit(1))
    with pytest.raises(RuntimeError, match="half-way"):
        _add_setting(fresh_api.db, fail=True, write=True)
    with fresh_api.db.unit_of_work() as session:
        assert session.get(AppSetting, KEY) is None


def test_a_get_reads_what_was_written_just_before(fresh_api) -> None:
    labels = "/v1/settings/labels"
    before = fresh_api.get(labels, query_string={"pageSize": 100})
    assert before.status_code == 200
    made = fresh_api.post(labels, json={"name": "Read after write", "color": "#17BECF"})
    assert made.status_code == 201, made.get_json()
    after = fresh_api.get(labels, query_string={"pageSize": 100}).get_json()["items"]
    assert {label["id"] for label in after} == (
        {label["id"] for label in before.get_json()["items"]} | {made.get_json()["id"]})
