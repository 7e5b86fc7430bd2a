"""The pay-rules forms: a draft work rule for a team (from a preset or an existing rule) and a
new dated version of a work rule, each with the past window its preview is computed over.

Shape only: times parse, numbers stay in range, days fall in the supported years. Whether a
zone exists, an effective date starts a workweek, or a window is too long comes back from the
API as a problem on the field it names.
"""

from __future__ import annotations

from datetime import date
from typing import Any, ClassVar

from wtforms import HiddenField, IntegerField, SelectField, StringField, ValidationError
from wtforms.fields import DateField, TimeField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from app.contract.work_rules import EARLIEST_DAY, LATEST_DAY
from app.web.forms import BaseForm, MultiCheckboxField
from app.web.pay_rules.words import WEEKDAYS, rounding_words

ZONES = ("America/New_York", "America/Chicago", "America/Denver", "America/Phoenix",
         "America/Los_Angeles", "America/Anchorage", "Pacific/Honolulu", "America/Puerto_Rico",
         "UTC")
"""The time zones offered first; a rule's own zone is offered too."""
INTERVALS = (5, 6, 10, 15, 30)
MODES = ("nearest", "down", "up")
ROUNDING_CHOICES = [SelectChoice("", rounding_words(None, None))] + [
    SelectChoice(f"{interval}-{mode}", rounding_words(interval, mode))
    for interval in INTERVALS for mode in MODES]

_MEMBERS = ("name", "timeZone", "weekStartDay", "weekStartTime", "dayStartTime",
            "periodAnchor", "roundingRuleId", "mealDeductMinutes", "mealAfterMinutes",
            "minUnpaidBreakMinutes", "overtimeRuleIds")
_FIELD = {"roundingRuleId": "rounding"}


def _snake(member: str) -> str:
    return _FIELD.get(member) or "".join(f"_{c.lower()}" if c.isupper() else c
                                         for c in member)


def _pointers(prefix: str) -> dict[str, str]:
    found = {f"{prefix}/{m}": f"/{_snake(m)}" for m in _MEMBERS}
    found.update({f"{prefix}/overtimeRuleIds/{i}": "/overtime_rule_ids" for i in range(20)})
    return found


def _supported(field: Any) -> None:
    if field.data is not None and not EARLIEST_DAY <= field.data <= LATEST_DAY:
        raise ValidationError(f"Enter a date from {EARLIEST_DAY.year} to {LATEST_DAY.year}.")


def _in_range(_form: Any, field: Any) -> None:
    _supported(field)


class WorkRuleForm(BaseForm):
    """The members of a work rule version, as both pages edit them."""

    pointer_map: ClassVar[dict[str, str]] = {**_pointers(""), **_pointers("/workRule")}

    name = StringField("Name", validators=[InputRequired("Enter a name."),
                                           Length(max=200, message="Use at most 200 characters.")])
    time_zone = SelectField("Time zone", choices=[SelectChoice(z, z) for z in ZONES],
                            validate_choice=False,
                            validators=[InputRequired("Choose a time zone.")])
    week_start_day = SelectField("Workweek starts on", coerce=int,
                                 choices=[SelectChoice(str(i), day)
                                          for i, day in enumerate(WEEKDAYS)])
    week_start_time = TimeField("Workweek starts at",
                                validators=[InputRequired("Enter the time the workweek starts.")])
    day_start_time = TimeField("Workday starts at",
                               validators=[InputRequired("Enter the time a workday starts.")])
    period_anchor = DateField("First day of a 14-day period", validators=[Optional(), _in_range])
    rounding = SelectField("Rounding of clock-ins and clock-outs", choices=list(ROUNDING_CHOICES),
                           validate_choice=False)
    meal_deduct_minutes = IntegerField(
        "Meal deducted (minutes)",
        validators=[Optional(), NumberRange(1, 240, "Between 1 and 240 minutes.")])
    meal_after_minutes = IntegerField(
        "Deducted after (minutes worked)",
        validators=[Optional(), NumberRange(0, 1440, "Between 0 and 1440 minutes.")])
    min_unpaid_break_minutes = IntegerField(
        "Shortest unpaid break (minutes)",
        validators=[InputRequired("Enter the shortest unpaid break in minutes."),
                    NumberRange(0, 1440, "Between 0 and 1440 minutes.")])
    overtime_rule_ids = MultiCheckboxField("Overtime rules", validate_choice=False)
    start_date = DateField("Preview from", validators=[
        InputRequired("Enter the first day of the preview."), _in_range])
    end_date = DateField("Preview to (inclusive)", validators=[
        InputRequired("Enter the last day of the preview."), _in_range])

    def validate(self, extra_validators: Any = None) -> bool:
        """The fields, then a deducted meal's two numbers together (or neither)."""
        valid = super().validate(extra_validators)
        after, deduct = self.meal_after_minutes, self.meal_deduct_minutes
        if not (after.errors or deduct.errors) and (after.data is None) != (deduct.data is None):
            empty = after if after.data is None else deduct
            empty.errors = [*empty.errors, "Give both meal numbers, or leave both empty."]
            valid = False
        return valid

    def validate_end_date(self, field: DateField) -> None:
        """The window runs forwards."""
        start: date | None = self.start_date.data
        if field.data is not None and start is not None and field.data < start:
            raise ValidationError("The last day must be on or after the first day.")

    def rounding_choice(self) -> tuple[int, str] | None:
        """The chosen rounding as (interval, mode); None: not rounded."""
        value = (self.rounding.data or "").strip()
        interval, _, mode = value.partition("-")
        if not value:
            return None
        if not interval.isdigit() or mode not in MODES:
            raise ValueError(value)
        return int(interval), mode

    def validate_rounding(self, field: SelectField) -> None:
        """A rounding the list offers (a tampered value is refused here)."""
        try:
            choice = self.rounding_choice()
        except ValueError:
            raise ValidationError("Choose a rounding from the list.") from None
        if choice is not None and (choice[0] < 1 or 60 % choice[0]):
            raise ValidationError("Choose a rounding from the list.")


class TeamRuleForm(WorkRuleForm):
    """A draft rule for one team: `source` says what it starts from (`preset:<id>` or
    `rule:<id>`)."""

    pointer_map: ClassVar[dict[str, str]] = {
        **WorkRuleForm.pointer_map, "/payCodes/overtime": "/overtime_pay_code",
        "/payCodes/doubleTime": "/double_time_pay_code",
        "/workRule/payCodes/overtime": "/overtime_pay_code",
        "/workRule/payCodes/doubleTime": "/double_time_pay_code"}

    source = HiddenField()
    overtime_pay_code = SelectField("Overtime is paid as", choices=[], validate_choice=False)
    double_time_pay_code = SelectField("Double time is paid as", choices=[],
                                       validate_choice=False)


class RuleVersionForm(WorkRuleForm):
    """A new version of a work rule from a workweek's first day, previewed on one team."""

    pointer_map: ClassVar[dict[str, str]] = {**WorkRuleForm.pointer_map,
                                             "/version": "/effective_from"}

    effective_from = SelectField("Takes effect from", choices=[], validate_choice=False,
                                 validators=[InputRequired("Choose the first day.")])
    version = IntegerField(validators=[Optional(), NumberRange(0, 2**31)])
    team_id = SelectField("Preview on team", choices=[], validate_choice=False)

    def effective_day(self) -> date | None:
        """The chosen first day, or None when it is not a date."""
        try:
            day = date.fromisoformat(str(self.effective_from.data or ""))
        except ValueError:
            return None
        return day if EARLIEST_DAY <= day <= LATEST_DAY else None

    def validate_effective_from(self, field: SelectField) -> None:
        """A day (a tampered value is refused here; the API says whether it starts a week)."""
        if self.effective_day() is None:
            raise ValidationError("Choose a first day from the list.")
