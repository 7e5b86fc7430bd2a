"""The kind of page an address shows, for the crawling tests: its path and query with the
variable parts (ids, dates, times of day, numbers, tokens) named, so that one of each kind is
visited."""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$", re.I)
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
TIME = re.compile(r"^\d{1,2}:\d{2}(?::\d{2})?$")  # a time of day: the new shift form's from, to


def _token(value: str) -> str:
    """A path segment or query value as its kind: ids, dates, times of day, numbers and tokens
    are alike."""
    if UUID.match(value):
        return ":id"
    if DATE.match(value):
        return ":date"
    if TIME.match(value):
        return ":time"
    if value.isdigit():
        return ":n"
    if len(value) > 24:
        return ":token"
    return value


def kind(url: str) -> str:
    """The kind of page `url` shows."""
    parts = urlsplit(url)
    path = "/".join(_token(segment) for segment in parts.path.split("/"))
    query = sorted({(name, _token(value)) for name, value in parse_qsl(parts.query)})
    return path + ("?" + "&".join(f"{k}={v}" for k, v in query) if query else "")
