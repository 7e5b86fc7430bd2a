"""The appointment type form: name, length, allowed roles and the skill requirement rows.

Shape only (the API checks the roles exist and the requirement's shape). The requirement is
edited as `skills.GROUPS` "any of" rows of checkboxes (see `app.web.appointment_types.skills`).
"""

from __future__ import annotations

from typing import ClassVar

from wtforms import BooleanField, IntegerField, StringField
from wtforms.validators import InputRequired, Length, NumberRange

from app.web.appointment_types.skills import parse_option
from app.web.forms import BaseForm, MultiCheckboxField
from app.web.slots.forms import _skills, _uuids

_ROLE_POINTERS = {f"/allowedRoles/{i}": "/allowed_roles" for i in range(50)}
_GROUP_POINTERS = {"/skillRequirement": "/group_1"}


class AppointmentTypeForm(BaseForm):
    """Create or edit an appointment type."""

    pointer_map: ClassVar[dict[str, str]] = {**_ROLE_POINTERS, **_GROUP_POINTERS,
                                             "/allowedRoles": "/allowed_roles"}

    name = StringField("Name", validators=[
        InputRequired("Enter a name."), Length(2, 100, "Use 2 to 100 characters.")])
    length = IntegerField("Length in minutes",
                          validators=[InputRequired("Enter the length in minutes."),
                                      NumberRange(5, 1440, "Between 5 and 1440 minutes.")])
    allowed_roles = MultiCheckboxField("Allowed roles", validate_choice=False,
                                        validators=[_uuids])
    group_1 = MultiCheckboxField("Group 1: any of", validate_choice=False, validators=[_skills])
    group_2 = MultiCheckboxField("Group 2: any of", validate_choice=False, validators=[_skills])
    group_3 = MultiCheckboxField("Group 3: any of", validate_choice=False, validators=[_skills])
    keep_requirement = BooleanField("Keep the current skill requirement")

    def groups(self) -> list[list[str]]:
        """The rows of the skill requirement editor."""
        return [list(f.data or []) for f in (self.group_1, self.group_2, self.group_3)]

    def picked_options(self) -> list[str]:
        """Every skill option the rows hold (so they stay choosable)."""
        return [v for row in self.groups() for v in row if parse_option(v)]
