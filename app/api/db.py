"""The database: engine, declarative base, column types that behave alike on SQLite and PostgreSQL,
and `unit_of_work()`, the one transaction a request runs in.

Must not know about Flask requests or the wire contract.
"""

from __future__ import annotations

import os
import time
import uuid
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Engine, MetaData, TypeDecorator, create_engine, event, exc
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.pool import StaticPool

NAMING = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UtcDateTime(TypeDecorator[datetime]):
    """An instant stored as UTC and always read back timezone-aware.

    SQLite keeps no offset, so naive values are written in UTC and tagged UTC on the way out;
    PostgreSQL uses `timestamptz`. Naive datetimes are refused at bind time: they are a bug.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime bound to a UtcDateTime column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    def result_processor(self, dialect: Any, coltype: Any) -> Any:
        if dialect.name != "sqlite":
            # The sessions' time zone is UTC (`make_engine`): the driver's values are already
            # tagged `UTC` and pass as they are, without a conversion each.
            def passed(value: datetime | None) -> datetime | None:
                if value is None or value.tzinfo is UTC:
                    return value
                return self.process_result_value(value, dialect)

            return passed
        # SQLite hands back the stored UTC text (`YYYY-MM-DD hh:mm:ss.ffffff`): one parse in C
        # with the offset attached costs a third of the generic parse, call and `replace`.
        def process(value: str | None) -> datetime | None:
            return None if value is None else datetime.fromisoformat(value + "+00:00")

        return process


JsonType = JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")
"""JSON documents: JSONB on PostgreSQL, JSON text on SQLite.

Python `None` is stored as SQL NULL (not the JSON text `null`), so `IS NULL` finds a value set to
None exactly as it finds one never set; store a JSON null with `JSON.NULL` if ever needed.
"""


def new_id() -> uuid.UUID:
    """A fresh random identifier."""
    return uuid.uuid4()


class Base(DeclarativeBase):
    """Declarative base of every mapped class."""

    metadata = MetaData(naming_convention=NAMING)


PING_AFTER_IDLE = 5.0
"""Seconds a pooled server connection may rest before its next checkout pings it."""


RANDOM_PAGE_COST = 1.1
"""PostgreSQL's `random_page_cost` for the app's sessions (see `make_engine`)."""


def make_engine(url: str, *, ping_after_idle: float = PING_AFTER_IDLE) -> Engine:
    """Create the engine for `url`, with SQLite set up for concurrent readers and foreign keys.

    A server connection that rested in the pool for `ping_after_idle` seconds or more is pinged
    when it is checked out, and replaced if the server has gone (`_ping_when_idle`).
    """
    if url.startswith("sqlite"):
        memory = url in ("sqlite://", "sqlite:///:memory:")
        engine = create_engine(
            url,
            connect_args={"check_same_thread": False, "timeout": 30},
            poolclass=StaticPool if memory else None,
        )

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            # Our own BEGIN (below) so that SQLite takes the write lock up front: two writers
            # then queue instead of failing with "database is locked" half-way.
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            if not memory:
                cursor.execute("PRAGMA journal_mode=WAL")
                cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(connection: Any) -> None:
            write = connection.get_execution_options().get("shiftdesk_write", False)
            # Straight to the driver: a BEGIN needs no statement machinery, and every request
            # pays for it.
            connection.connection.driver_connection.execute(
                "BEGIN IMMEDIATE" if write else "BEGIN")

        return engine
    engine = create_engine(url, pool_size=10, max_overflow=20)

    @event.listens_for(engine, "connect")
    def _session_settings(dbapi_connection: Any, _record: Any) -> None:
        # Instants then come back tagged `UTC` itself, whatever the server's default zone
        # (e.g. `Etc/UTC`, which the driver tags with a ZoneInfo that needs converting).
        dbapi_connection.execute("SET TIME ZONE 'UTC'")
        # The planner's price of reading a page out of order, for data in memory or on SSD
        # (its default, 4, is for spinning disks). At 4 it reads a whole table rather than look
        # up a few hundred rows by index, so a team's timesheet cost more the bigger the
        # organisation: its shifts' pay codes (80,000 rows at 8,000 providers) were scanned in
        # full, 4 ms of an 11 ms statement, and its segments by a parallel scan of every
        # shift (24 ms; 4.6 ms by index).
        dbapi_connection.execute(f"SET random_page_cost = {RANDOM_PAGE_COST}")
        dbapi_connection.commit()

    _ping_when_idle(engine, ping_after_idle)
    return engine


def _ping_when_idle(engine: Engine, seconds: float) -> None:
    """Ping a pooled connection at checkout only when it has rested `seconds` or more.

    SQLAlchemy's `pool_pre_ping` pings at every checkout: a round trip to the server in every
    request. A connection checked in moments ago is as alive as the server; the ones at risk
    (a restarted server, a dropped idle connection) have rested. A failed ping raises
    `DisconnectionError`, on which the pool discards the connection and checks out another.
    """
    dialect = engine.dialect

    @event.listens_for(engine, "checkin")
    def _rests(_dbapi_connection: Any, record: Any) -> None:
        record.info["rests_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _ping(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        rests_since = record.info.get("rests_since")
        if rests_since is None or time.monotonic() - rests_since < seconds:
            return
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as error:
            raise exc.DisconnectionError(str(error)) from error


def _forget_pool_when_forked(engine: Engine) -> None:
    """A forked child (a gunicorn worker of an app built before the fork) starts with an empty
    pool instead of sharing its parent's connections (whose sockets both would then use); the
    parent's connections stay open for the parent (SQLAlchemy's `dispose(close=False)`)."""
    kept = weakref.ref(engine)

    def _in_child() -> None:
        child_engine = kept()
        if child_engine is not None:
            child_engine.dispose(close=False)

    os.register_at_fork(after_in_child=_in_child)


_READS_ONLY = "shiftdesk_reads_only"
"""`Session.info` key of a unit of work run without a transaction (`unit_of_work`)."""


class ReadOnlyUnitOfWork(RuntimeError):
    """A unit of work run without a transaction tried to write (a bug in the caller)."""


def _refuse_writes(sessions: sessionmaker[Session]) -> None:
    """Sessions of a unit of work run without a transaction refuse to write: each statement
    would commit on its own, so a failure half-way would leave half a change."""

    @event.listens_for(sessions, "before_flush")
    def _no_flush(session: Session, _context: Any, _instances: Any) -> None:
        if session.info.get(_READS_ONLY) and (session.new or session.dirty or session.deleted):
            raise ReadOnlyUnitOfWork("a unit of work without a transaction may not write")

    @event.listens_for(sessions, "do_orm_execute")
    def _no_statement(state: Any) -> None:
        if state.session.info.get(_READS_ONLY) and (state.is_insert or state.is_update
                                                     or state.is_delete):
            raise ReadOnlyUnitOfWork("a unit of work without a transaction may not write")


_NO_TRANSACTION = {"isolation_level": "AUTOCOMMIT"}


class Database:
    """The engine and session factory of one app."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        _refuse_writes(self.sessions)
        _forget_pool_when_forked(self.engine)

    @contextmanager
    def unit_of_work(self, *, write: bool = False, transaction: bool = True,
                     ) -> Iterator[Session]:
        """One transaction: commit once on success, roll back on any exception (a unit of work
        without a transaction, which cannot have written, just closes on success).

        `write=True` asks SQLite for its write lock at BEGIN; PostgreSQL ignores it.

        `transaction=False` (reads only) runs each statement on its own on
        PostgreSQL, without the BEGIN and COMMIT that cost a round trip each: what is read is
        the same, since under PostgreSQL's READ COMMITTED every statement of a transaction
        sees the data as of its own start anyway. Such a unit of work refuses to write
        (`ReadOnlyUnitOfWork`), and cannot stream rows through a server-side cursor, which
        lives in a transaction. SQLite keeps its transaction: there BEGIN and COMMIT cost no
        round trip, and a read transaction gives its statements one snapshot.
        """
        if write and not transaction:
            raise ValueError("a unit of work that writes runs in a transaction")
        session = self.sessions()
        if not transaction:
            session.info[_READS_ONLY] = True
        if self.engine.dialect.name == "sqlite":
            # Execution options reach the connection before its BEGIN (see make_engine).
            session.connection(execution_options={"shiftdesk_write": write})
        elif not transaction:
            session.connection(execution_options=_NO_TRANSACTION)
        try:
            yield session
            if transaction:
                session.commit()  # without one, there is nothing to commit: close() is enough
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def refresh_statistics(self) -> None:
        """After a bulk load, on PostgreSQL: `VACUUM ANALYZE`, so that the planner knows the
        tables' new sizes at once (autovacuum comes round only later; until then it plans for
        empty tables) and index-only scans need not visit the table. SQLite's planner keeps its
        own rules of thumb, which the busy statements are written for."""
        if self.engine.dialect.name != "postgresql":
            return
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.exec_driver_sql("VACUUM ANALYZE")

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()
