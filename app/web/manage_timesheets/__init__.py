"""Timesheets (blueprint `manage_timesheets`): see `views.py`."""
