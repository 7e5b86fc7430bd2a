"""Slot search indexes: shift segments and appointments by start (and end).

Slot search reads candidate segments and appointments in start order and stops early; these
indexes let the database walk the window's rows in order (and find those begun before it from
the index alone) instead of sorting every row of the window first. They hold every column the
search filters on, so a segment or an appointment that does not qualify is skipped from the
index alone (and counting each provider's appointments reads only the index).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 06:25:00.000000

"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0003'
down_revision: str | Sequence[str] | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_index(
        op.f('ix_shift_segments_slot_search'),
        'shift_segments',
        ['start_date', 'end_date', 'type', 'is_break', 'is_on_call', 'role_id', 'shift_id'],
        unique=False)
    op.create_index(op.f('ix_appointments_slot_search'),
                    'appointments', ['start_date', 'end_date', 'provider_id', 'status'],
                    unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_index(op.f('ix_appointments_slot_search'),
                  table_name='appointments')
    op.drop_index(
        op.f('ix_shift_segments_slot_search'),
        table_name='shift_segments')
