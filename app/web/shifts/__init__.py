"""My shifts and open shifts (blueprint `shifts`): see `views.py`."""
