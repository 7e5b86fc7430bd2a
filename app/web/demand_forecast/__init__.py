"""Demand forecast upload (blueprint `demand_forecast`): see `views.py`."""
