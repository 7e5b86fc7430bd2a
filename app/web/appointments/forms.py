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

from app.web.forms import BaseForm
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
    start = DateField("From", validators=[Optional()])
    end = DateField("To", validators=[Optional()])

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

    def validate_actual_end(self, field: Any) -> None:
        """Both actual times or neither; the end after the start."""
        if self.status.data == "occurred" and not (self.actual_start.data and field.data):
            raise ValidationError("Enter when it actually started and ended.")
        if bool(self.actual_start.data) != bool(field.data):
            raise ValidationError("Enter both actual times, or neither.")
        if field.data and self.actual_start.data and field.data <= self.actual_start.data:
            raise ValidationError("The end must come after the start.")


class RescheduleForm(ChangeForm):
    """Move an appointment: to a slot found (wire times), or to typed local times."""

    provider_id = SelectField("Provider", validate_choice=False,
                              validators=[InputRequired(), _uuids])
    start_date = HiddenField(validators=[Optional(), _timestamp])
    end_date = HiddenField(validators=[Optional(), _timestamp])
    day = DateField("Day", validators=[Optional()])
    start_time = TimeField("Start", validators=[Optional()])
    end_time = TimeField("End", validators=[Optional()])

    def validate_day(self, field: Any) -> None:
        """Typed times need a day and a start."""
        if not self.start_date.data and not field.data:
            raise ValidationError("Pick the new day.")

    def validate_start_time(self, field: Any) -> None:
        """Typed times need a start."""
        if not self.start_date.data and not field.data:
            raise ValidationError("Enter the new start time.")

    def validate_end_time(self, field: Any) -> None:
        """The end after the start."""
        if field.data and self.start_time.data and field.data <= self.start_time.data:
            raise ValidationError("The end must come after the start.")


class CancelForm(ChangeForm):
    """Cancel an appointment with a reason."""

    cancellation_reason = TextAreaField(
        "Reason", validators=[InputRequired("Say why it is cancelled."), Length(max=500)])
