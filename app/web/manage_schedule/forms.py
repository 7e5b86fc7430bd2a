"""Forms of the team schedule: one shift form for creating and editing a shift — its date,
times, provider (or open), main role, segments (type, role, local times, labels), pay code,
callout mark and note — with, when editing, the version and what was loaded (so a version
conflict re-applies only the manager's own changes); and the delete confirmation.

Shape only: whether segments lie inside the shift or overlap, which roles, labels and pay codes
exist, team rules and versions are the API's answers, mapped onto the fields by `pointer_map`.
"""

from __future__ import annotations

import re
from typing import Any

from wtforms import (
    BooleanField,
    FieldList,
    FormField,
    HiddenField,
    IntegerField,
    SelectField,
    StringField,
    SubmitField,
    TimeField,
)
from wtforms.fields import DateField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

from app.web.forms import BaseForm, MultiCheckboxField, TimeRangeRow
from app.web.manage_schedule.calendar import EARLIEST_DAY, LATEST_DAY

SEGMENT_TYPES = [("working", "Working"), ("paid_break", "Paid break"),
                 ("unpaid_break", "Unpaid break"), ("on_call", "On call")]
"""The API's segment types, as the editor words them."""

BLANK_ROWS = 1
"""Blank segment rows under a shift's segments (without JavaScript, "Add another segment"
answers the form with one more)."""

MAX_ROWS = 24
"""Segment rows a form takes: more is a tampered form, not a shift."""


class SegmentForm(TimeRangeRow):
    """One segment row: what kind of time, in which role, from when to when, with which labels.
    A row with neither time is blank and left out."""

    noun = "segment"

    type = SelectField("Type", choices=[SelectChoice(v, label) for v, label in SEGMENT_TYPES],
                       default="working")
    role = SelectField("Role", choices=[], validate_choice=False)
    start_time = TimeField("From", validators=[Optional()])
    end_time = TimeField("To", validators=[Optional()])
    labels = MultiCheckboxField("Labels", choices=[], validate_choice=False)


class _Pointers(dict[str, str]):
    """`/segments/N/startDate` → that row's `start_time`, `/segments/N/labels/P` → its labels,
    `/payCodes/0/payCodeId` → `pay_code`; other pointers as listed."""

    RULES = [(re.compile(r"^/segments/(\d+)/startDate$"), r"/segments/\1/start_time"),
             (re.compile(r"^/segments/(\d+)/endDate$"), r"/segments/\1/end_time"),
             (re.compile(r"^/segments/(\d+)/labels/\d+$"), r"/segments/\1/labels"),
             (re.compile(r"^/payCodes/\d+(/payCodeId)?$"), "/pay_code")]

    def get(self, pointer: str, default: Any = None) -> Any:  # type: ignore[override]
        """The field path a problem pointer names, if it differs from the pointer."""
        if pointer in self:
            return self[pointer]
        for pattern, target in self.RULES:
            if pattern.match(pointer):
                return pattern.sub(target, pointer)
        return default


class ShiftForm(BaseForm):
    """A shift as the manager creates or edits it: when, who, in which role and parts, paid how.

    `version` and the `orig_*` fields (what was loaded, in the editor's words) are sent only
    when editing; `add_segment` is the no-JavaScript "Add another segment" button.
    """

    pointer_map = _Pointers({"/startDate": "start_time", "/endDate": "end_time",
                             "/segments": "role", "/isCallout": "is_callout"})

    date = DateField("Date", validators=[InputRequired("Enter the shift's date.")])
    start_time = TimeField("Starts", validators=[InputRequired("Enter a start time.")])
    end_time = TimeField("Ends", validators=[InputRequired("Enter an end time.")])
    provider = SelectField("Provider", choices=[], validate_choice=False)
    role = SelectField("Main role", choices=[], validate_choice=False,
                       validators=[InputRequired("Choose a role.")])
    segments = FieldList(FormField(SegmentForm), min_entries=0, max_entries=MAX_ROWS)
    pay_code = SelectField("Pay code", choices=[], validate_choice=False)
    is_callout = BooleanField("Callout (the provider called out; the shift stays on record)")
    note = StringField("Note for the provider", validators=[Optional(), Length(max=500)])
    add_segment = SubmitField("Add another segment")
    version = IntegerField(validators=[Optional(), NumberRange(min=0)])
    orig_date = HiddenField()
    orig_start_time = HiddenField()
    orig_end_time = HiddenField()
    orig_provider = HiddenField()
    orig_role = HiddenField()
    orig_segments = HiddenField()
    orig_pay_code = HiddenField()
    orig_is_callout = HiddenField()
    orig_note = HiddenField()

    def validate_date(self, field: DateField) -> None:
        """Only dates Shiftdesk keeps (a year 1 or 9999 shift is a typing slip)."""
        if field.data is not None and not EARLIEST_DAY <= field.data <= LATEST_DAY:
            raise ValidationError(f"Enter a date from {EARLIEST_DAY.year} to "
                                  f"{LATEST_DAY.year}.")

    @property
    def rows(self) -> list[SegmentForm]:
        """The segment rows that name a time (blank rows aside)."""
        return [entry.form for entry in self.segments.entries if not entry.form.blank]


class DeleteShiftForm(BaseForm):
    """The confirmation of a delete: the version the manager saw when asked."""

    version = IntegerField(validators=[InputRequired(), NumberRange(min=0)])
