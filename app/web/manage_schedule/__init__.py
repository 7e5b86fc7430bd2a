"""The team schedule (blueprint `manage_schedule`): see `views.py`; copying shifts: `copy.py`."""

from app.web.manage_schedule import copy as copy  # registers the copy routes on `views.bp`
