"""The UI's reading of a token endpoint answer (`app.web.auth._granted`): an answer without an
access token (a 429 or another problem document from a busy provider) is the provider being
unavailable, shown as such, never a crash of the sign-in callback (a KeyError, a 500)."""

from __future__ import annotations

import pytest

from app.web.auth import _granted


def test_an_answer_with_an_access_token_is_granted() -> None:
    answer = {"access_token": "a", "refresh_token": "r", "expires_in": 300}
    assert _granted(answer) is answer


@pytest.mark.parametrize("answer", [
    {"type": "https://errors.example/v1/errors#rate-limited", "status": 429, "retryAfter": 12},
    {"error": "invalid_grant"},
    {"access_token": ""},
])
def test_an_answer_without_an_access_token_is_refused(answer: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="no access token"):
        _granted(answer)
