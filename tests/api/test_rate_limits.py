"""Rate limits on `/v1` writes: past the limit a write answers 429 `rate-limited` with
`Retry-After` (and `retryAfter`); reads are never limited; each bearer token counts apart; with
the counters' Redis unreachable, requests carry on (fail open), never a 500.

Sign-in and token requests: tests/idp/test_idp_rate_limits.py.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from redis import Redis
from redis.exceptions import RedisError

from app import create_app
from tests.conftest import Api, make_settings

LABELS = "/v1/settings/labels"
REDIS_URL = "redis://127.0.0.1:6379/0"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def limited(fresh_api: Api, signing_key_path: Path, tmp_path: Path,
            ) -> Iterator[Callable[..., Api]]:
    """Apps on the test's own database with rate limits on (settings overridable)."""
    built: list[Api] = []

    def build(**overrides: Any) -> Api:
        settings = make_settings(fresh_api.settings.database_url, signing_key_path,
                                 rate_limits=True, session_dir=tmp_path / f"s{len(built)}",
                                 **overrides)
        api = Api(create_app(settings), fresh_api.world, fresh_api.backend)
        built.append(api)
        return api

    yield build
    for api in built:
        api.app.extensions["shiftdesk"].jobs.close()
        api.db.dispose()


def _label(api: Api, name: str, user: str = "admin@example.com") -> Any:
    return api.post(LABELS, json={"name": name}, user=user)


def test_write_past_the_limit_is_a_429_problem_with_retry_after(
        limited: Callable[..., Api]) -> None:
    api = limited(rate_limit_writes="2/minute")
    assert _label(api, "One").status_code == 201
    assert _label(api, "Two").status_code == 201
    refused = _label(api, "Three")
    assert refused.status_code == 429
    assert refused.mimetype == "application/problem+json"
    body = refused.get_json()
    assert body["type"].endswith("#rate-limited")
    assert body["status"] == 429
    assert 0 < body["retryAfter"] <= 60
    assert refused.headers["Retry-After"] == str(body["retryAfter"])
    assert "try again in" in body["detail"]
    # Reads carry on, and so does another user's token.
    assert api.get(LABELS).status_code == 200
    assert _label(api, "Four", user="manager@example.com").status_code != 429


def test_reads_are_never_limited(limited: Callable[..., Api]) -> None:
    api = limited(rate_limit_writes="1/minute")
    assert all(api.get(LABELS).status_code == 200 for _ in range(5))


def test_limits_fail_open_with_redis_unreachable(limited: Callable[..., Api]) -> None:
    api = limited(rate_limit_writes="100/minute",
                  redis_url=f"redis://127.0.0.1:{_closed_port()}/0")
    statuses = [_label(api, f"Label {n}").status_code for n in range(3)]
    assert statuses == [201, 201, 201]
    assert api.get("/healthz").status_code == 200


def test_counters_on_redis_are_shared_by_every_process(limited: Callable[..., Api]) -> None:
    redis = Redis.from_url(REDIS_URL, socket_connect_timeout=1)
    try:
        redis.ping()
    except RedisError:
        if os.environ.get("CI"):
            pytest.fail("Redis is not running at 127.0.0.1:6379", pytrace=False)
        pytest.skip("Redis is not running at 127.0.0.1:6379")
    finally:
        redis.close()
    one = limited(rate_limit_writes="2/minute", redis_url=REDIS_URL)
    other = limited(rate_limit_writes="2/minute", redis_url=REDIS_URL)  # a second worker
    token = one.token("admin@example.com")
    headers = {"Authorization": f"Bearer {token}"}
    assert one.client.post(LABELS, json={"name": "A"}, headers=headers).status_code == 201
    assert other.client.post(LABELS, json={"name": "B"}, headers=headers).status_code == 201
    refused = one.client.post(LABELS, json={"name": "C"}, headers=headers)
    assert refused.status_code == 429
    assert int(refused.headers["Retry-After"]) > 0
