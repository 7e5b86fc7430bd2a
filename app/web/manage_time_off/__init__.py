"""The time-off queue (blueprint `manage_time_off`): see `views.py`."""
