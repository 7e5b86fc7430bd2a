"""The settings pages' sentences: pay code values, employment types and accrual settings."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from app.contract.balances import AccrualSettingsRead
from app.contract.employment_types import EmploymentTypeRead
from app.contract.pay_codes import PayCodeRead
from app.web.settings import words


def _accrual(**changes: Any) -> AccrualSettingsRead:
    data = {"policyId": str(uuid.uuid4()), "unit": "hours", "updatedAt": "2026-03-01T00:00:00Z",
            "method": "per_hour_worked", "rate": "0.0385", "startDate": "2026-01-01"}
    data.update(changes)
    return AccrualSettingsRead.model_validate(data)


@pytest.mark.parametrize(("kind", "value", "said"), [
    ("hours", 1.5, "\u00d71.5 per hour"), ("hours", 1.0, "\u00d71 per hour"),
    ("days", 1.0, "1 day"), ("days", 2.5, "2.5 days"), ("money", 1250.0, "$1,250.00"),
])
def test_pay_code_value_says_what_it_pays(kind: str, value: float, said: str) -> None:
    code = PayCodeRead(id=uuid.uuid4(), name="X", shorthand_name="X", hex_color="#000000",
                       type=kind, value=value)
    assert words.pay_code_value(code) == said


def test_employment_type_in_words() -> None:
    kind = EmploymentTypeRead.model_validate({
        "id": str(uuid.uuid4()), "name": "Per diem", "type": "contractor",
        "compensationTimePeriod": "salaried", "amountWorked": "part_time",
        "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"})
    assert words.employment_type(kind) == "Contractor, salaried, part time"


def test_no_accrual_is_no_sentence() -> None:
    assert words.accrual(None) == []


def test_accrual_defaults_in_words() -> None:
    assert words.accrual(_accrual()) == [
        "Earns 0.0385 hours per hour worked, counted each pay period, from 1 January 2026.",
        "The year starts on 1 January; the whole balance carries over.",
        "The balance may not go below zero.",
        "Time off is taken from the balance on the day it is approved."]


def test_accrual_with_every_limit_in_words() -> None:
    lines = words.accrual(_accrual(
        unit="days", method="per_period", rate="1", period="monthly", waitingPeriodDays=90,
        balanceCap="30", annualAccrualCap="1/2", annualUseLimit="20", carryOverMax="5",
        carryOverDate="07-01", allowNegative=True, negativeFloor="-3", debitOn="leave_date"))
    assert lines == [
        "Earns 1 day each month, from 1 January 2026.",
        "Usable after a waiting period of 90 days.",
        "The balance stops growing at 30 days.",
        "Earns at most 1/2 days a year.",
        "At most 20 days may be used a year.",
        "On 1 July a balance above 5 days is forfeited.",
        "The balance may go below zero, down to -3 days.",
        "Time off is taken from the balance as of its first day."]


def test_up_front_accrual_in_words() -> None:
    assert words.accrual(_accrual(method="up_front", rate="80"))[0] == \
        "Grants 80 hours up front, and again each year, from 1 January 2026."
