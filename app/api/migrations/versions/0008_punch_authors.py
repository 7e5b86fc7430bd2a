"""Punch authors: who recorded each timecard punch and who last reviewed or corrected it.

Both columns are null for punches recorded before they existed and for generated ones; a deleted
user sets them null rather than deleting the punch.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 17:00:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0008'
down_revision: str | Sequence[str] | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('timecard_punches') as batch:
        batch.add_column(sa.Column('created_by_id', sa.Uuid(), nullable=True))
        batch.add_column(sa.Column('reviewed_by_id', sa.Uuid(), nullable=True))
        batch.create_foreign_key(op.f('fk_timecard_punches_created_by_id_users'), 'users',
                                 ['created_by_id'], ['id'], ondelete='SET NULL')
        batch.create_foreign_key(op.f('fk_timecard_punches_reviewed_by_id_users'), 'users',
                                 ['reviewed_by_id'], ['id'], ondelete='SET NULL')


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('timecard_punches') as batch:
        batch.drop_constraint(op.f('fk_timecard_punches_reviewed_by_id_users'), type_='foreignkey')
        batch.drop_constraint(op.f('fk_timecard_punches_created_by_id_users'), type_='foreignkey')
        batch.drop_column('reviewed_by_id')
        batch.drop_column('created_by_id')
