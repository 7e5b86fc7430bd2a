"""Alembic environment: migrate the database named by the configuration to `Base.metadata`.

Configured from code by `app.api.migrate.alembic_config`; there is no ini file. Must not
configure logging (no `fileConfig`): the application owns it. A caller may pass an open
connection as `config.attributes["connection"]` (needed for in-memory SQLite).
"""

from __future__ import annotations

from typing import Any

from alembic import context
from sqlalchemy import Connection, Engine, create_engine, event, pool

import app.api.models  # noqa: F401  (registers every table on Base.metadata)
from app.api.db import Base
from app.api.migrate import comparison_options

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    url = config.attributes.get("url") or config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database URL: build the config with app.api.migrate.alembic_config")
    return url


def _engine(url: str) -> Engine:
    if not url.startswith("sqlite"):
        return create_engine(url, poolclass=pool.NullPool)
    engine = create_engine(url, poolclass=pool.NullPool)

    # pysqlite commits before every DDL statement on its own; take transaction control from it
    # so that a migration either applies entirely or not at all (SQLAlchemy's SQLite docs,
    # "Serializable isolation / Savepoints / Transactional DDL"). Foreign keys stay off here,
    # as batch migrations that recreate tables need.
    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql("BEGIN")

    return engine


def _run(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=sqlite,
        # True for SQLite too, thanks to the BEGIN above.
        transactional_ddl=True,
        **comparison_options(),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_offline() -> None:
    """Emit the migrations as SQL for the configured URL, without a database."""
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        **comparison_options(),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Apply the migrations over the given connection, or over a fresh one to the URL."""
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = _engine(_url())
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
