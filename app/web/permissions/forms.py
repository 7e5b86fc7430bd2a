"""The permission editor's form: the conditions as JSON text, and whom to preview them for.

Shape only: the text must be JSON (an object or null) and the search short; which fields a
condition may name, and whether the person exists, come back from the API.
"""

from __future__ import annotations

import json
from typing import Any

from wtforms import HiddenField, SelectField, StringField, TextAreaField
from wtforms.validators import Length, Optional, ValidationError

from app.web.forms import BaseForm

CONDITIONS_MAX = 10_000
SEARCH_MAX = 50


class ConditionsForm(BaseForm):
    """Preview, then save, a rule's conditions."""

    conditions = TextAreaField("Conditions (JSON)")
    user_id = SelectField("Person to preview for", choices=[], validate_choice=False)
    user_search = StringField("Find by name", validators=[
        Optional(), Length(max=SEARCH_MAX, message=f"Use at most {SEARCH_MAX} characters.")])
    previewed = HiddenField()

    syntax_error: tuple[int, int, str] | None = None
    """Where the text stops being JSON (line, column, why), once validated."""

    def validate_conditions(self, field: Any) -> None:
        """Parse the text as JSON: an object, or `null` (empty text means null too)."""
        text = (field.data or "").strip()
        if len(text) > CONDITIONS_MAX:
            raise ValidationError(f"Use at most {CONDITIONS_MAX:,} characters.")
        if not text:
            return
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            self.syntax_error = (exc.lineno, exc.colno, exc.msg)
            raise ValidationError(
                f"This is not JSON: line {exc.lineno}, column {exc.colno}: {exc.msg}.") from exc
        except RecursionError as exc:
            raise ValidationError("This JSON nests too deeply.") from exc
        if document is not None and not isinstance(document, dict):
            raise ValidationError("Conditions must be a JSON object such as "
                                  '{"team": {"$in": "$user.teamIds"}}, or null.')

    def document(self) -> dict[str, Any] | None:
        """The conditions as parsed (call after `validate`)."""
        text = (self.conditions.data or "").strip()
        return json.loads(text) if text else None

    def fingerprint(self) -> str:
        """The conditions in one canonical spelling, to tell whether a preview still holds."""
        return canonical(self.document())


def canonical(document: Any) -> str:
    """One spelling of a JSON document (sorted keys, no spaces)."""
    return json.dumps(document, sort_keys=True, separators=(",", ":"))
