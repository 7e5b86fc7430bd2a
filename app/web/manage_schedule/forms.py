"""Forms of the team schedule: edit a shift's times, provider and note (with the version and what
was loaded, so a version conflict can re-apply only the manager's own changes), and post an open
shift. Shape only: overlaps, team rules and versions are the API's answers.
"""

from __future__ import annotations

from wtforms import HiddenField, IntegerField, SelectField, StringField, TimeField
from wtforms.fields import DateField
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from app.web.forms import BaseForm


class ShiftEditForm(BaseForm):
    """A shift's date, times, provider and note as the manager edits them."""

    pointer_map = {"/startDate": "start_time", "/endDate": "end_time"}

    date = DateField("Date", validators=[InputRequired("Enter the shift's date.")])
    start_time = TimeField("Starts", validators=[InputRequired("Enter a start time.")])
    end_time = TimeField("Ends", validators=[InputRequired("Enter an end time.")])
    provider = SelectField("Provider", choices=[], validate_choice=False)
    note = StringField("Note for the provider", validators=[Optional(), Length(max=500)])
    version = IntegerField(validators=[InputRequired(), NumberRange(min=0)])
    orig_date = HiddenField()
    orig_start_time = HiddenField()
    orig_end_time = HiddenField()
    orig_provider = HiddenField()
    orig_note = HiddenField()


class OpenShiftForm(BaseForm):
    """A new open shift in the team: when, which role, and a note."""

    pointer_map = {"/startDate": "start_time", "/endDate": "end_time",
                   "/segments/0/role": "role"}

    date = DateField("Date", validators=[InputRequired("Enter the shift's date.")])
    start_time = TimeField("Starts", validators=[InputRequired("Enter a start time.")])
    end_time = TimeField("Ends", validators=[InputRequired("Enter an end time.")])
    role = SelectField("Role", choices=[], validate_choice=False,
                       validators=[InputRequired("Choose a role.")])
    note = StringField("Note", validators=[Optional(), Length(max=500)])
