"""`python -m tests.bench --only balances`: the time to accrue a year of time off for 2,000
providers, as `POST /v1/time-off/accruals` (and `shiftdesk accrue`) runs it.

A fresh policy (a new id each run, so nothing is posted yet) holds the first `providers`
providers; its settings accrue 4.6 hours every pay period from a year ago, with a balance cap
and a carry-over. The run is timed twice: the first posts the year (26 periods and a carry-over
per provider), the second finds everything posted and appends nothing.
"""

from __future__ import annotations

import os
import time
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert, select


def bench_balances(env: dict[str, str], providers: int) -> None:
    """Accrue a year for `providers` providers; print the time and the entries appended."""
    os.environ.update(env)
    from app.api import models as m
    from app.api.db import Database
    from app.api.services.balances import run_accruals
    from app.config import Settings

    settings = Settings.from_env()
    database = Database(settings.database_url)
    now = datetime.now(UTC)
    today = now.astimezone(settings.zone).date()
    policy_id = uuid.uuid4()
    try:
        with database.unit_of_work(write=True) as session:
            members = list(session.scalars(select(m.Provider.id).order_by(m.Provider.id)
                                           .limit(providers)))
            session.add(m.TimeOffPolicy(id=policy_id, type="paid-time-off",
                                        name=f"Bench PTO {policy_id.hex[:6]}",
                                        description=None, accrual_unit="hours"))
            session.flush()
            session.execute(insert(m.time_off_policy_members), [
                {"policy_id": policy_id, "provider_id": p} for p in members])
            session.add(m.TimeOffAccrualSettings(
                policy_id=policy_id, method="per_period", rate="4.6", period="pay_period",
                start_date=today - timedelta(days=365), balance_cap="200",
                carry_over_max="80"))
        timings: list[tuple[float, int]] = []
        for _ in range(2):
            began = time.perf_counter()
            with database.unit_of_work(write=True) as session:
                result = run_accruals(session, actor_id=None, through=today,
                                      policy_id=policy_id, zone=settings.zone, now=now,
                                      grace_minutes=settings.grace_minutes)
            timings.append((time.perf_counter() - began, result.entries))
        (first, posted), (again, none) = timings
        print(f"accrue a year of time off for {len(members)} providers: {first:.2f} s "
              f"({posted} entries appended); run again: {again:.2f} s ({none} appended)")
    finally:
        database.dispose()
