"""The clock page (blueprint `clock`): see `views.py`."""
