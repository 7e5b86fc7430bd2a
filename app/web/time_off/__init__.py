"""Time off (blueprint `time_off`): see `views.py`."""
