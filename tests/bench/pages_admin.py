"""Page benchmarks of the administrator's pages (issue 19), for `python -m tests.bench.pages`.

The people directory reads the user, then one concurrent round of two: the first page of
providers (onboarding or active, by name) and the provider count with the same filters; so
`api_calls` makes the same calls in the same order. Target ratio ≤ 1.2.
"""

from __future__ import annotations

from typing import Any

from app.contract.providers import ProviderFilter, ProviderListQuery
from app.web.people.forms import STATUS_VALUES
from app.web.people.views import PAGE_SIZE
from tests.bench.pages import PageCase

_CURRENT: Any = STATUS_VALUES["current"]


def _directory_calls(client: Any) -> object:
    client.me()
    return client.concurrently(
        lambda: client.list_providers(ProviderListQuery(status=_CURRENT, page_size=PAGE_SIZE)),
        lambda: client.count_providers(ProviderFilter(status=_CURRENT)))


CASES = [
    PageCase("people directory (admin)", "admin@example.com", "/admin/people", _directory_calls,
             ratio_target=1.2, shows="providers match"),
]
