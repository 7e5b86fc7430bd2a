"""What the CSV upload pages share: the file field's check, a bad row in words, a refused
batch's failures as rows of the file, the table of bad rows (`templates/_macros/uploads.html`)
and a checked file sent in batches (`BatchedUpload`).

Shape only: a file is chosen, is not empty and is named `.csv`; what the rows say is checked by
the page (or the API) that reads them. Never calls the API itself: a page's upload makes the
call it is given a client for (`BatchedUpload.post`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from flask import session
from wtforms import ValidationError

from app.client import ApiClient, ApiProblem, ApiUnavailable, Unauthenticated


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


def csv_rows(content: bytes, *, limit: int, max_rows: int, verb: str, columns: Sequence[str],
             each: str, errors: list[RowError],
             ) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """A CSV file's header (its first row that is not blank) and its data rows as `data_rows`
    gives them (read as they are taken), for a file whose header is `columns` and that holds a
    row per `each` ("person"). Raises `FileProblem` for a file `file_text` refuses, one with
    no row at all or a header the csv module cannot read, and, while its rows are read, as
    `data_rows` does (`verb`: "upload", "import")."""
    text = file_text(content, limit=limit, max_rows=max_rows, verb=verb)
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(r for r in reader if any(c.strip() for c in r))
    except StopIteration:
        raise FileProblem("The file holds no rows. Its first row is the header "
                          f"{','.join(columns)}, then one row per {each}.") from None
    except csv.Error as exc:
        raise FileProblem(f"The file is not readable as CSV: {exc}.") from exc
    empty = f"The file has the header but no rows. Add one row per {each} under it."
    return header, data_rows(reader, len(header), max_rows=max_rows, verb=verb, errors=errors,
                             empty=empty)


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


@dataclass
class BatchedUpload:
    """A checked file being sent to the API in batches, as the user's server-side session keeps
    it (one upload of a kind at a time: a new file replaces it): the rows still to send, how
    many were sent, how it ended. Once it ends the rows are dropped; only what the page's result
    shows stays.

    A page's kind of upload names its session key (`KEY`), the columns of the file a refused
    row's wire fields stand in (`COLUMN_OF`) and where each kept row holds its file row number
    (`ROW_AT`), and says what an unreachable API means (`UNAVAILABLE`); it makes the call
    (`post`) and adds up what the API answered (`record`).

    A batch is at most `batch` rows: the contract's largest, lowered to the `maxBatchSize` that
    a `batch-size-exceeded` answer reports (a refused batch writes nothing, so it is sent
    again, split). Any other refusal, or an API that cannot be reached, ends the upload.
    """

    KEY: ClassVar[str]
    COLUMN_OF: ClassVar[Mapping[str, str]]
    ROW_AT: ClassVar[int]
    UNAVAILABLE: ClassVar[str]

    token: str
    file_name: str
    rows: list[list[Any]]
    total: int
    batch: int
    sent: int = 0
    failure: str | None = None
    failed_rows: list[list[Any]] | None = None  # [file row, column, message]

    @property
    def finished(self) -> bool:
        """Every row sent, or a batch refused."""
        return self.failure is not None or self.sent >= self.total

    @classmethod
    def kept(cls, token: str) -> Self | None:
        """The upload the session keeps under `token`, if it still does."""
        kept = session.get(cls.KEY)
        if not isinstance(kept, dict) or kept.get("token") != token:
            return None
        try:
            return cls(**kept)
        except TypeError:  # kept by an older version of the page
            return None

    def save(self) -> None:
        """Keep it in the session (a whole new value, so the store writes it); an upload that
        ended keeps no rows."""
        kept = dict(vars(self))
        if self.finished:
            kept["rows"] = []
        session[self.KEY] = kept

    def send_next(self, client: ApiClient) -> None:
        """Send the next batch and record what the API did with it; a refusal or an API that
        cannot be reached ends the upload with its failure (and the refused rows' messages)."""
        chunk = self.rows[self.sent:self.sent + self.batch]
        try:
            result = self.post(client, chunk)
        except Unauthenticated:
            raise  # signed out meanwhile: the app sends the user to sign in again
        except ApiProblem as problem:
            limit = problem.extensions.get("maxBatchSize")
            if (problem.code == "batch-size-exceeded" and isinstance(limit, int)
                    and 0 < limit < len(chunk)):
                self.batch = limit  # nothing of the refused batch was written: send it smaller
                return
            self.failure = problem.detail
            self.failed_rows = [[e.row, e.column, e.message]
                                for e in batch_errors(problem.field_errors, chunk,
                                                      columns=self.COLUMN_OF, row_at=self.ROW_AT)]
            return
        except ApiUnavailable:
            self.failure = self.UNAVAILABLE
            return
        self.record(chunk, result)
        self.sent += len(chunk)

    def send_from(self, offset: int, client: ApiClient) -> None:
        """Send the batch that starts after `offset` sent rows, once: a repeated post of a
        batch already sent (a second click, a resent form) sends nothing."""
        if not self.finished and offset == self.sent:
            self.send_next(client)
            self.save()

    def send_all(self, client: ApiClient) -> None:
        """Send every batch in turn (a page without JavaScript), then keep the outcome."""
        while not self.finished:
            self.send_next(client)
        self.save()

    def post(self, client: ApiClient, chunk: list[list[Any]]) -> Any:
        """Send these kept rows to the API; what it answers goes to `record`."""
        raise NotImplementedError

    def record(self, chunk: list[list[Any]], result: Any) -> None:
        """Add up what the API did with a stored batch (nothing by default)."""
