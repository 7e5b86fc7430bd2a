"""The busy lists (shifts, appointments) build their filtered statement once per shape of query
for each signed-in user and bind every request's values at execution (`Actor.statement`,
`Paginator.page(params=...)`). Requests made one after another, by one user and by several,
must still each get exactly their own answer.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from tests.conftest import Api

MANAGER = "manager@example.com"
PROVIDER = "provider@example.com"
ADMIN = "admin@example.com"


def _every(api: Api, path: str, user: str, **query: Any) -> list[dict[str, Any]]:
    return [item for page in api.walk(path, page_size=200, user=user, query_string=query)
            for item in page]


def _parse(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z").astimezone(UTC)


def _wire(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S+0000")


@pytest.mark.parametrize("path", ["/v1/shifts", "/v1/appointments"])
def test_each_window_gets_its_own_rows_from_the_same_statement(api: Api, path: str) -> None:
    everything = _every(api, path, ADMIN)
    starts = sorted({_parse(item["startDate"]) for item in everything})
    assert len(starts) > 6
    for low, high in [(starts[1], starts[4]), (starts[3], starts[-2]), (starts[0], starts[2])]:
        expected = [item["id"] for item in everything
                    if _parse(item["endDate"]) > low and _parse(item["startDate"]) < high]
        got = _every(api, path, ADMIN, startDate=_wire(low), endDate=_wire(high))
        assert [item["id"] for item in got] == expected


def test_each_provider_filter_gets_its_own_shifts(api: Api) -> None:
    everything = _every(api, "/v1/shifts", ADMIN)
    providers = sorted({item["provider"] for item in everything if item["provider"]})
    assert len(providers) >= 2
    for provider in providers:
        got = _every(api, "/v1/shifts", ADMIN, providerId=provider)
        assert [item["id"] for item in got] == [
            item["id"] for item in everything if item["provider"] == provider]


@pytest.mark.parametrize("path", ["/v1/shifts", "/v1/appointments"])
def test_small_pages_walk_the_same_rows_as_one_page(api: Api, path: str) -> None:
    whole = [item["id"] for item in _every(api, path, MANAGER)]
    pages = api.walk(path, page_size=3, user=MANAGER)
    assert [item["id"] for page in pages for item in page] == whole
    assert all(len(page) <= 3 for page in pages)


def test_users_in_turn_each_see_only_what_they_may(api: Api) -> None:
    mine = {item["id"] for item in _every(api, "/v1/shifts", PROVIDER)}
    managed = {item["id"] for item in _every(api, "/v1/shifts", MANAGER)}
    everything = {item["id"] for item in _every(api, "/v1/shifts", ADMIN)}
    again = {item["id"] for item in _every(api, "/v1/shifts", PROVIDER)}
    assert mine == again
    assert mine < everything
    assert managed < everything
    assert mine != managed
