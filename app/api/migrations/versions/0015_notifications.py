"""Notifications: `notifications`, one row per recipient and record, with the indexes of a
user's newest-first list and of their unread count.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26 07:30:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0015'
down_revision: str | Sequence[str] | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_KINDS = ("'time-off-approved', 'time-off-rejected', 'punch-rejected', 'shift-assigned', "
          "'shift-changed', 'shift-unassigned', 'shift-deleted', 'open-shift-posted', "
          "'swap-applied', 'swap-accepted', 'swap-approved', 'swap-rejected'")
_SUBJECTS = "'TimeOffRequest', 'Punch', 'Shift', 'ShiftSwapListing', 'ShiftSwapApplication'"


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('notifications',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('kind', sa.String(), nullable=False),
    sa.Column('title', sa.String(), nullable=False),
    sa.Column('body', sa.String(), nullable=False),
    sa.Column('subject', sa.String(), nullable=False),
    sa.Column('record_id', sa.Uuid(), nullable=False),
    sa.Column('record_time', sa.DateTime(timezone=True), nullable=True),
    sa.Column('read_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('emailed_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint(f"kind IN ({_KINDS})", name=op.f('ck_notifications_kind')),
    sa.CheckConstraint(f"subject IN ({_SUBJECTS})", name=op.f('ck_notifications_subject')),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_notifications_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_notifications'))
    )
    op.create_index(op.f('ix_notifications_user_id_created_at_id'), 'notifications', ['user_id', 'created_at', 'id'], unique=False)
    op.create_index(op.f('ix_notifications_user_id_read_at'), 'notifications', ['user_id', 'read_at'], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_index(op.f('ix_notifications_user_id_read_at'), table_name='notifications')
    op.drop_index(op.f('ix_notifications_user_id_created_at_id'), table_name='notifications')
    op.drop_table('notifications')
