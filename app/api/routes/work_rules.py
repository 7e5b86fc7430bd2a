"""Pay rules (extension): overtime rules, rounding rules, work rules with dated versions, the
presets, and `PUT /v1/teams/{teamId}/work-rule`.

Any signed-in user may read them (providers learn when overtime starts); writes need the
`WorkRule` subject (admins by default). Thin views over `app.api.services.work_rules`; the clock
is read here, at the edge.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from flask import url_for
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import work_rules as service
from app.contract.teams import TeamRead
from app.contract.work_rules import (
    OvertimeRuleCreate,
    OvertimeRuleListQuery,
    OvertimeRulePage,
    OvertimeRuleRead,
    OvertimeRuleUpdate,
    RoundingRuleCreate,
    RoundingRuleListQuery,
    RoundingRulePage,
    RoundingRuleRead,
    RoundingRuleUpdate,
    TeamWorkRule,
    WorkRuleCreate,
    WorkRuleGetQuery,
    WorkRuleListQuery,
    WorkRulePage,
    WorkRulePresetList,
    WorkRuleRead,
    WorkRuleUpdate,
)

_OT = "Overtime rules"
_ROUND = "Rounding rules"
_WORK = "Work rules"


# Overtime rules ------------------------------------------------------------------------------

@endpoint("GET", "/settings/overtime-rules", summary="List overtime rules",
          query=OvertimeRuleListQuery, response=OvertimeRulePage, extension=True, tag=_OT)
def list_overtime_rules(session: Session, query: OvertimeRuleListQuery, pages: Paginator,
                        ) -> OvertimeRulePage:
    """Overtime rules by name, each with its pay code's multiplier."""
    items, cursor = service.list_overtime_rules(session, query=query, pages=pages)
    return OvertimeRulePage(items=items, cursor=cursor)


@endpoint("GET", "/settings/overtime-rules/<overtime_rule_id>", summary="Get an overtime rule",
          response=OvertimeRuleRead, codes=["overtime-rule-not-found"], extension=True, tag=_OT)
def get_overtime_rule(session: Session, overtime_rule_id: uuid.UUID) -> OvertimeRuleRead:
    """One overtime rule."""
    return service.get_overtime_rule(session, rule_id=overtime_rule_id)


@endpoint("POST", "/settings/overtime-rules", summary="Create an overtime rule",
          body=OvertimeRuleCreate, response=OvertimeRuleRead, status=201,
          codes=["validation", "unauthorized", "pay-code-not-found"], extension=True, tag=_OT,
          permits=[("create", "WorkRule")])
def create_overtime_rule(session: Session, actor: Actor, body: OvertimeRuleCreate,
                         ) -> tuple[OvertimeRuleRead, dict[str, str]]:
    """Create an overtime rule; `thresholdMinutes` is at most 1440 for `daily` and
    `seventhDay`, 10080 for `weekly`, 20160 for `period`."""
    rule = service.create_overtime_rule(session, actor=actor, body=body, now=datetime.now(UTC))
    return service.get_overtime_rule(session, rule_id=rule.id), {
        "Location": url_for("api.get_overtime_rule", overtime_rule_id=rule.id)}


@endpoint("PATCH", "/settings/overtime-rules/<overtime_rule_id>",
          summary="Update an overtime rule", body=OvertimeRuleUpdate, response=OvertimeRuleRead,
          codes=["overtime-rule-not-found", "validation", "unauthorized", "version-conflict",
                 "pay-code-not-found"], extension=True, tag=_OT,
          locate=service.locate_overtime_rule, permits=[("edit", "WorkRule")])
def update_overtime_rule(session: Session, actor: Actor, body: OvertimeRuleUpdate,
                         overtime_rule_id: uuid.UUID) -> OvertimeRuleRead:
    """Change the members sent. Work rule versions keep the snapshot they took; give a work rule
    a new version (PATCH with `effectiveFrom` and `overtimeRuleIds`) to apply the change."""
    service.update_overtime_rule(session, actor=actor, rule_id=overtime_rule_id, body=body,
                                 now=datetime.now(UTC))
    return service.get_overtime_rule(session, rule_id=overtime_rule_id)


@endpoint("DELETE", "/settings/overtime-rules/<overtime_rule_id>",
          summary="Delete an overtime rule", status=204,
          codes=["overtime-rule-not-found", "unauthorized", "rule-in-use"], extension=True,
          tag=_OT, permits=[("edit", "WorkRule")])
def delete_overtime_rule(session: Session, actor: Actor, overtime_rule_id: uuid.UUID) -> None:
    """Delete an overtime rule that no current or future work rule version uses
    (`rule-in-use` names those rules); past versions keep their snapshot."""
    service.delete_overtime_rule(session, actor=actor, rule_id=overtime_rule_id,
                                 now=datetime.now(UTC))


# Rounding rules ------------------------------------------------------------------------------

@endpoint("GET", "/settings/rounding-rules", summary="List rounding rules",
          query=RoundingRuleListQuery, response=RoundingRulePage, extension=True, tag=_ROUND)
def list_rounding_rules(session: Session, query: RoundingRuleListQuery, pages: Paginator,
                        ) -> RoundingRulePage:
    """Rounding rules by name."""
    rows, cursor = service.list_rounding_rules(session, query=query, pages=pages)
    return RoundingRulePage(items=[RoundingRuleRead.model_validate(r) for r in rows],
                            cursor=cursor)


@endpoint("GET", "/settings/rounding-rules/<rounding_rule_id>", summary="Get a rounding rule",
          response=RoundingRuleRead, codes=["rounding-rule-not-found"], extension=True,
          tag=_ROUND)
def get_rounding_rule(session: Session, rounding_rule_id: uuid.UUID) -> RoundingRuleRead:
    """One rounding rule."""
    return RoundingRuleRead.model_validate(
        service.get_rounding_rule(session, rule_id=rounding_rule_id))


@endpoint("POST", "/settings/rounding-rules", summary="Create a rounding rule",
          body=RoundingRuleCreate, response=RoundingRuleRead, status=201,
          codes=["validation", "unauthorized"], extension=True, tag=_ROUND,
          permits=[("create", "WorkRule")])
def create_rounding_rule(session: Session, actor: Actor, body: RoundingRuleCreate,
                         ) -> tuple[RoundingRuleRead, dict[str, str]]:
    """Create a rounding rule; `intervalMinutes` must divide 60 (5, 6, 10, 15 …)."""
    rule = service.create_rounding_rule(session, actor=actor, body=body, now=datetime.now(UTC))
    return RoundingRuleRead.model_validate(rule), {
        "Location": url_for("api.get_rounding_rule", rounding_rule_id=rule.id)}


@endpoint("PATCH", "/settings/rounding-rules/<rounding_rule_id>",
          summary="Update a rounding rule", body=RoundingRuleUpdate, response=RoundingRuleRead,
          codes=["rounding-rule-not-found", "validation", "unauthorized", "version-conflict"],
          extension=True, tag=_ROUND, locate=service.locate_rounding_rule,
          permits=[("edit", "WorkRule")])
def update_rounding_rule(session: Session, actor: Actor, body: RoundingRuleUpdate,
                         rounding_rule_id: uuid.UUID) -> RoundingRuleRead:
    """Change the members sent; work rule versions keep the snapshot they took."""
    return RoundingRuleRead.model_validate(service.update_rounding_rule(
        session, actor=actor, rule_id=rounding_rule_id, body=body, now=datetime.now(UTC)))


@endpoint("DELETE", "/settings/rounding-rules/<rounding_rule_id>",
          summary="Delete a rounding rule", status=204,
          codes=["rounding-rule-not-found", "unauthorized", "rule-in-use"], extension=True,
          tag=_ROUND, permits=[("edit", "WorkRule")])
def delete_rounding_rule(session: Session, actor: Actor, rounding_rule_id: uuid.UUID) -> None:
    """Delete a rounding rule that no current or future work rule version uses."""
    service.delete_rounding_rule(session, actor=actor, rule_id=rounding_rule_id,
                                 now=datetime.now(UTC))


# Work rules ----------------------------------------------------------------------------------

@endpoint("GET", "/settings/work-rule-presets", summary="List work rule presets",
          response=WorkRulePresetList, extension=True, tag=_WORK)
def list_work_rule_presets() -> WorkRulePresetList:
    """The ready-made rule sets (US federal, US hospital 8 and 80, California), each with the
    law it follows; `POST /v1/settings/work-rules` with `preset` creates one."""
    return WorkRulePresetList(items=service.list_presets())


@endpoint("GET", "/settings/work-rules", summary="List work rules", query=WorkRuleListQuery,
          response=WorkRulePage, extension=True, tag=_WORK)
def list_work_rules(session: Session, query: WorkRuleListQuery, pages: Paginator,
                    ) -> WorkRulePage:
    """Work rules by name, each with the version in effect on `asOf` (default today)."""
    rows, cursor = service.list_work_rules(session, query=query, pages=pages)
    now = datetime.now(UTC)
    return WorkRulePage(items=[service.work_rule_read(r, as_of=query.as_of, now=now)
                               for r in rows], cursor=cursor)


@endpoint("GET", "/settings/work-rules/<work_rule_id>", summary="Get a work rule",
          query=WorkRuleGetQuery, response=WorkRuleRead, codes=["work-rule-not-found"],
          extension=True, tag=_WORK)
def get_work_rule(session: Session, query: WorkRuleGetQuery, work_rule_id: uuid.UUID,
                  ) -> WorkRuleRead:
    """One work rule: `current` is the version in effect on `asOf` (default today in the
    rule's zone), null before its first version; `versions` lists every version."""
    rule = service.get_work_rule(session, rule_id=work_rule_id)
    return service.work_rule_read(rule, as_of=query.as_of, now=datetime.now(UTC))


@endpoint("POST", "/settings/work-rules", summary="Create a work rule", body=WorkRuleCreate,
          response=WorkRuleRead, status=201,
          codes=["validation", "unauthorized", "overtime-rule-not-found",
                 "rounding-rule-not-found", "pay-code-not-found"],
          extension=True, tag=_WORK, permits=[("create", "WorkRule")])
def create_work_rule(session: Session, actor: Actor, body: WorkRuleCreate,
                     ) -> tuple[WorkRuleRead, dict[str, str]]:
    """Create a work rule with its first version. `effectiveFrom` must be the first day of a
    workweek (`weekStartDay`, 0 Monday … 6 Sunday; default Sunday); left out, the current
    workweek's. With `preset`, its overtime rules are created in the same transaction, paying
    under `payCodes` (default: the hours pay codes worth 1.5 and 2.0)."""
    now = datetime.now(UTC)
    rule = service.create_work_rule(session, actor=actor, body=body, now=now)
    rule = service.get_work_rule(session, rule_id=rule.id)
    return service.work_rule_read(rule, as_of=None, now=now), {
        "Location": url_for("api.get_work_rule", work_rule_id=rule.id)}


@endpoint("PATCH", "/settings/work-rules/<work_rule_id>", summary="Version a work rule",
          body=WorkRuleUpdate, response=WorkRuleRead,
          codes=["work-rule-not-found", "validation", "unauthorized", "version-conflict",
                 "overtime-rule-not-found", "rounding-rule-not-found", "pay-code-not-found",
                 "timesheet-signed-off"],
          extension=True, tag=_WORK, locate=service.locate_work_rule,
          permits=[("edit", "WorkRule")])
def update_work_rule(session: Session, actor: Actor, body: WorkRuleUpdate,
                     work_rule_id: uuid.UUID) -> WorkRuleRead:
    """Make a new version from `effectiveFrom` (required; the first day of a workweek, and of
    a 14-day period under period rules); members left out come from the version in effect on
    that day. A version starting that same day that has not taken effect is replaced; past
    versions are kept, so past periods keep their rules. Refused (`timesheet-signed-off`)
    when a team using the rule has signed off time after `effectiveFrom`."""
    now = datetime.now(UTC)
    service.update_work_rule(session, actor=actor, rule_id=work_rule_id, body=body, now=now)
    rule = service.get_work_rule(session, rule_id=work_rule_id)
    return service.work_rule_read(rule, as_of=None, now=now)


@endpoint("PUT", "/teams/<team_id>/work-rule", summary="Set a team's work rule",
          body=TeamWorkRule, response=TeamRead,
          codes=["team-not-found", "work-rule-not-found", "validation", "unauthorized",
                 "timesheet-signed-off"],
          extension=True, tag="Teams", locate=service.locate_team,
          permits=[("edit", "WorkRule")])
def set_team_work_rule(session: Session, actor: Actor, body: TeamWorkRule, team_id: uuid.UUID,
                       ) -> TeamRead:
    """Give the team a work rule (`workRuleId`), or none (null: every minute is regular).
    Refused (`timesheet-signed-off`) while the team has signed-off time after the first
    version of its old or new rule starts, which the change would recompute."""
    team = service.assign_team_rule(session, actor=actor, team_id=team_id, body=body)
    return TeamRead.model_validate(team)
