"""A work rule's preview on the wire (extension): what a team's providers would be paid over a
past window under a draft rule, beside what they are paid under their current one."""

from __future__ import annotations

from pydantic import ConfigDict, Field

from app.contract.common import EXTENSION, ApiModel, Id, Timestamp
from app.contract.work_rules import WorkRuleCreate

_EXT = ConfigDict(json_schema_extra=EXTENSION)

MAX_PREVIEW_DAYS = 62
"""The longest window a preview computes (two months: a pay period or two)."""


class WorkRulePreviewCreate(ApiModel):
    """Body of POST /v1/settings/work-rules/preview."""

    model_config = _EXT

    team_id: Id
    start_date: Timestamp
    end_date: Timestamp = Field(description=f"At most {MAX_PREVIEW_DAYS} days after startDate.")
    work_rule: WorkRuleCreate = Field(
        description="The draft, as POST /v1/settings/work-rules takes it (a preset or explicit "
        "rules). Nothing is saved; its effectiveFrom is ignored: the draft is applied to the "
        "whole window.")


class PaidHours(ApiModel):
    """Paid minutes in the window by class: regular (paid breaks included), overtime (rules
    paying less than double) and double time."""

    model_config = _EXT

    regular_minutes: int
    overtime_minutes: int
    double_time_minutes: int


class WorkRulePreviewItem(ApiModel):
    """One provider's paid minutes under the current rule and under the draft."""

    model_config = _EXT

    provider_id: Id
    name: str
    current: PaidHours
    proposed: PaidHours
    difference: PaidHours = Field(description="proposed minus current")


class WorkRulePreview(ApiModel):
    """A draft work rule applied to a team's past window, provider by provider."""

    model_config = _EXT

    team_id: Id
    start_date: Timestamp
    end_date: Timestamp
    current_work_rule_id: Id | None = Field(description="The team's rule now; null: none, "
                                                        "every minute is regular.")
    items: list[WorkRulePreviewItem] = Field(description="By provider name; only providers "
                                                         "whose timesheet the caller may view.")
    totals: WorkRulePreviewItem | None = Field(
        description="The team's sums (providerId is the team's id, name the team's name); null "
        "when no provider is listed.")
