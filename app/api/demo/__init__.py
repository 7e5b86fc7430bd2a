"""The demo organisation: a believable hospital that `shiftdesk init --demo` (or `--scale N`) loads,
so that every screen and endpoint has realistic data to show.

Four teams (more at scale), colour-coded job roles, ~60 providers with skills, six weeks of
shifts around the load date (breaks, on-call, open shifts, callouts, pay codes, labels), time off
in every state, appointments, punches with anomalies, report runs, a demand forecast, the
standard RBAC roles and the four demo accounts (password `demo`).

- Deterministic: ids are uuid5 of stable names and every choice comes from one seeded
  `random.Random`, so the same size loaded on the same local date gives the same content. Shift
  times are local wall-clock times in the site's zone (DST-aware), stored in UTC.
- Idempotent: the `demo_loaded` app setting marks a loaded database; loading again changes
  nothing and answers the first load's summary.
- Fast at scale: rows are planned in memory and written with multi-row INSERTs, not the ORM
  unit of work; only the four demo accounts get a (deliberately slow) password hash.

One module per part of the organisation (`organisation`, `people`, `schedule`, `time_off`,
`timekeeping`, `appointments`, `reports`, `forecasting`), all planning into and writing from the
shared `state.Demo`; `build` runs them in order, `bulk` writes rows fast.

Must not be imported by request handling, and must not change a database that already holds
other data under the demo accounts' addresses.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.api import models as m
from app.api.db import Database
from app.api.demo.build import build
from app.api.demo.state import DEMO_EMAILS, Demo
from app.config import Settings

MARKER = "demo_loaded"
"""Key of the `AppSetting` that marks a database holding the demo organisation."""
DEFAULT_PROVIDERS = 60


def load_demo(database: Database, settings: Settings, providers: int | None = None, *,
              now: datetime | None = None) -> str:
    """Load the demo organisation unless already loaded; return a one-paragraph summary.

    `providers` sizes the organisation (default 60); `now` (default: the clock) fixes the load
    date, which every date of the demo hangs off. A new load ends by refreshing the planner's
    statistics (`Database.refresh_statistics`).
    """
    size = max(1, providers or DEFAULT_PROVIDERS)
    loaded_at = (now or datetime.now(UTC)).astimezone(UTC)
    try:
        with database.unit_of_work(write=True) as session:
            previous = _previous_load(session, size)
            if previous is not None:
                return previous
            # The marker goes in first: a concurrent loader blocks on its key, then fails.
            marker = m.AppSetting(key=MARKER, value={"state": "loading"})
            session.add(marker)
            session.flush()
            demo = Demo(session, settings, size, loaded_at)
            summary = build(demo)
            marker.value = {
                "loadedOn": demo.today.isoformat(), "providers": size, "summary": summary,
            }
    except IntegrityError:
        with database.unit_of_work() as session:
            previous = _previous_load(session, size)
        if previous is None:
            raise
        return previous
    database.refresh_statistics()
    return summary


def _previous_load(session: Session, size: int) -> str | None:
    """The answer for a database that already holds the demo (or its accounts), else None."""
    marker = session.get(m.AppSetting, MARKER)
    if marker is not None:
        value = marker.value if isinstance(marker.value, dict) else {}
        loaded = value.get("providers")
        other_size = (f" It has {loaded} providers, not {size}: load another size into an "
                      "empty database." if loaded not in (None, size) else "")
        return (f"The demo organisation is already loaded (on {value.get('loadedOn', '?')}); "
                f"nothing changed.{other_size} {value.get('summary', '')}").strip()
    taken = session.scalars(select(m.User.email).where(m.User.email.in_(DEMO_EMAILS))).all()
    if taken:
        return (f"Demo data not loaded: this database already has users {', '.join(sorted(taken))}"
                " that the demo would create; use an empty database.")
    return None
