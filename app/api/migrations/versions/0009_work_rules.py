"""Work rules: overtime and rounding rules, work rules with dated versions, each team's rule.

`work_rule_versions` snapshots the overtime and rounding rules a version uses (JSON), so editing
one later never rewrites a period computed under it. `teams.work_rule_id` names a team's rule
(null: every minute is regular, as before). The permissions' subject CHECK gains `WorkRule`.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 18:45:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0009'
down_revision: str | Sequence[str] | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SUBJECTS = ("'AutoSchedulerJob', 'BalanceReset', 'DemandForecast', 'Provider', 'Report', "
             "'Shift', 'Team', 'Timecard', 'TimeOffRequest', 'TimeOffPolicy', 'Timesheet', "
             "'Appointment', 'AppointmentType', 'Label', 'Permission', 'User'")
_JSON = sa.JSON(none_as_null=True).with_variant(
    sa.dialects.postgresql.JSONB(none_as_null=True), 'postgresql')


def _subject_check(subjects: str) -> None:
    with op.batch_alter_table('permissions') as batch:
        batch.drop_constraint(op.f('ck_permissions_subject'), type_='check')
        batch.create_check_constraint(op.f('ck_permissions_subject'), f"subject IN ({subjects})")


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('overtime_rules',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('kind', sa.String(), nullable=False),
    sa.Column('threshold_minutes', sa.Integer(), nullable=False),
    sa.Column('pay_code_id', sa.Uuid(), nullable=False),
    sa.CheckConstraint("kind IN ('daily', 'weekly', 'period', 'seventh_day')", name=op.f('ck_overtime_rules_kind')),
    sa.CheckConstraint('threshold_minutes >= 0', name=op.f('ck_overtime_rules_threshold_minutes_not_negative')),
    sa.ForeignKeyConstraint(['pay_code_id'], ['pay_codes.id'], name=op.f('fk_overtime_rules_pay_code_id_pay_codes')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_overtime_rules'))
    )
    op.create_index(op.f('ix_overtime_rules_name_id'), 'overtime_rules', ['name', 'id'], unique=False)
    op.create_table('rounding_rules',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('interval_minutes', sa.Integer(), nullable=False),
    sa.Column('mode', sa.String(), nullable=False),
    sa.CheckConstraint("mode IN ('nearest', 'down', 'up')", name=op.f('ck_rounding_rules_mode')),
    sa.CheckConstraint('interval_minutes > 0 AND 60 % interval_minutes = 0', name=op.f('ck_rounding_rules_interval_minutes_divides_hour')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rounding_rules'))
    )
    op.create_index(op.f('ix_rounding_rules_name_id'), 'rounding_rules', ['name', 'id'], unique=False)
    op.create_table('work_rules',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_work_rules'))
    )
    op.create_index(op.f('ix_work_rules_name_id'), 'work_rules', ['name', 'id'], unique=False)
    op.create_table('work_rule_versions',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('work_rule_id', sa.Uuid(), nullable=False),
    sa.Column('effective_from', sa.Date(), nullable=False),
    sa.Column('time_zone', sa.String(), nullable=False),
    sa.Column('week_start_day', sa.Integer(), nullable=False),
    sa.Column('week_start_time', sa.String(), nullable=False),
    sa.Column('day_start_time', sa.String(), nullable=False),
    sa.Column('period_anchor', sa.Date(), nullable=True),
    sa.Column('rounding', _JSON, nullable=True),
    sa.Column('overtime', _JSON, nullable=False),
    sa.Column('meal_deduct_minutes', sa.Integer(), nullable=True),
    sa.Column('meal_after_minutes', sa.Integer(), nullable=True),
    sa.Column('min_unpaid_break_minutes', sa.Integer(), nullable=False),
    sa.Column('counting_pay_code_ids', _JSON, nullable=False),
    sa.CheckConstraint('week_start_day BETWEEN 0 AND 6', name=op.f('ck_work_rule_versions_week_start_day_weekday')),
    sa.CheckConstraint('min_unpaid_break_minutes >= 0', name=op.f('ck_work_rule_versions_min_unpaid_break_not_negative')),
    sa.CheckConstraint('(meal_deduct_minutes IS NULL) = (meal_after_minutes IS NULL)', name=op.f('ck_work_rule_versions_meal_both_or_neither')),
    sa.ForeignKeyConstraint(['work_rule_id'], ['work_rules.id'], name=op.f('fk_work_rule_versions_work_rule_id_work_rules'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_work_rule_versions')),
    sa.UniqueConstraint('work_rule_id', 'effective_from', name=op.f('uq_work_rule_versions_work_rule_id_effective_from'))
    )
    with op.batch_alter_table('teams') as batch:
        batch.add_column(sa.Column('work_rule_id', sa.Uuid(), nullable=True,
                                   server_default=sa.text('NULL')))
        batch.create_foreign_key(op.f('fk_teams_work_rule_id_work_rules'), 'work_rules',
                                 ['work_rule_id'], ['id'])
    _subject_check(_SUBJECTS + ", 'WorkRule'")


def downgrade() -> None:
    """Downgrade schema."""
    op.execute("DELETE FROM permissions WHERE subject = 'WorkRule'")
    _subject_check(_SUBJECTS)
    with op.batch_alter_table('teams') as batch:
        batch.drop_constraint(op.f('fk_teams_work_rule_id_work_rules'), type_='foreignkey')
        batch.drop_column('work_rule_id')
    op.drop_table('work_rule_versions')
    op.drop_index(op.f('ix_work_rules_name_id'), table_name='work_rules')
    op.drop_table('work_rules')
    op.drop_index(op.f('ix_rounding_rules_name_id'), table_name='rounding_rules')
    op.drop_table('rounding_rules')
    op.drop_index(op.f('ix_overtime_rules_name_id'), table_name='overtime_rules')
    op.drop_table('overtime_rules')
