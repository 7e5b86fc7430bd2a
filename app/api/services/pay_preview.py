"""A draft work rule's preview (extension): a team's past window computed twice, under the
team's rule and under the draft, provider by provider, with the difference.

The draft is made exactly as `POST /v1/settings/work-rules` makes a rule (the same checks, a
preset's overtime rules included) inside a savepoint that is always rolled back, so a preview
refuses what saving would refuse and saves nothing. The draft then applies to the whole window,
whatever its `effectiveFrom`. Must not commit or read the clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta, tzinfo

from sqlalchemy import select
from sqlalchemy.orm import Session, load_only

from app.api.auth import Actor
from app.api.domain import intervals as iv
from app.api.domain import pay_rules
from app.api.domain import timesheets as sheets
from app.api.models import PayCode, Provider, Team
from app.api.problems import not_found, validation
from app.api.services import timekeeping, work_rules
from app.api.subjects import TIMESHEET
from app.contract.pay_preview import (
    MAX_PREVIEW_DAYS,
    PaidHours,
    WorkRulePreview,
    WorkRulePreviewCreate,
    WorkRulePreviewItem,
)

Classes = tuple[int, int, int]
"""Seconds (or whole minutes) of regular time, overtime and double time."""


def _draft_rules(session: Session, *, actor: Actor, body: WorkRulePreviewCreate,
                 now: datetime) -> tuple[pay_rules.WorkRule, ...]:
    """The draft's version as the pay engine takes it, in effect from the beginning. Raises
    what creating the rule raises (`unauthorized`, `validation`, `…-not-found`)."""
    savepoint = session.begin_nested()
    try:
        rule = work_rules.create_work_rule(session, actor=actor, body=body.work_rule, now=now)
        versions = work_rules.rule_versions_by_id(session, [rule.id])[rule.id]
    finally:
        savepoint.rollback()
    latest = timekeeping.engine_rule(versions[-1])
    return (replace(latest, effective_from=None),)


def _seconds_by_class(sheet: sheets.Timesheet, multipliers: dict[str, float]) -> Classes:
    """The paid seconds of a sheet by class: a segment paid under an overtime rule is double
    time when its pay code is worth 2 or more, else overtime; the rest of the paid time is
    regular."""
    regular = overtime = double = 0
    for segment in sheet.pay_segments:
        if segment.type == "unpaid_break" or not segment.pay_codes:
            continue
        if not segment.overtime:
            regular += segment.seconds
        elif multipliers.get(str(segment.pay_codes[0]), 1.0) >= 2:
            double += segment.seconds
        else:
            overtime += segment.seconds
    return regular, overtime, double


def _hours(seconds: Classes) -> PaidHours:
    regular, overtime, double = (iv.whole_minutes(s) for s in seconds)
    return PaidHours(regular_minutes=regular, overtime_minutes=overtime,
                     double_time_minutes=double)


def _item(provider_id: str, name: str, current: Classes, proposed: Classes
          ) -> WorkRulePreviewItem:
    before, after = _hours(current), _hours(proposed)
    return WorkRulePreviewItem(
        provider_id=provider_id, name=name, current=before, proposed=after,
        difference=PaidHours(
            regular_minutes=after.regular_minutes - before.regular_minutes,
            overtime_minutes=after.overtime_minutes - before.overtime_minutes,
            double_time_minutes=after.double_time_minutes - before.double_time_minutes))


def _sum(rows: Sequence[Classes]) -> Classes:
    return (sum(r[0] for r in rows), sum(r[1] for r in rows), sum(r[2] for r in rows))


def preview(session: Session, *, actor: Actor, body: WorkRulePreviewCreate, now: datetime,
            zone: tzinfo, grace_minutes: int) -> WorkRulePreview:
    """Compute the team's providers' paid hours over `[startDate, endDate)` under the team's
    rule and under the draft. Raises `negative-range`, `validation` (window over
    `MAX_PREVIEW_DAYS`, the draft), `team-not-found`, `unauthorized` (create WorkRule) and the
    draft's `…-not-found` problems."""
    timekeeping.check_window(body.start_date, body.end_date)
    if body.end_date - body.start_date > timedelta(days=MAX_PREVIEW_DAYS):
        raise validation("/endDate", f"a preview covers at most {MAX_PREVIEW_DAYS} days; "
                                     "ask for a shorter window")
    team = session.get(Team, body.team_id)
    if team is None:
        raise not_found("team", body.team_id)
    draft = _draft_rules(session, actor=actor, body=body, now=now)
    providers = list(session.scalars(
        select(Provider).where(Provider.team_id == team.id,
                               actor.where("view", "Timesheet", TIMESHEET.columns))
        .options(load_only(Provider.id, Provider.name, Provider.team_id,
                           Provider.default_role_id, Provider.pay_period_template,
                           raiseload=True))
        .order_by(Provider.name, Provider.id)))
    common = {"providers": providers, "start": body.start_date, "end": body.end_date,
              "now": now, "zone": zone, "grace_minutes": grace_minutes}
    current = timekeeping.computed_timesheets(session, **common)  # type: ignore[arg-type]
    proposed = timekeeping.computed_timesheets(session, rules=draft,
                                               **common)  # type: ignore[arg-type]
    multipliers = {str(code): value for code, value in session.execute(
        select(PayCode.id, PayCode.value))}
    before = [_seconds_by_class(s, multipliers) for s in current]
    after = [_seconds_by_class(s, multipliers) for s in proposed]
    items = [_item(str(p.id), p.name, b, a)
             for p, b, a in zip(providers, before, after, strict=True)]
    return WorkRulePreview(
        team_id=team.id, start_date=body.start_date, end_date=body.end_date,
        current_work_rule_id=team.work_rule_id, items=items,
        totals=_item(str(team.id), team.name, _sum(before), _sum(after)) if items else None)
