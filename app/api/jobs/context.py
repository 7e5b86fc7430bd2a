"""What a background job runs with: the app's database and its settings.

Its own module so that the queue (which hands it to jobs) and the jobs (which read it) both
depend on it instead of on each other. Must not import the queue or any job.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.api.db import Database
from app.config import Settings


@dataclass(frozen=True)
class JobContext:
    """What a job needs to run: the database and the settings (zone, grace minutes)."""

    database: Database
    settings: Settings
