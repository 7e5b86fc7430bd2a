"""Roles providers hold, and providers' requests to cancel approved time off.

`provider_roles` says which roles each provider may work: open shifts are offered to, and may be
claimed by, holders of their roles only. Existing providers are given the roles their shifts
already use and their default role, so that nobody loses a role they were working when this
rule arrives.

`time_off_requests.cancellation_requested_at` (and when and why a manager declined the latest
such request) record a provider's wish to cancel approved leave, which a manager decides.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25 10:20:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0005'
down_revision: str | Sequence[str] | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('provider_roles',
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('role_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_provider_roles_provider_id_providers'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['role_id'], ['roles.id'], name=op.f('fk_provider_roles_role_id_roles'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('provider_id', 'role_id', name=op.f('pk_provider_roles'))
    )
    op.create_index(op.f('ix_provider_roles_role_id'), 'provider_roles', ['role_id'], unique=False)
    op.add_column('time_off_requests', sa.Column('cancellation_requested_at', sa.DateTime(timezone=True), nullable=True))
    op.add_column('time_off_requests', sa.Column('cancellation_declined_at', sa.DateTime(timezone=True), nullable=True))
    op.add_column('time_off_requests', sa.Column('cancellation_decline_reason', sa.String(), nullable=True))

    providers = sa.table('providers', sa.column('id', sa.Uuid()),
                         sa.column('default_role_id', sa.Uuid()))
    shifts = sa.table('shifts', sa.column('id', sa.Uuid()), sa.column('provider_id', sa.Uuid()))
    segments = sa.table('shift_segments', sa.column('shift_id', sa.Uuid()),
                        sa.column('role_id', sa.Uuid()), sa.column('is_break', sa.Boolean()))
    held = sa.union(
        sa.select(shifts.c.provider_id, segments.c.role_id)
        .join(segments, segments.c.shift_id == shifts.c.id)
        .where(shifts.c.provider_id.is_not(None), segments.c.role_id.is_not(None),
               segments.c.is_break.is_(sa.false())),
        sa.select(providers.c.id, providers.c.default_role_id)
        .where(providers.c.default_role_id.is_not(None)),
    ).subquery()
    provider_roles = sa.table('provider_roles', sa.column('provider_id', sa.Uuid()),
                              sa.column('role_id', sa.Uuid()))
    op.execute(provider_roles.insert().from_select(
        ['provider_id', 'role_id'], sa.select(held.c[0], held.c[1])))


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_column('time_off_requests', 'cancellation_decline_reason')
    op.drop_column('time_off_requests', 'cancellation_declined_at')
    op.drop_column('time_off_requests', 'cancellation_requested_at')
    op.drop_index(op.f('ix_provider_roles_role_id'), table_name='provider_roles')
    op.drop_table('provider_roles')
