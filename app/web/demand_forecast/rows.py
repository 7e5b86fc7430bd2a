"""Reading a demand forecast CSV: every row checked before anything is sent.

Columns `role` (a role's name, the name with its team's as `Registered Nurse (Emergency)`, or
its id), `start` and `end` (the site's local time `YYYY-MM-DD
HH:MM`, or ISO 8601 with an offset such as `2026-03-02T07:00-05:00`) and `demand` (a number, 0
or more). A role's name is looked up among the roles the user may forecast; one that matches no
role, or roles of several teams, is a row error. Pure: no Flask, no API; the roles and the zone
are parameters.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from app.contract.roles import RoleRead
from app.web import uploads
from app.web.uploads import FileProblem, RowError

COLUMNS = ("role", "start", "end", "demand")
MAX_ROWS = 20_000
LOCAL = re.compile(r"^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(?::(\d{2}))?$")


@dataclass(frozen=True)
class ForecastLine:
    """One checked row: the role, its window in UTC and the demand."""

    row: int
    role: uuid.UUID
    start: datetime
    end: datetime
    demand: float


@dataclass(frozen=True)
class RoleIndex:
    """The roles a user may forecast, by id and by name (case and spacing ignored)."""

    by_id: dict[uuid.UUID, RoleRead]
    by_name: dict[str, list[RoleRead]]

    @classmethod
    def of(cls, roles: Iterable[RoleRead]) -> RoleIndex:
        """Index `roles`."""
        by_id: dict[uuid.UUID, RoleRead] = {}
        by_name: dict[str, list[RoleRead]] = {}
        for role in roles:
            by_id[role.id] = role
            by_name.setdefault(_folded(role.name), []).append(role)
            by_name.setdefault(_folded(qualified(role)), []).append(role)
        return cls(by_id, by_name)


def qualified(role: RoleRead) -> str:
    """A role's name with its team's, as a file may give it: `Registered Nurse (Emergency)`."""
    return f"{role.name} ({role.team_name})"


def _folded(name: str) -> str:
    return " ".join(name.split()).casefold()


def _role(text: str, roles: RoleIndex) -> uuid.UUID | str:
    """The role a cell names, or what is wrong with it."""
    if not text:
        return "Give the role's name or id."
    try:
        ident = uuid.UUID(text)
    except ValueError:
        found = roles.by_name.get(_folded(text), [])
        if not found:
            return f"No role named “{text}” in the teams you forecast for."
        if len(found) > 1:
            teams = ", ".join(sorted(r.team_name for r in found))
            return (f"“{text}” is a role in {len(found)} teams ({teams}); add the team, as in "
                    f"“{qualified(found[0])}”, or write the role's id.")
        return found[0].id
    if ident not in roles.by_id:
        return f"No role with id {text} in the teams you forecast for."
    return ident


def _instant(text: str, zone: ZoneInfo) -> datetime | str:
    """The UTC instant a cell names, or what is wrong with it."""
    if not text:
        return "Give a date and time, such as 2026-03-02 07:00."
    local = LOCAL.match(text)
    try:
        if local:
            naive = datetime.fromisoformat(f"{local[1]}T{local[2]}:{local[3] or '00'}")
            at = naive.replace(tzinfo=zone)
            if at.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != naive:
                return (f"{text} does not exist in {zone.key}: the clocks skip it "
                        "(daylight saving time starts). Give a time after the change.")
            return at.astimezone(UTC)
        value = datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return f"“{text}” is not a date and time: write YYYY-MM-DD HH:MM (site time)."
    if value.tzinfo is None:
        return f"“{text}” is not a date and time: write YYYY-MM-DD HH:MM (site time)."
    return value.astimezone(UTC)


def _demand(text: str) -> float | str:
    """The demand a cell gives, or what is wrong with it."""
    if not text:
        return "Give the number of staff needed (0 or more)."
    try:
        value = float(text)
    except ValueError:
        return f"“{text}” is not a number."
    if not math.isfinite(value):
        return f"“{text}” is not a number."
    if value < 0:
        return f"{text} is below zero: the demand is 0 or more staff."
    return value


def too_large(limit: int) -> str:
    """What a file beyond `limit` bytes is told."""
    return uploads.too_large(limit, max_rows=MAX_ROWS, verb="upload")


def _header(cells: list[str]) -> dict[str, int]:
    names = [c.strip().casefold() for c in cells]
    expected = ",".join(COLUMNS)
    missing = [c for c in COLUMNS if c not in names]
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
        raise FileProblem(f"The first row must be the header {expected}: {'; '.join(said)}.")
    return {c: names.index(c) for c in COLUMNS}


def read_forecast(content: bytes, roles: RoleIndex, zone: ZoneInfo, *, max_bytes: int,
                  ) -> tuple[list[ForecastLine], list[RowError]]:
    """Every row of the file checked: the good rows, and every problem of the bad ones (when
    there is any problem, nothing is to be sent). Raises `FileProblem` for the file as a whole
    (more than `max_bytes` or `MAX_ROWS` rows, not text, no header, no rows).
    """
    errors: list[RowError] = []
    header, rows = uploads.csv_rows(content, limit=max_bytes, max_rows=MAX_ROWS, verb="upload",
                                    columns=COLUMNS, each="role and time window",
                                    errors=errors)
    at = _header(header)
    lines: list[ForecastLine] = []
    first: dict[tuple[uuid.UUID, datetime, datetime], int] = {}
    for number, cells in rows:
        role = _role(cells[at["role"]].strip(), roles)
        start = _instant(cells[at["start"]].strip(), zone)
        end = _instant(cells[at["end"]].strip(), zone)
        demand = _demand(cells[at["demand"]].strip())
        found = [RowError(number, column, value)
                 for column, value in (("role", role), ("start", start), ("end", end),
                                       ("demand", demand)) if isinstance(value, str)]
        if (isinstance(start, datetime) and isinstance(end, datetime) and end <= start):
            found.append(RowError(number, "end", "It ends at or before its start."))
        if (found or not isinstance(role, uuid.UUID) or not isinstance(start, datetime)
                or not isinstance(end, datetime) or not isinstance(demand, float)):
            errors.extend(found)
            continue
        earlier = first.setdefault((role, start, end), number)
        if earlier != number:
            errors.append(RowError(number, "role", f"Row {earlier} already gives this "
                                   "role and window; give each role and window once."))
            continue
        lines.append(ForecastLine(number, role, start, end, demand))
    return lines, errors
