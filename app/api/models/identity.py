"""What the embedded sign-in service (`app.idp`) remembers: browsers' sign-ins, authorization codes,
refresh tokens and failed sign-in attempts.

They live here rather than in `app.idp` because the one Alembic history under `app.api` builds
every table and must not import the IdP. Codes and refresh tokens are stored only as SHA-256
hashes. Mapped classes only; no queries, no rules, no Flask.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.api.db import Base, UtcDateTime, new_id
from app.api.models.common import utcnow


class IdpSignIn(Base):
    """A person's sign-in at the embedded provider from one browser, held on the server: its
    cookie names it, and signing out ends it (and the refresh tokens issued under it) wherever
    a copy of that cookie went."""

    __tablename__ = "idp_sign_ins"
    __table_args__ = (Index(None, "user_id"), Index(None, "expires_at"))

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    auth_time: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    ended_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class OAuthAuthorizationCode(Base):
    """A one-time authorization code, bound to a client, a redirect URI and a PKCE challenge.

    A used code is kept (with `used_at`) until it expires, so that a replay can revoke every
    refresh token of its `family_id`.
    """

    __tablename__ = "oauth_authorization_codes"
    __table_args__ = (
        UniqueConstraint("code_hash"),
        Index(None, "client_id", "nonce"),
        Index(None, "user_id"),
        Index(None, "expires_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    code_hash: Mapped[str]
    client_id: Mapped[str]
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    redirect_uri: Mapped[str | None]
    scope: Mapped[str]
    nonce: Mapped[str | None]
    code_challenge: Mapped[str]
    code_challenge_method: Mapped[str]
    family_id: Mapped[uuid.UUID] = mapped_column(default=new_id)
    sign_in_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("idp_sign_ins.id", ondelete="SET NULL"))
    auth_time: Mapped[datetime] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    used_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class OAuthRefreshToken(Base):
    """One refresh token of a family (one sign-in); each use rotates it to a new one.

    Presenting a token that was already rotated revokes the whole family (reuse detection).
    """

    __tablename__ = "oauth_refresh_tokens"
    __table_args__ = (
        UniqueConstraint("token_hash"),
        Index(None, "family_id"),
        Index(None, "user_id"),
        Index(None, "expires_at"),
        Index(None, "sign_in_id"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    token_hash: Mapped[str]
    family_id: Mapped[uuid.UUID]
    sign_in_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("idp_sign_ins.id", ondelete="SET NULL"))
    client_id: Mapped[str]
    user_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    scope: Mapped[str]
    auth_time: Mapped[datetime] = mapped_column(UtcDateTime)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    rotated_at: Mapped[datetime | None] = mapped_column(UtcDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime)


class LoginAttempt(Base):
    """A failed (or not yet decided) sign-in attempt, counted for rate limiting and lockout.

    E-mail addresses are stored lower-cased and need not belong to a user.
    """

    __tablename__ = "login_attempts"
    __table_args__ = (
        Index(None, "email", "client_ip", "attempted_at"),
        Index(None, "attempted_at"),
    )

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True, default=new_id)
    email: Mapped[str]
    client_ip: Mapped[str]
    attempted_at: Mapped[datetime] = mapped_column(UtcDateTime, default=utcnow)
