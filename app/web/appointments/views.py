"""Appointments (blueprint `appointments`): list, detail, outcome, reschedule and cancel.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("appointments", __name__)
