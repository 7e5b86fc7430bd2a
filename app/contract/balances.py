"""Time-off balances on the wire (extensions): a policy's accrual settings, a provider's
balances and ledger as of a day, the accrual run, and balance reset uploads.

Amounts are exact: `exact` is a decimal string when the amount has a finite decimal expansion
("12.5", "-16"), else the fraction in lowest terms ("208/3"); `value` is the same amount rounded
to 4 places, for display only. Amounts sent in are strings too: a decimal with at most 6 places
("12.5") or a fraction ("1/30"). Shape only: the API checks ranges that need data.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, WithJsonSchema

from app.contract.common import EXTENSION, ApiModel, Id, ListQuery, Page, Timestamp

_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_MONTH_DAY = re.compile(r"^(\d{2})-(\d{2})$")


def _day(value: Any) -> Any:
    if isinstance(value, date):
        return value
    if not isinstance(value, str) or not _DAY.match(value):
        raise ValueError("must be a day written YYYY-MM-DD, between 1900-01-01 and 2999-12-31")
    try:
        day = date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value} is not a day of the calendar") from None
    if not date(1900, 1, 1) <= day <= date(2999, 12, 31):
        raise ValueError("must lie between 1900-01-01 and 2999-12-31")
    return day


Day = Annotated[date, BeforeValidator(_day),
                WithJsonSchema({"type": "string", "format": "date"})]
"""A calendar day, `YYYY-MM-DD`, between 1900-01-01 and 2999-12-31."""


def _month_day(value: Any) -> Any:
    match = _MONTH_DAY.match(value) if isinstance(value, str) else None
    if match is None:
        raise ValueError("must be a month and day written MM-DD, such as 01-01")
    month, day = int(match[1]), int(match[2])
    if not 1 <= month <= 12 or not 1 <= day <= 31 or (month, day) in {(2, 30), (2, 31), (4, 31),
                                                                      (6, 31), (9, 31), (11, 31)}:
        raise ValueError(f"{value} is not a day of the year")
    return value


MonthDay = Annotated[str, BeforeValidator(_month_day),
                     WithJsonSchema({"type": "string", "pattern": r"^\d{2}-\d{2}$"})]
"""A day of the year, `MM-DD` (29 February falls on the 28th in other years)."""

AmountText = Annotated[str, Field(min_length=1, max_length=40, description=(
    "An exact amount: a decimal with at most 6 places (\"12.5\") or a fraction (\"1/30\")."))]

AccrualMethod = Literal["per_hour_worked", "per_period", "up_front"]
AccrualPeriod = Literal["pay_period", "monthly", "yearly"]
DebitOn = Literal["approval", "leave_date"]
LedgerKind = Literal["accrual", "usage", "reversal", "carry_over", "forfeit", "expiry", "reset",
                     "adjustment"]


class Amount(ApiModel):
    """An exact amount in the policy's unit."""

    exact: str = Field(description="\"12.5\", \"-16\" or, without a finite decimal, \"208/3\".")
    value: float = Field(description="The amount rounded to 4 places, for display only.")


class AccrualSettingsWrite(ApiModel):
    """Body of PUT /v1/time-off/policies/{policyId}/accrual (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    method: AccrualMethod = Field(description=(
        "`per_hour_worked`: rate units per hour worked in each period; `per_period`: rate units "
        "per period; `up_front`: rate units granted on the start date and each year's start."))
    rate: AmountText
    start_date: Day = Field(description="Accrual counts from this day (periods beginning on or "
                                        "after it).")
    period: AccrualPeriod = "pay_period"
    period_anchor: Day | None = Field(
        default=None, description="A first day of a 14-day pay period; the start date when null.")
    balance_cap: AmountText | None = None
    annual_accrual_cap: AmountText | None = None
    annual_use_limit: AmountText | None = None
    carry_over_max: AmountText | None = Field(
        default=None, description="At the year's start, a balance above this is forfeited; "
                                  "nothing is forfeited when null.")
    carry_over_date: MonthDay = Field(default="01-01", description="The accrual year's first day.")
    waiting_period_days: int = Field(default=0, ge=0, le=3660)
    allow_negative: bool = False
    negative_floor: AmountText = Field(default="0", description="The lowest balance a usage may "
                                       "leave when allowNegative (zero or below).")
    debit_on: DebitOn = Field(default="approval", description=(
        "`approval`: usage is dated the approval day; `leave_date`: dated the leave's first day. "
        "Either way it is posted (and checked) at approval."))


class AccrualSettingsRead(AccrualSettingsWrite):
    """A policy's accrual settings (extension); amounts as stored, exact."""

    policy_id: Id
    unit: Literal["hours", "days"]
    updated_at: Timestamp


class LedgerEntryRead(ApiModel):
    """One ledger entry: never changed once written."""

    id: Id
    policy_id: Id
    kind: LedgerKind
    effective_date: date
    amount: Amount
    target: Amount | None = Field(default=None, description="A reset's balance from its date; "
                                  "a carry-over's amount carried.")
    request_id: Id | None = None
    upload_id: Id | None = None
    source_key: str
    created_at: Timestamp
    created_by_id: Id | None = None


class BalanceRead(ApiModel):
    """A provider's balance in one policy as of a day."""

    policy_id: Id
    policy_name: str
    unit: Literal["hours", "days"]
    balance: Amount = Field(description="The sum of the entries dated on or before asOf.")
    floor: Amount = Field(description="The lowest a usage may leave the balance.")
    available: Amount = Field(description="balance - floor.")
    pending: Amount = Field(description="What the provider's pending requests would use.")
    cap: Amount | None = Field(default=None, description="The balance cap, if any.")
    used_this_year: Amount = Field(description="Usage less reversals in asOf's accrual year.")
    annual_use_limit: Amount | None = None


class BalancesRead(ApiModel):
    """Answer of GET /v1/time-off/balances (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    provider_id: Id
    as_of: date
    balances: list[BalanceRead]
    entries: list[LedgerEntryRead] = Field(description=(
        "Ledger entries dated on or before asOf, newest first, at most `entryLimit`."))
    more_entries: bool = Field(description="Whether older entries were left out.")


class BalancesQuery(ApiModel):
    """Query of GET /v1/time-off/balances."""

    provider_id: Id | None = Field(default=None, description="Default: the caller's provider.")
    policy_id: Id | None = None
    as_of: Day | None = Field(default=None, description="Default: today in the site's zone.")
    entry_limit: int = Field(default=200, ge=0, le=1000)


class AccrualRun(ApiModel):
    """Body of POST /v1/time-off/accruals (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    through: Day
    policy_id: Id | None = Field(default=None, description="Default: every policy with "
                                                          "accrual settings.")


class AccrualRunResult(ApiModel):
    """What an accrual run appended."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    through: date
    policies: int
    providers: int
    entries: int = Field(description="Entries appended; 0 when run again.")


class BalanceResetRow(ApiModel):
    """One row of a balance reset upload as read, and what it did."""

    row: int = Field(description="The row's number in the file (the header is row 0).")
    provider_id: Id
    policy_id: Id
    balance: Amount
    effective_date: date
    adjustment: Amount | None = Field(default=None, description="What the reset entry added.")


class BalanceResetUploadRead(ApiModel):
    """Answer of POST and GET /v1/time-off/balance-resets[/{uploadId}] (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    id: Id
    status: Literal["completed"]
    file_name: str | None
    row_count: int
    rows: list[BalanceResetRow]
    errors: list[dict[str, Any]] = Field(default_factory=list, description=(
        "Always empty for a stored upload: a file with a bad row is refused whole "
        "(`invalid-balance-reset-rows`)."))
    created_at: Timestamp
    created_by_id: Id | None


class BalanceResetUploadSummary(ApiModel):
    """A balance reset upload as GET /v1/time-off/balance-resets lists it: without its rows."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    id: Id
    status: Literal["completed"]
    file_name: str | None
    row_count: int
    created_at: Timestamp
    created_by_id: Id | None


class BalanceResetUploadPage(Page[BalanceResetUploadSummary]):
    """A page of balance reset uploads, newest first (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class BalanceResetUploadListQuery(ListQuery):
    """Query of GET /v1/time-off/balance-resets (extension)."""
