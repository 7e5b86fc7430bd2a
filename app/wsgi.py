"""The WSGI entry point for a process manager: `gunicorn app.wsgi:app` (settings from the
`SHIFTDESK_*` variables). `shiftdesk serve` runs the same app with its own gunicorn settings."""

from __future__ import annotations

from app import serving_app

app = serving_app()
