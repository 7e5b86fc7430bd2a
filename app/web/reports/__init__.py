"""The reports pages (blueprint `reports`): the catalog, a generated run form, a run's progress."""
