"""Discovery, keys and the token flows of the embedded provider: authorization code with PKCE
(S256 only), refresh token rotation with reuse detection, userinfo, and the API accepting what
the provider issues."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from joserfc import jwt
from joserfc.jwk import KeySet

from tests.idp.conftest import CLIENT_ID, PROVIDER, REDIRECT_URI, Idp, query_of

ISSUER = "http://testserver/auth"


def test_discovery_names_endpoints_under_the_issuer(shared_idp: Idp) -> None:
    response = shared_idp.get("/auth/.well-known/openid-configuration")
    assert response.status_code == 200
    meta = response.get_json()
    assert meta["issuer"] == ISSUER
    assert meta["authorization_endpoint"] == f"{ISSUER}/authorize"
    assert meta["token_endpoint"] == f"{ISSUER}/token"
    assert meta["userinfo_endpoint"] == f"{ISSUER}/userinfo"
    assert meta["jwks_uri"] == f"{ISSUER}/jwks"
    assert meta["end_session_endpoint"] == f"{ISSUER}/logout"
    assert meta["response_types_supported"] == ["code"]
    assert meta["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert meta["token_endpoint_auth_methods_supported"] == ["none"]
    assert meta["id_token_signing_alg_values_supported"] == ["RS256"]
    assert "openid" in meta["scopes_supported"]


def test_jwks_verifies_issued_access_and_id_tokens(idp: Idp, world) -> None:
    tokens = idp.tokens(nonce="nonce-42")
    keys = KeySet.import_key_set(idp.get("/auth/jwks").get_json())
    access = jwt.decode(tokens["access_token"], keys, algorithms=["RS256"]).claims
    assert (access["iss"], access["aud"], access["sub"]) == (ISSUER, "shiftdesk-api",
                                                             str(world.provider))
    identity = jwt.decode(tokens["id_token"], keys, algorithms=["RS256"]).claims
    assert identity["iss"] == ISSUER
    assert identity["aud"] == CLIENT_ID
    assert identity["sub"] == str(world.provider)
    assert identity["nonce"] == "nonce-42"
    assert identity["email"] == PROVIDER
    assert identity["name"] == "Pat Provider"
    assert identity["exp"] > identity["iat"]
    assert identity["sid"]


def test_code_flow_access_token_works_on_users_me(idp: Idp, world) -> None:
    tokens = idp.tokens()
    assert tokens["token_type"] == "Bearer"
    assert tokens["expires_in"] == idp.api.settings.access_token_ttl
    assert tokens["refresh_token"]
    response = idp.me(tokens["access_token"])
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["providerId"] == str(world.provider)


def test_code_is_sent_back_with_the_clients_state(idp: Idp) -> None:
    response = idp.sign_in_at(idp.authorize_url(state="keep-me"))
    assert response.status_code == 302
    location = response.headers["Location"]
    assert location.startswith(REDIRECT_URI + "?")
    assert query_of(location)["state"] == "keep-me"


def test_authorize_skips_sign_in_when_idp_session_exists(idp: Idp) -> None:
    idp.code()
    response = idp.get(idp.authorize_url())
    assert response.status_code == 302
    assert "code" in query_of(response.headers["Location"])


def test_authorize_asks_again_when_prompt_is_login(idp: Idp) -> None:
    idp.code()
    response = idp.get(idp.authorize_url(prompt="login"))
    assert response.status_code == 200
    assert 'name="password"' in response.get_data(as_text=True)
    again = idp.code(prompt="login")
    assert idp.exchange(again).status_code == 200


def test_authorize_answers_login_required_when_prompt_none_finds_no_session(
        shared_idp: Idp) -> None:
    response = shared_idp.get(shared_idp.authorize_url(prompt="none"))
    assert response.status_code == 302
    params = query_of(response.headers["Location"])
    assert params["error"] == "login_required"
    assert params["state"] == "state-123"
    assert "code" not in params


@pytest.mark.parametrize("overrides", [
    {"code_challenge_method": "plain"},
    {"code_challenge_method": None},
    {"code_challenge": None, "code_challenge_method": None},
], ids=["plain", "method-missing", "no-pkce"])
def test_authorize_refuses_request_without_s256_challenge(shared_idp: Idp, overrides) -> None:
    response = shared_idp.get(shared_idp.authorize_url(**overrides))
    assert response.status_code == 302
    location = response.headers["Location"]
    assert location.startswith(REDIRECT_URI)
    params = query_of(location)
    assert params["error"] == "invalid_request"
    assert params["state"] == "state-123"
    assert "code" not in params


def test_token_refuses_missing_code_verifier(idp: Idp) -> None:
    response = idp.exchange(idp.code(), code_verifier=None)
    assert response.status_code == 400
    assert response.get_json()["error"] == "invalid_request"
    assert "access_token" not in response.get_json()


def test_token_refuses_verifier_used_as_plain_challenge(idp: Idp) -> None:
    # With "plain" the challenge itself would be the verifier; S256 must not accept that.
    response = idp.exchange(idp.code(), code_verifier=idp.challenge)
    assert response.status_code == 400
    assert response.get_json()["error"] == "invalid_grant"


def test_token_refuses_wrong_code_verifier(idp: Idp) -> None:
    response = idp.exchange(idp.code(), code_verifier="x" * 64)
    assert response.status_code == 400
    assert response.get_json()["error"] == "invalid_grant"


@pytest.mark.parametrize("redirect_uri", [
    "https://evil.example/signin/callback",
    "http://127.0.0.1:5000/elsewhere",
    "http://127.0.0.1:5000/signin/callback?next=https://evil.example",
    "http://127.0.0.1:5000@evil.example/signin/callback",
    "http://localhost.evil.example:5000/signin/callback",
    "https://127.0.0.1:5000/signin/callback",
])
def test_authorize_refuses_unregistered_redirect_uri_without_redirecting(
        shared_idp: Idp, redirect_uri: str) -> None:
    response = shared_idp.get(shared_idp.authorize_url(redirect_uri=redirect_uri))
    assert response.status_code == 400
    assert "Location" not in response.headers
    html = response.get_data(as_text=True)
    assert "<title>Error:" in html
    assert 'role="alert"' in html


@pytest.mark.parametrize("redirect_uri", [
    'http://127.0.0.1:5000/signin/callback"',
    'http://127.0.0.1:5000/signin/callback?a="<b>',
    "http://127.0.0.1:5000/signin/callback\\x",
    "http://127.0.0.1:5000/sign in/callback",
    "http://127.0.0.1:5000/signin/callbäck",
    "javascript:alert(1)",
    "http://[::1",
])
def test_authorize_answers_malformed_redirect_uri_with_an_error_page(
        shared_idp: Idp, redirect_uri: str) -> None:
    for method in ("GET", "POST"):
        if method == "GET":
            response = shared_idp.get(shared_idp.authorize_url(redirect_uri=redirect_uri))
        else:
            response = shared_idp.browser.post(
                "/auth/authorize", data=shared_idp.authorize_params(redirect_uri=redirect_uri))
        assert response.status_code == 400, (method, response.status_code)
        assert "Location" not in response.headers
        assert 'role="alert"' in response.get_data(as_text=True)


def test_authorize_refuses_unknown_client_without_redirecting(shared_idp: Idp) -> None:
    response = shared_idp.get(shared_idp.authorize_url(client_id="someone-else"))
    assert response.status_code == 400
    assert "Location" not in response.headers


def test_authorize_accepts_only_configured_uris_when_loopback_is_off(make_idp: Callable[..., Idp],
                                                                     ) -> None:
    registered = "https://staff.example.org/signin/callback"
    idp = make_idp(oidc_redirect_uris=(registered,), oidc_loopback_redirects=False)
    assert idp.get(idp.authorize_url()).status_code == 400
    response = idp.sign_in_at(idp.authorize_url(redirect_uri=registered))
    assert response.status_code == 302
    assert response.headers["Location"].startswith(registered + "?code=")


def test_token_refuses_redirect_uri_other_than_the_codes(idp: Idp) -> None:
    response = idp.exchange(idp.code(), redirect_uri="http://127.0.0.1:6000/signin/callback")
    assert response.status_code == 400
    assert response.get_json()["error"] == "invalid_grant"


def test_code_second_use_is_refused_and_revokes_its_tokens(idp: Idp) -> None:
    code = idp.code()
    first = idp.exchange(code)
    assert first.status_code == 200
    second = idp.exchange(code)
    assert second.status_code == 400
    assert second.get_json()["error"] == "invalid_grant"
    assert idp.refresh(first.get_json()["refresh_token"]).status_code == 400


def test_refresh_rotates_the_refresh_token(idp: Idp, world) -> None:
    first = idp.tokens()
    response = idp.refresh(first["refresh_token"])
    assert response.status_code == 200, response.get_json()
    second = response.get_json()
    assert second["refresh_token"] != first["refresh_token"]
    assert second["access_token"] != first["access_token"]
    me = idp.me(second["access_token"])
    assert me.status_code == 200
    assert me.get_json()["providerId"] == str(world.provider)
    third = idp.refresh(second["refresh_token"])
    assert third.status_code == 200


def test_refresh_refuses_a_token_already_rotated(idp: Idp) -> None:
    first = idp.tokens()
    assert idp.refresh(first["refresh_token"]).status_code == 200
    again = idp.refresh(first["refresh_token"])
    assert again.status_code == 400
    assert again.get_json()["error"] == "invalid_grant"


def test_refresh_reuse_revokes_the_whole_family(idp: Idp) -> None:
    first = idp.tokens()
    rotated = idp.refresh(first["refresh_token"]).get_json()
    assert idp.refresh(first["refresh_token"]).status_code == 400  # replay by a thief
    refused = idp.refresh(rotated["refresh_token"])  # the newest token dies with it
    assert refused.status_code == 400
    assert refused.get_json()["error"] == "invalid_grant"


def test_refresh_reuse_leaves_other_sign_ins_alone(idp: Idp) -> None:
    mine = idp.tokens()
    other = idp.new_browser().tokens()
    idp.refresh(mine["refresh_token"])
    idp.refresh(mine["refresh_token"])
    assert idp.refresh(other["refresh_token"]).status_code == 200


def test_refresh_refuses_unknown_token(shared_idp: Idp) -> None:
    response = shared_idp.refresh("not-a-token")
    assert response.status_code == 400
    assert response.get_json()["error"] == "invalid_grant"


def test_token_responses_are_not_cached(idp: Idp) -> None:
    response = idp.exchange(idp.code())
    assert response.headers["Cache-Control"] == "no-store"


def test_userinfo_describes_the_tokens_person(idp: Idp, world) -> None:
    tokens = idp.tokens()
    response = idp.api.app.test_client().get(
        "/auth/userinfo", headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert response.status_code == 200
    assert response.get_json() == {"sub": str(world.provider), "email": PROVIDER,
                                   "name": "Pat Provider"}


@pytest.mark.parametrize("header", [None, "Bearer not-a-jwt", "Basic abc"])
def test_userinfo_refuses_missing_or_bad_token(shared_idp: Idp, header: str | None) -> None:
    headers = {"Authorization": header} if header else {}
    response = shared_idp.api.app.test_client().get("/auth/userinfo", headers=headers)
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
