"""Find a slot (blueprint `slots`): see `views.py`."""
