"""`POST /v1/settings/work-rules/preview` (extension): a draft work rule applied to a team's past
window beside the team's current rule. A thin view over `app.api.services.pay_preview`; the
clock is read here, at the edge."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.routing import endpoint
from app.api.services import pay_preview as service
from app.config import Settings
from app.contract.pay_preview import WorkRulePreview, WorkRulePreviewCreate


@endpoint("POST", "/settings/work-rules/preview", summary="Preview a draft work rule",
          body=WorkRulePreviewCreate, response=WorkRulePreview,
          codes=["validation", "unauthorized", "negative-range", "team-not-found",
                 "overtime-rule-not-found", "rounding-rule-not-found", "pay-code-not-found"],
          extension=True, tag="Work rules", permits=[("create", "WorkRule")])
def preview_work_rule(session: Session, actor: Actor, settings: Settings,
                      body: WorkRulePreviewCreate) -> WorkRulePreview:
    """Each provider's regular, overtime and double-time minutes over `[startDate, endDate)`
    (at most 62 days) under the team's current work rule and under the draft `workRule` (the
    body of `POST /v1/settings/work-rules`, checked the same way), with the difference, and the
    team's totals. Nothing is saved: a preset's overtime rules are made and discarded. The
    draft applies to the whole window whatever its `effectiveFrom`. Providers whose timesheet
    the caller may not view are left out."""
    return service.preview(session, actor=actor, body=body, now=datetime.now(UTC),
                           zone=settings.zone, grace_minutes=settings.grace_minutes)
