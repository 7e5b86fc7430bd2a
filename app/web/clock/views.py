"""The clock page (blueprint `clock`):
the provider's home for clocking in and out and taking breaks.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("clock", __name__)
