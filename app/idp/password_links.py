"""One-time set-password links: what a link's token is worth, and choosing a password with it.

Links are made by the API (`POST /v1/users/{userId}/password-link`, and for each person a
people import creates) and stored only as SHA-256 hashes in `password_set_tokens`. A link is
good once, until it expires, for a person who may sign in; using it ends every other link of
that person. Must not know about requests, cookies or pages.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import select, update

from app.api.db import Database
from app.api.models import PasswordSetToken, User
from app.idp.accounts import may_sign_in
from app.idp.passwords import MAX_PASSWORD_LENGTH, hash_password

MIN_PASSWORD_LENGTH = 10
"""A new password has at least this many characters."""

Refusal = Literal["unknown", "used", "expired"]


@dataclass(frozen=True)
class Usable:
    """The link is good: whose password it sets."""

    email: str
    name: str


@dataclass(frozen=True)
class Unusable:
    """The link cannot be used, and why."""

    reason: Refusal


def _hash(token: str) -> str:
    # The API stores the same digest (app.api.services.people_import.hash_password_token).
    return hashlib.sha256(token.encode()).hexdigest()


def _check(row: PasswordSetToken | None, user: User | None, now: datetime,
           ) -> Usable | Unusable:
    if row is None or user is None or not may_sign_in(user):
        return Unusable("unknown")
    if row.used_at is not None:
        return Unusable("used")
    if row.expires_at <= now:
        return Unusable("expired")
    return Usable(email=user.email, name=user.name)


def look_up(db: Database, token: str, *, now: datetime) -> Usable | Unusable:
    """What the link of `token` is good for, now."""
    if not token or len(token) > 200:
        return Unusable("unknown")
    with db.unit_of_work() as session:
        row = session.scalar(select(PasswordSetToken)
                             .where(PasswordSetToken.token_hash == _hash(token)))
        user = session.get(User, row.user_id) if row is not None else None
        return _check(row, user, now)


def password_problems(password: str, again: str, email: str) -> dict[str, str]:
    """What is wrong with a new password and its confirmation, by field."""
    errors: dict[str, str] = {}
    if not password:
        errors["password"] = "Enter a new password."
    elif len(password) < MIN_PASSWORD_LENGTH:
        errors["password"] = f"Use at least {MIN_PASSWORD_LENGTH} characters."
    elif len(password) > MAX_PASSWORD_LENGTH:
        errors["password"] = f"Passwords have at most {MAX_PASSWORD_LENGTH} characters."
    elif password.strip().lower() == email.lower():
        errors["password"] = "Choose a password that is not your email address."
    elif password != again:
        errors["password_again"] = "The two passwords are not the same. Type it again."
    return errors


def set_password(db: Database, token: str, password: str, *, now: datetime,
                 ) -> Usable | Unusable:
    """Set the password of the link's person and use the link up, if it is still good."""
    stored = hash_password(password)  # hashed outside the transaction (scrypt is slow)
    with db.unit_of_work(write=True) as session:
        row = session.scalar(select(PasswordSetToken)
                             .where(PasswordSetToken.token_hash == _hash(token))
                             .with_for_update())
        user = session.get(User, row.user_id) if row is not None else None
        result = _check(row, user, now)
        if isinstance(result, Unusable) or user is None:
            return result
        user.password_hash = stored
        session.execute(update(PasswordSetToken)
                        .where(PasswordSetToken.user_id == user.id,
                               PasswordSetToken.used_at.is_(None))
                        .values(used_at=now))
        return result
