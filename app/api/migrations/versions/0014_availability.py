"""Availability: providers' weekly patterns (`availabilities`, dated versions with their rules
as JSON) and dated exceptions (`availability_exceptions`). The permissions' subject CHECK gains
`Availability`.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26 05:10:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0014'
down_revision: str | Sequence[str] | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SUBJECTS = ("'AutoSchedulerJob', 'BalanceReset', 'DemandForecast', 'Provider', 'Report', "
             "'Shift', 'Team', 'Timecard', 'TimeOffRequest', 'TimeOffPolicy', 'Timesheet', "
             "'Appointment', 'AppointmentType', 'AuditEvent', 'Label', 'Permission', 'User', "
             "'WorkRule'")  # as 0012 left them
_JSON = sa.JSON(none_as_null=True).with_variant(
    sa.dialects.postgresql.JSONB(none_as_null=True), 'postgresql')


def _subject_check(subjects: str) -> None:
    with op.batch_alter_table('permissions') as batch:
        batch.drop_constraint(op.f('ck_permissions_subject'), type_='check')
        batch.create_check_constraint(op.f('ck_permissions_subject'), f"subject IN ({subjects})")


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('availabilities',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('effective_from', sa.Date(), nullable=False),
    sa.Column('rules', _JSON, nullable=False),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_availabilities_provider_id_providers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_availabilities'))
    )
    op.create_index(op.f('ix_availabilities_provider_id_effective_from_id'), 'availabilities', ['provider_id', 'effective_from', 'id'], unique=False)
    op.create_table('availability_exceptions',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('start_date', sa.Date(), nullable=False),
    sa.Column('end_date', sa.Date(), nullable=False),
    sa.Column('kind', sa.String(), nullable=False),
    sa.Column('note', sa.String(), nullable=True),
    sa.CheckConstraint("kind IN ('available', 'unavailable')", name=op.f('ck_availability_exceptions_kind')),
    sa.CheckConstraint('end_date >= start_date', name=op.f('ck_availability_exceptions_end_date_not_before_start_date')),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_availability_exceptions_provider_id_providers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_availability_exceptions'))
    )
    op.create_index(op.f('ix_availability_exceptions_provider_id_start_date_id'), 'availability_exceptions', ['provider_id', 'start_date', 'id'], unique=False)
    _subject_check(_SUBJECTS + ", 'Availability'")


def downgrade() -> None:
    """Downgrade schema."""
    op.execute("DELETE FROM permissions WHERE subject = 'Availability'")
    _subject_check(_SUBJECTS)
    op.drop_index(op.f('ix_availability_exceptions_provider_id_start_date_id'), table_name='availability_exceptions')
    op.drop_table('availability_exceptions')
    op.drop_index(op.f('ix_availabilities_provider_id_effective_from_id'), table_name='availabilities')
    op.drop_table('availabilities')
