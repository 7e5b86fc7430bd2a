"""Initial schema: every table of the models at the start of the project.

On PostgreSQL also the `btree_gist` extension and the exclusion constraint
`ex_appointments_no_overlap` (no two upcoming appointments of one provider overlap); SQLite has no
equivalent and the API serialises writers there instead.

Revision ID: 0001
Revises:
Create Date: 2026-11-22 02:23:14.673969

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = '0001'
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('app_settings',
    sa.Column('key', sa.String(), nullable=False),
    sa.Column('value', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('key', name=op.f('pk_app_settings'))
    )
    op.create_table('appointment_types',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('length', sa.Integer(), nullable=False),
    sa.Column('allowed_roles', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=True),
    sa.Column('skill_requirement', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=True),
    sa.Column('archived_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('extra', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.CheckConstraint('length > 0', name=op.f('ck_appointment_types_length_positive')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_appointment_types'))
    )
    op.create_index(op.f('ix_appointment_types_name_id'), 'appointment_types', ['name', 'id'], unique=False)

    op.create_table('employment_types',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('type', sa.String(), nullable=False),
    sa.Column('compensation_time_period', sa.String(), nullable=False),
    sa.Column('amount_worked', sa.String(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("amount_worked IN ('part_time', 'full_time', 'temporary')", name=op.f('ck_employment_types_amount_worked')),
    sa.CheckConstraint("compensation_time_period IN ('hourly', 'salaried')", name=op.f('ck_employment_types_compensation_time_period')),
    sa.CheckConstraint("type IN ('contractor', 'employee')", name=op.f('ck_employment_types_type')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_employment_types'))
    )
    op.create_index(op.f('ix_employment_types_name_id'), 'employment_types', ['name', 'id'], unique=False)

    op.create_table('enrollments',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_enrollments'))
    )
    op.create_index(op.f('ix_enrollments_name'), 'enrollments', ['name'], unique=False)

    op.create_table('labels',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('description', sa.String(), nullable=True),
    sa.Column('color', sa.String(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_labels'))
    )
    op.create_index(op.f('ix_labels_name_id'), 'labels', ['name', 'id'], unique=False)

    op.create_table('pay_codes',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('shorthand_name', sa.String(), nullable=False),
    sa.Column('hex_color', sa.String(), nullable=False),
    sa.Column('type', sa.String(), nullable=False),
    sa.Column('value', sa.Float(), nullable=False),
    sa.CheckConstraint("type IN ('hours', 'days', 'money')", name=op.f('ck_pay_codes_type')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_pay_codes'))
    )
    op.create_index(op.f('ix_pay_codes_name_id'), 'pay_codes', ['name', 'id'], unique=False)

    op.create_table('rbac_roles',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('description', sa.String(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_rbac_roles')),
    sa.UniqueConstraint('name', name=op.f('uq_rbac_roles_name'))
    )
    op.create_table('teams',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('shorthand_name', sa.String(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_teams'))
    )
    op.create_index(op.f('ix_teams_name_id'), 'teams', ['name', 'id'], unique=False)

    op.create_table('users',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('type', sa.String(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('email', sa.String(), nullable=False),
    sa.Column('status', sa.String(), nullable=False),
    sa.Column('is_admin', sa.Boolean(), nullable=False),
    sa.Column('password_hash', sa.String(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("status IN ('onboarding', 'active', 'dismissed', 'unmanaged')", name=op.f('ck_users_status')),
    sa.CheckConstraint("type IN ('user', 'bot')", name=op.f('ck_users_type')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_users')),
    sa.UniqueConstraint('email', name=op.f('uq_users_email'))
    )
    op.create_index(op.f('ix_users_name_id'), 'users', ['name', 'id'], unique=False)

    op.create_table('api_tokens',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('token_hash', sa.String(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_api_tokens_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_api_tokens')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_api_tokens_token_hash'))
    )
    op.create_index(op.f('ix_api_tokens_user_id'), 'api_tokens', ['user_id'], unique=False)

    op.create_table('permissions',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('rbac_role_id', sa.Uuid(), nullable=False),
    sa.Column('action', sa.String(), nullable=False),
    sa.Column('subject', sa.String(), nullable=False),
    sa.Column('conditions', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=True),
    sa.Column('inverted', sa.Boolean(), nullable=False),
    sa.Column('error_message', sa.String(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.CheckConstraint("action IN ('create', 'view', 'edit', 'approve', 'sign_off', 'manage')", name=op.f('ck_permissions_action')),
    sa.CheckConstraint("subject IN ('AutoSchedulerJob', 'BalanceReset', 'DemandForecast', 'Provider', 'Report', 'Shift', 'Team', 'Timecard', 'TimeOffRequest', 'TimeOffPolicy', 'Timesheet', 'Appointment', 'AppointmentType', 'Label', 'Permission', 'User')", name=op.f('ck_permissions_subject')),
    sa.ForeignKeyConstraint(['rbac_role_id'], ['rbac_roles.id'], name=op.f('fk_permissions_rbac_role_id_rbac_roles'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_permissions'))
    )
    op.create_index(op.f('ix_permissions_rbac_role_id_position'), 'permissions', ['rbac_role_id', 'position'], unique=False)

    op.create_table('report_runs',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('report_id', sa.String(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_by_id', sa.Uuid(), nullable=False),
    sa.Column('parameters', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('status', sa.String(), nullable=False),
    sa.Column('file_name', sa.String(), nullable=True),
    sa.Column('file_media_type', sa.String(), nullable=True),
    sa.Column('file_size_bytes', sa.BigInteger(), nullable=True),
    sa.Column('file_content', sa.LargeBinary(), nullable=True),
    sa.Column('error', sa.String(), nullable=True),
    sa.Column('completed_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("status IN ('running', 'completed', 'failed')", name=op.f('ck_report_runs_status')),
    sa.CheckConstraint('file_size_bytes >= 0', name=op.f('ck_report_runs_file_size_bytes_not_negative')),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'], name=op.f('fk_report_runs_created_by_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_report_runs'))
    )
    op.create_index(op.f('ix_report_runs_created_at_id'), 'report_runs', ['created_at', 'id'], unique=False)
    op.create_index(op.f('ix_report_runs_created_by_id_created_at'), 'report_runs', ['created_by_id', 'created_at'], unique=False)

    op.create_table('roles',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('team_id', sa.Uuid(), nullable=False),
    sa.Column('hex_color', sa.String(), nullable=False),
    sa.ForeignKeyConstraint(['team_id'], ['teams.id'], name=op.f('fk_roles_team_id_teams')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_roles'))
    )
    op.create_index(op.f('ix_roles_name_id'), 'roles', ['name', 'id'], unique=False)
    op.create_index(op.f('ix_roles_team_id_name'), 'roles', ['team_id', 'name'], unique=False)

    op.create_table('team_managers',
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('team_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['team_id'], ['teams.id'], name=op.f('fk_team_managers_team_id_teams'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_team_managers_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('user_id', 'team_id', name=op.f('pk_team_managers'))
    )
    op.create_index(op.f('ix_team_managers_team_id'), 'team_managers', ['team_id'], unique=False)

    op.create_table('time_off_policies',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('type', sa.String(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('description', sa.String(), nullable=True),
    sa.Column('accrual_unit', sa.String(), nullable=True),
    sa.Column('pay_code_id', sa.Uuid(), nullable=True),
    sa.Column('properties', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.CheckConstraint("accrual_unit IN ('hours', 'days')", name=op.f('ck_time_off_policies_accrual_unit')),
    sa.CheckConstraint("type IN ('bereavement', 'floating-holiday', 'holiday-pay', 'jury-duty', 'learning-and-development', 'paid-time-off', 'vacation', 'parental-leave', 'personal-day', 'sick', 'volunteer', 'weather', 'wellness', 'flex-day', 'marriage-code', 'unpaid-day', 'absence', 'custom')", name=op.f('ck_time_off_policies_type')),
    sa.ForeignKeyConstraint(['pay_code_id'], ['pay_codes.id'], name=op.f('fk_time_off_policies_pay_code_id_pay_codes')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_time_off_policies'))
    )
    op.create_index(op.f('ix_time_off_policies_name_id'), 'time_off_policies', ['name', 'id'], unique=False)

    op.create_table('user_rbac_roles',
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('rbac_role_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['rbac_role_id'], ['rbac_roles.id'], name=op.f('fk_user_rbac_roles_rbac_role_id_rbac_roles'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_user_rbac_roles_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('user_id', 'rbac_role_id', name=op.f('pk_user_rbac_roles'))
    )
    op.create_index(op.f('ix_user_rbac_roles_rbac_role_id'), 'user_rbac_roles', ['rbac_role_id'], unique=False)

    op.create_table('demand_forecast_rows',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('role_id', sa.Uuid(), nullable=False),
    sa.Column('start_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('end_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('demand', sa.Float(), nullable=False),
    sa.Column('extra', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('uploaded_by_id', sa.Uuid(), nullable=True),
    sa.CheckConstraint('demand >= 0', name=op.f('ck_demand_forecast_rows_demand_not_negative')),
    sa.CheckConstraint('end_date > start_date', name=op.f('ck_demand_forecast_rows_end_date_after_start_date')),
    sa.ForeignKeyConstraint(['role_id'], ['roles.id'], name=op.f('fk_demand_forecast_rows_role_id_roles')),
    sa.ForeignKeyConstraint(['uploaded_by_id'], ['users.id'], name=op.f('fk_demand_forecast_rows_uploaded_by_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_demand_forecast_rows'))
    )
    op.create_index(op.f('ix_demand_forecast_rows_role_id_start_date'), 'demand_forecast_rows', ['role_id', 'start_date'], unique=False)
    op.create_index(op.f('ix_demand_forecast_rows_start_date_id'), 'demand_forecast_rows', ['start_date', 'id'], unique=False)

    op.create_table('providers',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('name', sa.String(), nullable=True),
    sa.Column('email', sa.String(), nullable=False),
    sa.Column('hire_date', sa.DateTime(timezone=True), nullable=True),
    sa.Column('job_title', sa.String(), nullable=True),
    sa.Column('status', sa.String(), nullable=False),
    sa.Column('team_id', sa.Uuid(), nullable=True),
    sa.Column('employment_type_id', sa.Uuid(), nullable=True),
    sa.Column('manager_id', sa.Uuid(), nullable=True),
    sa.Column('default_role_id', sa.Uuid(), nullable=True),
    sa.Column('licensed_regions', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=False),
    sa.Column('pay_period_template', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=True),
    sa.Column('imported_id', sa.String(), nullable=True),
    sa.Column('last_synced_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('personal_info', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=True),
    sa.Column('daily_hours', sa.Float(), nullable=True),
    sa.Column('min_weekly_hours', sa.Float(), nullable=True),
    sa.Column('max_weekly_hours', sa.Float(), nullable=True),
    sa.Column('region', sa.String(), nullable=True),
    sa.Column('national_provider_identifier', sa.String(), nullable=True),
    sa.Column('additional_info', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=True),
    sa.Column('custom_fields', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("status IN ('onboarding', 'active', 'dismissed', 'unmanaged')", name=op.f('ck_providers_status')),
    sa.ForeignKeyConstraint(['default_role_id'], ['roles.id'], name=op.f('fk_providers_default_role_id_roles')),
    sa.ForeignKeyConstraint(['employment_type_id'], ['employment_types.id'], name=op.f('fk_providers_employment_type_id_employment_types')),
    sa.ForeignKeyConstraint(['id'], ['users.id'], name=op.f('fk_providers_id_users')),
    sa.ForeignKeyConstraint(['manager_id'], ['users.id'], name=op.f('fk_providers_manager_id_users')),
    sa.ForeignKeyConstraint(['team_id'], ['teams.id'], name=op.f('fk_providers_team_id_teams')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_providers'))
    )
    op.create_index(op.f('ix_providers_manager_id'), 'providers', ['manager_id'], unique=False)
    op.create_index(op.f('ix_providers_name_id'), 'providers', ['name', 'id'], unique=False)
    op.create_index(op.f('ix_providers_status'), 'providers', ['status'], unique=False)
    op.create_index(op.f('ix_providers_team_id'), 'providers', ['team_id'], unique=False)

    op.create_table('appointments',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('type', sa.String(), nullable=False),
    sa.Column('appointment_type_id', sa.Uuid(), nullable=True),
    sa.Column('status', sa.String(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('member_id', sa.String(), nullable=True),
    sa.Column('start_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('end_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('actual_start_date', sa.DateTime(timezone=True), nullable=True),
    sa.Column('actual_end_date', sa.DateTime(timezone=True), nullable=True),
    sa.Column('location', sa.String(), nullable=True),
    sa.Column('cancellation_date', sa.DateTime(timezone=True), nullable=True),
    sa.Column('cancellation_reason', sa.String(), nullable=True),
    sa.CheckConstraint("status IN ('upcoming', 'occurred', 'cancelled', 'no-show', 're-scheduled')", name=op.f('ck_appointments_status')),
    sa.CheckConstraint('end_date > start_date', name=op.f('ck_appointments_end_date_after_start_date')),
    sa.ForeignKeyConstraint(['appointment_type_id'], ['appointment_types.id'], name=op.f('fk_appointments_appointment_type_id_appointment_types')),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_appointments_provider_id_providers')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_appointments'))
    )
    op.create_index(op.f('ix_appointments_member_id'), 'appointments', ['member_id'], unique=False)
    op.create_index(op.f('ix_appointments_provider_id_start_date'), 'appointments', ['provider_id', 'start_date'], unique=False)
    op.create_index(op.f('ix_appointments_start_date_id'), 'appointments', ['start_date', 'id'], unique=False)
    op.create_index(op.f('ix_appointments_status'), 'appointments', ['status'], unique=False)
    op.create_index(op.f('ix_appointments_type'), 'appointments', ['type'], unique=False)
    if op.get_context().dialect.name == "postgresql":
        # No double booking, enforced under concurrency (docs/architecture.md): half-open ranges, so
        # back-to-back appointments are fine. btree_gist provides `=` on uuid inside GiST.
        op.execute("CREATE EXTENSION IF NOT EXISTS btree_gist")
        op.execute(
            "ALTER TABLE appointments ADD CONSTRAINT ex_appointments_no_overlap "
            "EXCLUDE USING gist (provider_id WITH =, tstzrange(start_date, end_date, '[)') WITH &&) "
            "WHERE (status = 'upcoming')"
        )

    op.create_table('provider_enrollments',
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('enrollment_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['enrollment_id'], ['enrollments.id'], name=op.f('fk_provider_enrollments_enrollment_id_enrollments'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_provider_enrollments_provider_id_providers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('provider_id', 'enrollment_id', name=op.f('pk_provider_enrollments'))
    )
    op.create_index(op.f('ix_provider_enrollments_enrollment_id'), 'provider_enrollments', ['enrollment_id'], unique=False)

    op.create_table('provider_skills',
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('skill_name', sa.String(), nullable=False),
    sa.Column('value', sa.String(), nullable=False),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_provider_skills_provider_id_providers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('provider_id', 'skill_name', 'value', name=op.f('pk_provider_skills'))
    )
    op.create_index(op.f('ix_provider_skills_skill_name_value'), 'provider_skills', ['skill_name', 'value'], unique=False)

    op.create_table('shifts',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=True),
    sa.Column('team_id', sa.Uuid(), nullable=True),
    sa.Column('start_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('end_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('note', sa.String(), nullable=True),
    sa.Column('is_callout', sa.Boolean(), nullable=False),
    sa.Column('work_rule_override', sa.Uuid(), nullable=True),
    sa.Column('claimed_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('minimum_notice_minutes', sa.Integer(), nullable=True),
    sa.CheckConstraint('end_date > start_date', name=op.f('ck_shifts_end_date_after_start_date')),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_shifts_provider_id_providers')),
    sa.ForeignKeyConstraint(['team_id'], ['teams.id'], name=op.f('fk_shifts_team_id_teams')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_shifts'))
    )
    op.create_index(op.f('ix_shifts_provider_id_start_date'), 'shifts', ['provider_id', 'start_date'], unique=False)
    op.create_index(op.f('ix_shifts_start_date_id'), 'shifts', ['start_date', 'id'], unique=False)
    op.create_index(op.f('ix_shifts_team_id_start_date'), 'shifts', ['team_id', 'start_date'], unique=False)

    op.create_table('time_off_policy_members',
    sa.Column('policy_id', sa.Uuid(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['policy_id'], ['time_off_policies.id'], name=op.f('fk_time_off_policy_members_policy_id_time_off_policies'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_time_off_policy_members_provider_id_providers'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('policy_id', 'provider_id', name=op.f('pk_time_off_policy_members'))
    )
    op.create_index(op.f('ix_time_off_policy_members_provider_id'), 'time_off_policy_members', ['provider_id'], unique=False)

    op.create_table('time_off_requests',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('status', sa.String(), nullable=False),
    sa.Column('start_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('end_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('policy_id', sa.Uuid(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('note', sa.String(), nullable=True),
    sa.Column('paid_hours', sa.Float(), nullable=False),
    sa.Column('rejected_by_id', sa.Uuid(), nullable=True),
    sa.Column('rejection_reason', sa.String(), nullable=True),
    sa.Column('sync_error', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=True),
    sa.Column('conflict_resolution', sa.String(), nullable=True),
    sa.Column('is_full_day', sa.Boolean(), nullable=True),
    sa.Column('decided_at', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("conflict_resolution IN ('delete', 'deleteWithOpen', 'callout', 'calloutWithOpen', 'keep', 'keepWithOpen')", name=op.f('ck_time_off_requests_conflict_resolution')),
    sa.CheckConstraint("status IN ('pending', 'approved', 'rejected', 'cancelled', 'pending_sync', 'sync_failed')", name=op.f('ck_time_off_requests_status')),
    sa.CheckConstraint('end_date > start_date', name=op.f('ck_time_off_requests_end_date_after_start_date')),
    sa.ForeignKeyConstraint(['policy_id'], ['time_off_policies.id'], name=op.f('fk_time_off_requests_policy_id_time_off_policies')),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_time_off_requests_provider_id_providers')),
    sa.ForeignKeyConstraint(['rejected_by_id'], ['users.id'], name=op.f('fk_time_off_requests_rejected_by_id_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_time_off_requests'))
    )
    op.create_index(op.f('ix_time_off_requests_policy_id'), 'time_off_requests', ['policy_id'], unique=False)
    op.create_index(op.f('ix_time_off_requests_provider_id_start_date'), 'time_off_requests', ['provider_id', 'start_date'], unique=False)
    op.create_index(op.f('ix_time_off_requests_start_date_id'), 'time_off_requests', ['start_date', 'id'], unique=False)
    op.create_index(op.f('ix_time_off_requests_status'), 'time_off_requests', ['status'], unique=False)

    op.create_table('timecards',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('period_start', sa.DateTime(timezone=True), nullable=False),
    sa.Column('period_end', sa.DateTime(timezone=True), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint('period_end > period_start', name=op.f('ck_timecards_period_end_after_period_start')),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_timecards_provider_id_providers')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_timecards')),
    sa.UniqueConstraint('provider_id', 'period_start', name=op.f('uq_timecards_provider_id_period_start'))
    )
    op.create_table('shift_pay_codes',
    sa.Column('shift_id', sa.Uuid(), nullable=False),
    sa.Column('pay_code_id', sa.Uuid(), nullable=False),
    sa.Column('value', sa.Float(), nullable=True),
    sa.ForeignKeyConstraint(['pay_code_id'], ['pay_codes.id'], name=op.f('fk_shift_pay_codes_pay_code_id_pay_codes')),
    sa.ForeignKeyConstraint(['shift_id'], ['shifts.id'], name=op.f('fk_shift_pay_codes_shift_id_shifts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('shift_id', name=op.f('pk_shift_pay_codes'))
    )
    op.create_index(op.f('ix_shift_pay_codes_pay_code_id'), 'shift_pay_codes', ['pay_code_id'], unique=False)

    op.create_table('shift_segments',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('shift_id', sa.Uuid(), nullable=False),
    sa.Column('imported_id', sa.String(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('role_id', sa.Uuid(), nullable=True),
    sa.Column('role_imported_id', sa.String(), nullable=True),
    sa.Column('additional_info', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=True),
    sa.Column('is_break', sa.Boolean(), nullable=False),
    sa.Column('is_on_call', sa.Boolean(), nullable=False),
    sa.Column('type', sa.String(), nullable=False),
    sa.Column('start_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('end_date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('skill_requirement', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'), nullable=True),
    sa.CheckConstraint("type IN ('working', 'paid_break', 'unpaid_break', 'on_call')", name=op.f('ck_shift_segments_type')),
    sa.CheckConstraint('end_date > start_date', name=op.f('ck_shift_segments_end_date_after_start_date')),
    sa.ForeignKeyConstraint(['role_id'], ['roles.id'], name=op.f('fk_shift_segments_role_id_roles')),
    sa.ForeignKeyConstraint(['shift_id'], ['shifts.id'], name=op.f('fk_shift_segments_shift_id_shifts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_shift_segments'))
    )
    op.create_index(op.f('ix_shift_segments_role_id_start_date'), 'shift_segments', ['role_id', 'start_date'], unique=False)
    op.create_index(op.f('ix_shift_segments_shift_id_start_date'), 'shift_segments', ['shift_id', 'start_date'], unique=False)

    op.create_table('time_off_days',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('request_id', sa.Uuid(), nullable=False),
    sa.Column('date', sa.DateTime(timezone=True), nullable=False),
    sa.Column('duration', sa.Float(), nullable=False),
    sa.ForeignKeyConstraint(['request_id'], ['time_off_requests.id'], name=op.f('fk_time_off_days_request_id_time_off_requests'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_time_off_days'))
    )
    op.create_index(op.f('ix_time_off_days_request_id_date'), 'time_off_days', ['request_id', 'date'], unique=False)

    op.create_table('timecard_punches',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('timecard_id', sa.Uuid(), nullable=False),
    sa.Column('provider_id', sa.Uuid(), nullable=False),
    sa.Column('generated', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('action', sa.String(), nullable=False),
    sa.Column('state', sa.String(), nullable=False),
    sa.Column('time', sa.DateTime(timezone=True), nullable=False),
    sa.Column('provider_note', sa.String(), nullable=True),
    sa.Column('admin_note', sa.String(), nullable=True),
    sa.CheckConstraint("action IN ('clock_in', 'clock_out', 'break_start', 'break_end')", name=op.f('ck_timecard_punches_action')),
    sa.CheckConstraint("state IN ('pending', 'approved', 'rejected')", name=op.f('ck_timecard_punches_state')),
    sa.ForeignKeyConstraint(['provider_id'], ['providers.id'], name=op.f('fk_timecard_punches_provider_id_providers')),
    sa.ForeignKeyConstraint(['timecard_id'], ['timecards.id'], name=op.f('fk_timecard_punches_timecard_id_timecards'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_timecard_punches'))
    )
    op.create_index(op.f('ix_timecard_punches_provider_id_time'), 'timecard_punches', ['provider_id', 'time'], unique=False)
    op.create_index(op.f('ix_timecard_punches_timecard_id_time'), 'timecard_punches', ['timecard_id', 'time'], unique=False)

    op.create_table('segment_labels',
    sa.Column('segment_id', sa.Uuid(), nullable=False),
    sa.Column('label_id', sa.Uuid(), nullable=False),
    sa.ForeignKeyConstraint(['label_id'], ['labels.id'], name=op.f('fk_segment_labels_label_id_labels'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['segment_id'], ['shift_segments.id'], name=op.f('fk_segment_labels_segment_id_shift_segments'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('segment_id', 'label_id', name=op.f('pk_segment_labels'))
    )
    op.create_index(op.f('ix_segment_labels_label_id'), 'segment_labels', ['label_id'], unique=False)



def downgrade() -> None:
    """Downgrade schema.

    Dropping `appointments` drops its exclusion constraint; the `btree_gist` extension stays, as
    other database objects may use it.
    """
    op.drop_table('segment_labels')
    op.drop_table('timecard_punches')
    op.drop_table('time_off_days')
    op.drop_table('shift_segments')
    op.drop_table('shift_pay_codes')
    op.drop_table('timecards')
    op.drop_table('time_off_requests')
    op.drop_table('time_off_policy_members')
    op.drop_table('shifts')
    op.drop_table('provider_skills')
    op.drop_table('provider_enrollments')
    op.drop_table('appointments')
    op.drop_table('providers')
    op.drop_table('demand_forecast_rows')
    op.drop_table('user_rbac_roles')
    op.drop_table('time_off_policies')
    op.drop_table('team_managers')
    op.drop_table('roles')
    op.drop_table('report_runs')
    op.drop_table('permissions')
    op.drop_table('api_tokens')
    op.drop_table('users')
    op.drop_table('teams')
    op.drop_table('rbac_roles')
    op.drop_table('pay_codes')
    op.drop_table('labels')
    op.drop_table('enrollments')
    op.drop_table('employment_types')
    op.drop_table('appointment_types')
    op.drop_table('app_settings')
