"""What the CSV upload pages share: the file field's check, a bad row in words, and the table
of bad rows (`templates/_macros/uploads.html`).

Shape only: a file is chosen, is not empty and is named `.csv`; what the rows say is checked by
the page (or the API) that reads them. Must not call the API.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wtforms import ValidationError


@dataclass(frozen=True)
class RowError:
    """One bad field of a refused file, in words. Row 1 is the first row after the header."""

    row: int
    column: str
    message: str


def csv_file(form: Any, field: Any) -> None:
    """A WTForms validator: a chosen, non-empty file whose name ends in `.csv`."""
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


def capitalized(message: str) -> str:
    """A message as a sentence starts."""
    return message[:1].upper() + message[1:]
