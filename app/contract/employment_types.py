"""Employment types on the wire: the EmploymentType resource and its list query. Shape only."""

from __future__ import annotations

from typing import Literal

from app.contract.common import ApiModel, Id, ListQuery, Page, Timestamp

EmploymentKind = Literal["contractor", "employee"]
"""The `type` of an employment type."""

CompensationTimePeriod = Literal["hourly", "salaried"]
"""How pay is reckoned."""

AmountWorked = Literal["part_time", "full_time", "temporary"]
"""How much a provider of this employment type works."""


class EmploymentTypeRead(ApiModel):
    """A kind of employment a provider can have."""

    id: Id
    name: str
    type: EmploymentKind
    compensation_time_period: CompensationTimePeriod
    amount_worked: AmountWorked
    created_at: Timestamp
    updated_at: Timestamp


class EmploymentTypePage(Page[EmploymentTypeRead]):
    """A page of employment types."""


class EmploymentTypeListQuery(ListQuery):
    """Query of GET /v1/employment-types."""
