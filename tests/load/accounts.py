"""`python -m tests.load.accounts OUT.json`: make a `--scale` demo organisation sign-in-able by
many simulated people, and write what the load scenario needs to OUT.json.

The demo gives a password to its four accounts only. For the load run (and only on a database
made for it: the runner's own SQLite file or PostgreSQL database) this gives the demo password
to every active provider and every team manager, and adds `LOAD_SCHEDULERS` scheduler accounts
(`load-scheduler-N@example.com`, the Scheduler RBAC role), so that each simulated person signs in
as someone of their own: no two provider users share a clock, and managers mostly see their own
team's queue. One password hash is shared by all of them, as the demo does for its four.

OUT.json holds: the password; the emails of providers, managers and schedulers; each team's
active provider ids (the managers' journey requests time off for them through the API when
their queue is empty); the id of an unpaid leave policy; the appointment type ids; the team ids.
The database comes from `SHIFTDESK_DATABASE_URL`, as for every `shiftdesk` command.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, update
from werkzeug.security import generate_password_hash

PASSWORD = "demo"
SCHEDULER_EMAIL = "load-scheduler-{}@example.com"


def prepare(database_url: str, schedulers: int) -> dict[str, Any]:
    """Give the accounts passwords, add the schedulers; what the scenario needs."""
    from app.api import models as m
    from app.api.db import Database

    secret = generate_password_hash(PASSWORD)
    database = Database(database_url)
    try:
        with database.unit_of_work(write=True) as session:
            providers = session.execute(
                select(m.User.id, m.User.email, m.Provider.team_id)
                .join(m.Provider, m.Provider.id == m.User.id)
                .where(m.User.status == "active", m.Provider.status == "active")
                .order_by(m.User.email)).all()
            managers = session.execute(
                select(m.User.id, m.User.email).join(m.team_managers,
                                                     m.team_managers.c.user_id == m.User.id)
                .where(m.User.status == "active").distinct().order_by(m.User.email)).all()
            ids = [row.id for row in providers] + [row.id for row in managers]
            for start in range(0, len(ids), 500):
                session.execute(update(m.User).where(m.User.id.in_(ids[start:start + 500]))
                                .values(password_hash=secret))
            role = session.scalars(select(m.RbacRole.id)
                                   .where(m.RbacRole.name == "Scheduler")).one()
            taken = set(session.scalars(select(m.User.email)
                                        .where(m.User.email.like("load-scheduler-%"))))
            wanted = [SCHEDULER_EMAIL.format(n) for n in range(1, schedulers + 1)]
            new = [{"id": uuid.uuid4(), "email": email, "name": f"Load Scheduler {n}",
                    "type": "user", "status": "active", "is_admin": False,
                    "password_hash": secret}
                   for n, email in enumerate(wanted, start=1) if email not in taken]
            if new:
                session.execute(insert(m.User), new)
                session.execute(insert(m.user_rbac_roles),
                                [{"user_id": row["id"], "rbac_role_id": role} for row in new])
            teams: dict[str, list[str]] = {}
            for row in providers:
                if row.team_id is not None:
                    teams.setdefault(str(row.team_id), []).append(str(row.id))
            policies = {p.name: str(p.id) for p in session.scalars(select(m.TimeOffPolicy))}
            types = [str(t) for t in session.scalars(
                select(m.AppointmentType.id).where(m.AppointmentType.archived_at.is_(None))
                .order_by(m.AppointmentType.name))]
    finally:
        database.dispose()
    return {
        "password": PASSWORD,
        "providers": [row.email for row in providers],
        "managers": [row.email for row in managers],
        "schedulers": wanted,
        "teamProviders": teams,
        "policyId": policies.get("Unpaid leave") or next(iter(policies.values())),
        "appointmentTypes": types,
    }


def main() -> None:
    """Prepare the database named by the environment and write OUT.json."""
    out = Path(sys.argv[1])
    found = prepare(os.environ["SHIFTDESK_DATABASE_URL"],
                    int(os.environ.get("LOAD_SCHEDULERS", "20")))
    out.write_text(json.dumps(found, indent=1))
    print(f"load accounts: {len(found['providers'])} providers, {len(found['managers'])} "
          f"managers, {len(found['schedulers'])} schedulers, {len(found['teamProviders'])} "
          "teams", file=sys.stderr)


if __name__ == "__main__":
    main()
