"""`python -m tests.bench --only coverage`: `GET /v1/forecasting/coverage` for a team of 200
providers over 14 days at 60-minute intervals (target p50 <= 30 ms).

The organisation's first team (by name) is made exactly `team_size` providers big: at `--scale`
its teams hold about 40, so providers (by team name, then id) of the teams with the same roles
(same kind of team) join it with their shifts, whose segments take the first team's role of the
same name; a bigger first team keeps its first `team_size` (by id) and the others leave, with
their shifts, for another team. Its roles keep the generated demand forecast. The request runs
in-process through the app a server builds (`serving_app`), as the admin, `runs` times over the
last seven days and the next seven.
"""

from __future__ import annotations

import os
import time
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def _team_of(session: Session, team_size: int) -> tuple[object, int, int]:
    """Make the first team `team_size` providers big; return its id, its size and its shifts."""
    from app.api import models as m

    teams = list(session.scalars(select(m.Team).order_by(m.Team.name, m.Team.id)))
    first = teams[0]
    names = {role.name: role.id for role in first.roles}
    members = list(session.scalars(select(m.Provider.id).where(m.Provider.team_id == first.id)
                                   .order_by(m.Provider.id)))
    if len(members) > team_size:
        moved = members[team_size:]
        session.execute(update(m.Provider).where(m.Provider.id.in_(moved))
                        .values(team_id=teams[1].id))
        session.execute(update(m.Shift).where(m.Shift.provider_id.in_(moved))
                        .values(team_id=teams[1].id))
    for team in teams[1:]:
        if len(members) >= team_size:
            break
        roles = {role.id: names.get(role.name) for role in team.roles}
        if not roles or None in roles.values():
            continue  # another kind of team: its roles have no namesakes in the first team
        joining = list(session.scalars(
            select(m.Provider.id).where(m.Provider.team_id == team.id)
            .order_by(m.Provider.id).limit(team_size - len(members))))
        shift_ids = select(m.Shift.id).where(m.Shift.provider_id.in_(joining))
        for old, new in roles.items():
            session.execute(update(m.ShiftSegment).where(m.ShiftSegment.role_id == old,
                                                         m.ShiftSegment.shift_id.in_(shift_ids))
                            .values(role_id=new))
            session.execute(update(m.Provider).where(m.Provider.id.in_(joining),
                                                     m.Provider.default_role_id == old)
                            .values(default_role_id=new))
        session.execute(update(m.Shift).where(m.Shift.provider_id.in_(joining))
                        .values(team_id=first.id))
        session.execute(update(m.Provider).where(m.Provider.id.in_(joining))
                        .values(team_id=first.id))
        members += joining
    size = session.scalar(select(func.count()).select_from(m.Provider)
                          .where(m.Provider.team_id == first.id)) or 0
    shifts = session.scalar(select(func.count()).select_from(m.Shift)
                            .where(m.Shift.team_id == first.id)) or 0
    if size != team_size:
        raise SystemExit(f"coverage: the first team has {size} providers, not {team_size}")
    return first.id, size, shifts


def bench_coverage(env: dict[str, str], token: str, team_size: int, runs: int) -> None:
    """Time the coverage of a `team_size`-provider team; print p50 and p95."""
    os.environ.update(env)
    from app import serving_app
    from app.config import Settings

    settings = Settings.from_env()
    app = serving_app(settings)
    with app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        first, kept, shifts = _team_of(session, team_size)
    now = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
    params = {"teamId": str(first), "interval": "60",
              "startDate": (now - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "endDate": (now + timedelta(days=7)).strftime("%Y-%m-%dT%H:%M:%SZ")}
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    samples: list[float] = []
    cpu: list[float] = []  # the request's own processor time: what a quiet machine would take
    cells = 0
    for _ in range(runs):
        began, began_cpu = time.perf_counter(), time.thread_time()
        response = client.get("/v1/forecasting/coverage", query_string=params, headers=headers)
        samples.append((time.perf_counter() - began) * 1000)
        cpu.append((time.thread_time() - began_cpu) * 1000)
        if response.status_code != 200:
            raise SystemExit(f"coverage: HTTP {response.status_code} {response.get_json()}")
        cells = sum(len(r["intervals"]) for r in response.get_json()["roles"])
    print(f"coverage of a team of {kept} providers ({shifts} shifts), 14 days at 60 minutes "
          f"({cells} role-hours), {runs} runs: p50 {_percentile(samples, .5):.1f} ms "
          f"(target <= 30 ms), p95 {_percentile(samples, .95):.1f} ms; first run "
          f"{samples[0]:.1f} ms; processor time p50 {_percentile(cpu, .5):.1f} ms; load average "
          f"{os.getloadavg()[0]:.2f}")
