"""`python -m tests.bench --only coverage`: `GET /v1/forecasting/coverage` for a team of 200
providers over 14 days at 60-minute intervals (target p50 <= 30 ms).

The organisation's first team (by name) keeps its first `team_size` providers (by id) and their
shifts; the others move, with their shifts, to another team. Its roles keep the generated demand
forecast. The request runs in-process through the app a server builds (`serving_app`), as the
admin, `runs` times over the last seven days and the next seven.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select, update


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def bench_coverage(env: dict[str, str], token: str, team_size: int, runs: int) -> None:
    """Time the coverage of a `team_size`-provider team; print p50 and p95."""
    os.environ.update(env)
    from app import serving_app
    from app.api import models as m
    from app.config import Settings

    settings = Settings.from_env()
    app = serving_app(settings)
    with app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        first, other = session.scalars(select(m.Team.id).order_by(m.Team.name).limit(2)).all()
        members = list(session.scalars(select(m.Provider.id).where(m.Provider.team_id == first)
                                       .order_by(m.Provider.id)))
        moved = members[team_size:]
        if moved:
            session.execute(update(m.Provider).where(m.Provider.id.in_(moved))
                            .values(team_id=other))
            session.execute(update(m.Shift).where(m.Shift.provider_id.in_(moved))
                            .values(team_id=other))
        kept = min(team_size, len(members))
        shifts = session.scalar(select(func.count()).select_from(m.Shift)
                                .where(m.Shift.team_id == first))
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    params = {"teamId": str(first), "interval": "60",
              "startDate": (now - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "endDate": (now + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")}
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    samples: list[float] = []
    cells = 0
    for _ in range(runs):
        began = time.perf_counter()
        response = client.get("/v1/forecasting/coverage", query_string=params, headers=headers)
        samples.append((time.perf_counter() - began) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"coverage: HTTP {response.status_code} {response.get_json()}")
        cells = sum(len(r["intervals"]) for r in response.get_json()["roles"])
    print(f"coverage of a team of {kept} providers ({shifts} shifts), 14 days at 60 minutes "
          f"({cells} role-hours), {runs} runs: p50 {_percentile(samples, .5):.1f} ms "
          f"(target <= 30 ms), p95 {_percentile(samples, .95):.1f} ms; first run "
          f"{samples[0]:.1f} ms")
