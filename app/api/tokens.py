"""Signing keys and RS256 access tokens.

`init` makes the private key (kept under `instance/`, never in git); the embedded sign-in
service and `shiftdesk token` sign with it; the API verifies every token against a JWKS — the
local public key by default, or a remote provider's `jwks_url`. Must not know about requests.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.request
import uuid
from pathlib import Path
from typing import Any

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet, RSAKey

ALGORITHM = "RS256"


class TokenInvalid(Exception):
    """The bearer token is missing, malformed, expired, or not ours."""


def generate_signing_key() -> RSAKey:
    """A new RSA private key (2048 bits) with its own `kid`."""
    return RSAKey.generate_key(
        2048, parameters={"kid": uuid.uuid4().hex, "use": "sig", "alg": ALGORITHM}, private=True
    )


def create_signing_key(path: Path) -> RSAKey:
    """Create a new RSA private key at `path` (mode 600) and return it."""
    key = generate_signing_key()
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump(key.as_dict(private=True), handle)
    return key


def load_signing_key(path: Path, *, create: bool = False) -> RSAKey:
    """Read the private key at `path`; with `create`, make one if it does not exist yet."""
    if not path.exists():
        if not create:
            raise FileNotFoundError(f"no signing key at {path}; run `shiftdesk init` first")
        return create_signing_key(path)
    return RSAKey.import_key(json.loads(path.read_text()))


def public_jwks(key: RSAKey) -> dict[str, Any]:
    """The JSON Web Key Set that verifies tokens signed by `key`."""
    return {"keys": [key.as_dict(private=False)]}


def mint_access_token(
    key: RSAKey,
    *,
    subject: str,
    issuer: str,
    audience: str,
    ttl: int,
    now: float | None = None,
    extra: dict[str, Any] | None = None,
) -> str:
    """Sign an access token for `subject` (a user id) valid for `ttl` seconds."""
    issued = int(now if now is not None else time.time())
    claims: dict[str, Any] = {
        "iss": issuer,
        "sub": subject,
        "aud": audience,
        "iat": issued,
        "nbf": issued,
        "exp": issued + ttl,
        "jti": uuid.uuid4().hex,
        "scope": "openid api",
        **(extra or {}),
    }
    header = {"alg": ALGORITHM, "kid": key.kid, "typ": "at+jwt"}
    return jwt.encode(header, claims, key, algorithms=[ALGORITHM])


class Verifier:
    """Checks bearer tokens against a key set: signature, issuer, audience, expiry."""

    def __init__(
        self,
        *,
        issuer: str,
        audience: str,
        keys: KeySet | None = None,
        jwks_url: str | None = None,
        refresh_seconds: int = 300,
    ) -> None:
        if keys is None and jwks_url is None:
            raise ValueError("a Verifier needs keys or a jwks_url")
        self._keys = keys
        self._jwks_url = jwks_url
        self._fetched_at = 0.0
        self._refresh = refresh_seconds
        self._lock = threading.Lock()
        self._issuer = issuer
        self._audience = audience

    def _key_set(self) -> KeySet:
        if self._jwks_url is None:
            assert self._keys is not None
            return self._keys
        with self._lock:
            if self._keys is None or time.time() - self._fetched_at > self._refresh:
                with urllib.request.urlopen(self._jwks_url, timeout=5) as response:
                    self._keys = KeySet.import_key_set(json.load(response))
                self._fetched_at = time.time()
            return self._keys

    def verify(self, token: str, *, now: float | None = None) -> dict[str, Any]:
        """The token's claims when it is valid; `TokenInvalid` otherwise."""
        try:
            decoded = jwt.decode(token, self._key_set(), algorithms=[ALGORITHM])
            jwt.JWTClaimsRegistry(
                now=int(now) if now is not None else None,
                leeway=30,
                iss={"essential": True, "value": self._issuer},
                aud={"essential": True, "value": self._audience},
                exp={"essential": True},
                sub={"essential": True},
            ).validate(decoded.claims)
        except (JoseError, ValueError, KeyError, OSError) as exc:
            raise TokenInvalid(str(exc) or exc.__class__.__name__) from exc
        return dict(decoded.claims)
