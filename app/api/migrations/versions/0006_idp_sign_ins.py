"""Sign-ins at the embedded provider held on the server.

`idp_sign_ins` holds each browser's sign-in; the provider's cookie only names one. Signing out
ends it, so a copy of the cookie taken before is worth nothing afterwards, and the codes and
refresh tokens issued under it (`sign_in_id`) are revoked with it.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25 11:30:00.000000

"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0006'
down_revision: str | Sequence[str] | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade schema."""
    op.create_table('idp_sign_ins',
    sa.Column('id', sa.Uuid(), nullable=False),
    sa.Column('user_id', sa.Uuid(), nullable=False),
    sa.Column('auth_time', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('ended_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_idp_sign_ins_user_id_users'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_idp_sign_ins'))
    )
    op.create_index(op.f('ix_idp_sign_ins_expires_at'), 'idp_sign_ins', ['expires_at'], unique=False)
    op.create_index(op.f('ix_idp_sign_ins_user_id'), 'idp_sign_ins', ['user_id'], unique=False)
    with op.batch_alter_table('oauth_authorization_codes') as batch:
        batch.add_column(sa.Column('sign_in_id', sa.Uuid(), nullable=True))
        batch.create_foreign_key(op.f('fk_oauth_authorization_codes_sign_in_id_idp_sign_ins'), 'idp_sign_ins', ['sign_in_id'], ['id'], ondelete='SET NULL')
    with op.batch_alter_table('oauth_refresh_tokens') as batch:
        batch.add_column(sa.Column('sign_in_id', sa.Uuid(), nullable=True))
        batch.create_foreign_key(op.f('fk_oauth_refresh_tokens_sign_in_id_idp_sign_ins'), 'idp_sign_ins', ['sign_in_id'], ['id'], ondelete='SET NULL')
        batch.create_index(op.f('ix_oauth_refresh_tokens_sign_in_id'), ['sign_in_id'], unique=False)


def downgrade() -> None:
    """Downgrade schema."""
    with op.batch_alter_table('oauth_refresh_tokens') as batch:
        batch.drop_index(op.f('ix_oauth_refresh_tokens_sign_in_id'))
        batch.drop_constraint(op.f('fk_oauth_refresh_tokens_sign_in_id_idp_sign_ins'), type_='foreignkey')
        batch.drop_column('sign_in_id')
    with op.batch_alter_table('oauth_authorization_codes') as batch:
        batch.drop_constraint(op.f('fk_oauth_authorization_codes_sign_in_id_idp_sign_ins'), type_='foreignkey')
        batch.drop_column('sign_in_id')
    op.drop_index(op.f('ix_idp_sign_ins_user_id'), table_name='idp_sign_ins')
    op.drop_index(op.f('ix_idp_sign_ins_expires_at'), table_name='idp_sign_ins')
    op.drop_table('idp_sign_ins')
