"""Shiftdesk: one Flask app hosting the `/v1` API, sign-in and the staff UI.

`create_app(settings)` builds everything; there is no module-level app (a WSGI server's entry
point is `app.wsgi:app`). `serving_app` is `create_app` for a long-running server process.
"""

from __future__ import annotations

import gc

from flask import Flask

from app.config import Settings


def create_app(settings: Settings | None = None) -> Flask:
    """Build the app from `settings` (default: read from `SHIFTDESK_*` variables)."""
    from app import api, idp, logs, web

    settings = settings or Settings.from_env()
    flask_app = Flask(__name__)  # app/templates and app/static ship inside the package
    flask_app.config.update(
        SECRET_KEY=settings.secret_key,
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        SHIFTDESK=settings,
        JSON_SORT_KEYS=False,
    )
    flask_app.json.sort_keys = False  # type: ignore[attr-defined]
    logs.install(flask_app)  # first: every other hook of a request logs under its id
    state = api.init_app(flask_app, settings)
    idp.init_app(flask_app, state)
    web.init_app(flask_app)
    return flask_app


GC_THRESHOLDS = (50_000, 10, 10)
"""The collector's thresholds in a long-lived process (Python's default is 700, 10, 10)."""


def serving_app(settings: Settings | None = None) -> Flask:
    """`create_app` for a server process that lives on, with the garbage collector set up once
    (`settle_collector`)."""
    from app import logs

    settings = settings or Settings.from_env()
    logs.configure(settings)
    flask_app = create_app(settings)
    settle_collector()
    return flask_app


def settle_collector() -> None:
    """Set up the garbage collector of a long-lived process, once, after its start-up imports.

    The objects built at start-up (routes, table metadata, model schemas: some 150,000) are
    frozen out of the collector's passes. They live as long as the process, yet every full
    collection would walk them all again (about 50 ms each); frozen before gunicorn forks, they
    also stay shared between its workers instead of being copied as the collector touches them.

    The youngest generation is then collected every 50,000 net new container objects instead of
    every 700: a team's timesheets (or any large page or report) allocate tens of thousands of
    acyclic objects that all stay alive until the response is sent, and at 700 they set off a
    couple of hundred collections per request that free almost nothing. Reference counting
    frees nearly everything anyway; what cyclic garbage there is waits a little longer (a few
    megabytes at most). Set once for every thread alike, never switched off and on around one
    request while other threads run.
    """
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
