"""The provider's availability page through the test client: the weekly pattern form (rows
added without JavaScript, problems on their rows, versions), and days off added, changed and
deleted after a confirmation."""

from __future__ import annotations

import html
import re

from tests.web.provider.conftest import fresh_provider


def _text(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def _save(pweb, *, partial: bool = False, **fields: str):
    data = {"csrf_token": pweb.csrf(), "effective_from": "2026-03-02", **fields}
    headers = {"HX-Request": "true"} if partial else {}
    return pweb.client.post("/availability", data=data, headers=headers)


ROW = {"rules-0-weekday": "monday", "rules-0-start_time": "07:00", "rules-0-end_time": "15:00",
       "rules-0-kind": "unavailable"}


def test_availability_page_shows_the_form_with_one_blank_row(pweb):
    pweb.sign_in(fresh_provider(pweb))
    page = pweb.client.get("/availability")
    body = _text(page)
    assert page.status_code == 200
    assert "<h1>Availability</h1>" in body
    assert 'name="rules-0-weekday"' in body
    assert 'name="rules-1-weekday"' not in body
    assert "No days off or other days from today on." in body


def test_add_a_row_answers_the_form_with_one_more_row_keeping_values(pweb):
    pweb.sign_in(fresh_provider(pweb))
    answer = _save(pweb, add_row="y", **ROW)
    body = _text(answer)
    assert answer.status_code == 200
    assert 'name="rules-1-weekday"' in body
    assert 'value="07:00"' in body
    partial = _save(pweb, partial=True, add_row="y", **ROW)
    assert _text(partial).lstrip().startswith('<section id="availability-pattern"')
    assert "HX-Request" in partial.headers.get("Vary", "")


def test_saving_the_week_shows_it_and_a_second_save_changes_the_same_version(pweb):
    pweb.sign_in(fresh_provider(pweb))
    answer = _save(pweb, **ROW)
    assert answer.status_code == 303
    body = _text(pweb.client.get("/availability"))
    assert "Your weekly availability is saved." in body
    assert "Monday: Unavailable 7:00 AM \N{EN DASH} 3:00 PM" in body
    version = re.search(r'name="version" type="hidden" value="(\d+)"', body)
    assert version is not None
    assert version.group(1) == "1"
    again = _save(pweb, version="1", **{**ROW, "rules-0-end_time": "00:00"})
    assert again.status_code == 303
    body = _text(pweb.client.get("/availability"))
    assert "Monday: Unavailable 7:00 AM \N{EN DASH} midnight" in body


def test_a_stale_version_is_answered_inline_and_saving_again_applies(pweb):
    pweb.sign_in(fresh_provider(pweb))
    assert _save(pweb, **ROW).status_code == 303
    assert _save(pweb, version="1", **ROW).status_code == 303  # now at version 2
    stale = _save(pweb, version="1", **{**ROW, "rules-0-kind": "preferred"})
    body = _text(stale)
    assert stale.status_code == 422
    assert "<title>Error:" in body
    assert "changed since you opened this page" in body
    assert 'value="2"' in body
    assert _save(pweb, version="2", **{**ROW, "rules-0-kind": "preferred"}).status_code == 303


def test_overlapping_rows_are_refused_on_the_row(pweb):
    pweb.sign_in(fresh_provider(pweb))
    answer = _save(pweb, **ROW, **{"rules-1-weekday": "monday", "rules-1-start_time": "14:00",
                                   "rules-1-end_time": "16:00", "rules-1-kind": "available"})
    body = _text(answer)
    assert answer.status_code == 422
    assert 'id="rules-1-start_time-error"' in body
    assert "overlaps range 1 of monday" in body


def test_bad_dates_and_half_rows_are_refused_inline(pweb):
    pweb.sign_in(fresh_provider(pweb))
    answer = _save(pweb, effective_from="0001-01-01",
                   **{"rules-0-weekday": "monday", "rules-0-start_time": "07:00"})
    body = _text(answer)
    assert answer.status_code == 422
    assert "Choose a day between 1900 and 2999." in body
    assert "Enter when this range ends." in body
    assert _save(pweb, **{**ROW, "rules-0-weekday": "someday"}).status_code == 422


def test_day_off_is_added_changed_and_deleted_after_confirmation(pweb):
    pweb.sign_in(fresh_provider(pweb))
    form = pweb.client.get("/availability/exceptions/new")
    assert form.status_code == 200
    assert "<h1>Add a day off</h1>" in _text(form)
    added = pweb.client.post("/availability/exceptions", data={
        "csrf_token": pweb.csrf(), "start_date": "2099-03-10", "end_date": "2099-03-11",
        "kind": "unavailable", "note": "Conference"})
    assert added.status_code == 303
    page = _text(pweb.client.get("/availability"))
    assert "Conference" in page
    exception_id = re.search(r'id="exception-([0-9a-f-]{36})"', page).group(1)
    edit = pweb.client.get(f"/availability/exceptions/{exception_id}/edit")
    assert 'value="Conference"' in _text(edit)
    stale = pweb.client.post(f"/availability/exceptions/{exception_id}", data={
        "csrf_token": pweb.csrf(), "start_date": "2099-03-10", "end_date": "2099-03-09",
        "kind": "unavailable", "version": "1"})
    assert stale.status_code == 422
    assert "The last day can't be before the first day." in _text(stale)
    saved = pweb.client.post(f"/availability/exceptions/{exception_id}", data={
        "csrf_token": pweb.csrf(), "start_date": "2099-03-10", "end_date": "2099-03-10",
        "kind": "unavailable", "note": "Exam", "version": "1"})
    assert saved.status_code == 303
    assert "Exam" in _text(pweb.client.get("/availability"))
    ask = pweb.client.get(f"/availability/exceptions/{exception_id}/delete")
    assert "<h1>Delete this day off?</h1>" in _text(ask)
    gone = pweb.client.post(f"/availability/exceptions/{exception_id}/delete",
                            data={"csrf_token": pweb.csrf()})
    assert gone.status_code == 303
    assert "Exam" not in _text(pweb.client.get("/availability"))


def test_another_providers_day_off_is_not_shown_for_editing(pweb):
    pweb.sign_in(fresh_provider(pweb))
    pweb.client.post("/availability/exceptions", data={
        "csrf_token": pweb.csrf(), "start_date": "2099-03-10", "end_date": "2099-03-10",
        "kind": "unavailable", "note": "Private"})
    exception_id = re.search(r'id="exception-([0-9a-f-]{36})"',
                             _text(pweb.client.get("/availability"))).group(1)
    pweb.sign_in(fresh_provider(pweb))
    answer = pweb.client.get(f"/availability/exceptions/{exception_id}/edit")
    assert answer.status_code == 403
    assert "Private" not in _text(answer)
