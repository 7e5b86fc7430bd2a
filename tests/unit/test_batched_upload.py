"""`app.web.uploads.BatchedUpload`: a checked file sent in batches, as the demand forecast
upload and the people import send theirs. The API is a stand-in that answers each batch as told;
what is checked is what the user's session keeps and the result page shows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from flask import Flask, session

from app.client import ApiProblem, ApiUnavailable, Unauthenticated
from app.contract.problems import Problem
from app.web.uploads import BatchedUpload

BASE = "https://shiftdesk.example/v1/errors#"


@dataclass
class Stored:
    rows: int


@dataclass
class NumbersUpload(BatchedUpload):
    """Rows of `[file row, value]`; the API answers how many it stored."""

    KEY = "numbers_upload"
    COLUMN_OF = {"value": "amount"}
    ROW_AT = 0
    UNAVAILABLE = "The server could not store the numbers just now."

    stored: int = 0

    def post(self, client: Any, chunk: list[list[Any]]) -> Stored:
        return client(chunk)

    def record(self, chunk: list[list[Any]], result: Stored) -> None:
        self.stored += result.rows


class Api:
    """Answers each batch with the next of `answers` (an exception is raised), then stores."""

    def __init__(self, *answers: Exception) -> None:
        self.answers = list(answers)
        self.batches: list[list[list[Any]]] = []

    def __call__(self, chunk: list[list[Any]]) -> Stored:
        self.batches.append(chunk)
        if self.answers:
            raise self.answers.pop(0)
        return Stored(len(chunk))


def _problem(code: str, status: int = 400, **members: Any) -> ApiProblem:
    cls = Unauthenticated if status == 401 else ApiProblem
    return cls(Problem.model_validate({"type": BASE + code, "title": code.title(),
                                       "status": status, **members}))


@pytest.fixture
def request_session():
    app = Flask(__name__)
    app.secret_key = "test"
    with app.test_request_context("/"):
        yield session


def _upload(rows: int, batch: int = 4) -> NumbersUpload:
    return NumbersUpload(token="t1", file_name="numbers.csv", total=rows, batch=batch,
                         rows=[[n, n * 10] for n in range(1, rows + 1)])


def test_every_batch_is_sent_in_order_and_the_outcome_kept(request_session) -> None:
    upload, api = _upload(10), Api()
    upload.send_all(api)
    assert [len(b) for b in api.batches] == [4, 4, 2]
    assert [row[0] for b in api.batches for row in b] == list(range(1, 11))
    kept = NumbersUpload.kept("t1")
    assert kept is not None
    assert (kept.finished, kept.failure) == (True, None)
    assert (kept.sent, kept.stored, kept.rows) == (10, 10, [])  # a finished upload keeps no rows


def test_the_api_batch_size_is_learnt_and_the_refused_batch_sent_again(request_session) -> None:
    upload = _upload(10)
    api = Api(_problem("batch-size-exceeded", maxBatchSize=3))
    upload.send_all(api)
    assert [len(b) for b in api.batches] == [4, 3, 3, 3, 1]
    assert (upload.batch, upload.sent, upload.stored, upload.failure) == (3, 10, 10, None)


@pytest.mark.parametrize("limit", [0, 4, 9, "3", None])
def test_a_size_refusal_that_would_not_shrink_the_batch_ends_the_upload(
        request_session, limit: Any) -> None:
    upload = _upload(10)
    upload.send_all(Api(_problem("batch-size-exceeded", detail="Too many rows.",
                                 maxBatchSize=limit)))
    assert (upload.finished, upload.failure, upload.sent) == (True, "Too many rows.", 0)


def test_a_refused_batch_ends_the_upload_naming_its_rows_in_the_file(request_session) -> None:
    upload = _upload(10)
    refusal = _problem("validation", detail="Two rows are wrong.", errors=[
        {"path": "/1/value", "message": "must be positive"},
        {"path": "/3", "message": "repeats row 1"},
        {"path": "/9/value", "message": "beyond the batch: not a row sent"}])
    api = Api()
    upload.send_next(api)  # rows 1 to 4 are stored
    api.answers.append(refusal)
    upload.send_all(api)
    assert len(api.batches) == 2
    assert (upload.sent, upload.stored, upload.failure) == (4, 4, "Two rows are wrong.")
    assert upload.failed_rows == [[6, "amount", "Must be positive"], [8, "(row)", "Repeats row 1"]]


def test_an_unreachable_api_ends_the_upload_saying_so(request_session) -> None:
    upload = _upload(10)
    upload.send_all(Api(ApiUnavailable("refused")))
    assert (upload.failure, upload.sent) == (NumbersUpload.UNAVAILABLE, 0)


def test_signed_out_meanwhile_is_not_taken_for_a_refusal(request_session) -> None:
    upload = _upload(10)
    with pytest.raises(Unauthenticated):
        upload.send_next(Api(_problem("unauthenticated", status=401)))
    assert (upload.failure, upload.finished) == (None, False)


def test_a_batch_posted_again_sends_nothing_more(request_session) -> None:
    upload, api = _upload(10), Api()
    upload.save()
    upload.send_from(0, api)
    upload.send_from(0, api)  # the same step again: a second click, a resent form
    kept = NumbersUpload.kept("t1")
    assert kept is not None
    assert (kept.sent, len(api.batches)) == (4, 1)
    kept.send_from(4, api)
    kept.send_from(99, api)  # a step that is not the next one
    assert (NumbersUpload.kept("t1").sent, len(api.batches)) == (8, 2)  # type: ignore[union-attr]


def test_only_the_kept_token_is_found_and_a_stale_shape_is_dropped(request_session) -> None:
    _upload(10).save()
    assert NumbersUpload.kept("another") is None
    session[NumbersUpload.KEY] = {"token": "t1", "shape": "of an older page"}
    assert NumbersUpload.kept("t1") is None
    session[NumbersUpload.KEY] = "not an upload"
    assert NumbersUpload.kept("t1") is None
