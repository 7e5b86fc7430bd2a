"""The demand forecast upload through the test client, as the ED manager: the page and its
template, every bad row shown with nothing sent, a 5,000-row file sent in batches (without
JavaScript in one post, with htmx step by step), the same file twice not doubling the team
schedule's coverage, a batch the API refuses half-way said plainly, and who may not use it.

Each test on its own copy of the seeded database (uploads write). Windows in June 2027, where
the seeded world has no forecast and no shifts.
"""

from __future__ import annotations

import html as markup
import io
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from werkzeug.datastructures import FileStorage, MultiDict
from werkzeug.test import encode_multipart

from app.api import models as m
from tests.web.conftest import Web, build_web
from tests.web.test_session_store_outage import Server, redis_server  # noqa: F401 (fixture)

MANAGER = "manager@example.com"
PAGE = "/manage/demand-forecast"
HTMX = {"HX-Request": "true", "HX-Target": "forecast-upload"}


def _text(html: str) -> str:
    return markup.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip())


def _csv(*rows: str, header: str = "role,start,end,demand") -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


def _post(web: Web, data: bytes, name: str = "forecast.csv", **headers: str) -> Any:
    # Encoded here, in memory: the test client spools a large body to a temporary file it
    # never closes (a ResourceWarning).
    boundary, body = encode_multipart(MultiDict({"csrf_token": web.csrf(),
                                                 "file": FileStorage(io.BytesIO(data), name)}))
    return web.client.post(PAGE, data=body, headers=headers,
                           content_type=f"multipart/form-data; boundary={boundary}")


def _stored(web: Web, email: str = MANAGER) -> list[dict[str, Any]]:
    """Every forecast row from June 2027 on, read through the API."""
    token = web.token(email)
    rows: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = {"startDate": "2027-06-01T00:00:00Z", "pageSize": 200}
        if cursor:
            query["cursor"] = cursor
        page = web.client.get("/v1/forecasting/demand", query_string=query,
                              headers={"Authorization": f"Bearer {token}"}).get_json()
        rows += page["items"]
        cursor = page["cursor"]
        if not cursor:
            return rows


def _many(count: int) -> bytes:
    """`count` hourly rows of ED nurses on the site's wall clock from Monday 7 June 2027
    (midnight), 1 to 4 staff."""
    first = datetime(2027, 6, 7)
    rows = []
    for i in range(count):
        start = first + timedelta(hours=i)
        rows.append(f"Registered Nurse,{start:%Y-%m-%d %H:%M},"
                    f"{start + timedelta(hours=1):%Y-%m-%d %H:%M},{1 + i % 4}")
    return _csv(*rows)


@pytest.fixture
def manager(mweb: Web) -> Web:
    mweb.sign_in(MANAGER)
    return mweb


def test_the_page_lists_the_managers_roles_and_the_columns(manager: Web) -> None:
    response = manager.client.get(PAGE)
    assert response.status_code == 200
    text = _text(response.get_data(as_text=True))
    assert "Upload a file" in text
    assert "YYYY-MM-DD HH:MM" in text
    assert "America/New_York" in text
    roles = text.split("Roles you can forecast", 1)[1]
    assert f"Registered Nurse Emergency {manager.world.ed_nurse_role}" in roles
    assert f"Physician Emergency {manager.world.ed_doctor_role}" in roles
    assert "Intensive Care" not in roles  # not the ED manager's team


def test_the_template_downloads_and_uploads_as_it_is(manager: Web) -> None:
    response = manager.client.get(f"{PAGE}/template.csv")
    assert response.status_code == 200
    assert response.mimetype == "text/csv"
    assert "attachment" in response.headers["Content-Disposition"]
    lines = response.get_data(as_text=True).splitlines()
    assert lines[0] == "role,start,end,demand"
    assert len(lines) == 3
    assert all(line.startswith("Physician,") for line in lines[1:])
    stored = _post(manager, response.get_data(), "template.csv")
    assert stored.status_code == 303
    assert "is stored" in _text(manager.client.get(stored.headers["Location"]).get_data(
        as_text=True))


def test_bad_rows_are_listed_and_nothing_is_sent(manager: Web) -> None:
    data = _csv("Registered Nurse,2027-06-07 07:00,2027-06-07 19:00,3",
                "Midwife,2027-06-07 07:00,2027-06-07 19:00,2",
                "Physician,2027-06-07 19:00,2027-06-07 07:00,1",
                "Physician,2027-06-08 07:00,2027-06-08 19:00,1")
    for headers in ({}, HTMX):
        response = _post(manager, data, **headers)
        assert response.status_code == 422
        body = response.get_data(as_text=True)
        if headers:
            assert body.lstrip().startswith('<section id="forecast-upload"')
        else:
            assert "<title>Error: Demand forecast" in body
        text = _text(body)
        assert "“forecast.csv” was not sent: 2 rows to fix" in text
        assert "Rows to fix (2)" in text
        assert "2 role No role named “Midwife” in the teams you forecast for." in text
        assert "3 end It ends at or before its start." in text
    assert _stored(manager) == []


@pytest.mark.parametrize(("data", "message"), [
    (b"role,start,end\nPhysician,2027-06-07 07:00,2027-06-07 19:00\n", "it lacks “demand”"),
    (b"role,begin,start,end,demand\n", "it has unknown columns “begin”"),
    (b"role,start,end,demand\n\n", "The file has the header but no rows."),
    (b"\n\n", "The file holds no rows."),
    (b"role,start,end,demand\n\xff\xfe,1,2,3\n", "The file is not UTF-8 text."),
])
def test_a_file_that_cannot_be_read_is_said_on_the_form(manager: Web, data: bytes,
                                                        message: str) -> None:
    response = _post(manager, data)
    assert response.status_code == 422
    assert message in _text(response.get_data(as_text=True))


@pytest.mark.parametrize(("row", "column", "message"), [
    ("Physician,2027-06-07 07:00,2027-06-07 19:00,-1", "demand", "below zero"),
    ("Physician,2027-06-07 07:00,2027-06-07 19:00,many", "demand", "“many” is not a number"),
    ("Physician,2027-06-07 07:00,2027-06-07 19:00,nan", "demand", "“nan” is not a number"),
    ("Physician,07/06/2027 07:00,2027-06-07 19:00,1", "start", "is not a date and time"),
    ("Physician,2027-03-14 02:30,2027-03-14 05:00,1", "start", "the clocks skip it"),
    ("Physician,2027-06-07 07:00,2027-06-07 07:00,1", "end", "at or before its start"),
    ("Physician,2027-06-07 07:00,2027-06-07 19:00", "(row)", "It has 3 values"),
    (",2027-06-07 07:00,2027-06-07 19:00,1", "role", "Give the role's name or id."),
    ("00000000-0000-4000-8000-000000000000,2027-06-07 07:00,2027-06-07 19:00,1", "role",
     "No role with id"),
    ("physician,2027-06-07T11:00Z,2027-06-07 19:00,1", "role",
     "Row 1 already gives this role and window"),
])
def test_each_bad_value_is_named_by_row_and_column(manager: Web, row: str, column: str,
                                                   message: str) -> None:
    response = _post(manager, _csv("Physician,2027-06-07 07:00,2027-06-07 19:00,2", row))
    assert response.status_code == 422
    text = _text(response.get_data(as_text=True))
    assert re.search(rf"\b2 {re.escape(column)} [^|]*{re.escape(message)}", text), text


def test_a_role_name_several_teams_use_is_ambiguous_for_an_administrator(mweb: Web) -> None:
    mweb.sign_in("admin@example.com")
    response = _post(mweb, _csv("Registered Nurse,2027-06-07 07:00,2027-06-07 19:00,3"))
    assert response.status_code == 422
    assert ("“Registered Nurse” is a role in 2 teams (Emergency, Intensive Care); add the team, "
            "as in “Registered Nurse (Emergency)”, or write the role's id."
            in _text(response.get_data(as_text=True)))
    by_id = _post(mweb, _csv(f"{mweb.world.icu_nurse_role},2027-06-07 07:00,"
                             "2027-06-07 19:00,3",
                             "registered nurse (emergency),2027-06-07 07:00,2027-06-07 19:00,2"))
    assert by_id.status_code == 303
    stored = {(r["role"], r["demand"]) for r in _stored(mweb, "admin@example.com")}
    assert stored == {(str(mweb.world.icu_nurse_role), 3.0), (str(mweb.world.ed_nurse_role), 2.0)}


def test_too_many_rows_are_refused_before_anything_is_sent(manager: Web) -> None:
    response = _post(manager, _many(20_001))
    assert response.status_code == 422
    assert "The file has more than 20,000 rows." in _text(response.get_data(as_text=True))
    assert _stored(manager) == []


def test_the_page_says_its_file_limit(manager: Web) -> None:
    assert "At most 20,000 rows and 5 MB." in _text(manager.client.get(PAGE).get_data(
        as_text=True))


@pytest.mark.parametrize("size", [5000, 80_000])  # within the envelope it has, and beyond
def test_a_file_over_the_limit_is_refused_on_the_form(make_web, size: int) -> None:
    web = make_web(max_upload_bytes=4096)  # a small limit: the same answer, a cheap body
    web.sign_in(MANAGER)
    response = _post(web, _csv() + b"#" * size)
    assert response.status_code in (413, 422)
    assert ("The file is larger than 0.00391 MB. Split it into files of at most 20,000 rows"
            in _text(response.get_data(as_text=True)))


def test_five_thousand_rows_go_through_without_javascript(manager: Web) -> None:
    response = _post(manager, _many(5000))
    assert response.status_code == 303
    result = manager.client.get(response.headers["Location"])
    assert result.status_code == 200
    text = _text(result.get_data(as_text=True))
    assert "“forecast.csv” is stored" in text
    assert "Rows stored 5,000, all new" in text
    assert "From Mon 7 Jun 2027, 12:00 AM To Sat 1 Jan 2028, 8:00 AM" in text
    assert "Roles Registered Nurse (Emergency)" in text
    assert f"team={manager.world.ed}" in markup.unescape(result.get_data(as_text=True))
    assert "week=2027-06-07" in result.get_data(as_text=True)
    assert manager.session()["demand_forecast_upload"]["rows"] == []  # only the summary stays
    rows = _stored(manager)
    assert len(rows) == 5000
    assert sum(r["demand"] for r in rows) == 1250 * (1 + 2 + 3 + 4)


def test_with_htmx_each_batch_moves_the_progress_bar(manager: Web) -> None:
    response = _post(manager, _many(2500), **HTMX)
    assert response.status_code == 200
    seen = []
    body = response.get_data(as_text=True)
    while 'hx-trigger="load"' in body:
        progress = re.search(r'<progress class="upload-progress" max="(\d+)" value="(\d+)"',
                             body)
        assert progress is not None
        seen.append((int(progress[1]), int(progress[2])))
        step = re.search(r'hx-post="([^"]+)" hx-trigger="load"', body)
        assert step is not None
        body = manager.client.post(markup.unescape(step[1]),
                                   data={"csrf_token": manager.csrf()},
                                   headers=HTMX).get_data(as_text=True)
    assert seen == [(2500, 0), (2500, 1000), (2500, 2000)]
    assert body.lstrip().startswith('<section id="forecast-upload"')
    assert "Rows stored 2,500, all new" in _text(body)
    assert len(_stored(manager)) == 2500


def test_a_batch_posted_again_sends_nothing_more(manager: Web) -> None:
    response = _post(manager, _many(1500), **HTMX)
    step = markup.unescape(re.search(r'hx-post="([^"]+)" hx-trigger="load"',
                                     response.get_data(as_text=True))[1])
    first = manager.client.post(step, data={"csrf_token": manager.csrf()}, headers=HTMX)
    assert 'value="1000"' in first.get_data(as_text=True)
    again = manager.client.post(step, data={"csrf_token": manager.csrf()}, headers=HTMX)
    assert 'value="1000"' in again.get_data(as_text=True)
    assert len(_stored(manager)) == 1000


def test_the_api_batch_size_is_learnt_from_its_refusal(mweb: Web, signing_key_path: Path,
                                                       tmp_path: Path) -> None:
    # An app whose API takes 300 rows at a time, on this test's own copy of the database.
    url = mweb.app.config["SHIFTDESK"].database_url
    web = build_web((url, mweb.world), signing_key_path, tmp_path / "small-batches",
                    max_batch_size=300)
    web.sign_in(MANAGER)
    response = _post(web, _many(1000))
    assert response.status_code == 303
    assert "Rows stored 1,000" in _text(web.client.get(response.headers["Location"]).get_data(
        as_text=True))
    web.app.extensions["shiftdesk"].db.dispose()
    assert len(_stored(mweb)) == 1000


def test_the_same_file_twice_does_not_double_the_coverage(manager: Web) -> None:
    data = _csv("Registered Nurse,2027-06-07 07:00,2027-06-07 19:00,3")
    first = _post(manager, data)
    assert "all new" in _text(manager.client.get(first.headers["Location"]).get_data(
        as_text=True))
    again = _post(manager, data)
    result = _text(manager.client.get(again.headers["Location"]).get_data(as_text=True))
    assert ("Rows stored 1: 1 replaced the figures stored for the same role and times, 0 new"
            in result)
    schedule = _text(manager.client.get(
        f"/manage/schedule?team={manager.world.ed}&week=2027-06-07&view=week").get_data(
        as_text=True))
    assert "7:00 AM: 3 needed, 0 scheduled, 3 short" in schedule
    assert len(_stored(manager)) == 1


def test_a_batch_refused_half_way_says_which_rows_were_stored(manager: Web, arrange) -> None:
    response = _post(manager, _many(1500), **HTMX)
    step = re.search(r'hx-post="([^"]+)" hx-trigger="load"', response.get_data(as_text=True))
    body = manager.client.post(markup.unescape(step[1]), data={"csrf_token": manager.csrf()},
                               headers=HTMX).get_data(as_text=True)

    def leave_the_team(session: Any, world: Any) -> None:
        user = session.scalar(select(m.User).where(m.User.id == world.manager))
        user.managed_teams = []

    arrange(leave_the_team)
    step = re.search(r'hx-post="([^"]+)" hx-trigger="load"', body)
    body = manager.client.post(markup.unescape(step[1]), data={"csrf_token": manager.csrf()},
                               headers=HTMX).get_data(as_text=True)
    text = _text(body)
    assert "“forecast.csv” was not stored completely" in text
    assert "Rows 1 to 1,000 were stored. Rows 1,001 to 1,500 were not stored:" in text
    assert "upload it again, whole" in text
    assert len(_stored(manager, "admin@example.com")) == 1000


@pytest.mark.parametrize("email", ["provider@example.com", "scheduler@example.com"])
def test_others_get_no_link_and_no_page(mweb: Web, email: str) -> None:
    mweb.sign_in(email)
    home = mweb.client.get("/").get_data(as_text=True)
    assert PAGE not in home
    assert mweb.client.get(PAGE).status_code == 403
    assert mweb.client.get(f"{PAGE}/template.csv").status_code == 403
    assert _post(mweb, _csv("Physician,2027-06-07 07:00,2027-06-07 19:00,2")).status_code == 403


def test_the_manager_and_the_administrator_find_the_page(mweb: Web) -> None:
    mweb.sign_in(MANAGER)
    assert PAGE in mweb.client.get("/").get_data(as_text=True)
    mweb.sign_in("admin@example.com")
    home = _text(mweb.client.get("/").get_data(as_text=True))
    assert "Administration" in home
    admin = home.split("Administration", 1)[1]
    assert "Demand forecast" in admin


def test_an_upload_no_longer_held_is_said_plainly(manager: Web) -> None:
    response = manager.client.get(f"{PAGE}/uploads/not-a-token")
    assert response.status_code == 404
    assert "That upload is no longer in progress here" in _text(response.get_data(as_text=True))


def test_a_session_store_outage_mid_upload_answers_503_then_says_the_upload_is_gone(
        mweb: Web, signing_key_path: Path, tmp_path: Path,
        redis_server: Server,  # noqa: F811 (the fixture imported above)
) -> None:
    url = mweb.app.config["SHIFTDESK"].database_url
    web = build_web((url, mweb.world), signing_key_path, tmp_path / "redis-sessions",
                    redis_url=redis_server.url)
    web.sign_in(MANAGER)
    response = _post(web, _many(1500), **HTMX)
    step = markup.unescape(re.search(r'hx-post="([^"]+)" hx-trigger="load"',
                                     response.get_data(as_text=True))[1])
    csrf = web.csrf()
    first = web.client.post(step, data={"csrf_token": csrf}, headers=HTMX)
    assert 'value="1000"' in first.get_data(as_text=True)
    following = markup.unescape(re.search(r'hx-post="([^"]+)" hx-trigger="load"',
                                          first.get_data(as_text=True))[1])

    redis_server.stop()
    down = web.client.post(following, data={"csrf_token": csrf}, headers=HTMX)
    assert down.status_code == 503

    redis_server.start()  # empty again: signed out, and the upload forgotten
    web.sign_in(MANAGER)
    gone = web.client.get(following.split("/rows-from/")[0])
    assert gone.status_code == 404
    assert "Rows it sent stay stored" in _text(gone.get_data(as_text=True))
    web.app.extensions["shiftdesk"].db.dispose()
    assert len(_stored(mweb)) == 1000
