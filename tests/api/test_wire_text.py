"""Answers read as wire text (`app.api.wire_text`) say exactly what the contract models say.

The shift and appointment answers are built from columns the database formats, not through
`ShiftRead` / `AppointmentRead`; these tests hold the two together on both backends: the SQL
formatting of ids and instants against `str(uuid)` and `format_timestamp`, and every answer
against its contract model's own serialization (member order, members left out, values).
"""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from sqlalchemy import Uuid, literal, select

from app.api import models as m
from app.api.db import UtcDateTime
from app.api.wire_text import among, wire_id, wire_time
from app.contract.appointments import AppointmentRead
from app.contract.common import format_timestamp
from app.contract.shifts import ShiftRead
from tests.conftest import Api
from tests.factories import uid

_INSTANTS = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30),
                         timezones=st.just(UTC))


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ids=st.lists(st.uuids(), min_size=1, max_size=5),
       instants=st.lists(_INSTANTS, min_size=1, max_size=5))
def test_ids_and_instants_read_as_the_contract_writes_them(
    api: Api, ids: list[uuid.UUID], instants: list[datetime]
) -> None:
    columns: list[Any] = [wire_id(literal(value, Uuid())) for value in ids]
    columns += [wire_time(literal(value, UtcDateTime())) for value in instants]
    with api.db.engine.connect() as connection:
        row = connection.execute(select(*columns)).one()
    assert list(row) == [str(value) for value in ids] + [format_timestamp(v) for v in instants]


def test_nulls_read_as_null(api: Api) -> None:
    with api.db.engine.connect() as connection:
        row = connection.execute(select(wire_id(literal(None, Uuid())),
                                        wire_time(literal(None, UtcDateTime())))).one()
    assert tuple(row) == (None, None)


def test_among_picks_exactly_the_rows_of_the_ids_bound(api: Api) -> None:
    statement = select(m.Shift.id).where(among(m.Shift.id, "ids")).order_by(m.Shift.id)
    with api.db.engine.connect() as connection:
        known = sorted(connection.execute(select(m.Shift.id)).scalars())
        assert len(known) >= 4

        def pick(ids: list[uuid.UUID]) -> list[uuid.UUID]:
            return list(connection.execute(statement, {"ids": ids}).scalars())

        assert pick([]) == []
        assert pick(known[1:3]) == known[1:3]
        assert pick([uuid.uuid4(), known[0], known[0]]) == known[:1]
        # More ids than SQLite's host parameters: still one value bound.
        assert pick([uuid.uuid4() for _ in range(40_000)] + known) == known


def test_among_takes_ids_as_the_text_they_were_read_as(api: Api) -> None:
    """Ids read back as wire text (`wire_id`) are bound as they are, alone or among UUIDs."""
    statement = select(m.Shift.id).where(among(m.Shift.id, "ids")).order_by(m.Shift.id)
    with api.db.engine.connect() as connection:
        known = sorted(connection.execute(select(m.Shift.id)).scalars())
        texts = sorted(connection.execute(select(wire_id(m.Shift.id)).where(
            m.Shift.id.in_(known[:3]))).scalars())
        assert texts == [str(id_) for id_ in known[:3]]

        def pick(ids: list[uuid.UUID | str]) -> list[uuid.UUID]:
            return list(connection.execute(statement, {"ids": ids}).scalars())

        assert pick(texts) == known[:3]
        assert pick({texts[0], known[3]}) == [known[0], known[3]]
        assert pick([str(uuid.uuid4())]) == []


def _as_the_model_writes_it(model: type[BaseModel], item: dict[str, Any]) -> str:
    return model.model_validate(item).model_dump_json(by_alias=True)


def _assert_contract_shape(model: type[BaseModel], items: list[dict[str, Any]]) -> None:
    assert items
    for item in items:
        written = json.dumps(item, separators=(",", ":"), ensure_ascii=False)
        assert written == _as_the_model_writes_it(model, item)


def _decorated_shift(api: Api) -> uuid.UUID:
    """A shift with every optional member filled: labels, a variable pay code, deprecated
    members, a skill requirement, a note and a work rule override."""
    world = api.world
    start = datetime.now(UTC).replace(microsecond=0) + timedelta(days=2)
    shift = m.Shift(
        version=1, provider_id=world.provider, team_id=world.ed, start_date=start,
        end_date=start + timedelta(hours=8), note="Bring the badge", is_callout=False,
        work_rule_override=uuid.uuid4(),
        segments=[m.ShiftSegment(
            role_id=world.ed_nurse_role, type="working", is_break=False, is_on_call=False,
            start_date=start, end_date=start + timedelta(hours=8), imported_id="ext-1",
            role_imported_id="ext-role", additional_info={"ward": "B", "beds": [1, 2]},
            skill_requirement={"type": "equal", "skill": "language", "value": "es"},
        )],
        pay_codes=[m.ShiftPayCode(pay_code_id=uid("pay:ONC"), value=12.5)],
    )
    with api.db.unit_of_work(write=True) as session:
        session.add(shift)
        session.flush()
        shift.segments[0].labels = [session.get(m.Label, uid("label:charge")),
                                    session.get(m.Label, uid("label:float"))]
    return shift.id


def test_shift_answers_are_what_the_contract_writes(fresh_api: Api) -> None:
    shift_id = _decorated_shift(fresh_api)
    for names in ("false", "true"):
        query = {"includeDisplayNames": names, "includeCallouts": "true", "pageSize": 200}
        items = [i for page in fresh_api.walk("/v1/shifts", page_size=200, query_string=query,
                                              user="admin@example.com") for i in page]
        _assert_contract_shape(ShiftRead, items)
        one = fresh_api.get(f"/v1/shifts/{shift_id}", user="admin@example.com",
                            query_string={"includeDisplayNames": names}).get_json()
        _assert_contract_shape(ShiftRead, [one])
        assert one in items
    decorated = one["segments"][0]
    assert decorated["roleImportedId"] == "ext-role"
    assert decorated["additionalInfo"] == {"ward": "B", "beds": [1, 2]}
    assert [len(decorated["labels"]), one["payCodes"]] == [
        2, [{"payCodeId": str(uid("pay:ONC")), "value": 12.5}]]


def test_appointment_answers_are_what_the_contract_writes(api: Api) -> None:
    items = [i for page in api.walk("/v1/appointments", page_size=200, user="admin@example.com")
             for i in page]
    assert {"cancelled", "upcoming"} <= {i["status"] for i in items}
    _assert_contract_shape(AppointmentRead, items)
    for item in items[:5]:
        one = api.get(f"/v1/appointments/{item['id']}", user="admin@example.com")
        assert one.get_json() == item


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(instants=st.lists(_INSTANTS, min_size=1, max_size=5))
def test_instants_read_back_as_the_aware_utc_values_written(
    api: Api, instants: list[datetime]
) -> None:
    """`UtcDateTime` reads SQLite's stored text with its own parser: the same instant, in UTC."""
    with api.db.engine.connect() as connection:
        row = connection.execute(select(*(literal(v, UtcDateTime()) for v in instants))).one()
    assert list(row) == instants
    assert all(value.tzinfo == UTC for value in row)
