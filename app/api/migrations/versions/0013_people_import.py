"""People import: `user_imports` (a person's id in the system they were imported from, unique;
the import upserts on it) and the one-time set-password links (`password_set_tokens`, stored as
SHA-256 hashes).

Self-contained: two new tables, nothing else changed.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 04:30:00

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0013'
down_revision: str | Sequence[str] | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('user_imports',
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('imported_id', sa.String(), nullable=False),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_user_imports_user_id_users'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('user_id', name=op.f('pk_user_imports')),
    sa.UniqueConstraint('imported_id', name=op.f('uq_user_imports_imported_id'))
    )
    op.create_table('password_set_tokens',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('token_hash', sa.String(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_by_id', sa.Uuid(), nullable=True),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'],
                            name=op.f('fk_password_set_tokens_created_by_id_users'),
                            ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'],
                            name=op.f('fk_password_set_tokens_user_id_users'),
                            ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_password_set_tokens')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_password_set_tokens_token_hash'))
    )
    op.create_index(op.f('ix_password_set_tokens_user_id'), 'password_set_tokens', ['user_id'],
                    unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    op.drop_index(op.f('ix_password_set_tokens_user_id'), table_name='password_set_tokens')
    op.drop_table('password_set_tokens')
    op.drop_table('user_imports')
