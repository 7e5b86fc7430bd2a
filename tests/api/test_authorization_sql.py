"""The SQL form of a permission decision agrees with the Python form, row for row.

Hypothesis draws rule lists (allow and deny, conditions over five typed fields with every
operator, placeholders, None and operands of the wrong type) and rows; the rows go into a small
table, and `select … where sql_filter(…)` must return exactly the rows `Ability.can` allows.
SQLite in memory always; PostgreSQL on a scratch database with fewer examples.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import (
    Boolean,
    Column,
    Engine,
    Integer,
    MetaData,
    String,
    Table,
    Uuid,
    delete,
    insert,
    select,
)

from app.api import models as m
from app.api.authorization import sql_filter
from app.api.db import UtcDateTime, make_engine
from app.api.domain.ability import Ability, build_rules
from app.api.domain.conditions import validate
from tests.conftest import PG_AVAILABLE, WORKER, _pg_execute, _pg_url
from tests.factories import make_user

metadata = MetaData()
things = Table(
    "things",
    metadata,
    Column("pk", Integer, primary_key=True, autoincrement=False),
    Column("ref", Uuid),
    Column("name", String(20)),
    Column("count", Integer),
    Column("at", UtcDateTime),
    Column("flag", Boolean),
)
FIELDS = {name: things.c[name] for name in ("ref", "name", "count", "at", "flag")}

UUIDS = [uuid.UUID(f"{c * 8}-{c * 4}-4{c * 3}-8{c * 3}-{c * 12}") for c in "0a7f"]
BASE = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)
INSTANTS = [BASE + timedelta(minutes=m) for m in (-600, -1, 0, 1, 61)]
OFFSETS = [UTC, timezone(timedelta(hours=-5)), timezone(timedelta(hours=5, minutes=30))]

# --- rows ------------------------------------------------------------------------------------

ROW_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "ref": st.sampled_from(UUIDS),
    "name": st.text(alphabet="aAbB_", max_size=3),
    "count": st.integers(-3, 3) | st.sampled_from([-(2**31), 2**31 - 1]),
    "at": st.sampled_from(INSTANTS),
    "flag": st.booleans(),
}
rows = st.lists(
    st.fixed_dictionaries({name: st.none() | values for name, values in ROW_VALUES.items()}),
    max_size=6,
)

# --- conditions ------------------------------------------------------------------------------


@st.composite
def _timestamp_text(draw: st.DrawFn) -> str:
    instant = draw(st.sampled_from(INSTANTS)).astimezone(draw(st.sampled_from(OFFSETS)))
    text = instant.strftime("%Y-%m-%dT%H:%M:%S%z")
    return draw(st.sampled_from([text, text[:-2] + ":" + text[-2:]]))


@st.composite
def _uuid_text(draw: st.DrawFn) -> str:
    text = str(draw(st.sampled_from(UUIDS)))
    return draw(st.sampled_from([text, text.upper()]))


PLACEHOLDERS = st.sampled_from(["$user.id", "$user.providerId", "$user.teamIds"])
STRANGERS = st.sampled_from(["nope", "2026-03-02", 7, 0, 1, 2.5, True, False, ""])
"""Operands of the wrong type for some field: they must never crash and never match wrongly."""

OPERANDS: dict[str, st.SearchStrategy[Any]] = {
    "ref": _uuid_text() | PLACEHOLDERS,
    "name": ROW_VALUES["name"],
    "count": st.integers(-4, 4) | st.sampled_from([2**31 - 1, -(2**31), 2**31, -(2**31) - 1,
                                                    2**40, -(2**63), 2**63, 10**30, 1.5, -0.5,
                                                    2.0, 1e300]),
    "at": _timestamp_text(),
    "flag": st.booleans(),
    "ghost": st.sampled_from(["x", 1]),  # a field the table lacks: absent from every row
}
NAMES = frozenset(OPERANDS)


def _scalar(name: str) -> st.SearchStrategy[Any]:
    return OPERANDS[name] | STRANGERS | PLACEHOLDERS


def _operator(name: str) -> st.SearchStrategy[dict[str, Any]]:
    nullable = st.none() | _scalar(name)
    ordered = _scalar(name).filter(lambda v: not isinstance(v, bool))
    listed = st.lists(nullable, max_size=3)
    if name == "ref":
        listed = listed | st.just("$user.teamIds")
    return st.one_of(
        st.tuples(st.sampled_from(["$eq", "$ne"]), nullable),
        st.tuples(st.sampled_from(["$in", "$nin"]), listed),
        st.tuples(st.sampled_from(["$lt", "$lte", "$gt", "$gte"]), ordered),
        st.tuples(st.just("$exists"), st.booleans()),
    ).map(lambda pair: {pair[0]: pair[1]})


def _operand(name: str) -> st.SearchStrategy[Any]:
    """An implicit equality or an operator object of one or two operators."""
    return (st.none() | _scalar(name)) | st.lists(_operator(name), min_size=1, max_size=2).map(
        lambda ops: {k: v for op in ops for k, v in op.items()}
    )


FIELD_OPERANDS = {name: _operand(name) for name in sorted(NAMES)}  # built once: drawing is hot
FIELD_NAMES = st.lists(st.sampled_from(sorted(NAMES)), max_size=2, unique=True)
LOGICAL_NAMES = st.lists(st.sampled_from(["$and", "$or"]), max_size=2, unique=True)


@st.composite
def _documents(draw: st.DrawFn, inner: st.SearchStrategy[dict[str, Any]] | None
               ) -> dict[str, Any]:
    document = {name: draw(FIELD_OPERANDS[name]) for name in draw(FIELD_NAMES)}
    if inner is not None:
        for logical in draw(LOGICAL_NAMES):
            document[logical] = draw(st.lists(inner, min_size=1, max_size=2))
    return document


documents = _documents(_documents(_documents(None)))
"""A valid condition document, nested at most two levels."""


raw_rules = st.lists(
    st.fixed_dictionaries({
        "action": st.sampled_from(["view", "view", "manage", "edit"]),
        "subject": st.sampled_from(["Thing", "Thing", "all", "Other"]),
        "conditions": st.none() | documents,
        "inverted": st.booleans(),
    }),
    max_size=4,
)
users = st.fixed_dictionaries({
    "id": st.sampled_from(UUIDS).map(str),
    "providerId": st.none() | st.sampled_from(UUIDS).map(str),
    "teamIds": st.lists(st.sampled_from(UUIDS).map(str), max_size=2, unique=True),
})
admins = st.sampled_from([False, False, False, True])

# --- the property ----------------------------------------------------------------------------


def check_agreement(engine: Engine, rules: list[dict[str, Any]], user: dict[str, Any],
                    is_admin: bool, data: list[dict[str, Any]]) -> None:
    """Insert `data`, then compare the SQL filter's rows with `Ability.can` on each row."""
    for rule in rules:
        assert validate(rule["conditions"], fields=NAMES) == [], rule
    ability = Ability(build_rules(rules, user), is_admin=is_admin)
    with engine.connect() as connection:
        transaction = connection.begin()
        try:
            connection.execute(delete(things))
            if data:
                connection.execute(insert(things), [{"pk": i, **row} for i, row in enumerate(data)])
            stored = connection.execute(select(things).order_by(things.c.pk)).mappings().all()
            expected = [row["pk"] for row in stored
                        if ability.can("view", "Thing", {k: row[k] for k in FIELDS})]
            selected = connection.scalars(
                select(things.c.pk)
                .where(sql_filter(ability, "view", "Thing", FIELDS))
                .order_by(things.c.pk)
            ).all()
        finally:
            transaction.rollback()
    assert list(selected) == expected


@pytest.fixture(scope="module")
def sqlite_engine() -> Iterator[Engine]:
    """An in-memory SQLite database with the `things` table."""
    engine = make_engine("sqlite://")
    metadata.create_all(engine)
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
def postgres_engine() -> Iterator[Engine]:
    """A scratch PostgreSQL database with the `things` table, dropped afterwards."""
    if not PG_AVAILABLE:
        pytest.skip("PostgreSQL is not running at 127.0.0.1:5432")
    name = f"sd_authz_{WORKER}_{uuid.uuid4().hex[:8]}"
    _pg_execute(f'CREATE DATABASE "{name}"')
    engine = make_engine(_pg_url(name))
    try:
        metadata.create_all(engine)
        yield engine
    finally:
        engine.dispose()
        _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


FEW = int(os.environ.get("SHIFTDESK_PROPERTY_EXAMPLES", "0")) or None
BOUNDED = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow]}


@settings(max_examples=FEW or 200, **BOUNDED)
@given(rules=raw_rules, user=users, is_admin=admins, data=rows)
def test_sql_filter_selects_exactly_the_allowed_rows_on_sqlite(sqlite_engine, rules, user,
                                                               is_admin, data):
    check_agreement(sqlite_engine, rules, user, is_admin, data)


@pytest.mark.postgres
@settings(max_examples=FEW or 30, **BOUNDED)
@given(rules=raw_rules, user=users, is_admin=admins, data=rows)
def test_sql_filter_selects_exactly_the_allowed_rows_on_postgresql(postgres_engine, rules, user,
                                                                   is_admin, data):
    check_agreement(postgres_engine, rules, user, is_admin, data)


# --- through the API -------------------------------------------------------------------------

def test_list_shifts_shows_a_user_without_provider_no_open_shifts(fresh_api, world):
    # The Provider role's {"provider": "$user.providerId"} must not read as "provider is null"
    # (every open shift of every team) for a user who is not a provider.
    with fresh_api.db.unit_of_work(write=True) as session:
        helper = make_user(session, "helper@example.com", "Hal Helper")
        session.flush()
        helper.rbac_roles = [session.scalars(
            select(m.RbacRole).where(m.RbacRole.name == "Provider")).one()]
    response = fresh_api.get("/v1/shifts", user="helper@example.com",
                             query_string={"pageSize": 200})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["items"] == []
    shift = fresh_api.get(f"/v1/shifts/{world.ids['open_ed']}", user="helper@example.com")
    assert shift.status_code == 403
