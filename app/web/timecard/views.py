"""My timecard (blueprint `timecard`):
the provider's punches of the pay period, by day, with warnings.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("timecard", __name__)
