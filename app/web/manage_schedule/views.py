"""The team schedule (blueprint `manage_schedule`): a week grid of a team's shifts, edited in place.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("manage_schedule", __name__)
