"""The administrator's balance reset page through the test client: a good file opens its upload
with each row's person, policy, balance and adjustment; the same file again says it was already
applied; a refused file shows every bad row in words and stores nothing; empty, non-CSV, binary
and too-large files are refused on the form; other roles get neither the menu entry nor the
page; unknown uploads and forged page links never give a 500.

One database for the module (the uploads it stores are told apart by their contents), with the
world's PTO policy keeping a balance.
"""

from __future__ import annotations

import html
import io
import re
import shutil
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select

from app.api import models as m
from tests.factories import World, uid
from tests.web.conftest import Web, build_web

PTO = uid("policy:pto")
PAGE = "/admin/balance-resets"


@pytest.fixture(scope="module")
def rweb(web_db: tuple[str, World], signing_key_path: Path,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """An app on this module's copy of the seeded database, PTO keeping a balance."""
    url, world = web_db
    folder = tmp_path_factory.mktemp("resets-web")
    target = folder / "resets.db"
    shutil.copyfile(url.removeprefix("sqlite:///"), target)
    web = build_web((f"sqlite:///{target}", world), signing_key_path, folder / "sessions")
    with web.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        session.add(m.TimeOffAccrualSettings(
            policy_id=PTO, method="per_period", rate="8", start_date=date(2026, 1, 1),
            period="monthly", carry_over_month=1, carry_over_day=1, waiting_period_days=0,
            allow_negative=False, negative_floor="0", debit_on="approval",
            updated_at=datetime(2026, 1, 1, tzinfo=UTC)))
    yield web
    web.app.extensions["shiftdesk"].db.dispose()


def _csv(*rows: str) -> bytes:
    return ("\n".join(["providerId,policyId,balance,effectiveDate", *rows]) + "\n").encode()


def _upload(web: Web, data: bytes, name: str = "resets.csv", **headers: str):
    return web.client.post(PAGE, data={"csrf_token": web.csrf(),
                                       "file": (io.BytesIO(data), name)},
                           content_type="multipart/form-data", headers=headers)


def _uploads(web: Web) -> int:
    with web.app.extensions["shiftdesk"].db.unit_of_work() as session:
        return session.scalar(select(func.count()).select_from(m.TimeOffBalanceUpload)) or 0


def _text(response) -> str:
    return html.unescape(re.sub(r"\s+", " ", response.get_data(as_text=True)))


def _words(response) -> str:
    """What the page says, tags left out."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ",
                                                     response.get_data(as_text=True))))


def test_admin_uploads_a_file_sees_each_row_and_the_same_file_again_changes_nothing(rweb):
    rweb.sign_in("admin@example.com")
    data = _csv(f"{rweb.world.provider},{PTO},40.5,2026-03-15",
                f"{rweb.world.doctor},{PTO},12,2026-03-16")

    sent = _upload(rweb, data, name="march.csv")

    assert sent.status_code == 303
    location = sent.headers["Location"]
    assert re.fullmatch(rf"{PAGE}/[0-9a-f-]{{36}}", location)
    page = _words(rweb.client.get(location))
    assert "Balances set from “march.csv”: 2 rows." in page
    assert "Balance reset: march.csv" in page
    assert "By Ada Admin" in page
    assert re.search(r"Pat Provider Paid time off 40.5 hours [^+]*15[^+]* \+40.5 hours 1 ",
                     page), page
    assert re.search(r"Dana Doctor Paid time off 12 hours [^+]*16[^+]* \+12 hours 2 ", page)
    stored = _uploads(rweb)

    again = _upload(rweb, data, name="march-copy.csv")

    assert again.status_code == 303
    assert again.headers["Location"] == location
    assert "This file was already applied on" in _words(rweb.client.get(location))
    assert _uploads(rweb) == stored
    listing = _words(rweb.client.get(PAGE))
    assert "march.csv" in listing
    assert "Ada Admin" in listing
    assert listing.index("Upload a file") < listing.index("Past uploads")


def test_refused_file_lists_every_bad_row_in_words_and_stores_nothing(rweb):
    rweb.sign_in("admin@example.com")
    before = _uploads(rweb)
    data = _csv(f"{rweb.world.provider},{PTO},8,2026-02-01",
                f"{uid('nobody')},{PTO},8,2026-02-01",
                f"{rweb.world.dismissed},{PTO},8,2026-02-01",
                f"{rweb.world.provider},{PTO},-2,2026-02-02",
                f"{rweb.world.provider},{PTO},abc,2026-02-30")

    refused = _upload(rweb, data)

    assert refused.status_code == 422
    page = _text(refused)
    assert page.startswith("<!doctype html>") or "<html" in page
    assert "<title>Error: Balance resets" in page
    assert "4 of 5 rows cannot be used; nothing was changed." in page
    rows = re.findall(r'<td data-label="Row">(\d+)</td><td data-label="Column"><code>(\w+)'
                      r'</code></td><td data-label="What is wrong">([^<]+)</td>', page)
    assert [(r, c) for r, c, _ in rows] == [("2", "providerId"), ("3", "policyId"),
                                            ("4", "balance"), ("5", "balance"),
                                            ("5", "effectiveDate")]
    assert rows[0][2].startswith("Unknown person")
    assert rows[1][2].startswith("Gone Away is not a member of")
    assert "provider-not-in-policy" not in page
    assert rows[2][2] == "Negative where the policy does not allow it"
    assert 'type="file"' in page  # the form is still there
    assert _uploads(rweb) == before

    partial = _upload(rweb, data, **{"HX-Request": "true", "HX-Target": "reset-upload"})

    assert partial.status_code == 422
    body = partial.get_data(as_text=True)
    assert body.lstrip().startswith('<section id="reset-upload"')
    assert "Rows to fix (4)" in body
    assert "HX-Request" in partial.headers["Vary"]


@pytest.mark.parametrize(("data", "name", "message"), [
    (b"", "empty.csv", "“empty.csv” is empty."),
    (b"\x89PNG\r\n", "photo.png", "“photo.png” is not a CSV file."),
    (b"\xff\xfe\x00\x01", "binary.csv", "The file is not UTF-8 text"),
    (b"providerId,policyId,balance,effectiveDate\n", "header.csv",
     "The file has a header but no rows"),
    (b"name,hours\nPat,8\n", "wrong.csv", "The header lacks providerId or importedId, policyId"),
])
def test_files_that_are_not_balance_resets_are_refused_on_the_form(rweb, data, name, message):
    rweb.sign_in("admin@example.com")
    before = _uploads(rweb)

    refused = _upload(rweb, data, name=name)

    assert refused.status_code == 422
    page = _text(refused)
    assert message in page
    assert 'aria-invalid="true"' in page
    assert _uploads(rweb) == before


def test_no_file_and_a_too_large_file_are_said_on_the_form(rweb, tmp_path, signing_key_path):
    rweb.sign_in("admin@example.com")
    missing = rweb.client.post(PAGE, data={"csrf_token": rweb.csrf()},
                               content_type="multipart/form-data")
    url = rweb.app.config["SHIFTDESK"].database_url
    small = build_web((url, rweb.world), signing_key_path, tmp_path / "sessions",
                      max_body_bytes=4096)  # a small limit: the same answer, a cheap body
    small.sign_in("admin@example.com")

    big = small.client.post(PAGE, data={"csrf_token": small.csrf(), "file": (
        io.BytesIO(b"x" * 5000), "big.csv")}, content_type="multipart/form-data")
    small.app.extensions["shiftdesk"].db.dispose()

    assert missing.status_code == 422
    assert "Choose a CSV file to upload." in _text(missing)
    assert big.status_code == 413
    assert "The file is too large to upload here." in _words(big)
    assert "Upload and set balances" in _words(big)


@pytest.mark.parametrize("email", ["manager@example.com", "provider@example.com",
                                   "scheduler@example.com"])
def test_other_roles_get_no_menu_entry_and_are_refused_politely(rweb, email):
    rweb.sign_in(email)

    home = _words(rweb.client.get("/"))
    page = rweb.client.get(PAGE)
    upload = _upload(rweb, _csv(f"{rweb.world.provider},{PTO},1,2026-01-01"))

    assert "Balance resets" not in home
    assert page.status_code == 403
    assert "You can't open this page" in _words(page)
    assert upload.status_code == 403
    assert rweb.client.get(f"{PAGE}/{uuid.uuid4()}").status_code == 403


def test_unknown_uploads_and_forged_page_links_are_not_errors(rweb):
    rweb.sign_in("admin@example.com")
    with rweb.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        session.add_all([m.TimeOffBalanceUpload(
            file_hash=uuid.uuid4().hex * 2, file_name=f"old-{i:02d}.csv", status="completed",
            row_count=0, rows=[], created_at=datetime(2025, 1, 1 + i, tzinfo=UTC),
            created_by_id=rweb.world.admin) for i in range(21)])

    assert rweb.client.get(f"{PAGE}/{uuid.uuid4()}").status_code == 404
    assert rweb.client.get(f"{PAGE}/not-an-id").status_code == 404
    first = _text(rweb.client.get(PAGE))
    older = re.search(r'href="(/admin/balance-resets\?cursor=[^"#]+)#past-uploads"', first)
    assert older, "no link to older uploads"
    second = _text(rweb.client.get(html.unescape(older.group(1))))
    assert "old-00.csv" in second
    assert "old-00.csv" not in first
    assert "Newest uploads" in second
    for cursor in ("forged", "x" * 5000):
        forged = rweb.client.get(PAGE, query_string={"cursor": cursor})
        assert forged.status_code == 200
        assert "That page of uploads is no longer available" in _text(forged)
