"""The demand forecast upload form: one CSV file.

Shape only: a file is chosen, is not empty and is named `.csv`. Its rows are read and checked
by `rows.read_forecast` before anything is sent to the API.
"""

from __future__ import annotations

from flask_wtf.file import FileField

from app.web.forms import BaseForm
from app.web.uploads import csv_file


class DemandForecastUploadForm(BaseForm):
    """Upload a demand forecast CSV."""

    file = FileField("CSV file", validators=[csv_file])

    def content(self) -> tuple[str, bytes]:
        """The chosen file's name and bytes."""
        upload = self.file.data
        return upload.filename, upload.read()
