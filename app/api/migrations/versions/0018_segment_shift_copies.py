"""Each shift segment carries a copy of its shift's provider and callout flag
(`shift_segments.provider_id`, `shift_segments.is_callout`), kept by the database's own
triggers, so slot search finds a role's providers from the segments' indexes alone instead of
joining every shift of the window (at 2,000 providers, 13,600 shifts to find some 200 people).

Triggers, not the app: a shift's provider changes in many places (edits, claims, swaps, callouts,
imports), and a copy that one of them forgot would book people who do not work. The copies are
set on every insert of a segment and every change of its shift, and follow the shift's own
changes of provider or callout; the ORM neither reads nor writes them.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-27 04:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0018'
down_revision: str | Sequence[str] | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COPY = ("provider_id = (SELECT provider_id FROM shifts WHERE shifts.id = {row}.shift_id), "
         "is_callout = (SELECT is_callout FROM shifts WHERE shifts.id = {row}.shift_id)")

_POSTGRESQL = [
    # A segment written (inserted, or moved to another shift) takes its shift's values; a
    # write of the copies themselves is overruled the same way.
    """CREATE FUNCTION shift_segments_copy_shift() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        SELECT provider_id, is_callout INTO NEW.provider_id, NEW.is_callout
        FROM shifts WHERE shifts.id = NEW.shift_id;
        NEW.is_callout := coalesce(NEW.is_callout, false);
        RETURN NEW;
    END $$""",
    """CREATE TRIGGER tr_shift_segments_copy_shift
    BEFORE INSERT OR UPDATE OF shift_id, provider_id, is_callout ON shift_segments
    FOR EACH ROW EXECUTE FUNCTION shift_segments_copy_shift()""",
    # A shift's new provider or callout flag reaches its segments.
    """CREATE FUNCTION shifts_copy_to_segments() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE shift_segments SET provider_id = NEW.provider_id, is_callout = NEW.is_callout
        WHERE shift_id = NEW.id;
        RETURN NULL;
    END $$""",
    """CREATE TRIGGER tr_shifts_copy_to_segments
    AFTER UPDATE OF provider_id, is_callout ON shifts FOR EACH ROW
    WHEN (OLD.provider_id IS DISTINCT FROM NEW.provider_id
          OR OLD.is_callout IS DISTINCT FROM NEW.is_callout)
    EXECUTE FUNCTION shifts_copy_to_segments()""",
]

# SQLite has no BEFORE trigger that may change the row: the row is set right after. Its
# triggers do not fire themselves again (`recursive_triggers` is off).
_SQLITE = [
    f"""CREATE TRIGGER tr_shift_segments_copy_shift AFTER INSERT ON shift_segments
    BEGIN UPDATE shift_segments SET {_COPY.format(row='NEW')} WHERE id = NEW.id; END""",
    f"""CREATE TRIGGER tr_shift_segments_keep_copy
    AFTER UPDATE OF shift_id, provider_id, is_callout ON shift_segments
    BEGIN UPDATE shift_segments SET {_COPY.format(row='NEW')} WHERE id = NEW.id; END""",
    """CREATE TRIGGER tr_shifts_copy_to_segments AFTER UPDATE OF provider_id, is_callout ON shifts
    WHEN OLD.provider_id IS NOT NEW.provider_id OR OLD.is_callout IS NOT NEW.is_callout
    BEGIN UPDATE shift_segments SET provider_id = NEW.provider_id, is_callout = NEW.is_callout
          WHERE shift_id = NEW.id; END""",
]

_DROP_POSTGRESQL = [
    "DROP TRIGGER tr_shifts_copy_to_segments ON shifts",
    "DROP FUNCTION shifts_copy_to_segments()",
    "DROP TRIGGER tr_shift_segments_copy_shift ON shift_segments",
    "DROP FUNCTION shift_segments_copy_shift()",
]

_DROP_SQLITE = [
    "DROP TRIGGER tr_shifts_copy_to_segments",
    "DROP TRIGGER tr_shift_segments_keep_copy",
    "DROP TRIGGER tr_shift_segments_copy_shift",
]

# (name, columns, columns included on PostgreSQL) before and after.
_OLD_INDEXES = [
    ('ix_shift_segments_slot_roles',
     ['role_id', 'start_date', 'type', 'is_break', 'is_on_call', 'shift_id'], ['end_date']),
    ('ix_shift_segments_slot_search',
     ['start_date', 'end_date', 'type', 'is_break', 'is_on_call', 'role_id', 'shift_id'], []),
]
_NEW_INDEXES = [
    ('ix_shift_segments_slot_roles',
     ['role_id', 'start_date', 'type', 'is_break', 'is_on_call', 'is_callout', 'provider_id'],
     ['end_date']),
    ('ix_shift_segments_slot_search',
     ['start_date', 'end_date', 'type', 'is_break', 'is_on_call', 'is_callout', 'role_id',
      'provider_id'], []),
]


def _indexes(old: list[tuple[str, list[str], list[str]]],
             new: list[tuple[str, list[str], list[str]]]) -> None:
    for name, _columns, _included in old:
        op.drop_index(name, table_name='shift_segments')
    for name, columns, included in new:
        op.create_index(name, 'shift_segments', columns, unique=False,
                        postgresql_include=included)


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('shift_segments') as batch:
        batch.add_column(sa.Column('provider_id', sa.Uuid(), nullable=True))
        batch.add_column(sa.Column('is_callout', sa.Boolean(), nullable=False,
                                   server_default=sa.false()))
    postgresql = op.get_bind().dialect.name == 'postgresql'
    op.execute("UPDATE shift_segments SET provider_id = shifts.provider_id, "
               "is_callout = shifts.is_callout FROM shifts WHERE shifts.id = shift_segments.shift_id")
    for statement in _POSTGRESQL if postgresql else _SQLITE:
        op.execute(statement)
    _indexes(_OLD_INDEXES, _NEW_INDEXES)


def downgrade() -> None:
    """Downgrade schema."""
    _indexes(_NEW_INDEXES, _OLD_INDEXES)
    postgresql = op.get_bind().dialect.name == 'postgresql'
    for statement in _DROP_POSTGRESQL if postgresql else _DROP_SQLITE:
        op.execute(statement)
    with op.batch_alter_table('shift_segments') as batch:
        batch.drop_column('is_callout')
        batch.drop_column('provider_id')
