"""The run form generated from a report's declared parameters: a field per parameter of its
type, and the `parameters` sent for what was filled in (the last day included, DST-correct)."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

import pytest
from flask import Flask

from app.contract.reports import ReportParameter, ReportRead
from app.web.reports.forms import run_form

ZONE = ZoneInfo("America/New_York")
REPORT = ReportRead(id="every-kind", name="Every kind", description="Each type once.",
                    parameters=[
                        ReportParameter(name="startDate", type="timestamp", required=True,
                                        description="Start."),
                        ReportParameter(name="endDate", type="timestamp", required=True,
                                        description="End, excluded."),
                        ReportParameter(name="minimumCount", type="integer", required=False,
                                        description="At least this many."),
                        ReportParameter(name="share", type="number", required=False,
                                        description="A fraction."),
                        ReportParameter(name="withCallouts", type="boolean", required=False,
                                        description="Count callouts."),
                        ReportParameter(name="bucket", type="string", required=False,
                                        description="Size.", choices=["hour", "day"]),
                        ReportParameter(name="roleId", type="uuid", required=False,
                                        description="One role."),
                    ])


def _form(data: dict[str, str]) -> Any:
    app = Flask(__name__)
    app.config.update(SECRET_KEY="test", WTF_CSRF_ENABLED=False)
    with app.test_request_context("/", method="POST", data=data):
        form = run_form(REPORT, [])()
        valid = form.validate()
        return form, valid


def test_each_parameter_type_gets_its_field_with_a_label_in_words() -> None:
    form, _ = _form({})
    kinds = {f.name: (f.type, f.label.text) for f in form.parameter_fields()}
    assert kinds == {
        "start_date": ("DateField", "First day"),
        "end_date": ("DateField", "Last day"),
        "minimum_count": ("IntegerField", "Minimum count"),
        "share": ("DecimalField", "Share"),
        "with_callouts": ("BooleanField", "With callouts"),
        "bucket": ("SelectField", "Group by"),
        "role_id": ("StringField", "Role id"),
    }
    assert form.hints["end_date"] == "The last day the report covers, included."
    assert form.hints["minimum_count"] == "At least this many."


def test_parameters_send_the_filled_fields_with_the_last_day_included() -> None:
    form, valid = _form({"start_date": "2026-10-26", "end_date": "2026-11-01",
                         "minimum_count": "3", "share": "0.5", "with_callouts": "y",
                         "bucket": "day", "role_id": ""})
    assert valid
    assert form.parameters(ZONE) == {
        "startDate": "2026-10-26T00:00:00-04:00",
        # The clocks go back on 1 November: the midnight after that last day is standard time.
        "endDate": "2026-11-02T00:00:00-05:00",
        "minimumCount": 3,
        "share": 0.5,
        "withCallouts": True,
        "bucket": "day",
    }


@pytest.mark.parametrize(("data", "invalid"), [
    ({"end_date": "2026-10-31"}, "start_date"),
    ({"start_date": "2026-10-26", "end_date": "31/10/2026"}, "end_date"),
    ({"start_date": "2026-10-26", "end_date": "2026-10-31", "bucket": "week"}, "bucket"),
    ({"start_date": "2026-10-26", "end_date": "2026-10-31", "minimum_count": "many"},
     "minimum_count"),
])
def test_shape_errors_stay_on_their_field(data: dict[str, str], invalid: str) -> None:
    form, valid = _form(data)
    assert not valid
    assert [f.name for f in form.parameter_fields() if f.errors] == [invalid]
