"""Appointments (blueprint `appointments`): see `views.py`."""
