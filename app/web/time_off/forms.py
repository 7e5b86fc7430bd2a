"""The time-off request form. Shape only (dates parse, times given for part days, the last day
not before the first); membership of the policy and every other rule come back from the API.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any, ClassVar
from zoneinfo import ZoneInfo

from wtforms import RadioField, SelectField, TextAreaField, ValidationError
from wtforms.fields import DateField, TimeField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, Length, Optional

from app.contract.common import EARLIEST, LATEST
from app.contract.time_off import TimeOffRequestCreate
from app.web.forms import BaseForm

FIRST_DAY = EARLIEST.date()
LAST_DAY = LATEST.date()


def _in_range(day: date | None) -> None:
    if day is not None and not FIRST_DAY <= day <= LAST_DAY:
        raise ValidationError(f"Choose a day between {FIRST_DAY.day} {FIRST_DAY:%B %Y} and "
                              f"{LAST_DAY.day} {LAST_DAY:%B %Y}.")


class TimeOffRequestForm(BaseForm):
    """Ask for time off: a policy, the days (whole or part), a note."""

    contract = TimeOffRequestCreate
    pointer_map: ClassVar[dict[str, str]] = {"/isFullDay": "/is_full_day"}

    policy_id = SelectField("Kind of time off", choices=[], validate_choice=True,
                            validators=[InputRequired(message="Choose the kind of time off.")])
    start_date = DateField("First day", validators=[InputRequired(message="Enter the first day.")])
    end_date = DateField("Last day", validators=[InputRequired(message="Enter the last day.")])
    is_full_day = RadioField("How much of each day", default="full",
                             choices=[SelectChoice("full", "Whole days"),
                                      SelectChoice("part", "Part of a day")])
    start_time = TimeField("From (time)", validators=[Optional()])
    end_time = TimeField("Until (time)", validators=[Optional()])
    note = TextAreaField("Note for your manager (optional)",
                         validators=[Optional(), Length(max=1000)])

    def validate_start_date(self, field: DateField) -> None:
        """A day the API answers for (far from the calendar's ends, where a day overflows)."""
        _in_range(field.data)

    def validate_end_date(self, field: DateField) -> None:
        """A day the API answers for, not before the first."""
        _in_range(field.data)
        if field.data and self.start_date.data and field.data < self.start_date.data:
            raise ValidationError("The last day can't be before the first day.")

    def validate(self, extra_validators: Any = None) -> bool:
        """Field checks, then part days need both times (a field-level `Optional` stops there)."""
        valid = super().validate(extra_validators)
        if self.is_full_day.data != "part":
            return valid
        if self.start_time.data is None and not self.start_time.errors:
            self.start_time.errors = ["Enter the time your time off starts."]
            valid = False
        if self.end_time.data is None and not self.end_time.errors:
            self.end_time.errors = ["Enter the time your time off ends."]
            valid = False
        same_day = self.start_date.data and self.start_date.data == self.end_date.data
        if (same_day and self.start_time.data and self.end_time.data
                and self.end_time.data <= self.start_time.data):
            self.end_time.errors = ["The end time must be after the start time."]
            valid = False
        return valid

    def window(self, zone: ZoneInfo) -> tuple[datetime, datetime]:
        """The request as instants: whole local days, or from the start to the end time."""
        first: date = self.start_date.data
        last: date = self.end_date.data
        if self.is_full_day.data == "part":
            start = datetime.combine(first, self.start_time.data or time(0), tzinfo=zone)
            end = datetime.combine(last, self.end_time.data or time(0), tzinfo=zone)
        else:
            start = datetime.combine(first, time(0), tzinfo=zone)
            end = datetime.combine(last + timedelta(days=1), time(0), tzinfo=zone)
        return start, end

    def to_contract(self, **extra: Any) -> TimeOffRequestCreate:
        """The request body for `POST /v1/time-off/requests`."""
        zone: ZoneInfo = extra.pop("zone")
        start, end = self.window(zone)
        return TimeOffRequestCreate(policy_id=self.policy_id.data, start_date=start,
                                    end_date=end, is_full_day=self.is_full_day.data != "part",
                                    note=(self.note.data or "").strip() or None)
