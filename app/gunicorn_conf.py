"""gunicorn's settings for a Shiftdesk process, read from the environment:

    gunicorn -c python:app.gunicorn_conf app.wsgi:app

These are gunicorn's own settings, not the app's (`app.config` reads those), so this module
reads its variables itself:

| variable | default | gunicorn setting |
| --- | --- | --- |
| `GUNICORN_BIND` | `127.0.0.1:8000` (image: `0.0.0.0:8000`) | `bind`; several: comma-separated |
| `WEB_CONCURRENCY` | `2` | `workers` (processes) |
| `GUNICORN_THREADS` | `8` | `threads` per worker (`gthread`) |
| `GUNICORN_TIMEOUT` | `60` | `timeout`: seconds before a silent worker is restarted |
| `GUNICORN_GRACEFUL_TIMEOUT` | `30` | `graceful_timeout`: seconds to finish requests at a stop |
| `GUNICORN_KEEPALIVE` | `5` | `keepalive`: seconds an idle client connection is kept (*) |

(*) Keep it above the 2 s the UI keeps an idle connection to the API
(`app.client.api.KEEPALIVE_SECONDS`).

Anything else goes in gunicorn's `GUNICORN_CMD_ARGS` or on its command line, which win over
this file. The app is built once in the master and forked (`preload_app`): start-up objects are
shared and frozen (`app.settle_collector`); each worker opens its own database connections.

With `PROMETHEUS_MULTIPROC_DIR` set, gunicorn empties that folder when it starts (the files of
a previous run would be added to this one's) and tells prometheus-client when a worker exits.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

bind = [part.strip() for part in os.environ.get("GUNICORN_BIND", "127.0.0.1:8000").split(",")
        if part.strip()]
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "8"))
worker_class = "gthread"
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "60"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "30"))
keepalive = int(os.environ.get("GUNICORN_KEEPALIVE", "5"))
preload_app = True
accesslog = None  # the app writes one access line per request, with its request id
errorlog = "-"


def on_starting(_server: Any) -> None:
    """Empty the metrics folder of an earlier run (the folder itself may be a mount)."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        path = Path(folder)
        path.mkdir(parents=True, exist_ok=True)
        for stale in path.glob("*.db"):
            stale.unlink(missing_ok=True)


def child_exit(_server: Any, worker: Any) -> None:
    """A dead worker's live gauges leave the sum that /metrics reports."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
