"""Balance resets (blueprint `balance_resets`): see `views.py`."""
