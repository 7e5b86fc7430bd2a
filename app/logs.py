"""Logs: JSON lines (or text in development), a request id on each, one access line per request.

`install(app)` gives every request its id (`app.request_ids`): the incoming `X-Request-Id` when
sane, else a new one, echoed on the response; and writes the access line (`shiftdesk.access`:
method, path, route, status, duration) when the response is ready. `configure(settings)` sets
up the process's root logger; servers and workers call it, tests never do.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

from flask import Flask, Response, g, request

from app import request_ids
from app.config import Settings

access_log = logging.getLogger("shiftdesk.access")

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"
JSON_FIELDS = ("levelname", "name", "message", "request_id")
JSON_NAMES = {"levelname": "level", "name": "logger"}


def log_format(settings: Settings) -> str:
    """`json` or `text`: the setting, else text for the demo and development, JSON otherwise."""
    if settings.log_format:
        return settings.log_format
    return "text" if settings.demo or settings.development else "json"


def formatter(kind: str) -> logging.Formatter:
    """The formatter of one line per record, JSON (with an ISO `timestamp`) or text."""
    if kind == "json":
        from pythonjsonlogger.json import JsonFormatter

        return JsonFormatter(list(JSON_FIELDS), rename_fields=JSON_NAMES, timestamp=True)
    return logging.Formatter(TEXT_FORMAT)


def configure(settings: Settings) -> None:
    """Send this process's log records to stderr, one line each, at `settings.log_level`."""
    request_ids.stamp_log_records()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(log_format(settings)))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "shiftdesk", False)]:
        root.removeHandler(old)
    handler.shiftdesk = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(settings.log_level.upper())
    # Alembic says which DDL mode it assumes each time `/readyz` reads the revision.
    logging.getLogger("alembic.runtime.migration").setLevel(
        max(logging.WARNING, root.level))


def install(app: Flask) -> None:
    """Give each request of `app` its id and write its access line."""
    request_ids.stamp_log_records()

    @app.before_request
    def _begin() -> None:
        g.request_id = request_ids.accept(request.headers.get(request_ids.HEADER))
        g.request_id_before = request_ids.begin(g.request_id)
        g.request_started = time.perf_counter()

    @app.after_request
    def _access(response: Response) -> Response:
        request_id = g.get("request_id")
        if request_id is None:  # a request that failed before `_begin`
            return response
        response.headers[request_ids.HEADER] = request_id
        extra: dict[str, Any] = {
            "method": request.method,
            "path": request.path,
            "route": request.url_rule.rule if request.url_rule is not None else None,
            "status": response.status_code,
            "duration_ms": round((time.perf_counter() - g.request_started) * 1000, 1),
        }
        access_log.info("%s %s %s", request.method, request.path, response.status_code,
                        extra=extra)
        return response

    @app.teardown_request
    def _end(_exc: BaseException | None) -> None:
        if "request_id_before" in g:
            request_ids.end(g.pop("request_id_before"))
