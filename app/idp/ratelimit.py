"""Rate limiting and lockout of sign-in: failed attempts counted per (e-mail, client IP) in the
`login_attempts` table over a sliding window.

An attempt is *reserved* (recorded as a failure) before the password is checked and cleared on
success, so parallel guesses cannot slip past the limit; on PostgreSQL a transaction-scoped
advisory lock per (e-mail, IP) serialises the count and the insert (SQLite's write lock already
does). Must not know about requests or pages.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.api.models import LoginAttempt


@dataclass(frozen=True)
class Lockout:
    """Sign-in is refused for this (e-mail, IP) until `retry_at`."""

    retry_at: datetime


def _lock(session: Session, email: str, client_ip: str) -> None:
    if session.get_bind().dialect.name != "postgresql":
        return
    digest = hashlib.sha256(f"login:{email}\0{client_ip}".encode()).digest()
    session.execute(select(func.pg_advisory_xact_lock(int.from_bytes(digest[:8], "big",
                                                                      signed=True))))


def reserve_attempt(
    session: Session,
    *,
    email: str,
    client_ip: str,
    max_failures: int,
    window: timedelta,
    now: datetime,
) -> Lockout | None:
    """Record one attempt as failed unless the limit is reached; then return the `Lockout`."""
    _lock(session, email, client_ip)
    cutoff = now - window
    session.execute(delete(LoginAttempt).where(LoginAttempt.attempted_at <= cutoff))
    recent = session.scalars(
        select(LoginAttempt.attempted_at)
        .where(LoginAttempt.email == email, LoginAttempt.client_ip == client_ip,
               LoginAttempt.attempted_at > cutoff)
        .order_by(LoginAttempt.attempted_at.desc())
        .limit(max_failures)
    ).all()
    if len(recent) >= max_failures:
        # Free again once the oldest of the last `max_failures` failures leaves the window.
        return Lockout(retry_at=recent[-1] + window)
    session.add(LoginAttempt(email=email, client_ip=client_ip, attempted_at=now))
    return None


def clear_failures(session: Session, *, email: str) -> None:
    """Forget every failed attempt on `email` (after a successful sign-in)."""
    session.execute(delete(LoginAttempt).where(LoginAttempt.email == email))
