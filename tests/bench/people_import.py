"""`python -m tests.bench --only people-import`: the time to import 10,000 people.

A CSV of `people` rows (providers of the organisation's first team with its first role, every
tenth a user) is read and checked as the import page reads it (`app.web.people.rows`), then sent
as the page sends it: `POST /v1/people/import` in batches of 1,000 through the whole app
in-process, as the administrator. Then the same rows again, which updates everyone and creates
no one. One line: the check, the first import, the second.
"""

from __future__ import annotations

import os
import time
import uuid
from typing import Any

from sqlalchemy import select


def _csv(people: int, team: str, role: str, tag: str) -> bytes:
    from app.web.people.rows import COLUMNS

    lines = [",".join(COLUMNS)]
    for n in range(people):
        if n % 10 == 9:
            lines.append(f"Bench User {n},bench.{tag}.{n}@example.org,user,,,,,,B-{tag}-{n}")
        else:
            lines.append(f"Bench Person {n},bench.{tag}.{n}@example.org,provider,{team},{role},"
                         f",biweekly,2026-01-05,B-{tag}-{n}")
    return ("\r\n".join(lines) + "\r\n").encode()


def bench_people_import(env: dict[str, str], token: str, people: int) -> None:
    """Check and import `people` people, then import them again; print the times."""
    os.environ.update(env)
    from app import create_app
    from app.api import models as m
    from app.config import Settings
    from app.contract.employment_types import EmploymentTypeRead
    from app.contract.people import MAX_PEOPLE_BATCH
    from app.contract.roles import RoleRead
    from app.contract.teams import TeamRead
    from app.web.people.rows import Directory, read_people

    settings = Settings.from_env()
    app = create_app(settings)
    client = app.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    try:
        with app.extensions["shiftdesk"].db.unit_of_work() as session:
            team = session.scalars(select(m.Team).order_by(m.Team.name)).first()
            assert team is not None, "the organisation has no team"
            role = session.scalars(select(m.Role).where(m.Role.team_id == team.id)
                                   .order_by(m.Role.name)).first()
            assert role is not None, "the first team has no role"
            lookups = Directory.of(
                [TeamRead(id=team.id, created_at=team.created_at, name=team.name)],
                [RoleRead(id=role.id, created_at=role.created_at, name=role.name,
                          team=team.id, team_name=team.name, hex_color=role.hex_color)],
                list[EmploymentTypeRead]())
            team_name, role_name = team.name, role.name
        content = _csv(people, team_name, role_name, uuid.uuid4().hex[:6])
        began = time.perf_counter()
        lines, errors = read_people(content, lookups, settings.zone, max_bytes=len(content))
        checked = time.perf_counter() - began
        assert not errors, errors[:3]
        body: list[dict[str, Any]] = []
        for x in lines:
            row: dict[str, Any] = {"name": x.name, "email": x.email, "type": x.type,
                                   "importedId": x.imported_id}
            if x.type == "provider":
                row.update(teamId=str(x.team_id), roleId=str(x.role_id), payPeriodTemplate={
                    "type": x.pay_period,
                    "startDate": x.pay_period_start.strftime("%Y-%m-%dT%H:%M:%S+0000")})
            body.append(row)

        def send() -> tuple[float, int, int]:
            created = updated = 0
            began = time.perf_counter()
            for start in range(0, len(body), MAX_PEOPLE_BATCH):
                response = client.post("/v1/people/import", headers=headers,
                                       json=body[start:start + MAX_PEOPLE_BATCH])
                assert response.status_code == 200, response.get_json()
                answer = response.get_json()
                created += answer["created"]
                updated += answer["updated"]
            return time.perf_counter() - began, created, updated

        first, created, _ = send()
        again, recreated, updated = send()
        batches = -(-len(body) // MAX_PEOPLE_BATCH)
        print(f"import {len(body):,} people from CSV: check {checked:.2f} s, then "
              f"{batches} batches of POST /v1/people/import {first:.2f} s ({created:,} created); "
              f"the same file again {again:.2f} s ({updated:,} updated, {recreated} created)")
    finally:
        app.extensions["shiftdesk"].db.dispose()
