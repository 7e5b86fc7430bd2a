"""The time-off queue (blueprint `manage_time_off`):
managers approve or reject their teams' requests.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("manage_time_off", __name__)
