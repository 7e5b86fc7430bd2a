"""Timesheets (blueprint `manage_timesheets`): managers review punches against scheduled shifts.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("manage_timesheets", __name__)
