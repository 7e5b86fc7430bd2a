"""The audit trail's filters (a GET form: the URL keeps them). Shape only."""

from __future__ import annotations

from typing import Any, ClassVar

from wtforms import DateField, SelectField, StringField
from wtforms.validators import Length, Optional, ValidationError

from app.contract.audit import AUDIT_SUBJECTS
from app.web.audit.words import subject_word
from app.web.forms import BaseForm, kept_day
from app.web.slots.forms import _uuids, options


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
    start = DateField("From", validators=[Optional(), kept_day])
    end = DateField("To", validators=[Optional(), kept_day])

    def validate_end(self, field: Any) -> None:
        """The last day may not come before the first."""
        if field.data and self.start.data and field.data < self.start.data:
            raise ValidationError("The last day must not come before the first.")
