"""The audit trail's filters (a GET form: the URL keeps them). Shape only."""

from __future__ import annotations

from datetime import date
from typing import Any, ClassVar

from wtforms import DateField, SelectField, StringField
from wtforms.validators import Length, Optional, ValidationError

from app.contract.audit import AUDIT_SUBJECTS
from app.web.audit.words import subject_word
from app.web.forms import BaseForm
from app.web.slots.forms import _uuids, options

EARLIEST = date(1900, 1, 2)
LATEST = date(2999, 12, 30)
"""The days the filter takes: the API keeps instants from 1900 to 2999 (a day's margin either
side for the site's time zone)."""


def _supported(_form: Any, field: Any) -> None:
    if field.data and not EARLIEST <= field.data <= LATEST:
        raise ValidationError(f"Pick a day between {EARLIEST.year} and {LATEST.year}.")


class AuditFilterForm(BaseForm):
    """Who, what, which record and which days."""

    # The API names its query parameters (`from`, not `/from`).
    pointer_map: ClassVar[dict[str, str]] = {"actorId": "/actor", "recordId": "/record",
                                             "from": "/start", "to": "/end"}

    actor = SelectField("Who", validate_choice=False, validators=[Optional(), _uuids])
    subject = SelectField(
        "What", choices=options([("", "Anything"),
                                 *sorted(((s, subject_word(s)) for s in AUDIT_SUBJECTS),
                                         key=lambda pair: pair[1])]),
        validators=[Optional()])
    record = StringField("Record id", validators=[Optional(), Length(max=80)])
    start = DateField("From", validators=[Optional(), _supported])
    end = DateField("To", validators=[Optional(), _supported])

    def validate_end(self, field: Any) -> None:
        """The last day may not come before the first."""
        if field.data and self.start.data and field.data < self.start.data:
            raise ValidationError("The last day must not come before the first.")
