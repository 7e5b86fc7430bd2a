"""My timecard (blueprint `timecard`): see `views.py`."""
