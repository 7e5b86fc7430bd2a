"""Forms of the appointments area: the list filters, outcome, reschedule and cancel. Shape only.

Every change form carries `version` (the appointment's version when the page was drawn) and
`seen` (what the page showed, encoded by `app.web.appointments.seen`), so a version conflict can
show what changed since. Local dates and times are read in the site's time zone by the views.
"""

from __future__ import annotations

from typing import Any

from wtforms import (
    DateField,
    HiddenField,
    IntegerField,
    SelectField,
    StringField,
    TextAreaField,
    TimeField,
)
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

from app.web.forms import BaseForm, kept_day
from app.web.slots.forms import _timestamp, _uuids, options

STATUSES: list[tuple[str, str]] = [
    ("upcoming", "Upcoming"), ("occurred", "Occurred"), ("no-show", "No-show"),
    ("cancelled", "Cancelled"), ("re-scheduled", "Re-scheduled"),
]


class AppointmentFilterForm(BaseForm):
    """Filters of the appointment list (a GET form: the URL keeps them)."""

    provider = SelectField("Provider", validate_choice=False, validators=[Optional(), _uuids])
    team = SelectField("Team", validate_choice=False, validators=[Optional(), _uuids])
    status = SelectField("Status", choices=options([("", "Any status"), *STATUSES]),
                         validators=[Optional()])
    type = SelectField("Type", validate_choice=False, validators=[Optional()])
    member = StringField("Member id", validators=[Optional(), Length(max=100)])
    start = DateField("From", validators=[Optional(), kept_day])
    end = DateField("To", validators=[Optional(), kept_day])

    def validate_end(self, field: Any) -> None:
        """The last day may not come before the first."""
        if field.data and self.start.data and field.data < self.start.data:
            raise ValidationError("The last day must not come before the first.")


class ChangeForm(BaseForm):
    """What every change of an appointment carries."""

    version = IntegerField(widget=HiddenField.widget, validators=[InputRequired(),
                                                                  NumberRange(min=0)])
    seen = HiddenField()


class OutcomeForm(ChangeForm):
    """Mark an appointment occurred or no-show, with the actual times."""

    status = SelectField("Outcome",
                         choices=options([("occurred", "Occurred"), ("no-show", "No-show")]),
                         validators=[InputRequired()])
    actual_day = DateField("Day", validators=[Optional()])
    actual_start = TimeField("Actual start", validators=[Optional()])
    actual_end = TimeField("Actual end", validators=[Optional()])

    def validate(self, extra_validators: Any = None) -> bool:
        """Both actual times or neither (and both when it occurred); the end after the start."""
        valid = super().validate(extra_validators)
        start, end = self.actual_start.data, self.actual_end.data
        message = None
        if self.status.data == "occurred" and not (start and end):
            message = "Enter when it actually started and ended."
        elif bool(start) != bool(end):
            message = "Enter both actual times, or neither."
        elif start and end and end <= start:
            message = "The end must come after the start."
        if message:
            self.actual_end.errors = [*self.actual_end.errors, message]
            return False
        return valid


class RescheduleForm(ChangeForm):
    """Move an appointment: to a slot found (wire times), or to typed local times."""

    provider_id = SelectField("Provider", validate_choice=False,
                              validators=[InputRequired(), _uuids])
    start_date = HiddenField(validators=[Optional(), _timestamp])
    end_date = HiddenField(validators=[Optional(), _timestamp])
    day = DateField("Day", validators=[Optional()])
    start_time = TimeField("Start", validators=[Optional()])
    end_time = TimeField("End", validators=[Optional()])

    def validate(self, extra_validators: Any = None) -> bool:
        """Typed times need a day and a start; the end comes after the start."""
        valid = super().validate(extra_validators)
        if not self.start_date.data:
            if not self.day.data:
                self.day.errors = [*self.day.errors, "Pick the new day."]
                valid = False
            if not self.start_time.data:
                self.start_time.errors = [*self.start_time.errors, "Enter the new start time."]
                valid = False
        start, end = self.start_time.data, self.end_time.data
        if not self.start_date.data and start and end and end <= start:
            self.end_time.errors = [*self.end_time.errors, "The end must come after the start."]
            valid = False
        return valid


class CancelForm(ChangeForm):
    """Cancel an appointment with a reason."""

    cancellation_reason = TextAreaField(
        "Reason", validators=[InputRequired("Say why it is cancelled."), Length(max=500)])
