"""The audit trail page (/admin/audit) through the test client: events with their changes,
filters kept in the URL (bad ones shown inline), cursor paging, who may open it, and the
"History" links of record pages that lead to it.

Each test has its own copy of the seeded database; changes are made through /v1 as the manager
would make them, so the events are the ones the API records.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.factories import World, uid
from tests.web.conftest import Web, build_web

ADMIN = "admin@example.com"
MANAGER = "manager@example.com"
HX = {"HX-Request": "true"}
START = datetime(2027, 6, 8, 11, 0, tzinfo=UTC)
PERIOD = "period=2026-03-02"  # the seeded world's pay period with punches


def _text(html: str) -> str:
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


def _wire(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S+0000")


@pytest.fixture
def aweb(web_db: tuple[str, World], signing_key_path: Path, tmp_path: Path) -> Iterator[Web]:
    """A fresh app on a private copy of the seeded database."""
    url, world = web_db
    target = tmp_path / "audit.db"
    shutil.copyfile(url.removeprefix("sqlite:///"), target)
    web = build_web((f"sqlite:///{target}", world), signing_key_path, tmp_path / "sessions")
    yield web
    web.app.extensions["shiftdesk"].db.dispose()


def _api(web: Web, method: str, path: str, user: str = MANAGER, **kw: Any) -> Any:
    response = web.client.open(path, method=method,
                               headers={"Authorization": f"Bearer {web.token(user)}"}, **kw)
    assert response.status_code < 300, response.get_json()
    return response.get_json()


def _shift(web: Web, note: str = "Pod B") -> dict[str, Any]:
    end = START + timedelta(hours=8)
    return _api(web, "POST", "/v1/shifts", json={
        "startDate": _wire(START), "endDate": _wire(end), "team": str(web.world.ed),
        "segments": [{"role": str(web.world.ed_nurse_role), "type": "working",
                      "startDate": _wire(START), "endDate": _wire(end)}],
        "note": note})


def _edit_note(web: Web, shift: dict[str, Any], note: str) -> dict[str, Any]:
    return _api(web, "PATCH", f"/v1/shifts/{shift['id']}",
                json={"version": shift["version"], "note": note})


def test_admin_sees_a_shifts_history_with_before_and_after(aweb):
    shift = _shift(aweb)
    _edit_note(aweb, shift, "Pod C")
    aweb.sign_in(ADMIN)

    response = aweb.client.get(f"/admin/audit?subject=Shift&recordId={shift['id']}")

    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    cards = re.findall(r'<li id="audit-[^"]+" class="record-card audit-event" data-record>'
                       r'.*?</li>\s*(?=<li id="audit-|</ol>)', body, re.S)
    assert [_text(c).split(" ")[0] for c in cards] == ["Changed", "Created"]
    changed = _text(cards[0])
    assert "Changed shift" in changed
    assert "Manager" in changed
    assert "Note Pod B Pod C" in changed
    assert f'href="/manage/schedule/shifts/{shift["id"]}/edit"' in cards[0]
    assert "Filter" in body
    assert 'name="record"' in body
    assert "Record id: " + shift["id"] in _text(body)  # the filter's chip


def test_a_deleted_records_events_link_to_no_page_and_say_so(aweb):
    shift = _shift(aweb)
    _api(aweb, "DELETE", f"/v1/shifts/{shift['id']}")
    aweb.sign_in(ADMIN)

    body = aweb.client.get(f"/admin/audit?subject=Shift&recordId={shift['id']}").get_data(
        as_text=True)

    assert f'href="/manage/schedule/shifts/{shift["id"]}/edit"' not in body
    cards = [_text(c) for c in re.findall(r'<li id="audit-.*?</li>', body, re.S)]
    assert [c.split(" ")[0] for c in cards] == ["Deleted", "Created"]
    assert "(deleted since)" in cards[1]
    assert "(deleted since)" not in cards[0]  # the deletion itself needs no such word


def test_list_fragment_is_the_audit_list_block(aweb):
    _shift(aweb)
    aweb.sign_in(ADMIN)
    response = aweb.client.get("/admin/audit?subject=Shift", headers=HX)
    assert response.status_code == 200
    assert response.get_data(as_text=True).lstrip().startswith('<section id="audit-list"')
    assert "HX-Request" in response.headers["Vary"]


def test_filters_by_who_and_what(aweb):
    shift = _shift(aweb)
    _api(aweb, "POST", "/v1/settings/labels", user=ADMIN, json={"name": "Preceptor"})
    aweb.sign_in(ADMIN)

    mine = aweb.client.get(f"/admin/audit?actor={aweb.world.manager}").get_data(as_text=True)
    labels = aweb.client.get("/admin/audit?subject=Label").get_data(as_text=True)

    assert shift["id"] in mine
    assert "Preceptor" not in mine
    assert "Preceptor" in labels
    assert shift["id"] not in labels


def test_older_link_pages_through_the_events(aweb):
    shift = _shift(aweb)
    for index in range(26):
        shift = _edit_note(aweb, shift, f"Note {index}")
    aweb.sign_in(ADMIN)

    first = aweb.client.get("/admin/audit?subject=Shift").get_data(as_text=True)
    older = re.search(r'<a href="([^"]+)">Older</a>', first)
    assert older is not None
    second = aweb.client.get(older.group(1).replace("&amp;", "&")).get_data(as_text=True)

    assert first.count("data-record") == 25
    assert second.count("data-record") == 2
    assert "Created shift" in second
    assert ">Newest</a>" in second


@pytest.mark.parametrize(("query", "message"), [
    ("start=0001-01-01", "Pick a day between 1900 and 2999."),
    ("end=9999-12-31", "Pick a day between 1900 and 2999."),
    ("start=2027-06-09&end=2027-06-08", "The last day must not come before the first."),
    ("record=" + "x" * 81, "Field cannot be longer than 80 characters."),
    ("subject=Nope", "Not a valid choice."),
    ("actor=someone", "Choose from the list."),
    ("start=not-a-day", "Not a valid date value."),
])
def test_bad_filters_are_shown_on_the_form(aweb, query, message):
    aweb.sign_in(ADMIN)
    response = aweb.client.get(f"/admin/audit?{query}")
    body = response.get_data(as_text=True)
    assert response.status_code == 422, body
    assert message in body
    assert "<title>Error:" in body


def test_a_tampered_cursor_is_shown_not_an_error_page(aweb):
    aweb.sign_in(ADMIN)
    response = aweb.client.get("/admin/audit?cursor=tampered")
    assert response.status_code == 422
    assert "cursor" in _text(response.get_data(as_text=True)).lower()


@pytest.mark.parametrize("email", [MANAGER, "provider@example.com", "scheduler@example.com"])
def test_others_may_not_open_the_audit_trail(aweb, email):
    aweb.sign_in(email)
    assert aweb.client.get("/admin/audit").status_code == 403
    assert "/admin/audit" not in aweb.client.get("/").get_data(as_text=True)


def test_shift_editor_links_to_its_history_for_the_admin_only(aweb):
    shift = _shift(aweb)
    editor = f"/manage/schedule/shifts/{shift['id']}/edit?team={aweb.world.ed}&week=2027-06-07"
    history = f"/admin/audit?subject=Shift&amp;recordId={shift['id']}"

    aweb.sign_in(MANAGER)
    assert history not in aweb.client.get(editor).get_data(as_text=True)
    aweb.sign_in(ADMIN)
    assert history in aweb.client.get(editor).get_data(as_text=True)


def test_appointment_page_links_to_its_history_for_the_admin_only(aweb):
    appointment = uid("appt:0")
    history = f"/admin/audit?subject=Appointment&amp;recordId={appointment}"

    aweb.sign_in("scheduler@example.com")
    page = aweb.client.get(f"/appointments/{appointment}")
    assert page.status_code == 200
    assert history not in page.get_data(as_text=True)
    aweb.sign_in(ADMIN)
    assert history in aweb.client.get(f"/appointments/{appointment}").get_data(as_text=True)


def test_an_opened_time_off_request_links_to_its_history_for_the_admin_only(aweb):
    request_id = uid("tor:pending")
    history = f"/admin/audit?subject=TimeOffRequest&amp;recordId={request_id}"

    aweb.sign_in(MANAGER)
    page = aweb.client.get(f"/manage/time-off/{request_id}")
    assert page.status_code == 200
    assert history not in page.get_data(as_text=True)
    aweb.sign_in(ADMIN)
    assert history in aweb.client.get(f"/manage/time-off/{request_id}").get_data(as_text=True)


def test_a_punch_being_edited_links_to_its_history_for_the_admin_only(aweb):
    sheet = (f"/manage/timesheets?team={aweb.world.ed}&{PERIOD}"
             f"&provider={aweb.world.provider}")

    def edited_rows(email: str) -> str:
        aweb.sign_in(email)
        page = aweb.client.get(sheet).get_data(as_text=True)
        link = re.search(r'<a class="ts-edit-link" href="([^"#]+)#row-[^"]*"[^>]*>Edit punches',
                         page)
        assert link is not None
        return aweb.client.get(link.group(1).replace("&amp;", "&")).get_data(as_text=True)

    assert "subject=Punch" not in edited_rows(MANAGER)
    assert re.search(r'href="/admin/audit\?subject=Punch&amp;recordId=[0-9a-f-]{36}">History',
                     edited_rows(ADMIN))


def test_an_empty_trail_says_so(aweb):
    aweb.sign_in(ADMIN)
    response = aweb.client.get("/admin/audit")
    assert response.status_code == 200
    assert "No changes recorded yet" in response.get_data(as_text=True)
    filtered = aweb.client.get("/admin/audit?subject=Label").get_data(as_text=True)
    assert "No changes match these filters" in filtered
