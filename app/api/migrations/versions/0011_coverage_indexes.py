"""Covering indexes for staffing coverage: a team's shifts by start with who works them, and a
shift's segments with their kind, role and times, so the coverage of a team's fortnight is read
from two indexes without touching either table. They replace the narrower `(team_id,
start_date)` and `(shift_id, start_date)` indexes, which are their prefixes.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26 02:25:00

"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0011'
down_revision: str | Sequence[str] | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_index('ix_shifts_team_coverage', 'shifts',
                    ['team_id', 'start_date', 'is_callout', 'provider_id', 'id'])
    op.drop_index('ix_shifts_team_id_start_date', table_name='shifts')
    op.create_index('ix_shift_segments_shift_coverage', 'shift_segments',
                    ['shift_id', 'start_date', 'end_date', 'type', 'is_break', 'is_on_call',
                     'role_id'])
    op.drop_index('ix_shift_segments_shift_id_start_date', table_name='shift_segments')


def downgrade() -> None:
    """Downgrade schema."""
    op.create_index('ix_shift_segments_shift_id_start_date', 'shift_segments',
                    ['shift_id', 'start_date'])
    op.drop_index('ix_shift_segments_shift_coverage', table_name='shift_segments')
    op.create_index('ix_shifts_team_id_start_date', 'shifts', ['team_id', 'start_date'])
    op.drop_index('ix_shifts_team_coverage', table_name='shifts')
