"""Slot search role index: working segments of some roles in a window, from the index alone.

A type limited to some roles needs to know, before it reads the window in order, which
providers have a candidate segment there at all (that bound lets the search stop early). The
former `(role_id, start_date)` index found those segments but had to read each table row for
its type, break and on-call flags and its shift; this one holds them, so the providers are found
from the index and the shifts' keys alone. It replaces the former index, a prefix of it.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22 09:30:00.000000

"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0004'
down_revision: str | Sequence[str] | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_index(
        op.f('ix_shift_segments_slot_roles'),
        'shift_segments',
        ['role_id', 'start_date', 'type', 'is_break', 'is_on_call', 'shift_id'],
        unique=False)
    op.drop_index(op.f('ix_shift_segments_role_id_start_date'), table_name='shift_segments')


def downgrade() -> None:
    """Downgrade schema."""
    op.create_index(op.f('ix_shift_segments_role_id_start_date'), 'shift_segments',
                    ['role_id', 'start_date'], unique=False)
    op.drop_index(op.f('ix_shift_segments_slot_roles'), table_name='shift_segments')
