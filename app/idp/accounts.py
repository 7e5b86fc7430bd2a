"""Who may sign in, and the sign-in attempt itself: lockout check, password check, bookkeeping.

The same people sign in that the API knows (`users`): people, not bots, who are not dismissed
and have a password. Must not know about requests, cookies or pages.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.api.db import Database
from app.api.models import User
from app.config import Settings
from app.idp.passwords import check_password
from app.idp.ratelimit import Lockout, clear_failures, reserve_attempt


@dataclass(frozen=True)
class SignedIn:
    """The e-mail and password were right."""

    user_id: uuid.UUID


@dataclass(frozen=True)
class Refused:
    """The e-mail or the password was wrong (the caller must not say which)."""


SignInResult = SignedIn | Refused | Lockout


def may_sign_in(user: User | None) -> bool:
    """Whether `user` may hold a sign-in session at all."""
    return user is not None and user.type == "user" and user.status != "dismissed"


def active_user(session: Session, user_id: uuid.UUID) -> User | None:
    """The user with `user_id` if they may still sign in, else None."""
    user = session.get(User, user_id)
    return user if may_sign_in(user) else None


def normalize_email(email: str) -> str:
    """The stored form of an e-mail address (users' addresses are stored lower-cased)."""
    return email.strip().lower()


def authenticate(
    db: Database,
    *,
    email: str,
    password: str,
    client_ip: str,
    settings: Settings,
    now: datetime,
) -> SignInResult:
    """Check `password` for `email`, counting failures per (e-mail, client IP)."""
    email = normalize_email(email)
    with db.unit_of_work(write=True) as session:
        lockout = reserve_attempt(
            session, email=email, client_ip=client_ip, max_failures=settings.login_max_failures,
            window=timedelta(seconds=settings.login_window_seconds), now=now,
        )
        if lockout is not None:
            return lockout
        user = session.scalar(select(User).where(User.email == email))
        stored_hash = user.password_hash if may_sign_in(user) else None
        user_id = user.id if user is not None else None
    # Hash outside the transaction: SQLite's write lock is not held for the scrypt work.
    if not check_password(stored_hash, password) or user_id is None:
        return Refused()
    with db.unit_of_work(write=True) as session:
        clear_failures(session, email=email)
    return SignedIn(user_id=user_id)
