"""Bearer authentication on /v1: which tokens sign a caller in, and the 401 `unauthenticated`
problem with `WWW-Authenticate` for every other one."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey

from app.api import models as m
from app.api.auth import hash_api_token
from app.api.tokens import mint_access_token
from tests.factories import BOT_TOKEN, uid

ERRORS_URL = "https://errors.shiftdesk.test/v1/errors"
ME = "/v1/users/me"


def assert_unauthenticated(response: Any) -> dict[str, Any]:
    """Assert a 401 `unauthenticated` problem with a Bearer challenge; return the body."""
    assert response.status_code == 401, response.get_data(as_text=True)
    assert response.mimetype == "application/problem+json"
    assert response.headers["WWW-Authenticate"].startswith("Bearer ")
    assert 'realm="shiftdesk"' in response.headers["WWW-Authenticate"]
    body = response.get_json()
    assert body["type"] == f"{ERRORS_URL}#unauthenticated"
    assert body["status"] == 401
    assert body["title"] == "Authentication required"
    assert body["instance"] == response.request.path
    assert body["detail"]
    return body


def mint(api: Any, *, subject: str | None = None, key: RSAKey | None = None, **kw: Any) -> str:
    """An access token like the IdP's, with any claim or the key overridden."""
    values: dict[str, Any] = {
        "subject": subject or str(uid("user:provider@example.com")),
        "issuer": api.settings.issuer,
        "audience": api.settings.audience,
        "ttl": 600,
    }
    values.update(kw)
    return mint_access_token(key or api.app.extensions["shiftdesk"].signing_key, **values)


def call(api: Any, authorization: str | None, path: str = ME) -> Any:
    headers = {"Authorization": authorization} if authorization is not None else {}
    return api.get(path, user=None, headers=headers)


def _b64(data: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


# --- accepted ----------------------------------------------------------------------------------

def test_valid_token_signs_the_user_in(api, world):
    response = call(api, f"Bearer {mint(api)}")
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["id"] == str(world.provider)
    assert response.get_json()["type"] == "user"


@pytest.mark.parametrize("scheme", ["bearer", "BEARER", "Bearer"])
def test_valid_token_signs_in_whatever_the_scheme_case(api, scheme):
    assert call(api, f"{scheme} {mint(api)}").status_code == 200


def test_token_within_clock_leeway_signs_in(api):
    token = mint(api, now=time.time() - 610)  # expired 10 s ago; 30 s leeway
    assert call(api, f"Bearer {token}").status_code == 200


def test_bot_token_signs_the_bot_in(api, world):
    response = call(api, f"Bearer {BOT_TOKEN}")
    assert response.status_code == 200, response.get_json()
    me = response.get_json()
    assert me["type"] == "bot"
    assert me["id"] == str(world.bot)
    assert me["providerId"] is None


# --- refused -----------------------------------------------------------------------------------

def test_missing_header_answers_unauthenticated(api):
    body = assert_unauthenticated(call(api, None))
    assert "Bearer" in body["detail"]


def test_missing_header_challenge_has_no_error_code(api):
    assert "error=" not in call(api, None).headers["WWW-Authenticate"]


def test_refused_token_challenge_names_invalid_token(api):
    response = call(api, "Bearer nonsense")
    assert_unauthenticated(response)
    assert 'error="invalid_token"' in response.headers["WWW-Authenticate"]


@pytest.mark.parametrize("authorization", [
    "", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Token abc", "JWT {token}", "{token}",
    "Bearer: {token}", "Bearertoken",
])
def test_wrong_scheme_answers_unauthenticated(api, authorization):
    assert_unauthenticated(call(api, authorization.format(token=mint(api))))


@pytest.mark.parametrize("token", [
    "garbage", "a.b.c", "....", "eyJhbGciOiJSUzI1NiJ9.e30.", "sdk", "sdk-not-a-bot",
    "Bearer", "x" * 5000, "ée",
])
def test_garbage_token_answers_unauthenticated(api, token):
    assert_unauthenticated(call(api, f"Bearer {token}"))


def test_unknown_bot_token_answers_unauthenticated(api):
    assert_unauthenticated(call(api, "Bearer sdk_not_a_known_token"))
    assert_unauthenticated(call(api, f"Bearer {BOT_TOKEN}x"))


def test_expired_token_answers_unauthenticated(api):
    token = mint(api, now=time.time() - 3600)
    assert_unauthenticated(call(api, f"Bearer {token}"))


def test_token_from_the_future_answers_unauthenticated(api):
    token = mint(api, now=time.time() + 3600)
    assert_unauthenticated(call(api, f"Bearer {token}"))


def test_token_signed_by_another_key_answers_unauthenticated(api):
    ours = api.app.extensions["shiftdesk"].signing_key
    same_kid = RSAKey.generate_key(2048, parameters={"kid": ours.kid}, private=True)
    other_kid = RSAKey.generate_key(2048, parameters={"kid": "intruder"}, private=True)
    assert_unauthenticated(call(api, f"Bearer {mint(api, key=same_kid)}"))
    assert_unauthenticated(call(api, f"Bearer {mint(api, key=other_kid)}"))


def test_token_with_tampered_claims_answers_unauthenticated(api, world):
    header, _, signature = mint(api).split(".")
    claims = {"iss": api.settings.issuer, "aud": api.settings.audience,
              "sub": str(world.admin), "exp": int(time.time()) + 600}
    assert_unauthenticated(call(api, f"Bearer {header}.{_b64(claims)}.{signature}"))


def test_unsigned_token_answers_unauthenticated(api, world):
    claims = {"iss": api.settings.issuer, "aud": api.settings.audience,
              "sub": str(world.admin), "exp": int(time.time()) + 600}
    token = f"{_b64({'alg': 'none', 'typ': 'JWT'})}.{_b64(claims)}."
    assert_unauthenticated(call(api, f"Bearer {token}"))


def test_token_signed_with_the_public_key_as_hmac_secret_answers_unauthenticated(api, world):
    public = api.app.extensions["shiftdesk"].signing_key.as_pem(private=False)
    claims = {"iss": api.settings.issuer, "aud": api.settings.audience,
              "sub": str(world.admin), "exp": int(time.time()) + 600}
    signing_input = f"{_b64({'alg': 'HS256', 'typ': 'JWT'})}.{_b64(claims)}"
    mac = hmac.new(public, signing_input.encode(), hashlib.sha256).digest()
    token = f"{signing_input}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"
    assert_unauthenticated(call(api, f"Bearer {token}"))


def test_wrong_audience_answers_unauthenticated(api):
    assert_unauthenticated(call(api, f"Bearer {mint(api, audience='another-api')}"))


def test_wrong_issuer_answers_unauthenticated(api):
    assert_unauthenticated(call(api, f"Bearer {mint(api, issuer='https://evil.example/auth')}"))


@pytest.mark.parametrize("claim", ["sub", "exp", "aud", "iss"])
def test_token_without_essential_claim_answers_unauthenticated(api, claim):
    key = api.app.extensions["shiftdesk"].signing_key
    claims = {"iss": api.settings.issuer, "aud": api.settings.audience,
              "sub": str(uid("user:admin@example.com")), "exp": int(time.time()) + 600}
    del claims[claim]
    token = jwt.encode({"alg": "RS256", "kid": key.kid}, claims, key, algorithms=["RS256"])
    assert_unauthenticated(call(api, f"Bearer {token}"))


@pytest.mark.parametrize("subject", ["admin@example.com", "not-a-uuid", str(uid("user:nobody"))])
def test_token_of_no_known_user_answers_unauthenticated(api, subject):
    assert_unauthenticated(call(api, f"Bearer {mint(api, subject=subject)}"))


def test_dismissed_users_token_answers_unauthenticated(api, world):
    response = call(api, f"Bearer {mint(api, subject=str(world.dismissed))}")
    body = assert_unauthenticated(response)
    assert "no longer" in body["detail"]


def test_every_endpoint_refuses_a_missing_token(api):
    for path in ["/v1/teams", f"/v1/teams/{uuid.uuid4()}", "/v1/users", ME]:
        assert_unauthenticated(call(api, None, path))


def test_expired_bot_token_answers_unauthenticated(fresh_api, world):
    token = "sdk_expired_token_for_tests"
    with fresh_api.db.unit_of_work(write=True) as session:
        session.add(m.ApiToken(user_id=world.bot, name="old", token_hash=hash_api_token(token),
                               expires_at=datetime.now(UTC) - timedelta(minutes=1)))
    assert_unauthenticated(call(fresh_api, f"Bearer {token}"))


def test_bot_token_of_a_dismissed_bot_answers_unauthenticated(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as session:
        session.get(m.User, world.bot).status = "dismissed"
    assert_unauthenticated(call(fresh_api, f"Bearer {BOT_TOKEN}"))
