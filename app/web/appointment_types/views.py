"""Appointment types (blueprint `appointment_types`): list, create, edit and archive.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("appointment_types", __name__)
