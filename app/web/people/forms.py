"""Forms of the people area: the directory's filters (a GET form kept in the URL), the CSV
import (one file; its rows are read by `rows.read_people`) and making a set-password link.

Shape only: the name's length follows the API's own limit (50 characters), so a longer search
is refused on the field before any call; who may see whom is the API's answer.
"""

from __future__ import annotations

from flask_wtf.file import FileField
from wtforms import HiddenField, SelectField, StringField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import Length, Optional

from app.web.forms import BaseForm
from app.web.uploads import csv_file

NAME_MAX = 50
"""The API's limit on a name search (`name` of GET /v1/users and /v1/providers)."""

TYPES: list[tuple[str, str]] = [
    ("provider", "Providers"), ("user", "Everyone who signs in"), ("bot", "API clients"),
]
STATUSES: list[tuple[str, str]] = [
    ("current", "Onboarding or active"), ("onboarding", "Onboarding"), ("active", "Active"),
    ("dismissed", "Dismissed"), ("unmanaged", "Unmanaged"), ("any", "Any status"),
]
STATUS_VALUES: dict[str, list[str]] = {
    "current": ["onboarding", "active"], "any": ["onboarding", "active", "dismissed", "unmanaged"],
    "onboarding": ["onboarding"], "active": ["active"], "dismissed": ["dismissed"],
    "unmanaged": ["unmanaged"],
}
"""The API's `status` values each choice stands for."""


def _options(pairs: list[tuple[str, str]]) -> list[SelectChoice]:
    return [SelectChoice(value, label) for value, label in pairs]


class DirectoryFilterForm(BaseForm):
    """Whom the directory lists; every field lives in the query string."""

    name = StringField("Name", validators=[Optional(), Length(
        max=NAME_MAX, message=f"Search for at most {NAME_MAX} characters of a name.")])
    type = SelectField("Show", choices=_options(TYPES), default="provider",
                       validate_choice=True)
    status = SelectField("Status", choices=_options(STATUSES), default="current",
                         validate_choice=True)
    cursor = HiddenField()


class PeopleImportForm(BaseForm):
    """Import people from a CSV file."""

    file = FileField("CSV file", validators=[csv_file])

    def content(self) -> tuple[str, bytes]:
        """The chosen file's name and bytes."""
        upload = self.file.data
        return upload.filename, upload.read()
