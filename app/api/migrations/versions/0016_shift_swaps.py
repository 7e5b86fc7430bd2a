"""Shift swaps: listings (`shift_swap_listings`) and applications (`shift_swap_applications`);
teams gain `swaps_need_approval` (true: an accepted swap waits for a manager).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26 07:40:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0016'
down_revision: str | Sequence[str] | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    with op.batch_alter_table('teams') as batch:
        batch.add_column(sa.Column('swaps_need_approval', sa.Boolean(), nullable=False,
                                   server_default=sa.true()))
    op.create_table('shift_swap_listings',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('shift_id', sa.Uuid(), nullable=False),
    sa.Column('shift_version', sa.Integer(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('team_id', sa.Uuid(), nullable=False),
    sa.Column('kind', sa.String(), nullable=False),
    sa.Column('note', sa.String(), nullable=True),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('status', sa.String(), nullable=False),
    sa.Column('accepted_application_id', sa.Uuid(), nullable=True),
    sa.CheckConstraint("kind IN ('swap', 'giveaway')", name=op.f('ck_shift_swap_listings_kind')),
    sa.CheckConstraint("status IN ('open', 'accepted', 'completed', 'withdrawn', 'closed')", name=op.f('ck_shift_swap_listings_status')),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_shift_swap_listings_provider_id_providers')),
    sa.ForeignKeyConstraint(['shift_id'], ['shifts.id'], name=op.f('fk_shift_swap_listings_shift_id_shifts'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['team_id'], ['teams.id'], name=op.f('fk_shift_swap_listings_team_id_teams')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_shift_swap_listings'))
    )
    op.create_index(op.f('ix_shift_swap_listings_team_id_status_expires_at'), 'shift_swap_listings', ['team_id', 'status', 'expires_at'], unique=False)
    op.create_index(op.f('ix_shift_swap_listings_shift_id_status'), 'shift_swap_listings', ['shift_id', 'status'], unique=False)
    op.create_index(op.f('ix_shift_swap_listings_provider_id_created_at'), 'shift_swap_listings', ['provider_id', 'created_at'], unique=False)
    op.create_table('shift_swap_applications',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('listing_id', sa.Uuid(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('offered_shift_id', sa.Uuid(), nullable=True),
    sa.Column('offered_shift_version', sa.Integer(), nullable=True),
    sa.Column('note', sa.String(), nullable=True),
    sa.Column('status', sa.String(), nullable=False),
    sa.Column('decided_by', sa.Uuid(), nullable=True),
    sa.Column('decided_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('rejection_reason', sa.String(), nullable=True),
    sa.CheckConstraint("status IN ('pending', 'accepted', 'approved', 'rejected', 'declined', 'withdrawn', 'closed')", name=op.f('ck_shift_swap_applications_status')),
    sa.ForeignKeyConstraint(['decided_by'], ['users.id'], name=op.f('fk_shift_swap_applications_decided_by_users')),
    sa.ForeignKeyConstraint(['listing_id'], ['shift_swap_listings.id'], name=op.f('fk_shift_swap_applications_listing_id_shift_swap_listings'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['offered_shift_id'], ['shifts.id'], name=op.f('fk_shift_swap_applications_offered_shift_id_shifts'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_shift_swap_applications_provider_id_providers')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_shift_swap_applications'))
    )
    op.create_index(op.f('ix_shift_swap_applications_listing_id_status'), 'shift_swap_applications', ['listing_id', 'status'], unique=False)
    op.create_index(op.f('ix_shift_swap_applications_provider_id_created_at'), 'shift_swap_applications', ['provider_id', 'created_at'], unique=False)
    op.create_index(op.f('ix_shift_swap_applications_offered_shift_id'), 'shift_swap_applications', ['offered_shift_id'], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_table('shift_swap_applications')
    op.drop_table('shift_swap_listings')
    with op.batch_alter_table('teams') as batch:
        batch.drop_column('swaps_need_approval')
