"""Audit trail: `audit_events`, one row per record written through `/v1` (who, when, what, and
each changed field before and after), indexed for the trail's filters newest first. The permissions' subject CHECK gains `AuditEvent`
(who may read the trail).

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26 04:30:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

# revision identifiers, used by Alembic.
revision: str = '0012'
down_revision: str | Sequence[str] | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_SUBJECTS = ("'AutoSchedulerJob', 'BalanceReset', 'DemandForecast', 'Provider', 'Report', "
             "'Shift', 'Team', 'Timecard', 'TimeOffRequest', 'TimeOffPolicy', 'Timesheet', "
             "'Appointment', 'AppointmentType', 'Label', 'Permission', 'User', 'WorkRule'")


def _subject_check(subjects: str) -> None:
    with op.batch_alter_table('permissions') as batch:
        batch.drop_constraint(op.f('ck_permissions_subject'), type_='check')
        batch.create_check_constraint(op.f('ck_permissions_subject'), f"subject IN ({subjects})")


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table(
        'audit_events',
        sa.Column('id', sa.Uuid(), nullable=False),
        sa.Column('occurred_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('actor_id', sa.Uuid(), nullable=True),
        sa.Column('actor_name', sa.String(length=200), nullable=True),
        sa.Column('subject', sa.String(length=40), nullable=False),
        sa.Column('record_id', sa.String(length=80), nullable=False),
        sa.Column('action', sa.String(length=10), nullable=False),
        sa.Column('changes', sa.JSON().with_variant(postgresql.JSONB(), 'postgresql'),
                  nullable=False),
        sa.Column('request_id', sa.String(length=100), nullable=True),
        sa.CheckConstraint("action IN ('create', 'edit', 'delete')",
                           name=op.f('ck_audit_events_action')),
        sa.ForeignKeyConstraint(['actor_id'], ['users.id'],
                                name=op.f('fk_audit_events_actor_id_users'), ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_events')),
    )
    op.create_index(op.f('ix_audit_events_occurred_at_id'), 'audit_events',
                    ['occurred_at', 'id'])
    op.create_index(op.f('ix_audit_events_subject_record_id_occurred_at'), 'audit_events',
                    ['subject', 'record_id', 'occurred_at'])
    op.create_index(op.f('ix_audit_events_actor_id_occurred_at'), 'audit_events',
                    ['actor_id', 'occurred_at'])
    _subject_check(_SUBJECTS + ", 'AuditEvent'")


def downgrade() -> None:
    """Downgrade schema."""
    op.execute("DELETE FROM permissions WHERE subject = 'AuditEvent'")
    _subject_check(_SUBJECTS)
    op.drop_index(op.f('ix_audit_events_actor_id_occurred_at'), table_name='audit_events')
    op.drop_index(op.f('ix_audit_events_subject_record_id_occurred_at'), table_name='audit_events')
    op.drop_index(op.f('ix_audit_events_occurred_at_id'), table_name='audit_events')
    op.drop_table('audit_events')
