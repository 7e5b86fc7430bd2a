"""The team schedule (blueprint `manage_schedule`): see `views.py`."""
