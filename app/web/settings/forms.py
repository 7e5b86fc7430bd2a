"""The label form: name, description and colour, and the stamp of the label as it was loaded.

Shape only: the API decides the rest. `loaded` carries the label's `updatedAt` as the editor
saw it, so a save can tell that someone else changed the label meanwhile (labels have no
version number).
"""

from __future__ import annotations

from wtforms import HiddenField, StringField, TextAreaField
from wtforms.validators import DataRequired, Length, Optional, Regexp

from app.contract.labels import LabelCreate
from app.web.forms import BaseForm

NAME_MAX = 100
DESCRIPTION_MAX = 500


class LabelForm(BaseForm):
    """Create or edit a label."""

    contract = LabelCreate

    name = StringField("Name", validators=[
        DataRequired("Enter a name."),
        Length(max=NAME_MAX, message=f"Use at most {NAME_MAX} characters.")])
    description = TextAreaField("Description", validators=[
        Optional(), Length(max=DESCRIPTION_MAX,
                           message=f"Use at most {DESCRIPTION_MAX} characters.")])
    color = StringField("Colour", default="#6B7280", validators=[
        DataRequired("Pick a colour."),
        Regexp(r"^#[0-9A-Fa-f]{6}$", message="Use a colour such as #1F77B4.")])
    loaded = HiddenField()

    def values(self) -> dict[str, str | None]:
        """The submitted members, trimmed; an empty description is none."""
        return {"name": (self.name.data or "").strip(),
                "description": (self.description.data or "").strip() or None,
                "color": (self.color.data or "").strip().upper()}
