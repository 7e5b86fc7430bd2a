"""Forms of the slot search and of booking a slot. Shape only: whether a slot is free is the API's.

The search is a GET form (its query string is the bookmarkable search); the booking form carries
the chosen slot in hidden fields plus what the scheduler types: the member id and the location.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from wtforms import (
    DateField,
    HiddenField,
    IntegerField,
    RadioField,
    SelectField,
    StringField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, Length, NumberRange, Optional, ValidationError

from app.contract.common import parse_timestamp
from app.web.appointment_types.skills import parse_option
from app.web.forms import BaseForm, MultiCheckboxField
from app.web.slots.windows import QUICK_PICKS

DEFAULT_LIMIT = 10
MORE = 10
MAX_LIMIT = 200
_UUID = re.compile(r"^[0-9a-fA-F-]{32,36}$")


def options(pairs: list[tuple[str, str]] | tuple[tuple[str, str], ...]) -> list[SelectChoice]:
    """Select or radio choices from (value, label) pairs."""
    return [SelectChoice(value, label) for value, label in pairs]


def is_uuid(text: str) -> bool:
    """Whether `text` is a UUID."""
    if not _UUID.match(text or ""):
        return False
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True


def _uuids(_form: Any, field: Any) -> None:
    values = field.data if isinstance(field.data, list) else [field.data]
    if any(v and not is_uuid(v) for v in values):
        raise ValidationError("Choose from the list.")


def _skills(_form: Any, field: Any) -> None:
    if any(parse_option(v) is None for v in field.data or []):
        raise ValidationError("Choose skills from the list.")


def _timestamp(_form: Any, field: Any) -> None:
    try:
        parse_timestamp(field.data)
    except ValueError as exc:
        raise ValidationError("This slot's time is not readable; pick the slot again.") from exc


class SlotSearchForm(BaseForm):
    """Find a slot: type, window, hard and soft filters, how many results."""

    type = SelectField("Appointment type", validate_choice=False,
                       validators=[Optional(), _uuids])
    range = RadioField("When", choices=options(QUICK_PICKS), default="week",
                       validators=[Optional()])
    start = DateField("From", validators=[Optional()])
    end = DateField("To", validators=[Optional()])
    provider = MultiCheckboxField("Only these providers", validate_choice=False,
                                   validators=[_uuids])
    skill = MultiCheckboxField("Required skills (all of them)", validate_choice=False,
                                validators=[_skills])
    prefer_provider = MultiCheckboxField("Preferred providers", validate_choice=False,
                                          validators=[_uuids])
    prefer_skill = MultiCheckboxField("Preferred skills", validate_choice=False,
                                       validators=[_skills])
    limit = IntegerField("Results", default=DEFAULT_LIMIT,
                         validators=[Optional(), NumberRange(1, MAX_LIMIT)])

    def validate_end(self, field: Any) -> None:
        """The last day may not come before the first."""
        if field.data and self.start.data and field.data < self.start.data:
            raise ValidationError("The last day must not come before the first.")


class BookingForm(BaseForm):
    """Book a chosen slot for a member at a location."""

    type_id = HiddenField(validators=[InputRequired(), _uuids])
    provider_id = HiddenField(validators=[InputRequired(), _uuids])
    start_date = HiddenField(validators=[InputRequired(), _timestamp])
    end_date = HiddenField(validators=[InputRequired(), _timestamp])
    back = HiddenField()
    member_id = StringField("Member id", validators=[InputRequired("Enter the member's id."),
                                                     Length(max=100)])
    location = StringField("Location", validators=[InputRequired("Enter where it takes place."),
                                                   Length(max=200)])
