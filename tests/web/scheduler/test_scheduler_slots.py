"""Find a slot and book it, through the test client as the scheduler: page and fragment, GET form
kept in the URL, why-empty explanations, booking with 303, inline errors, taken slots."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

from tests.factories import uid
from tests.web.conftest import Web

FOLLOW_UP = uid("atype:follow")
NEW_PATIENT = uid("atype:new")
DAY = "2026-03-03"  # a Tuesday of the shared world's shifts (07:00-19:00 New York)


def search(web: Web, **params: str) -> str:
    query = {"type": str(FOLLOW_UP), "range": "dates", "start": DAY, "end": DAY, **params}
    response = web.client.get("/slots", query_string=query)
    assert response.status_code == 200, response.get_data(as_text=True)[:2000]
    return response.get_data(as_text=True)


def book_links(page: str) -> list[str]:
    return [link.replace("&amp;", "&") for link in re.findall(r'href="(/slots/book\?[^"]+)"', page)]


def test_index_without_a_type_asks_for_one(sched: Web) -> None:
    page = sched.client.get("/slots").get_data(as_text=True)
    assert "<h1>Find a slot</h1>" in page
    assert "Choose an appointment type to see free slots." in page
    assert "Follow-up (15m)" in page
    assert "Retired visit" not in page  # archived types are not offered


def test_search_groups_slots_by_day_with_rank_and_provider(sched: Web) -> None:
    page = search(sched)
    assert "Tue 3 Mar" in page
    assert "#1" in page
    assert "Best match" in page
    assert "7:00 AM" in page
    assert "10 slots, ranked best first" in page
    assert "More slots" in page


def test_more_raises_the_limit(sched: Web) -> None:
    page = search(sched, limit="20")
    assert "20 slots, ranked best first" in page


def test_search_fragment_for_htmx_is_the_results_block(sched: Web) -> None:
    response = sched.client.get("/slots", headers={"HX-Request": "true"}, query_string={
        "type": str(FOLLOW_UP), "range": "dates", "start": DAY, "end": DAY})
    body = response.get_data(as_text=True)
    assert body.lstrip().startswith('<section id="slot-results"')
    assert "<h1>" not in body
    assert "HX-Request" in response.headers["Vary"]


def test_required_skill_narrows_the_results(sched: Web) -> None:
    page = search(sched, skill="language=French", limit="200")
    names = set(re.findall(r"<strong>([^<]+)</strong>", page))
    assert names == {"Dana Doctor"}


def test_empty_result_says_nobody_has_the_skill(sched: Web) -> None:
    page = search(sched, skill="language=Klingon")
    assert "No free slots in this window." in page
    assert "Nobody who can take a Follow-up has language: Klingon." in page
    assert "Drop the required providers and skills" in page


def test_empty_result_says_nobody_works_then(sched: Web) -> None:
    page = search(sched, start="2026-06-01", end="2026-06-01")
    assert "Nobody who can take a Follow-up has a shift in this window." in page
    assert "Search the next four weeks" in page


def test_bad_input_is_an_inline_message(sched: Web) -> None:
    response = sched.client.get("/slots", query_string={"type": "nope", "provider": "x"})
    assert response.status_code == 422
    body = response.get_data(as_text=True)
    assert "Choose from the list." in body
    assert "<title>Error:" in body


def test_archived_type_is_explained(sched: Web) -> None:
    response = sched.client.get("/slots", query_string={"type": str(uid("atype:old"))})
    assert response.status_code == 422
    assert "archived or no longer exists" in response.get_data(as_text=True)


def test_book_a_slot_then_it_is_shown(sched: Web) -> None:
    link = book_links(search(sched))[0]
    form_page = sched.client.get(link).get_data(as_text=True)
    assert "Confirm booking" in form_page
    params = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}
    response = sched.client.post("/slots/book", data={
        "csrf_token": sched.csrf(), "type_id": params["type"], "provider_id": params["provider"],
        "start_date": params["start"], "end_date": params["end"], "back": params["back"],
        "member_id": "M-4242", "location": "Room 9"})
    assert response.status_code == 303
    shown = sched.client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Booked: Follow-up with" in shown
    assert "M-4242" in shown
    assert "Room 9" in shown


def test_booking_needs_member_and_location(sched: Web) -> None:
    params = {k: v[0] for k, v in parse_qs(urlsplit(book_links(search(sched))[0]).query).items()}
    response = sched.client.post("/slots/book", data={
        "csrf_token": sched.csrf(), "type_id": params["type"], "provider_id": params["provider"],
        "start_date": params["start"], "end_date": params["end"], "member_id": "",
        "location": ""})
    assert response.status_code == 422
    body = response.get_data(as_text=True)
    assert "Enter the member&#39;s id." in body
    assert 'aria-invalid="true"' in body


def test_booking_a_taken_slot_refreshes_the_results(sched: Web) -> None:
    params = {k: v[0] for k, v in parse_qs(urlsplit(book_links(search(sched))[0]).query).items()}
    data = {"type_id": params["type"], "provider_id": params["provider"],
            "start_date": params["start"], "end_date": params["end"], "back": params["back"],
            "member_id": "M-1", "location": "Room 1"}
    first = sched.client.post("/slots/book", data={"csrf_token": sched.csrf(), **data})
    assert first.status_code == 303
    again = sched.client.post("/slots/book", data={"csrf_token": sched.csrf(), **data})
    assert again.status_code == 409
    body = again.get_data(as_text=True)
    assert "Someone else just took that slot" in body
    assert "ranked best first" in body  # fresh results
    again_link = book_links(body)[0]
    prefilled = sched.client.get(again_link).get_data(as_text=True)
    assert 'value="M-1"' in prefilled  # what was typed rides along to the next slot
    assert 'value="Room 1"' in prefilled


def test_empty_result_says_everyone_is_booked(sched: Web) -> None:
    from datetime import UTC, datetime

    from app.api import models as m

    with sched.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        for start, end in [((12, 0), (18, 0)), ((18, 30), (23, 59))]:  # 7 AM-7 PM New York
            session.add(m.Appointment(
                type="New patient visit", appointment_type_id=NEW_PATIENT, status="upcoming",
                provider_id=uid("user:doctor@example.com"), member_id="busy",
                start_date=datetime(2026, 3, 5, *start, tzinfo=UTC),
                end_date=datetime(2026, 3, 5, *end, tzinfo=UTC), location="Room 1"))
    page = search(sched, type=str(NEW_PATIENT), start="2026-03-05", end="2026-03-05")
    assert "No free slots in this window." in page
    assert "Everyone who can take a New patient visit is fully booked in this window" in page
    assert "Search next week" in page


def test_preferred_provider_is_ranked_first(sched: Web) -> None:
    nurse = str(uid("user:ed.nurse3@example.com"))
    page = search(sched, prefer_provider=nurse)
    first = re.search(r'class="slot slot-best"[^>]*>.*?<strong>([^<]+)</strong>', page, re.S)
    assert first is not None
    assert first.group(1) == "Ed Nurse 3"


def test_required_providers_limit_the_results(sched: Web) -> None:
    nurse = str(uid("user:ed.nurse2@example.com"))
    page = search(sched, provider=nurse, limit="50")
    assert set(re.findall(r"<strong>([^<]+)</strong>", page)) == {"Ed Nurse 2"}
    assert f'value="{nurse}" checked' in page



def test_provider_and_skill_filters_are_checkboxes_with_chips(sched: Web) -> None:
    nurse = str(uid("user:ed.nurse2@example.com"))
    page = search(sched, provider=nurse, skill="language=French")
    assert re.search(rf'<input type="checkbox" id="provider-\d+" name="provider" '
                     rf'value="{nurse}" checked>', page)
    form = page.split('id="slot-search"')[1].split("</form>")[0]
    assert form.count("<select") == 1  # the type; every multiple choice is a checkbox list
    chips = page[page.index('aria-label="Provider and skill filters"'):]
    chips = html.unescape(chips[:chips.index("</ul>")])
    assert "Only these providers: Ed Nurse 2" in chips
    assert "Required skills (all of them): language: French" in chips
    assert f"provider={nurse}" in chips  # removing the skill keeps the provider …
    assert "skill=language" in chips  # … and the other way round
