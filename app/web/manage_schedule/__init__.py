"""The team schedule (blueprint `manage_schedule`): see `views.py`; copying shifts: `copy.py`;
the coverage chart: `chart.py`."""

from app.web.manage_schedule import chart as chart  # registers the coverage chart on `views.bp`
from app.web.manage_schedule import copy as copy  # registers the copy routes on `views.bp`
