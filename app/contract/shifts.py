"""Shifts on the wire: the Shift resource with its segments and pay codes, the (extension) create,
update and claim bodies, and the list query.

Shape only. Whether segments fit inside their shift, overlap checks, claims and versions are the
API's business (each has its own problem code), never these models'.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, ValidationInfo, field_validator

from app.contract.common import (
    EXTENSION,
    ApiModel,
    Id,
    ListQuery,
    Omittable,
    OpenModel,
    Page,
    Timestamp,
    is_absent,
)
from app.contract.skills import SkillRequirement

SegmentType = Literal["working", "paid_break", "unpaid_break", "on_call"]
"""What a provider does during a segment."""

BREAK_TYPES: frozenset[str] = frozenset({"paid_break", "unpaid_break"})
"""Segment types that are breaks (`isBreak` true)."""

_PAY_CODES = "Pay code of the whole shift; at most one."
_WORK_RULE = "Id of a work rule that replaces the team's for this shift."
_DISPLAY_NAME = "Only present when the request opts in with `includeDisplayNames`."
_DEPRECATED = "Deprecated; left out when empty."
_DEPRECATION: dict[str, Any] = {"deprecated": True}


class ShiftPayCode(ApiModel):
    """A pay code applied to a shift; `value` is left out unless the pay code is variable."""

    pay_code_id: Id
    value: float | None = Field(
        default=None, exclude_if=is_absent, description="Amount, for variable pay codes only."
    )


class ShiftSegmentRead(ApiModel):
    """A stretch of a shift in one role doing one kind of work.

    `roleName` and `roleColor` are left out unless display names were asked for (and then also
    when unknown); the deprecated `roleImportedId` and `additionalInfo` are left out when empty.
    """

    id: Id
    imported_id: str | None = Field(description="Id in an external system, if created there.")
    created_at: Timestamp
    role: Id | None = Field(description="Id of the role; null if pulled from an external system.")
    role_name: str | None = Field(default=None, exclude_if=is_absent, description=_DISPLAY_NAME)
    role_color: str | None = Field(default=None, exclude_if=is_absent, description=_DISPLAY_NAME)
    # Marked in the schema only: pydantic's `deprecated=` would warn on every attribute read.
    role_imported_id: str | None = Field(
        default=None, exclude_if=is_absent, description=_DEPRECATED, json_schema_extra=_DEPRECATION
    )
    additional_info: Any = Field(
        default=None, exclude_if=is_absent, description=_DEPRECATED, json_schema_extra=_DEPRECATION
    )
    is_break: bool
    is_on_call: bool
    type: SegmentType
    start_date: Timestamp
    end_date: Timestamp
    skill_requirement: SkillRequirement | None = None
    labels: list[Id] = Field(description="Ids of the segment's labels.")


class ShiftRead(ApiModel):
    """A shift of one provider (or an open shift when `provider` is null).

    `providerName` is left out unless display names were asked for (and then also when unknown);
    `version` is left out only when unknown.
    """

    id: Id
    created_at: Timestamp
    version: int | None = Field(
        default=None,
        exclude_if=is_absent,
        description="Optimistic-locking version; send it back on update to detect conflicts.",
    )
    provider: Id | None = Field(description="Id of the provider; null means an open shift.")
    provider_name: str | None = Field(
        default=None, exclude_if=is_absent, description=_DISPLAY_NAME
    )
    start_date: Timestamp
    end_date: Timestamp
    segments: list[ShiftSegmentRead] = Field(description="Ordered by start date.")
    pay_codes: list[ShiftPayCode] = Field(
        default_factory=list, max_length=1, description=_PAY_CODES
    )
    team: Id | None
    note: str | None = Field(description="Visible to providers.")
    is_callout: bool = Field(
        description="Callout shifts are hidden from reads unless asked for with includeCallouts."
    )
    work_rule_override: Id | None = Field(description=_WORK_RULE)


class ShiftPage(Page[ShiftRead]):
    """A page of shifts."""


class ShiftListQuery(ListQuery):
    """Query of GET /v1/shifts: shifts overlapping the window, ordered by start."""

    start_date: Timestamp | None = Field(default=None, description="Shifts ending after.")
    end_date: Timestamp | None = Field(default=None, description="Shifts starting before.")
    provider_id: Id | None = None
    team_id: Id | None = None
    open_only: bool = Field(default=False, description="Only open shifts (no provider).")
    include_callouts: bool = Field(default=False, description="Also list callout shifts.")
    include_display_names: bool = Field(
        default=False, description="Fill providerName, roleName and roleColor."
    )


class ShiftGetQuery(ApiModel):
    """Query of GET /v1/shifts/{shiftId}."""

    include_display_names: bool = Field(
        default=False, description="Fill providerName, roleName and roleColor."
    )


class ShiftDeleteQuery(ApiModel):
    """Query of DELETE /v1/shifts/{shiftId} (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    version: int | None = Field(
        default=None, ge=0,
        description="The version being deleted; an outdated one fails with `version-conflict` "
                    "and the shift stays. Left out, the latest version is deleted.")


class ShiftSegmentCreate(ApiModel):
    """A segment of a shift being created or replaced (extension).

    `isBreak` and `isOnCall` follow from `type` when left out, and must agree with it when given.
    """

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    role: Id
    type: SegmentType
    start_date: Timestamp
    end_date: Timestamp
    is_break: bool | None = Field(
        default=None, validate_default=True, description="Defaults from `type`."
    )
    is_on_call: bool | None = Field(
        default=None, validate_default=True, description="Defaults from `type`."
    )
    skill_requirement: SkillRequirement | None = None
    labels: list[Id] = Field(default_factory=list, description="Ids of labels.")

    @field_validator("is_break", "is_on_call")
    @classmethod
    def _flag_follows_type(cls, flag: bool | None, info: ValidationInfo) -> bool | None:
        segment_type = info.data.get("type")
        if segment_type is None:  # `type` itself failed; that error is enough
            return flag
        expected = segment_type in BREAK_TYPES if info.field_name == "is_break" else (
            segment_type == "on_call"
        )
        if flag is None:
            return expected
        if flag != expected:
            raise ValueError(f"must be {str(expected).lower()} for a {segment_type} segment")
        return flag


class ShiftCreate(ApiModel):
    """Body of POST /v1/shifts (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider: Id | None = Field(default=None, description="Null or left out: an open shift.")
    start_date: Timestamp
    end_date: Timestamp
    segments: list[ShiftSegmentCreate] = Field(min_length=1)
    pay_codes: list[ShiftPayCode] = Field(
        default_factory=list, max_length=1, description=_PAY_CODES
    )
    team: Id | None = None
    note: str | None = Field(default=None, description="Visible to providers.")
    is_callout: bool = False
    work_rule_override: Id | None = Field(default=None, description=_WORK_RULE)


class ShiftUpdate(ApiModel):
    """Body of PATCH /v1/shifts/{shiftId} (extension): members left out keep their value.

    `segments` and `payCodes`, when given, replace the whole list.
    """

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider: Id | None = Field(default=None, description="Null makes the shift open.")
    start_date: Omittable[Timestamp]
    end_date: Omittable[Timestamp]
    segments: Omittable[list[ShiftSegmentCreate]] = Field(min_length=1)
    pay_codes: Omittable[list[ShiftPayCode]] = Field(max_length=1, description=_PAY_CODES)
    team: Id | None = None
    note: str | None = None
    is_callout: Omittable[bool]
    work_rule_override: Id | None = Field(default=None, description=_WORK_RULE)
    version: Omittable[Annotated[int, Field(ge=0)]] = Field(
        description="The version being changed; an outdated one fails with `version-conflict`. "
                    "Left out, the change applies to the latest version.",
    )


class ShiftClaim(ApiModel):
    """Body of POST /v1/shifts/{shiftId}/claim (extension); may be empty."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider: Id | None = Field(
        default=None,
        description="Provider claiming the open shift; defaults to the caller's own provider.",
    )


class ShiftClaimCheckQuery(ApiModel):
    """Query of GET /v1/shifts/claim-checks (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    shift_ids: list[Id] = Field(
        min_length=1, max_length=200,
        description="The open shifts to check (comma-separated or repeated), at most 200.")
    provider: Id | None = Field(
        default=None, description="Who would claim them; defaults to the caller's own provider.")


class ClaimCheckRefusal(OpenModel):
    """One reason a claim would be refused: the problem code and sentence the claim would
    answer, with that code's members."""

    code: str
    title: str
    detail: str


class ShiftClaimCheck(ApiModel):
    """Whether the provider may claim one open shift, and every reason not."""

    shift_id: Id
    claimable: bool
    refusals: list[ClaimCheckRefusal]
    needed_minutes: int = Field(ge=0, description=(
        "Extension: the whole minutes of the shift's working time (breaks and on-call time "
        "aside) during which its role on its team is scheduled below the demand forecast, "
        "counting staff as GET /v1/forecasting/coverage does (assigned shifts less approved "
        "time off; open shifts and callouts not). 0 without a forecast. The one figure a "
        "provider, who may not view the forecast, learns of it: it sorts open shifts by need."))


class ShiftClaimChecks(ApiModel):
    """Answer of GET /v1/shifts/claim-checks (extension), in the order asked."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    items: list[ShiftClaimCheck]
