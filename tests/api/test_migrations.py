"""The migrations build exactly the schema the models declare, on SQLite and on PostgreSQL.

Each test migrates its own fresh database (a temporary SQLite file, or a uniquely named
PostgreSQL database dropped afterwards), so the tests run in any order and in parallel.
"""

from __future__ import annotations

import logging
import re
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import CheckConstraint, Engine, create_engine, inspect, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, configure_mappers

from app.api.db import Base, Database
from app.api.migrate import alembic_config, comparison_options, upgrade
from app.api.models import (
    Appointment,
    AppointmentType,
    Label,
    PayCode,
    Provider,
    ProviderSkill,
    Role,
    Shift,
    ShiftPayCode,
    ShiftSegment,
    Team,
    TimeOffDay,
    TimeOffPolicy,
    TimeOffRequest,
    User,
    provider_roles,
)
from app.api.models.appointments import NO_OVERLAP_CONSTRAINT
from app.api.models.shifts import SEGMENT_CALLOUT, SEGMENT_PROVIDER
from tests.factories import make_provider, make_role, make_shift, make_team

PG_SERVER = "postgresql+psycopg://postgres@127.0.0.1:5432"
T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    """A URL to an empty SQLite file of this test's own."""
    return f"sqlite:///{tmp_path / 'shiftdesk.db'}"


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A URL to an empty PostgreSQL database of this test's own, dropped afterwards."""
    name = f"shiftdesk_migrations_{uuid.uuid4().hex[:12]}"
    try:
        admin = psycopg.connect(
            "host=127.0.0.1 port=5432 user=postgres dbname=postgres",
            autocommit=True,
            connect_timeout=3,
        )
    except psycopg.OperationalError as error:
        pytest.skip(f"PostgreSQL is not reachable at 127.0.0.1:5432 as postgres: {error}")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"{PG_SERVER}/{name}"
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def schema_differences(engine: Engine) -> list[object]:
    """What autogenerate would change to make the database match `Base.metadata`."""
    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts=comparison_options())
        return compare_metadata(context, Base.metadata)


def check_constraints(tables: dict[str, list[tuple[str | None, str]]]) -> dict[str, set[str]]:
    """Each CHECK constraint's name and the quoted literals of its SQL (its allowed values).

    Alembic's autogenerate does not compare CHECK constraints, so this does, loosely enough to
    ignore how each database re-spells the expression (`IN (…)` against `= ANY (ARRAY[…])`).
    """
    return {
        f"{table}.{name}": set(re.findall(r"'([^']*)'", sqltext))
        for table, checks in tables.items()
        for name, sqltext in checks
    }


def table_names(engine: Engine) -> set[str]:
    """The tables the database has."""
    return set(inspect(engine).get_table_names())


def check_upgrade_matches_models(url: str) -> None:
    """Upgrade to head, then compare the schema (CHECK constraints included) with the models."""
    upgrade(url)
    engine = create_engine(url)
    try:
        assert table_names(engine) == set(Base.metadata.tables) | {"alembic_version"}
        assert schema_differences(engine) == []
        inspector = inspect(engine)
        assert check_constraints(
            {
                name: [(c["name"], c["sqltext"]) for c in inspector.get_check_constraints(name)]
                for name in Base.metadata.tables
            }
        ) == check_constraints(
            {
                name: [
                    (c.name, str(c.sqltext))
                    for c in table.constraints
                    if isinstance(c, CheckConstraint)
                ]
                for name, table in Base.metadata.tables.items()
            }
        )
    finally:
        engine.dispose()


def check_downgrade_to_base_empties_database(url: str) -> None:
    """Upgrade to head, downgrade to base: only Alembic's own table is left."""
    upgrade(url)
    command.downgrade(alembic_config(url), "base")
    engine = create_engine(url)
    try:
        assert table_names(engine) == {"alembic_version"}
    finally:
        engine.dispose()
    upgrade(url)  # and the way back up still works


def check_models_round_trip(url: str) -> None:
    """Write and read one object graph through the ORM on a migrated database."""
    upgrade(url)
    database = Database(url)
    try:
        with database.unit_of_work(write=True) as session:
            provider = _provider(session, "Ada@Example.org")
            label = Label(name="Float pool", color="#aabbcc")
            pay_code = PayCode(
                name="Regular", shorthand_name="REG", hex_color="#000000", type="hours", value=1
            )
            shift = Shift(
                provider=provider,
                team=provider.team,
                start_date=T0,
                end_date=T0 + timedelta(hours=8),
                segments=[
                    ShiftSegment(
                        start_date=T0 + timedelta(hours=4), end_date=T0 + timedelta(hours=8)
                    ),
                    ShiftSegment(
                        start_date=T0,
                        end_date=T0 + timedelta(hours=4),
                        labels=[label],
                    ),
                ],
                pay_codes=[ShiftPayCode(pay_code=pay_code)],
            )
            policy = TimeOffPolicy(type="vacation", name="Vacation", members=[provider])
            any_role = AppointmentType(name="Consultation", length=30, allowed_roles=None)
            session.add_all([shift, policy, any_role])
            session.flush()
            session.add(
                TimeOffRequest(
                    policy=policy,
                    provider=provider,
                    start_date=T0,
                    end_date=T0 + timedelta(days=1),
                    daily_hours=[TimeOffDay(date=T0.replace(hour=0), duration=8)],
                )
            )
            shift_id = shift.id

        with database.unit_of_work(write=True) as session:
            shift = session.get_one(Shift, shift_id)
            assert shift.version == 1
            assert [s.start_date for s in shift.segments] == [T0, T0 + timedelta(hours=4)]
            assert shift.segments[0].labels[0].name == "Float pool"
            assert shift.provider is not None
            assert shift.provider.email == "ada@example.org"
            assert shift.provider.user.provider is shift.provider
            assert [(s.skill_name, s.value) for s in shift.provider.skills] == [
                ("language", "en"),
                ("language", "fr"),
            ]
            # Replacing the pay code in one flush is an UPDATE of the same row, not a clash.
            shift.pay_codes = [ShiftPayCode(pay_code=shift.pay_codes[0].pay_code, value=2.5)]
            shift.note = "Bring a badge"

        with database.unit_of_work() as session:
            shift = session.get_one(Shift, shift_id)
            assert shift.version == 2
            assert shift.pay_codes[0].value == 2.5
            assert shift.created_at.tzinfo is UTC
            request = session.scalars(select(TimeOffRequest)).one()
            assert request.status == "pending"
            assert request.daily_hours[0].date == T0.replace(hour=0)
            # None in a JSON column is SQL NULL, so filters on "null means any role" find it.
            assert session.scalars(
                select(AppointmentType.name).where(AppointmentType.allowed_roles.is_(None))
            ).all() == ["Consultation"]
    finally:
        database.dispose()


def _provider(session: Session, email: str) -> Provider:
    """Add a user who is also a provider, on a new team, with two skill values."""
    user = User(name="Ada", email=email)
    team = Team(name="Ward 4")
    session.add_all([user, team])
    session.flush()
    provider = Provider(
        id=user.id,
        name="Ada",
        email=email,
        team=team,
        skills=[
            ProviderSkill(skill_name="language", value="fr"),
            ProviderSkill(skill_name="language", value="en"),
        ],
    )
    session.add(provider)
    session.flush()
    return provider


def _appointment(provider: Provider, start_hours: float, length_hours: float) -> Appointment:
    start = T0 + timedelta(hours=start_hours)
    return Appointment(
        type="Consultation",
        provider=provider,
        start_date=start,
        end_date=start + timedelta(hours=length_hours),
    )


def test_mappers_configure_without_warnings() -> None:
    configure_mappers()


def test_upgrade_leaves_logging_configuration_alone(sqlite_url: str) -> None:
    def logging_state() -> list[tuple[str, int, list[logging.Handler], bool]]:
        names = ["", "alembic", "sqlalchemy", "sqlalchemy.engine"]
        return [
            (name, lg.level, list(lg.handlers), lg.disabled)
            for name in names
            for lg in [logging.getLogger(name)]
        ]

    before = logging_state()
    upgrade(sqlite_url)
    assert logging_state() == before


def test_upgrade_head_matches_models_on_sqlite(sqlite_url: str) -> None:
    check_upgrade_matches_models(sqlite_url)


def test_downgrade_base_drops_everything_on_sqlite(sqlite_url: str) -> None:
    check_downgrade_to_base_empties_database(sqlite_url)


def test_models_round_trip_on_sqlite(sqlite_url: str) -> None:
    check_models_round_trip(sqlite_url)


@pytest.mark.postgres
def test_upgrade_head_matches_models_on_postgres(postgres_url: str) -> None:
    check_upgrade_matches_models(postgres_url)


@pytest.mark.postgres
def test_downgrade_base_drops_everything_on_postgres(postgres_url: str) -> None:
    check_downgrade_to_base_empties_database(postgres_url)


@pytest.mark.postgres
def test_models_round_trip_on_postgres(postgres_url: str) -> None:
    check_models_round_trip(postgres_url)


@pytest.mark.postgres
def test_overlapping_upcoming_appointments_are_refused_on_postgres(postgres_url: str) -> None:
    upgrade(postgres_url)
    database = Database(postgres_url)
    try:
        with database.unit_of_work(write=True) as session:
            provider = _provider(session, "grace@example.org")
            provider_id = provider.id
            session.add_all(
                [
                    _appointment(provider, 0, 1),
                    _appointment(provider, 1, 1),  # back to back: ranges are half-open
                ]
            )
            cancelled = _appointment(provider, 0.5, 1)
            cancelled.status = "cancelled"
            session.add(cancelled)

        def book_overlapping() -> None:
            with database.unit_of_work(write=True) as session:
                provider = session.get_one(Provider, provider_id)
                session.add(_appointment(provider, 0.5, 1))

        with pytest.raises(IntegrityError, match=NO_OVERLAP_CONSTRAINT):
            book_overlapping()
    finally:
        database.dispose()


def check_provider_roles_are_backfilled(url: str) -> None:
    """Migration 0005 grants each provider the roles their shifts work, and no others."""
    upgrade(url, "0004")
    database = Database(url)
    try:
        with database.unit_of_work(write=True) as session:
            team = make_team(session)
            nurse, doctor = make_role(session, team), make_role(session, team, "Physician")
            make_role(session, team, "Unused")
            pat = make_provider(session, "pat@example.org", team)
            dana = make_provider(session, "dana@example.org", team)
            make_provider(session, "idle@example.org", team)
            start = datetime(2026, 3, 2, 12, tzinfo=UTC)
            for day in range(2):  # the same role twice grants it once
                make_shift(session, provider=pat, team=team, role=nurse,
                           start=start + timedelta(days=day))
            make_shift(session, provider=dana, team=team, role=doctor, start=start)
            make_shift(session, provider=None, team=team, role=doctor, start=start)
            expected = {(pat.id, nurse.id), (dana.id, doctor.id)}
        database.dispose()
        upgrade(url)
        database = Database(url)
        with database.unit_of_work() as session:
            rows = session.execute(select(provider_roles.c.provider_id, provider_roles.c.role_id))
            assert set(rows.tuples()) == expected
    finally:
        database.dispose()


def test_provider_roles_are_backfilled_on_sqlite(sqlite_url: str) -> None:
    check_provider_roles_are_backfilled(sqlite_url)


@pytest.mark.postgres
def test_provider_roles_are_backfilled_on_postgres(postgres_url: str) -> None:
    check_provider_roles_are_backfilled(postgres_url)


def check_segments_copy_their_shift(url: str) -> None:
    """Migration 0018 copies each shift's provider and callout flag onto its segments, and the
    database keeps the copies true through every later change, whoever writes it."""
    upgrade(url, "0017")
    database = Database(url)
    try:
        with database.unit_of_work(write=True) as session:
            team = make_team(session)
            nurse = make_role(session, team)
            pat = make_provider(session, "pat@example.org", team)
            dana = make_provider(session, "dana@example.org", team)
            earlier = make_shift(session, provider=pat, team=team, role=nurse, start=T0)
            session.flush()
            team_id, nurse_id, pat_id, dana_id = team.id, nurse.id, pat.id, dana.id
            earlier_id = earlier.id
        database.dispose()
        upgrade(url)
        database = Database(url)

        def copies(session: Session, shift_id: uuid.UUID) -> set[tuple[object, object]]:
            rows = session.execute(select(SEGMENT_PROVIDER, SEGMENT_CALLOUT)
                                   .where(ShiftSegment.shift_id == shift_id))
            return set(rows.tuples())

        with database.unit_of_work(write=True) as session:
            assert copies(session, earlier_id) == {(pat_id, False)}  # the existing, filled in
            shift = make_shift(session, provider=session.get(Provider, dana_id),
                               team=session.get(Team, team_id),
                               role=session.get(Role, nurse_id), start=T0 + timedelta(days=1))
            session.flush()
            assert copies(session, shift.id) == {(dana_id, False)}  # a new shift's segments

            shift.provider_id = None  # left open
            session.flush()
            assert copies(session, shift.id) == {(None, False)}

            shift.provider_id, shift.is_callout = pat_id, True  # given out, then called out
            session.flush()
            assert copies(session, shift.id) == {(pat_id, True)}

            moved = shift.segments[0].id  # a segment moved to another shift
            session.execute(update(ShiftSegment).where(ShiftSegment.id == moved)
                            .values(shift_id=earlier_id))
            assert (pat_id, False) in copies(session, earlier_id)

            # A write of the copies themselves does not stick.
            session.execute(update(ShiftSegment.__table__).values(provider_id=dana_id,
                                                                  is_callout=False))
            assert copies(session, shift.id) == {(pat_id, True)}
            assert copies(session, earlier_id) == {(pat_id, False)}
    finally:
        database.dispose()


def test_segments_copy_their_shift_on_sqlite(sqlite_url: str) -> None:
    check_segments_copy_their_shift(sqlite_url)


@pytest.mark.postgres
def test_segments_copy_their_shift_on_postgres(postgres_url: str) -> None:
    check_segments_copy_their_shift(postgres_url)
