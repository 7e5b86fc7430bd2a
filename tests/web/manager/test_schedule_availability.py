"""Availability on the team schedule: unavailable time shaded with words on the week grid, and
assigning a shift into it asks for confirmation, saying why."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime

from app.api import models as m
from tests.web.manager.conftest import add_shift
from tests.web.manager.shift_forms import as_dict, submission

MONDAY = datetime(2027, 6, 7, 4, 0, tzinfo=UTC)  # Mon 7 Jun 2027, midnight in New York
HX = {"HX-Request": "true"}


def _text(html):
    text = " ".join(re.sub(r"<[^>]+>", "", html).split())
    return re.sub(r"\s*\u2013\s*", "\u2013", text)


def _week(mweb):
    return f"team={mweb.world.ed}&week=2027-06-07"


def _availability(session, world):
    session.add(m.Availability(provider_id=world.provider, effective_from=date(2027, 1, 1),
                               rules=[{"weekday": "monday", "startTime": "07:00",
                                       "endTime": "15:00", "kind": "unavailable"},
                                      {"weekday": "tuesday", "startTime": "09:00",
                                       "endTime": "17:00", "kind": "preferred"}]))
    session.add(m.AvailabilityException(provider_id=world.provider,
                                        start_date=date(2027, 6, 9),
                                        end_date=date(2027, 6, 9), note="Dentist"))


def _pat_row(body):
    return body.split('<th scope="row">Pat Provider</th>', 1)[1].split("</tr>", 1)[0]


def test_week_grid_shades_unavailable_time_and_says_it_in_words(mweb, arrange):
    arrange(_availability)
    mweb.sign_in("manager@example.com")
    response = mweb.client.get(f"/manage/schedule?{_week(mweb)}&view=week")
    assert response.status_code == 200
    row = _pat_row(response.get_data(as_text=True))
    cells = row.split("<td")[1:]
    assert 'class="mgr-unavailable"' in cells[0]
    assert "Unavailable 7:00 AM\u20133:00 PM" in _text(cells[0])
    assert "mgr-unavailable" not in cells[1]
    assert "Prefers 9:00 AM\u20135:00 PM" in _text(cells[1])
    assert "Unavailable all day: Dentist" in _text(cells[2])
    assert "Unavailable" not in _text(cells[3])
    assert "Unavailable (the provider's availability)" in _text(response.get_data(as_text=True))


def test_other_team_manager_sees_no_availability_of_the_team(mweb, arrange):
    arrange(_availability)
    mweb.sign_in("icu.manager@example.com")
    body = mweb.client.get(f"/manage/schedule?{_week(mweb)}&view=week").get_data(as_text=True)
    assert "Dentist" not in body


def test_assigning_a_shift_into_unavailable_time_asks_and_says_why(mweb, arrange):
    arrange(_availability)
    shift = arrange(lambda s, w: add_shift(s, w, provider=None, start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    url = f"/manage/schedule/shifts/{shift}?{_week(mweb)}&view=week"
    page = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}")
    data = as_dict(submission(page.get_data(as_text=True), f"/manage/schedule/shifts/{shift}?"))
    data["provider"] = str(mweb.world.provider)
    first = mweb.client.post(url, data=data, headers=HX)
    body = first.get_data(as_text=True)
    assert first.status_code == 200
    assert ("Unavailable: Pat Provider is unavailable then (their weekly pattern, "
            "7:00 AM\u20133:00 PM)") in _text(body)
    assert ">Save anyway</button>" in body
    token = re.search(r'name="confirm" value="([^"]*)"', body).group(1)
    saved = mweb.client.post(url, data={**data, "confirm": token})
    assert saved.status_code == 303, saved.get_data(as_text=True)


def test_moving_a_shift_to_a_day_off_names_the_note(mweb, arrange):
    arrange(_availability)
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(day=8, hour=11)))
    mweb.sign_in("manager@example.com")
    url = f"/manage/schedule/shifts/{shift}?{_week(mweb)}&view=week"
    page = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}")
    data = as_dict(submission(page.get_data(as_text=True), f"/manage/schedule/shifts/{shift}?"))
    data["date"] = "2027-06-09"
    body = mweb.client.post(url, data=data, headers=HX).get_data(as_text=True)
    assert "Unavailable: Pat Provider is unavailable then (Dentist)" in _text(body)


def test_day_agenda_lists_the_days_unavailable_and_preferred_times(mweb, arrange):
    arrange(_availability)
    mweb.sign_in("manager@example.com")
    monday = mweb.client.get(f"/manage/schedule?team={mweb.world.ed}&view=day&day=2027-06-07")
    assert "Pat Provider: Unavailable 7:00 AM\u20133:00 PM" in _text(
        monday.get_data(as_text=True))
    wednesday = mweb.client.get(
        f"/manage/schedule?team={mweb.world.ed}&view=day&day=2027-06-09")
    assert "Pat Provider: Unavailable all day (Dentist)" in _text(
        wednesday.get_data(as_text=True))
