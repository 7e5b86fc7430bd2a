"""Request ids: one id per request, accepted from `X-Request-Id` or made, on every log line.

The id of the request being served lives in a context variable: `app.logs` sets it for each
request and stamps it on every log record, and the UI's API client (`app.client.build_http`)
sends it on to `/v1`, so one id joins a page's lines with those of its API calls. Standard
library only: the client imports it and must not import Flask.
"""

from __future__ import annotations

import logging
import re
import uuid
from contextvars import ContextVar
from typing import Any

HEADER = "X-Request-Id"

MAX_LENGTH = 64
"""The longest id accepted from outside (a uuid4 hex is 32; a proxy's ids fit)."""

_SANE = re.compile(rf"[A-Za-z0-9][A-Za-z0-9._:-]{{0,{MAX_LENGTH - 1}}}")
_current: ContextVar[str | None] = ContextVar("shiftdesk_request_id", default=None)


def accept(raw: str | None) -> str:
    """The id a request goes by: `raw` when it is sane (letters, digits, `.`, `_`, `:`, `-`,
    at most `MAX_LENGTH`), else a new uuid4 hex (ids reach logs: nothing else gets in)."""
    if raw and _SANE.fullmatch(raw):
        return raw
    return uuid.uuid4().hex


def current() -> str | None:
    """The id of the request being served in this context, if any."""
    return _current.get()


def begin(request_id: str) -> str | None:
    """Make `request_id` the current one; return the one before, for `end` (an in-process API
    call runs inside the UI's request)."""
    before = _current.get()
    _current.set(request_id)
    return before


def end(before: str | None) -> None:
    """Make `before` (what `begin` returned) the current id again.

    Set rather than reset by token: a response streamed to its end may be closed in another
    context than the one its request began in."""
    _current.set(before)


def stamp_log_records() -> None:
    """Give every log record a `request_id` attribute (None outside requests), once per
    process, whoever logs and whichever handler formats it."""
    previous = logging.getLogRecordFactory()
    if getattr(previous, "shiftdesk_request_ids", False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        record.request_id = _current.get()
        return record

    factory.shiftdesk_request_ids = True  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
