"""What the CSV upload pages share: the file field's check, a bad row in words, a refused
batch's failures as rows of the file, and the table of bad rows (`templates/_macros/uploads.html`).

Shape only: a file is chosen, is not empty and is named `.csv`; what the rows say is checked by
the page (or the API) that reads them. Must not call the API.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from wtforms import ValidationError


class FileProblem(Exception):
    """The file as a whole cannot be read (empty, wrong header, too large, not text)."""


def too_large(limit: int, *, max_rows: int, verb: str) -> str:
    """What a file beyond `limit` bytes is told (`verb`: "upload", "import")."""
    return (f"The file is larger than {limit / (1024 * 1024):.3g} MB. Split it into files of "
            f"at most {max_rows:,} rows and {verb} each.")


def file_text(content: bytes, *, limit: int, max_rows: int, verb: str) -> str:
    """The file's text (UTF-8, a byte-order mark dropped). Raises `FileProblem` for a file
    beyond `limit` bytes or one that is not UTF-8."""
    if len(content) > limit:
        raise FileProblem(too_large(limit, max_rows=max_rows, verb=verb))
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileProblem("The file is not UTF-8 text. Save it from your spreadsheet as "
                          "“CSV UTF-8” and choose that file.") from exc


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


def batch_errors(field_errors: Iterable[Any], chunk: list[list[Any]], *,
                 columns: Mapping[str, str], row_at: int) -> list[RowError]:
    """A refused batch's `/N/field` failures (`FieldError`s of the API's problem, N the row's
    place in the batch sent) as rows and columns of the file: each sent row of `chunk` holds its
    row number at `row_at`, and `columns` names the file's column of each wire field."""
    found: list[RowError] = []
    for error in field_errors:
        parts = error.path.strip("/").split("/")
        if not parts[0].isdigit() or int(parts[0]) >= len(chunk):
            continue
        column = columns.get(parts[1], parts[1]) if len(parts) > 1 else "(row)"
        found.append(RowError(int(chunk[int(parts[0])][row_at]), column,
                              capitalized(error.message)))
    return found


def data_rows(reader: Iterable[list[str]], width: int, *, max_rows: int, verb: str,
              errors: list[RowError], empty: str) -> Iterator[tuple[int, list[str]]]:
    """The rows of a CSV file after its header, each with its number (row 1 is the first after
    the header), blank lines skipped. A row with another number of values than the header's
    `width` goes to `errors`, not out. Raises `FileProblem` for a row the csv module cannot
    read, for more than `max_rows` rows (`verb`: "upload", "import"), and, once read to the
    end, for a file with no rows (saying `empty`)."""
    number = 0
    try:
        for cells in reader:
            if not any(c.strip() for c in cells):
                continue
            number += 1
            if number > max_rows:
                raise FileProblem(f"The file has more than {max_rows:,} rows. Split it into "
                                  f"files of at most {max_rows:,} rows and {verb} each.")
            if len(cells) != width:
                errors.append(RowError(number, "(row)", f"It has {len(cells)} values; the "
                                       f"header has {width}."))
                continue
            yield number, cells
    except csv.Error as exc:
        raise FileProblem(f"Row {number + 1} is not readable as CSV: {exc}.") from exc
    if number == 0:
        raise FileProblem(empty)
