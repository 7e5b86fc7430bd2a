"""Find a slot (blueprint `slots`): schedulers search free appointment slots and book them.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("slots", __name__)
