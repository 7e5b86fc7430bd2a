"""The app under benchmark, as served (`app.wsgi`), plus a bare Flask JSON endpoint to compare
it with (bench only)."""

from __future__ import annotations

from flask import jsonify

from app.wsgi import app


@app.get("/bench/bare")
def bare() -> object:
    """The cheapest JSON answer Flask can give."""
    return jsonify({"ok": True})
