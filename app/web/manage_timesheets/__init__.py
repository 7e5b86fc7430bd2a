"""Timesheets (blueprint `manage_timesheets`): see `views.py`; the punches a manager adds,
deletes and the missing clock-outs are `punches.py`, on the same blueprint."""

from app.web.manage_timesheets import punches as punches  # registers its routes on `bp`
