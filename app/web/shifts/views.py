"""My shifts and open shifts (blueprint `shifts`):
the provider's schedule, its calendar export, and claiming.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("shifts", __name__)
