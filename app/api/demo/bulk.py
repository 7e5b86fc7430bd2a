"""Writing the demo fast at any `--scale`: multi-row INSERTs through the driver, not the ORM.

Must not know what the demo contains.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from operator import itemgetter
from typing import Any

from sqlalchemy import Connection, Table, TypeDecorator, insert

from app.api.db import Base

BATCH = 5000

Row = dict[str, Any]


@contextmanager
def roomy_sqlite_cache(connection: Connection) -> Iterator[None]:
    """On SQLite, give the page cache room for the length of the block; elsewhere do nothing."""
    if connection.dialect.name != "sqlite":
        yield
        return
    # A bigger page cache for this load only: random-uuid keys touch pages all over the
    # indexes, and the default 2 MB cache makes SQLite spill and re-read them.
    cache = connection.exec_driver_sql("PRAGMA cache_size").scalar()
    connection.exec_driver_sql("PRAGMA cache_size=-131072")
    try:
        yield
    finally:
        connection.exec_driver_sql(f"PRAGMA cache_size={int(cache or -2000)}")


def insert_rows(connection: Connection, target: type[Base] | Table, rows: list[Row]) -> None:
    """Write `rows` (dicts with the same keys, every column with a default included) with
    the driver's executemany, in batches.

    Values go through each column type's own bind processor, exactly as SQLAlchemy would
    convert them, but memoised: the statement-level path costs several times more per row,
    which the `--scale` load cannot afford.
    """
    if not rows:
        return
    table: Table = target if isinstance(target, Table) else target.__table__  # type: ignore[assignment]
    keys = list(rows[0])
    dialect = connection.dialect
    compiled = insert(table).compile(dialect=dialect, column_keys=keys)
    names = list(compiled.positiontup or []) if dialect.positional else keys
    if compiled.insert_prefetch or sorted(names) != sorted(keys):
        raise ValueError(f"demo rows for {table.name} miss a column with a default")
    converters = [_converter(table.c[key].type, dialect) for key in names]
    for start in range(0, len(rows), BATCH):
        batch = rows[start:start + BATCH]
        # Column by column with map(): several times cheaper than a loop per value.
        columns = [list(map(convert, map(itemgetter(key), batch))) if convert
                   else list(map(itemgetter(key), batch))
                   for key, convert in zip(names, converters, strict=True)]
        params: list[Any] = (list(zip(*columns, strict=True)) if dialect.positional
                             else [dict(zip(names, values, strict=True))
                                   for values in zip(*columns, strict=True)])
        connection.exec_driver_sql(compiled.string, params)


def _converter(column_type: Any, dialect: Any) -> Callable[[Any], Any] | None:
    """The column's bind processor; memoised for our own types (timestamps repeat a lot)."""
    process = column_type.dialect_impl(dialect).bind_processor(dialect)
    if process is None or not isinstance(column_type, TypeDecorator):
        return process  # type: ignore[no-any-return]

    class Memo(dict[Any, Any]):
        def __missing__(self, value: Any) -> Any:
            self[value] = converted = process(value)
            return converted

    return Memo().__getitem__
