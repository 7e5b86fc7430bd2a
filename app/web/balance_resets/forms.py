"""The balance reset upload form: one CSV file.

Shape only: a file is chosen, it is not empty and its name ends in `.csv`. What is inside (the
header, each row's person, policy, balance and date) is the API's to check; its refusal comes
back as a problem (`invalid-balance-reset-rows` lists every bad row).
"""

from __future__ import annotations

from typing import Any

from flask_wtf.file import FileField
from wtforms import ValidationError

from app.web.forms import BaseForm


def _csv_file(form: Any, field: Any) -> None:
    upload = field.data
    if upload is None or not getattr(upload, "filename", ""):
        raise ValidationError("Choose a CSV file to upload.")
    if not upload.filename.lower().endswith(".csv"):
        raise ValidationError(f"“{upload.filename}” is not a CSV file. Save the sheet as CSV "
                              "(comma-separated values) and choose that file.")
    upload.stream.seek(0, 2)
    empty = upload.stream.tell() == 0
    upload.stream.seek(0)
    if empty:
        raise ValidationError(f"“{upload.filename}” is empty. Choose the file with the "
                              "header and your rows.")


class BalanceResetUploadForm(BaseForm):
    """Upload a balance reset CSV."""

    file = FileField("CSV file", validators=[_csv_file])

    def content(self) -> tuple[str, bytes]:
        """The chosen file's name and bytes."""
        upload = self.file.data
        return upload.filename, upload.read()
