"""Appointment types (blueprint `appointment_types`): see `views.py`."""
