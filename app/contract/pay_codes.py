"""Pay codes on the wire: the PayCode resource (how time is paid) and its list query. Shape only."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.contract.common import ApiModel, HexColor, Id, ListQuery, Page

PayCodeType = Literal["hours", "days", "money"]
"""What a pay code's `value` counts."""


class PayCodeRead(ApiModel):
    """A pay code, such as regular hours, overtime or an on-call allowance."""

    id: Id
    name: str
    shorthand_name: str
    hex_color: HexColor
    type: PayCodeType
    value: float = Field(description="Amount in the unit given by `type`.")


class PayCodePage(Page[PayCodeRead]):
    """A page of pay codes."""


class PayCodeListQuery(ListQuery):
    """Query of GET /v1/settings/pay-codes."""
