"""Teams: `GET /v1/teams` and `GET /v1/teams/{teamId}`.

Visible to whoever may view the `Team` subject; the list is filtered by the same rules in SQL.
"""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.models import Team
from app.api.pagination import Paginator, SortKey
from app.api.problems import not_found
from app.api.routing import endpoint
from app.api.services import locator
from app.api.subjects import TEAM
from app.contract.teams import TeamListQuery, TeamPage, TeamRead, TeamUpdate


@endpoint("GET", "/teams", summary="List teams", query=TeamListQuery, response=TeamPage,
          tag="Teams")
def list_teams(session: Session, actor: Actor, query: TeamListQuery, pages: Paginator) -> TeamPage:
    """Teams the caller may view, ordered by name."""
    statement = select(Team).where(actor.where("view", "Team", TEAM.columns))
    rows, cursor = pages.page(session, statement, scope="teams", query=query,
                              order=[SortKey(Team.name), SortKey(Team.id)])
    return TeamPage(items=[TeamRead.model_validate(t) for t in rows], cursor=cursor)


@endpoint("GET", "/teams/<team_id>", summary="Get a team", response=TeamRead,
          codes=["team-not-found"], tag="Teams",
          permits=[("view", "Team")])
def get_team(session: Session, actor: Actor, team_id: uuid.UUID) -> TeamRead:
    """One team."""
    team = session.get(Team, team_id)
    if team is None:
        raise not_found("team", team_id)
    actor.require("view", "Team", TEAM.of(team))
    return TeamRead.model_validate(team)


@endpoint("PATCH", "/teams/<team_id>", summary="Change a team's settings", body=TeamUpdate,
          response=TeamRead, codes=["team-not-found", "unauthorized", "validation"],
          extension=True, tag="Teams", permits=[("edit", "Team")],
          locate=locator(Team, "team"))
def update_team(session: Session, actor: Actor, body: TeamUpdate, team_id: uuid.UUID) -> TeamRead:
    """Change the settings sent: `swapsNeedApproval` (whether an accepted shift swap waits for
    a manager)."""
    team = session.get(Team, team_id, with_for_update=True)
    if team is None:
        raise not_found("team", team_id)
    actor.require("edit", "Team", TEAM.of(team))
    if body.swaps_need_approval is not None:
        team.swaps_need_approval = body.swaps_need_approval
    session.flush()
    return TeamRead.model_validate(team)
