"""Reading a people CSV: every row checked before anything is sent.

Columns `name`, `email`, `type` (`provider` or `user`; empty means provider), `team` and `role`
(a name or an id; the role one of the team's), `employment_type` (a name or an id), `pay_period`
(`weekly`, `biweekly` or empty) with `pay_period_start` (the first period's first day,
`YYYY-MM-DD`, in the site's time zone) and `imported_id` (the person's id in the system the file
comes from: importing it again updates that person). A user (not a provider) has no team, role,
employment type or pay period. The same imported id or e-mail address twice in a file is a row
error. Whether an address belongs to someone else only the API knows. Pure: no Flask, no API;
the teams, roles, employment types and the zone are parameters.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from app.contract.employment_types import EmploymentTypeRead
from app.contract.people import EMAIL_MAX, IMPORTED_ID_MAX, NAME_MAX
from app.contract.roles import RoleRead
from app.contract.teams import TeamRead
from app.web import uploads
from app.web.uploads import FileProblem, RowError

COLUMNS = ("name", "email", "type", "team", "role", "employment_type", "pay_period",
           "pay_period_start", "imported_id")
REQUIRED = ("name", "email", "imported_id")
MAX_ROWS = 20_000
EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
PROVIDER_ONLY = ("team", "role", "employment_type", "pay_period", "pay_period_start")


@dataclass(frozen=True)
class PersonLine:
    """One checked row, ready for the API."""

    row: int
    name: str
    email: str
    type: str
    team_id: uuid.UUID | None
    role_id: uuid.UUID | None
    employment_type_id: uuid.UUID | None
    pay_period: str | None
    pay_period_start: datetime | None
    imported_id: str


def _folded(name: str) -> str:
    return " ".join(name.split()).casefold()


@dataclass(frozen=True)
class Directory:
    """What a file's names are looked up in: teams, roles and employment types."""

    teams: list[TeamRead]
    roles: list[RoleRead]
    employment_types: list[EmploymentTypeRead]

    @classmethod
    def of(cls, teams: Iterable[TeamRead], roles: Iterable[RoleRead],
           employment_types: Iterable[EmploymentTypeRead]) -> Directory:
        """Gather the lists."""
        return cls(list(teams), list(roles), list(employment_types))

    def team(self, text: str) -> uuid.UUID | str:
        """The team a cell names, or what is wrong with it."""
        found = [t for t in self.teams if str(t.id) == text.lower()
                 or _folded(t.name) == _folded(text)
                 or (t.shorthand_name and _folded(t.shorthand_name) == _folded(text))]
        if len(found) == 1:
            return found[0].id
        if found:
            return f"Several teams are called “{text}”: write the team's id."
        return f"No team named “{text}”."

    def role(self, text: str, team: uuid.UUID) -> uuid.UUID | str:
        """The role of `team` a cell names, or what is wrong with it."""
        found = [r for r in self.roles if r.team == team
                 and (str(r.id) == text.lower() or _folded(r.name) == _folded(text))]
        if len(found) == 1:
            return found[0].id
        if found:
            return f"The team has several roles called “{text}”: write the role's id."
        if any(str(r.id) == text.lower() or _folded(r.name) == _folded(text)
               for r in self.roles):
            return f"“{text}” is not a role of this team."
        return f"No role named “{text}”."

    def employment_type(self, text: str) -> uuid.UUID | str:
        """The employment type a cell names, or what is wrong with it."""
        found = [e for e in self.employment_types
                 if str(e.id) == text.lower() or _folded(e.name) == _folded(text)]
        if len(found) == 1:
            return found[0].id
        if found:
            return f"Several employment types are called “{text}”: write its id."
        return f"No employment type named “{text}”."


def too_large(limit: int) -> str:
    """What a file beyond `limit` bytes is told."""
    return uploads.too_large(limit, max_rows=MAX_ROWS, verb="import")


def _header(cells: list[str]) -> dict[str, int]:
    names = [c.strip().casefold() for c in cells]
    missing = [c for c in REQUIRED if c not in names]
    unknown = [c for c, n in zip(cells, names, strict=True) if n and n not in COLUMNS]
    repeated = sorted({n for n in names if n in COLUMNS and names.count(n) > 1})
    if missing or unknown or repeated:
        said = []
        if missing:
            said.append("it lacks " + ", ".join(f"“{c}”" for c in missing))
        if unknown:
            said.append("it has unknown columns " + ", ".join(f"“{c.strip()}”" for c in unknown))
        if repeated:
            said.append("it repeats " + ", ".join(f"“{c}”" for c in repeated))
        raise FileProblem(f"The first row must be the header {','.join(COLUMNS)}: "
                          f"{'; '.join(said)}.")
    return {c: names.index(c) for c in COLUMNS if c in names}


def _day(text: str, zone: ZoneInfo) -> datetime | str:
    try:
        day = date.fromisoformat(text)
    except ValueError:
        return f"“{text}” is not a day: write YYYY-MM-DD, such as 2026-01-05."
    if not 1900 < day.year < 2999:
        return f"{text} is too far away: give a day between 1901 and 2998."
    return datetime(day.year, day.month, day.day, tzinfo=zone).astimezone(UTC)


def _line(number: int, cell: dict[str, str], found: Directory, zone: ZoneInfo,
          ) -> PersonLine | list[RowError]:
    """One row checked: the line, or every problem of it."""
    errors: list[RowError] = []

    def bad(column: str, message: str) -> None:
        errors.append(RowError(number, column, message))

    name, email, imported_id = cell["name"], cell["email"], cell["imported_id"]
    if not name:
        bad("name", "Give the person's name.")
    elif len(name) > NAME_MAX:
        bad("name", f"The name is longer than {NAME_MAX} characters.")
    if not email:
        bad("email", "Give the person's email address.")
    elif len(email) > EMAIL_MAX or not EMAIL.match(email):
        bad("email", f"“{email[:60]}” is not an email address like name@example.org.")
    if not imported_id:
        bad("imported_id", "Give the person's id in the system the file comes from.")
    elif len(imported_id) > IMPORTED_ID_MAX:
        bad("imported_id", f"The id is longer than {IMPORTED_ID_MAX} characters.")
    kind = cell["type"].lower() or "provider"
    if kind not in ("provider", "user"):
        bad("type", f"“{cell['type']}” is not a type: write provider or user.")
    team = role = employment = start = None
    period = cell["pay_period"].lower() or None
    if kind == "user":
        for column in PROVIDER_ONLY:
            if cell[column]:
                bad(column, "Only providers have this: leave it empty for a user, or make the "
                            "type provider.")
    elif kind == "provider":
        if cell["team"]:
            found_team = found.team(cell["team"])
            if isinstance(found_team, str):
                bad("team", found_team)
            else:
                team = found_team
        if cell["role"]:
            if not cell["team"]:
                bad("role", "A role needs its team: fill in the team column.")
            elif team is not None:
                found_role = found.role(cell["role"], team)
                if isinstance(found_role, str):
                    bad("role", found_role)
                else:
                    role = found_role
        if cell["employment_type"]:
            found_type = found.employment_type(cell["employment_type"])
            if isinstance(found_type, str):
                bad("employment_type", found_type)
            else:
                employment = found_type
        if period is not None and period not in ("weekly", "biweekly"):
            bad("pay_period", f"“{cell['pay_period']}” is not a pay period: write weekly or "
                              "biweekly, or leave it empty.")
        if period and not cell["pay_period_start"]:
            bad("pay_period_start", "Give the first pay period's first day (YYYY-MM-DD).")
        elif cell["pay_period_start"] and not period:
            bad("pay_period", "Give the pay period (weekly or biweekly) the start day is of.")
        elif cell["pay_period_start"]:
            day = _day(cell["pay_period_start"], zone)
            if isinstance(day, str):
                bad("pay_period_start", day)
            else:
                start = day
    if errors:
        return errors
    return PersonLine(number, name, email, kind, team, role, employment, period, start,
                      imported_id)


def read_people(content: bytes, found: Directory, zone: ZoneInfo, *, max_bytes: int,
                ) -> tuple[list[PersonLine], list[RowError]]:
    """Every row of the file checked: the good rows, and every problem of the bad ones (when
    there is any problem, nothing is to be sent). Raises `FileProblem` for the file as a whole
    (more than `max_bytes` or `MAX_ROWS` rows, not text, no header, no rows).
    """
    errors: list[RowError] = []
    header, rows = uploads.csv_rows(content, limit=max_bytes, max_rows=MAX_ROWS, verb="import",
                                    columns=COLUMNS, each="person", errors=errors)
    at = _header(header)
    lines: list[PersonLine] = []
    ids: dict[str, int] = {}
    emails: dict[str, int] = {}
    for number, cells in rows:
        cell = {c: (cells[at[c]].strip() if c in at else "") for c in COLUMNS}
        line = _line(number, cell, found, zone)
        if isinstance(line, list):
            errors.extend(line)
            continue
        earlier = ids.setdefault(line.imported_id, number)
        if earlier != number:
            errors.append(RowError(number, "imported_id", f"Row {earlier} has the same "
                                   "imported id; give each person once."))
            continue
        earlier = emails.setdefault(line.email.casefold(), number)
        if earlier != number:
            errors.append(RowError(number, "email", f"Row {earlier} has the same email "
                                   "address; each person has their own."))
            continue
        lines.append(line)
    return lines, errors
