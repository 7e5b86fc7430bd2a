"""Assertions on the problem documents (RFC 9457) the API answers, shared by the API tests."""

from __future__ import annotations

from typing import Any


def problem_of(response: Any, status: int, code: str) -> dict[str, Any]:
    """The problem document of a test client's `response`, once it is shown to be one: the
    `status`, the problem media type, a `type` naming `code`, and a `detail` for the reader."""
    assert response.status_code == status, response.get_json()
    assert response.mimetype == "application/problem+json", response.mimetype
    body: dict[str, Any] = response.get_json()
    assert body["type"].endswith(f"#{code}"), body
    assert body["status"] == status, body
    assert body["detail"], body
    return body
