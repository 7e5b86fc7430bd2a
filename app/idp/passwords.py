"""Password hashing for sign-in: werkzeug's scrypt, and a check that costs the same whether or not
the account exists.

Must not know about requests, cookies or the database.
"""

from __future__ import annotations

from functools import cache

from werkzeug.security import check_password_hash, generate_password_hash

MAX_PASSWORD_LENGTH = 1024
"""Longer passwords are refused before hashing (hashing cost grows with length)."""


def hash_password(password: str) -> str:
    """Hash `password` for storage in `users.password_hash`."""
    return generate_password_hash(password, method="scrypt")


@cache
def _dummy_hash() -> str:
    return hash_password("not-a-password-of-anyone")


def check_password(stored_hash: str | None, password: str) -> bool:
    """Whether `password` matches `stored_hash`; with no hash, spend the same time and say no."""
    if stored_hash is None:
        check_password_hash(_dummy_hash(), password)
        return False
    try:
        return check_password_hash(stored_hash, password)
    except ValueError:  # a malformed stored hash never signs anyone in
        return False
