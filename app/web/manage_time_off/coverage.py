"""What approving a time-off request does to coverage, for the time-off queue.

The API computes coverage twice over the request's days — as it stands, and with the request
counted as approved (`assumeApproved`) — and `effect` compares the two: the stretches the
approval leaves short (or shorter), by role, and the staff-hours under demand before and after.
Whatever the conflict strategy, approving takes the person off the floor; the strategies that
post open shifts offer others the chance to fill what it leaves.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from app.client import ApiClient, ApiProblem
from app.contract.forecasting import MAX_COVERAGE_DAYS, CoverageQuery, CoverageRead
from app.web.filters import format_headcount as heads


@dataclass(frozen=True)
class Drop:
    """A stretch of one role the approval leaves short, or shorter than it was."""

    role: str
    start: datetime
    end: datetime
    short: float
    was: float

    @property
    def words(self) -> str:
        """"1 short (was covered)"."""
        before = f"was {heads(self.was)} short" if self.was > 0 else "was covered"
        return f"{heads(self.short)} short ({before})"


@dataclass(frozen=True)
class Effect:
    """The approval's effect on the coverage of the request's days."""

    drops: list[Drop]
    short_before: float
    short_after: float
    clipped: bool = False  # the request runs past the longest window one answer covers

    @property
    def hours_lost(self) -> float:
        """Staff-hours of demand the approval leaves uncovered beyond today's."""
        return max(self.short_after - self.short_before, 0.0)

    def hint(self, posts_open: bool) -> str:
        """What a strategy leaves, in the strategy's hint."""
        if not self.hours_lost:
            return "Coverage stays as it is."
        lost = f"{heads(round(self.hours_lost, 2))} staff-hours short of the forecast"
        if posts_open:
            return f"Leaves {lost} until someone claims the open shifts."
        return f"Leaves {lost}."


def _drops(before: CoverageRead, after: CoverageRead) -> list[Drop]:
    was = {(r.role_id, c.start_date): c.gap for r in before.roles for c in r.intervals}
    drops: list[Drop] = []
    for role in after.roles:
        for cell in role.intervals:
            old = was.get((role.role_id, cell.start_date), 0.0)
            if cell.gap <= 0 or cell.gap <= old:
                continue
            last = drops[-1] if drops else None
            if (last is not None and last.role == role.role_name and last.end == cell.start_date
                    and last.short == cell.gap and last.was == max(old, 0.0)):
                drops[-1] = Drop(last.role, last.start, cell.end_date, last.short, last.was)
            else:
                drops.append(Drop(role.role_name, cell.start_date, cell.end_date, cell.gap,
                                  max(old, 0.0)))
    return drops


def effect(client: ApiClient, request_id: str, teams: set[str], start: datetime,
           end: datetime) -> Effect | None:
    """The effect of approving the request on the coverage of `teams` between `start` and
    `end` (its blocked days); None when no role there has a forecast, or coverage cannot be
    read (the queue then says nothing about it)."""
    limit = start + timedelta(days=MAX_COVERAGE_DAYS)
    clipped = end > limit
    end = min(end, limit)
    calls = []
    for team in sorted(teams):
        for assumed in (None, request_id):
            query = CoverageQuery(team_id=team, start_date=start, end_date=end,
                                  assume_approved=assumed)
            calls.append(lambda q=query: client.get_coverage(q))
    try:
        answers = client.concurrently(*calls)
    except ApiProblem:
        return None
    pairs = list(zip(answers[::2], answers[1::2], strict=True))
    if not any(r.has_forecast for before, _after in pairs for r in before.roles):
        return None
    drops = [d for before, after in pairs for d in _drops(before, after)]
    return Effect(drops=drops,
                  short_before=sum(r.short_hours for before, _ in pairs for r in before.roles),
                  short_after=sum(r.short_hours for _, after in pairs for r in after.roles),
                  clipped=clipped)
