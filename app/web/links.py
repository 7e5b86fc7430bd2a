"""Addresses a page repeats, built once instead of once per use.

`url_for` builds through the URL map every time: a header of forty menu links and a list of
fifty record links spent a fifth of a page's template time on it. Two helpers, Jinja globals:

- `fixed_url(endpoint, **values)`: an address that is the same on every request of one mount point
  (menu entries, static files), remembered per app and `request.script_root`;
- `address_of(endpoint, key)`: for a list's per-record links, the address built once with a
  stand-in id, giving a function from the record's id to its address.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import lru_cache
from urllib.parse import quote

from flask import Flask, current_app, request, url_for

STAND_IN = str(uuid.UUID(int=0))
"""The id an address pattern is built with; no record has it (ids are random UUIDs)."""


@lru_cache(maxsize=1024)
def _constant(app: Flask, script_root: str, endpoint: str,
              values: tuple[tuple[str, str], ...]) -> str:
    return url_for(endpoint, **dict(values))


def fixed_url(endpoint: str, **values: str) -> str:
    """`url_for(endpoint, **values)` for an address without per-record parts, built once per
    app and mount point."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    return _constant(app, request.script_root, endpoint, tuple(sorted(values.items())))


def address_of(endpoint: str, key: str, **values: str) -> Callable[[object], str]:
    """A function from a record's id to `url_for(endpoint, key=id, **values)`, the address
    built once: `show = address_of('people.show', 'person_id')`, then `show(person.id)`."""
    pattern = fixed_url(endpoint, **{key: STAND_IN}, **values)
    head, _, tail = pattern.partition(STAND_IN)

    def address(record_id: object) -> str:
        return f"{head}{quote(str(record_id), safe='')}{tail}"

    return address


def install(app: Flask) -> None:
    """Offer `fixed_url` and `address_of` to every template."""
    app.jinja_env.globals.update(fixed_url=fixed_url, address_of=address_of)
