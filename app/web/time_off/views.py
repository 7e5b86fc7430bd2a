"""Time off (blueprint `time_off`): the provider's requests, the request form and cancelling.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("time_off", __name__)
