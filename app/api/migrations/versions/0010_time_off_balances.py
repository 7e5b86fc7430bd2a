"""Time-off balances: accrual settings per policy, the append-only ledger (exact amounts as
integer numerator and denominator), the per-(provider, policy) lock rows usage is debited under,
and balance reset uploads.

Revises 0008 here; the lead re-chains it after 0009 on merge.

Revision ID: 0010
Revises: 0008
Create Date: 2026-11-25 18:41:36.109317

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = '0010'
down_revision: str | Sequence[str] | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('time_off_balance_uploads',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('file_hash', sa.String(length=64), nullable=False),
    sa.Column('file_name', sa.String(length=255), nullable=True),
    sa.Column('status', sa.String(), nullable=False),
    sa.Column('row_count', sa.Integer(), nullable=False),
    sa.Column('rows', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_by_id', sa.Uuid(), nullable=True),
    sa.CheckConstraint("status IN ('completed')", name=op.f('ck_time_off_balance_uploads_status')),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'], name=op.f('fk_time_off_balance_uploads_created_by_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_time_off_balance_uploads')),
    sa.UniqueConstraint('file_hash', name=op.f('uq_time_off_balance_uploads_file_hash'))
    )
    with op.batch_alter_table('time_off_balance_uploads', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_time_off_balance_uploads_created_at_id'), ['created_at', 'id'], unique=False)

    op.create_table('time_off_accrual_settings',
    sa.Column('policy_id', sa.Uuid(), nullable=False),
    sa.Column('method', sa.String(), nullable=False),
    sa.Column('rate', sa.String(length=40), nullable=False),
    sa.Column('start_date', sa.Date(), nullable=False),
    sa.Column('period', sa.String(), nullable=False),
    sa.Column('period_anchor', sa.Date(), nullable=True),
    sa.Column('balance_cap', sa.String(length=40), nullable=True),
    sa.Column('annual_accrual_cap', sa.String(length=40), nullable=True),
    sa.Column('annual_use_limit', sa.String(length=40), nullable=True),
    sa.Column('carry_over_max', sa.String(length=40), nullable=True),
    sa.Column('carry_over_month', sa.Integer(), nullable=False),
    sa.Column('carry_over_day', sa.Integer(), nullable=False),
    sa.Column('waiting_period_days', sa.Integer(), nullable=False),
    sa.Column('allow_negative', sa.Boolean(), nullable=False),
    sa.Column('negative_floor', sa.String(length=40), nullable=False),
    sa.Column('debit_on', sa.String(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_by_id', sa.Uuid(), nullable=True),
    sa.CheckConstraint("debit_on IN ('approval', 'leave_date')", name=op.f('ck_time_off_accrual_settings_debit_on')),
    sa.CheckConstraint("method IN ('per_hour_worked', 'per_period', 'up_front')", name=op.f('ck_time_off_accrual_settings_method')),
    sa.CheckConstraint("period IN ('pay_period', 'monthly', 'yearly')", name=op.f('ck_time_off_accrual_settings_period')),
    sa.CheckConstraint('waiting_period_days >= 0', name=op.f('ck_time_off_accrual_settings_waiting_period_not_negative')),
    sa.ForeignKeyConstraint(['policy_id'], ['time_off_policies.id'], name=op.f('fk_time_off_accrual_settings_policy_id_time_off_policies'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['updated_by_id'], ['users.id'], name=op.f('fk_time_off_accrual_settings_updated_by_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('policy_id', name=op.f('pk_time_off_accrual_settings'))
    )
    op.create_table('time_off_balance_locks',
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('policy_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['policy_id'], ['time_off_policies.id'], name=op.f('fk_time_off_balance_locks_policy_id_time_off_policies'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_time_off_balance_locks_provider_id_providers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('provider_id', 'policy_id', name=op.f('pk_time_off_balance_locks'))
    )
    op.create_table('time_off_ledger_entries',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('policy_id', sa.Uuid(), nullable=False),
    sa.Column('kind', sa.String(), nullable=False),
    sa.Column('effective_date', sa.Date(), nullable=False),
    sa.Column('amount_numerator', sa.BigInteger(), nullable=False),
    sa.Column('amount_denominator', sa.BigInteger(), nullable=False),
    sa.Column('target_numerator', sa.BigInteger(), nullable=True),
    sa.Column('target_denominator', sa.BigInteger(), nullable=True),
    sa.Column('request_id', sa.Uuid(), nullable=True),
    sa.Column('upload_id', sa.Uuid(), nullable=True),
    sa.Column('source_key', sa.String(length=200), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_by_id', sa.Uuid(), nullable=True),
    sa.CheckConstraint("kind IN ('accrual', 'usage', 'reversal', 'carry_over', 'forfeit', 'expiry', 'reset', 'adjustment')", name=op.f('ck_time_off_ledger_entries_kind')),
    sa.CheckConstraint('amount_denominator > 0', name=op.f('ck_time_off_ledger_entries_amount_denominator_positive')),
    sa.CheckConstraint('target_denominator IS NULL OR target_denominator > 0', name=op.f('ck_time_off_ledger_entries_target_denominator_positive')),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'], name=op.f('fk_time_off_ledger_entries_created_by_id_users'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['policy_id'], ['time_off_policies.id'], name=op.f('fk_time_off_ledger_entries_policy_id_time_off_policies'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_time_off_ledger_entries_provider_id_providers'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['request_id'], ['time_off_requests.id'], name=op.f('fk_time_off_ledger_entries_request_id_time_off_requests'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['upload_id'], ['time_off_balance_uploads.id'], name=op.f('fk_time_off_ledger_entries_upload_id_time_off_balance_uploads'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_time_off_ledger_entries')),
    sa.UniqueConstraint('source_key', name=op.f('uq_time_off_ledger_entries_source_key'))
    )
    with op.batch_alter_table('time_off_ledger_entries', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_time_off_ledger_entries_policy_id_kind'), ['policy_id', 'kind'], unique=False)
        batch_op.create_index(batch_op.f('ix_time_off_ledger_entries_provider_id_policy_id_effective_date'), ['provider_id', 'policy_id', 'effective_date'], unique=False)
        batch_op.create_index(batch_op.f('ix_time_off_ledger_entries_request_id'), ['request_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_time_off_ledger_entries_upload_id'), ['upload_id'], unique=False)



def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('time_off_ledger_entries', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_time_off_ledger_entries_upload_id'))
        batch_op.drop_index(batch_op.f('ix_time_off_ledger_entries_request_id'))
        batch_op.drop_index(batch_op.f('ix_time_off_ledger_entries_provider_id_policy_id_effective_date'))
        batch_op.drop_index(batch_op.f('ix_time_off_ledger_entries_policy_id_kind'))

    op.drop_table('time_off_ledger_entries')
    op.drop_table('time_off_balance_locks')
    op.drop_table('time_off_accrual_settings')
    with op.batch_alter_table('time_off_balance_uploads', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_time_off_balance_uploads_created_at_id'))

    op.drop_table('time_off_balance_uploads')
