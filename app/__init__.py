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
    from app import api, idp, web

    settings = settings or Settings.from_env()
    flask_app = Flask(__name__)  # app/templates and app/static ship inside the package
    flask_app.config.update(
        SECRET_KEY=settings.secret_key,
        MAX_CONTENT_LENGTH=settings.max_body_bytes,
        SHIFTDESK=settings,
        JSON_SORT_KEYS=False,
    )
    flask_app.json.sort_keys = False  # type: ignore[attr-defined]
    state = api.init_app(flask_app, settings)
    idp.init_app(flask_app, state)
    web.init_app(flask_app)
    return flask_app


def serving_app(settings: Settings | None = None) -> Flask:
    """`create_app` for a server process that lives on: the objects built at start-up (routes,
    table metadata, model schemas: some 150,000) are frozen out of the garbage collector's
    passes. They live as long as the process, yet every full collection would walk them all
    again (about 50 ms each); frozen before gunicorn forks, they also stay shared between its
    workers instead of being copied as the collector touches them."""
    flask_app = create_app(settings)
    gc.freeze()
    return flask_app
