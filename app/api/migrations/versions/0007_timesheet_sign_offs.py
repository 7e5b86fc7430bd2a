"""Timesheet sign-offs: a manager signs a team's timesheets off for a range of time.

`timesheet_sign_offs` keeps every sign-off, reopened ones too (`reopened_at`, `reopened_by_id`);
`timesheet_sign_off_providers` lists the providers each covers, indexed by provider for the
check every punch and shift write makes.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25 13:39:27.528337

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0007'
down_revision: str | Sequence[str] | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('timesheet_sign_offs',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('team_id', sa.Uuid(), nullable=False),
    sa.Column('start_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('end_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('signed_by_id', sa.Uuid(), nullable=False),
    sa.Column('signed_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('reopened_by_id', sa.Uuid(), nullable=True),
    sa.Column('reopened_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint('end_date > start_date', name=op.f('ck_timesheet_sign_offs_end_date_after_start_date')),
    sa.ForeignKeyConstraint(['reopened_by_id'], ['users.id'], name=op.f('fk_timesheet_sign_offs_reopened_by_id_users')),
    sa.ForeignKeyConstraint(['signed_by_id'], ['users.id'], name=op.f('fk_timesheet_sign_offs_signed_by_id_users')),
    sa.ForeignKeyConstraint(['team_id'], ['teams.id'], name=op.f('fk_timesheet_sign_offs_team_id_teams')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_timesheet_sign_offs'))
    )
    op.create_index(op.f('ix_timesheet_sign_offs_team_id_start_date'), 'timesheet_sign_offs', ['team_id', 'start_date'], unique=False)
    op.create_table('timesheet_sign_off_providers',
    sa.Column('sign_off_id', sa.Uuid(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_timesheet_sign_off_providers_provider_id_providers'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['sign_off_id'], ['timesheet_sign_offs.id'], name=op.f('fk_timesheet_sign_off_providers_sign_off_id_timesheet_sign_offs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('sign_off_id', 'provider_id', name=op.f('pk_timesheet_sign_off_providers'))
    )
    op.create_index(op.f('ix_timesheet_sign_off_providers_provider_id'), 'timesheet_sign_off_providers', ['provider_id'], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_index(op.f('ix_timesheet_sign_off_providers_provider_id'), table_name='timesheet_sign_off_providers')
    op.drop_table('timesheet_sign_off_providers')
    op.drop_index(op.f('ix_timesheet_sign_offs_team_id_start_date'), table_name='timesheet_sign_offs')
    op.drop_table('timesheet_sign_offs')
