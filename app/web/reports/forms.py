"""The run form of a report, generated from the parameters the catalog declares.

Each parameter becomes a field named after it in snake_case (`startDate` → `start_date`), so an
API problem's path `/parameters/startDate` lands on its field. Type → field: `timestamp` a date
(the site's midnight; an `endDate` is asked as the last day included and sent as the next
midnight), `uuid` named `teamId` a list of teams (another `uuid` a text box), `string` with
choices a list, `integer`/`number` a number, `boolean` a checkbox. Shape only: required, type and
choices; windows, teams and everything else are the API's to check.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

from wtforms import (
    BooleanField,
    DateField,
    DecimalField,
    Field,
    IntegerField,
    SelectField,
    StringField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, Optional

from app.contract.reports import ReportParameter, ReportRead
from app.contract.teams import TeamRead
from app.web.forms import BaseForm, snake
from app.web.reports import words

END = "endDate"
"""The parameter asked as the last day included (the API's end is excluded)."""


class ReportRunForm(BaseForm):
    """Run one report: a field per parameter (made by `run_form`)."""

    report: ClassVar[ReportRead]
    hints: ClassVar[dict[str, str]] = {}

    def parameter_fields(self) -> list[Field]:
        """The parameters' fields, in the catalog's order."""
        return [self._fields[snake(p.name)] for p in self.report.parameters]

    def parameters(self, zone: ZoneInfo) -> dict[str, Any]:
        """The run's `parameters`: each filled field's value as the API takes it."""
        values: dict[str, Any] = {}
        for parameter in self.report.parameters:
            value = self._fields[snake(parameter.name)].data
            if value is None or value == "" or (parameter.type == "boolean" and not value
                                                and not parameter.required):
                continue
            values[parameter.name] = _wire(parameter, value, zone)
        return values


def _wire(parameter: ReportParameter, value: Any, zone: ZoneInfo) -> Any:
    if parameter.type == "timestamp" and isinstance(value, date):
        day = value + timedelta(days=1) if parameter.name == END else value
        return datetime.combine(day, time(0), zone).isoformat()
    if parameter.type == "number":
        return float(value)
    return value


def _field(parameter: ReportParameter, teams: Sequence[TeamRead]) -> Field:
    label = words.label(parameter.name)
    needed = [InputRequired()] if parameter.required else [Optional()]
    if parameter.type == "timestamp":
        return DateField(label, validators=needed)
    if parameter.type == "uuid" and parameter.name == "teamId":
        empty = [] if parameter.required else [SelectChoice("", "All teams")]
        return SelectField(label, validators=needed, choices=empty + [
            SelectChoice(str(t.id), t.name)
            for t in sorted(teams, key=lambda t: t.name.casefold())])
    if parameter.type == "string" and parameter.choices:
        empty = [] if parameter.required else [SelectChoice("", "The report's default")]
        return SelectField(label, validators=needed, choices=empty + [
            SelectChoice(c, words.choice(c)) for c in parameter.choices])
    if parameter.type == "integer":
        return IntegerField(label, validators=needed)
    if parameter.type == "number":
        return DecimalField(label, validators=needed)
    if parameter.type == "boolean":
        return BooleanField(label)
    return StringField(label, validators=needed)


def run_form(report: ReportRead, teams: Sequence[TeamRead]) -> type[ReportRunForm]:
    """The form class of `report`'s run."""
    fields: dict[str, Any] = {snake(p.name): _field(p, teams) for p in report.parameters}
    return type(f"ReportRunForm_{snake(report.id.replace('-', '_'))}", (ReportRunForm,), {
        **fields,
        "report": report,
        "hints": {snake(p.name): words.hint(p.name, p.description) for p in report.parameters},
        "pointer_map": {f"/parameters/{p.name}": f"/{snake(p.name)}"
                        for p in report.parameters},
    })
