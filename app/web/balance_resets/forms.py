"""The balance reset upload form: one CSV file.

Shape only: a file is chosen, it is not empty and its name ends in `.csv`. What is inside (the
header, each row's person, policy, balance and date) is the API's to check; its refusal comes
back as a problem (`invalid-balance-reset-rows` lists every bad row).
"""

from __future__ import annotations

from flask_wtf.file import FileField

from app.web.forms import BaseForm
from app.web.uploads import csv_file


class BalanceResetUploadForm(BaseForm):
    """Upload a balance reset CSV."""

    file = FileField("CSV file", validators=[csv_file])

    def content(self) -> tuple[str, bytes]:
        """The chosen file's name and bytes."""
        upload = self.file.data
        return upload.filename, upload.read()
