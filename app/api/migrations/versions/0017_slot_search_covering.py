"""Slot search reads from indexes alone on PostgreSQL: a window's shifts with their provider and
callout flag, a role's segments with their end, a provider's appointments with their status
(`INCLUDE` columns; SQLite has none, and its indexes stay as they were).

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26 14:10:00

"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0017'
down_revision: str | Sequence[str] | None = '0016'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_INDEXES = [
    # (name, table, columns, included on PostgreSQL)
    ('ix_shifts_start_date_id', 'shifts', ['start_date', 'id'], ['provider_id', 'is_callout']),
    ('ix_shift_segments_slot_roles', 'shift_segments',
     ['role_id', 'start_date', 'type', 'is_break', 'is_on_call', 'shift_id'], ['end_date']),
    ('ix_appointments_provider_id_start_date', 'appointments', ['provider_id', 'start_date'],
     ['status']),
]


def _rebuild(*, include: bool) -> None:
    if op.get_bind().dialect.name != 'postgresql':
        return  # nothing to include: the indexes are unchanged
    for name, table, columns, included in _INDEXES:
        op.drop_index(name, table_name=table)
        op.create_index(name, table, columns, unique=False,
                        postgresql_include=included if include else [])


def upgrade() -> None:
    """Upgrade schema."""
    _rebuild(include=True)


def downgrade() -> None:
    """Downgrade schema."""
    _rebuild(include=False)
