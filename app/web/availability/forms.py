"""Forms of the availability pages: the weekly pattern (effective date and per-weekday rows of
from/to/kind) and an exception (days, kind, note).

Shape only: ends after starts, overlapping rows and permissions are the API's answers, mapped
onto the fields by their JSON pointers (`/rules/2/startTime` → row 3's `start_time`).
"""

from __future__ import annotations

from datetime import date, time
from typing import Any

from wtforms import (
    FieldList,
    FormField,
    IntegerField,
    SelectField,
    StringField,
    SubmitField,
    TimeField,
)
from wtforms.fields import DateField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError
from wtforms.widgets import HiddenInput

from app.contract.availability import (
    AvailabilityExceptionCreate,
    AvailabilityRule,
)
from app.contract.work_rules import EARLIEST_DAY, LATEST_DAY
from app.web.forms import BaseForm, TimeRangeRow

WEEKDAYS = [("monday", "Monday"), ("tuesday", "Tuesday"), ("wednesday", "Wednesday"),
            ("thursday", "Thursday"), ("friday", "Friday"), ("saturday", "Saturday"),
            ("sunday", "Sunday")]
KINDS = [("unavailable", "Unavailable"), ("preferred", "Preferred"),
         ("available", "Available")]
EXCEPTION_KINDS = [("unavailable", "Unavailable (a day off)"),
                   ("available", "Available (ignore my weekly pattern)")]
MAX_ROWS = 50
"""Rows a pattern form takes: more is a tampered form, not a week."""


def _in_range(day: date | None) -> None:
    if day is not None and not EARLIEST_DAY <= day <= LATEST_DAY:
        raise ValidationError(f"Choose a day between {EARLIEST_DAY.year} and "
                              f"{LATEST_DAY.year}.")


class RuleRowForm(TimeRangeRow):
    """One row of the week: a weekday, from, to, and what it means. A row with neither time is
    blank and left out."""

    noun = "range"

    weekday = SelectField("Day", choices=[SelectChoice(v, t) for v, t in WEEKDAYS])
    start_time = TimeField("From", validators=[Optional()])
    end_time = TimeField("To", validators=[Optional()])
    kind = SelectField("I am", choices=[SelectChoice(v, t) for v, t in KINDS])


def _clock(at: time, *, end: bool) -> str:
    if end and at == time(0):
        return "24:00"
    return f"{at.hour:02d}:{at.minute:02d}"


class PatternForm(BaseForm):
    """The weekly pattern: from when it applies, and its rows."""

    effective_from = DateField("Applies from", validators=[
        InputRequired(message="Enter the day this pattern starts to apply.")])
    rules = FieldList(FormField(RuleRowForm), min_entries=0, max_entries=MAX_ROWS)
    version = IntegerField(widget=HiddenInput(), validators=[Optional(), NumberRange(min=0)])
    add_row = SubmitField("Add a row")

    def validate_effective_from(self, field: DateField) -> None:
        """A day the API answers for."""
        _in_range(field.data)

    def rule_bodies(self) -> list[AvailabilityRule]:
        """The rows with times, in order, as the API takes them."""
        return [AvailabilityRule(weekday=row.form.weekday.data,
                                 start_time=_clock(row.form.start_time.data, end=False),
                                 end_time=_clock(row.form.end_time.data, end=True),
                                 kind=row.form.kind.data)
                for row in self.rules if not row.form.blank]


class ExceptionForm(BaseForm):
    """Days on which the weekly pattern does not apply."""

    contract = AvailabilityExceptionCreate

    start_date = DateField("First day", validators=[InputRequired(message="Enter the first day.")])
    end_date = DateField("Last day", validators=[InputRequired(message="Enter the last day.")])
    kind = SelectField("On these days I am",
                       choices=[SelectChoice(v, t) for v, t in EXCEPTION_KINDS])
    note = StringField("Note (optional)", validators=[Optional(), Length(max=500)])
    version = IntegerField(widget=HiddenInput(), validators=[Optional(), NumberRange(min=0)])

    def validate_start_date(self, field: DateField) -> None:
        """A day the API answers for."""
        _in_range(field.data)

    def validate_end_date(self, field: DateField) -> None:
        """A day the API answers for, not before the first."""
        _in_range(field.data)
        if field.data and self.start_date.data and field.data < self.start_date.data:
            raise ValidationError("The last day can't be before the first day.")

    def to_contract(self, **extra: Any) -> AvailabilityExceptionCreate:
        """The body for `POST /v1/availability-exceptions`."""
        return AvailabilityExceptionCreate(start_date=self.start_date.data,
                                           end_date=self.end_date.data, kind=self.kind.data,
                                           note=(self.note.data or "").strip() or None)
