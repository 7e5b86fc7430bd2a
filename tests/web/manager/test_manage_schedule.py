"""The team schedule through the test client as the ED manager."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from tests.web.manager.conftest import add_request, add_shift
from tests.web.manager.shift_forms import as_dict, submission

MONDAY = datetime(2027, 6, 7, 4, 0, tzinfo=UTC)  # Mon 7 Jun 2027, midnight in New York
HX = {"HX-Request": "true"}



def _text(html):
    """What a person reads: the page without its tags, spaces collapsed, and a range's dash
    written without spaces ("7:00 AM\u20137:00 PM"), whichever way the range filter spaces it."""
    text = " ".join(re.sub(r"<[^>]+>", "", html).split())
    return re.sub(r"\s*\u2013\s*", "\u2013", text)


def _duration(mweb, minutes):
    """A duration as the pages write it (the shared filter)."""
    return mweb.app.jinja_env.filters["hours_minutes"](minutes)


def _week(mweb):
    return f"team={mweb.world.ed}&week=2027-06-07"


def test_week_grid_shows_shifts_open_shifts_and_time_off(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    open_shift = arrange(lambda s, w: add_shift(s, w, provider=None,
                                                start=MONDAY.replace(day=8, hour=11)))
    arrange(lambda s, w: add_request(s, w, start=MONDAY.replace(day=9), status="approved"))
    mweb.sign_in("manager@example.com")
    response = mweb.client.get(f"/manage/schedule?{_week(mweb)}")
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    assert f'id="shift-{shift}"' in body
    assert f'id="shift-{open_shift}"' in body
    assert "Time off" in body
    assert "Registered Nurse" in body
    css = mweb.client.get("/manage/schedule/roles.css")
    assert css.mimetype == "text/css"
    assert "--role-color: #1F77B4" in css.get_data(as_text=True)


def test_edit_opens_the_editor_under_the_shifts_row_in_the_week_grid(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    response = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}&view=week",
                               headers=HX)
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    assert body.strip().startswith('<div id="schedule"')
    assert "HX-Request" in response.headers["Vary"]
    assert "<html" not in body
    assert 'value="07:00"' in body
    # The editor is the row right under Pat's row, the row of the shift that was clicked.
    pat_row = body.split('<th scope="row">Pat Provider</th>', 1)[1]
    assert f'id="shift-{shift}"' in pat_row.split("</tr>", 1)[0]
    assert pat_row.split("</tr>", 1)[1].lstrip().startswith('<tr class="sched-editor-row">')
    assert 'id="shift-editor"' in pat_row.split("</tr>", 2)[1]


def test_edit_opens_the_editor_in_the_shifts_card_in_the_day_view(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    other = arrange(lambda s, w: add_shift(s, w, provider=w.doctor, role_name="Physician",
                                           start=MONDAY.replace(hour=12)))
    mweb.sign_in("manager@example.com")
    page = mweb.client.get(f"/manage/schedule?team={mweb.world.ed}&view=day&day=2027-06-07")
    text = page.get_data(as_text=True)
    link = f"/manage/schedule/shifts/{shift}/edit?"
    assert f'href="{link}' in text
    assert f'#shift-{shift}"' in text
    response = mweb.client.get(f"{link}team={mweb.world.ed}&view=day&day=2027-06-07")
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    card = body.split(f'<li id="shift-{shift}"', 1)[1].split("</li>", 1)[0]
    assert 'id="shift-editor"' in card
    assert "autofocus" in card
    assert body.count('id="shift-editor"') == 1
    assert f'<li id="shift-{other}"' in body


def _edit_data(mweb, shift, **changes):
    page = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}")
    data = as_dict(submission(page.get_data(as_text=True), f"/manage/schedule/shifts/{shift}?"))
    data.update(changes)
    return data


def test_update_saves_new_times_and_redirects(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    data = _edit_data(mweb, shift, start_time="08:00", end_time="20:00")
    response = mweb.client.post(f"/manage/schedule/shifts/{shift}?{_week(mweb)}", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    page = mweb.client.get(f"/manage/schedule?{_week(mweb)}").get_data(as_text=True)
    assert "Saved Pat Provider" in page
    assert "8:00 AM\u20138:00 PM" in _text(page)


def test_stale_version_shows_both_versions_and_apply_works(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    first = _edit_data(mweb, shift, note="Pod A")
    second = _edit_data(mweb, shift, end_time="17:00")
    url = f"/manage/schedule/shifts/{shift}?{_week(mweb)}"
    assert mweb.client.post(url, data=first).status_code == 303
    conflict = mweb.client.post(url, data=second, headers=HX)
    body = conflict.get_data(as_text=True)
    assert conflict.status_code == 409
    assert "Someone else changed this shift" in body
    assert "Pod A" in body
    assert body.count('<span class="mgr-change-tag">changed by them') == 1
    assert body.count('<span class="mgr-change-tag mgr-mine">your change') == 1
    assert "Apply my change to the latest version" in body
    again = as_dict(submission(body, f"/manage/schedule/shifts/{shift}?"))
    response = mweb.client.post(url, data=again)
    assert response.status_code == 303, response.get_data(as_text=True)
    page = mweb.client.get(f"/manage/schedule?{_week(mweb)}").get_data(as_text=True)
    assert "7:00 AM\u20135:00 PM" in _text(page)
    editor = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}")
    assert 'value="Pod A"' in editor.get_data(as_text=True)


def test_create_open_shift_and_inline_errors(mweb):
    mweb.sign_in("manager@example.com")
    token = mweb.csrf()
    url = f"/manage/schedule/shifts?{_week(mweb)}"
    bad = mweb.client.post(url, data={"csrf_token": token, "date": "",
                                      "start_time": "07:00", "end_time": "19:00",
                                      "provider": "", "role": str(mweb.world.ed_nurse_role)},
                           headers=HX)
    assert bad.status_code == 422
    assert bad.get_data(as_text=True).strip().startswith('<div id="schedule"')
    assert 'id="new-shift"' in bad.get_data(as_text=True)
    good = mweb.client.post(url, data={"csrf_token": token, "date": "2027-06-10",
                                       "start_time": "07:00", "end_time": "15:00",
                                       "provider": "", "role": str(mweb.world.ed_nurse_role),
                                       "note": "Extra hands"})
    assert good.status_code == 303
    page = mweb.client.get(f"/manage/schedule?{_week(mweb)}").get_data(as_text=True)
    assert "Open shift posted" in page
    assert "7:00 AM\u20133:00 PM" in _text(page)


def test_admin_in_no_team_sees_the_first_teams_week_and_a_picker_of_every_team(mweb):
    mweb.sign_in("admin@example.com")
    response = mweb.client.get("/manage/schedule?week=2027-06-07")
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    assert "<h1>Team schedule: Emergency</h1>" in body
    picker = body.split('id="team"', 1)[1].split("</select>", 1)[0]
    assert ">Emergency<" in picker
    assert ">Intensive Care<" in picker
    grid = body.split('id="schedule-grid"', 1)[1]
    assert "Pat Provider" in grid
    assert "Ivy Icu" not in grid


def test_open_shift_row_holds_only_the_teams_open_shifts_and_roles_show_once(mweb, arrange):
    ed_open = arrange(lambda s, w: add_shift(s, w, provider=None,
                                             start=MONDAY.replace(day=8, hour=11)))
    icu_open = arrange(lambda s, w: add_shift(s, w, provider=None, team="Intensive Care",
                                              start=MONDAY.replace(day=8, hour=11)))
    mweb.sign_in("admin@example.com")  # may see every team's shifts
    body = mweb.client.get("/manage/schedule?week=2027-06-07").get_data(as_text=True)
    open_row = body.split('class="mgr-open-row"', 1)[1].split("</tr>", 1)[0]
    assert f'id="shift-{ed_open}"' in open_row
    assert f'id="shift-{icu_open}"' not in body
    legend = body.split('class="mgr-role-legend"', 1)[1].split("</ul>", 1)[0]
    assert legend.count("Registered Nurse") == 1
    icu = mweb.client.get(f"/manage/schedule?team={mweb.world.icu}&week=2027-06-07")
    icu_body = icu.get_data(as_text=True)
    assert f'id="shift-{icu_open}"' in icu_body
    assert f'id="shift-{ed_open}"' not in icu_body


def test_unknown_team_shows_the_default_teams_week_not_every_team(mweb, arrange):
    icu_open = arrange(lambda s, w: add_shift(s, w, provider=None, team="Intensive Care",
                                              start=MONDAY.replace(day=8, hour=11)))
    mweb.sign_in("admin@example.com")
    body = mweb.client.get("/manage/schedule?team=00000000-0000-4000-8000-000000000000"
                           "&week=2027-06-07").get_data(as_text=True)
    assert "<h1>Team schedule: Emergency</h1>" in body
    assert f'id="shift-{icu_open}"' not in body


def test_assigning_a_provider_outside_their_roles_warns_before_and_after_but_saves(mweb,
                                                                                    arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=None, role_name="Physician",
                                           start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    editor = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}")
    text = editor.get_data(as_text=True)
    assert "Pat Provider (does not hold Physician)" in text
    assert "Dana Doctor (does not hold" not in text
    data = _edit_data(mweb, shift, provider=str(mweb.world.provider))
    saved = mweb.client.post(f"/manage/schedule/shifts/{shift}?{_week(mweb)}", data=data)
    assert saved.status_code == 303, saved.get_data(as_text=True)
    page = mweb.client.get(f"/manage/schedule?{_week(mweb)}").get_data(as_text=True)
    assert "Saved Pat Provider" in page
    assert "Pat Provider does not hold the role Physician." in page
    reopened = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}",
                               headers=HX).get_data(as_text=True)
    assert 'id="role-warning"' in reopened
    assert "Pat Provider does not hold the role Physician." in reopened
    mweb.client.get(f"/manage/schedule?{_week(mweb)}")
    holder = _edit_data(mweb, shift, provider=str(mweb.world.doctor))
    mweb.client.post(f"/manage/schedule/shifts/{shift}?{_week(mweb)}", data=holder)
    after = mweb.client.get(f"/manage/schedule?{_week(mweb)}").get_data(as_text=True)
    assert "does not hold the role" not in after


# -- the day view -------------------------------------------------------------------------------

def _day(mweb, day):
    return f"/manage/schedule?team={mweb.world.ed}&view=day&day={day}"


def test_day_view_shows_the_days_shifts_as_cards_with_a_summary(mweb, arrange):
    pat = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                         start=MONDAY.replace(hour=23)))  # 7 PM to 7 AM
    dana = arrange(lambda s, w: add_shift(s, w, provider=w.doctor, role_name="Physician",
                                          start=MONDAY.replace(hour=12), hours=8))
    opening = arrange(lambda s, w: add_shift(s, w, provider=None,
                                             start=MONDAY.replace(hour=11)))
    tuesday = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                             start=MONDAY.replace(day=8, hour=23)))
    mweb.sign_in("manager@example.com")
    response = mweb.client.get(_day(mweb, "2027-06-07"))
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    day = body.split('class="sched-day"', 1)[1].split("</section>", 1)[0]
    assert 'class="sched-week"' not in body  # the day alone, no week grid
    for shift in (pat, dana, opening):
        assert f'<li id="shift-{shift}" data-record' in day
    assert f'id="shift-{tuesday}"' not in day
    text = _text(day)
    assert "7:00 PM\u20137:00 AM +1" in text
    assert "Open, not claimed" in text
    assert "Physician 1" in text
    assert "Registered Nurse 1 + 1 open" in text
    hours = _text(day.split('class="sched-hours"', 1)[1].split("</details>")[0])
    # Each shift has a 30-minute unpaid break; durations read as every page writes them.
    assert f"Dana Doctor {_duration(mweb, 7 * 60 + 30)}" in hours
    assert f"Pat Provider {_duration(mweb, 11 * 60 + 30)}" in hours


def test_day_view_links_to_the_previous_and_next_day(mweb, arrange):
    tuesday = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                             start=MONDAY.replace(day=8, hour=11)))
    mweb.sign_in("manager@example.com")
    body = mweb.client.get(_day(mweb, "2027-06-07")).get_data(as_text=True)
    nav = body.split('aria-label="Days"', 1)[1].split("</nav>", 1)[0]
    following = re.search(r'href="([^"]+)" rel="next"', nav).group(1).replace("&amp;", "&")
    previous = re.search(r'href="([^"]+)" rel="prev"', nav).group(1).replace("&amp;", "&")
    assert "day=2027-06-08" in following
    assert "view=day" in following
    assert "day=2027-06-06" in previous
    nxt = mweb.client.get(following).get_data(as_text=True)
    assert f'<li id="shift-{tuesday}"' in nxt
    assert '<time datetime="2027-06-08">' in nxt
    back = mweb.client.get(previous).get_data(as_text=True)
    assert "No shifts on this day." in back
    # The toggle switches to the week around the day, and back.
    week = re.search(r'href="([^"]+)">Week</a>', nxt).group(1).replace("&amp;", "&")
    assert "view=week" in week
    grid = mweb.client.get(week).get_data(as_text=True)
    assert f'id="shift-{tuesday}"' in grid
    assert 'class="sched-day"' not in grid


def test_schedule_without_a_view_holds_the_day_and_the_week_for_the_screen_to_pick(mweb,
                                                                                     arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    body = mweb.client.get(f"/manage/schedule?{_week(mweb)}").get_data(as_text=True)
    assert 'class="sched sched-auto"' in body
    assert body.index('class="sched-day"') < body.index('class="sched-week"')
    # The shift shows twice (a card for the phone, a chip for the week); ids stay unique.
    assert f'<li id="shift-{shift}-day" data-record' in body
    assert body.count(f'id="shift-{shift}"') == 1


# -- warned saves -------------------------------------------------------------------------------

def _confirm(body):
    return re.search(r'name="confirm" value="([^"]*)"', body).group(1)


def _warned(mweb, shift, **changes):
    url = f"/manage/schedule/shifts/{shift}?{_week(mweb)}&view=week"
    data = _edit_data(mweb, shift, **changes)
    first = mweb.client.post(url, data=data, headers=HX)
    return url, data, first


def test_a_24_hour_shift_asks_for_confirmation_and_saving_anyway_saves(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    url, data, first = _warned(mweb, shift, end_time="07:00")
    body = first.get_data(as_text=True)
    assert first.status_code == 200
    assert body.strip().startswith('<div id="schedule"')
    assert f"This shift is {_duration(mweb, 24 * 60)} long." in _text(body)
    assert ">Save anyway</button>" in body
    page = mweb.client.get(f"/manage/schedule?{_week(mweb)}&view=week").get_data(as_text=True)
    assert "7:00 AM\u20137:00 PM" in _text(page)  # not saved yet
    saved = mweb.client.post(url, data={**data, "confirm": _confirm(body)})
    assert saved.status_code == 303, saved.get_data(as_text=True)
    after = mweb.client.get(f"/manage/schedule?{_week(mweb)}&view=week").get_data(as_text=True)
    assert "Saved Pat Provider" in after
    assert "7:00 AM\u20137:00 AM +1" in _text(after)


def test_a_start_in_the_past_asks_for_confirmation(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    _, _, first = _warned(mweb, shift, date="2026-11-20")
    text = _text(first.get_data(as_text=True))
    assert "It starts in the past (Fri 20 Nov" in text
    assert "This shift is" not in text


def test_a_shift_over_approved_time_off_asks_for_confirmation(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=None,
                                           start=MONDAY.replace(day=9, hour=11)))
    arrange(lambda s, w: add_request(s, w, start=MONDAY.replace(day=9), days=2,
                                     status="approved"))
    mweb.sign_in("manager@example.com")
    url, data, first = _warned(mweb, shift, date="2027-06-09",
                               provider=str(mweb.world.provider))
    body = first.get_data(as_text=True)
    assert "Pat Provider has approved time off Wed 9" in _text(body)
    assert "Thu 10 Jun" in _text(body)
    saved = mweb.client.post(url, data={**data, "confirm": _confirm(body)})
    assert saved.status_code == 303, saved.get_data(as_text=True)


def test_booking_a_provider_twice_at_once_asks_for_confirmation(mweb, arrange):
    # Pat works 7 AM to 7 PM on Wednesday; an open shift from 3 PM is given to Pat.
    arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                   start=MONDAY.replace(day=9, hour=11)))
    shift = arrange(lambda s, w: add_shift(s, w, provider=None, hours=8,
                                           start=MONDAY.replace(day=9, hour=19)))
    mweb.sign_in("manager@example.com")
    url, data, first = _warned(mweb, shift, date="2027-06-09", start_time="15:00",
                               end_time="23:00", provider=str(mweb.world.provider))
    body = first.get_data(as_text=True)
    assert ("Double-booked: Pat Provider already has a shift Wed 9 Jun"
            in _text(body)), _text(body)
    assert "7:00 AM\u20137:00 PM" in _text(body.split("Double-booked", 1)[1])
    assert ">Save anyway</button>" in body
    saved = mweb.client.post(url, data={**data, "confirm": _confirm(body)})
    assert saved.status_code == 303, saved.get_data(as_text=True)


def test_a_shift_touching_another_or_moved_over_its_old_self_asks_nothing(mweb, arrange):
    # Pat works Wednesday 7 AM to 7 PM and the night after, from 7 PM.
    day = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                         start=MONDAY.replace(day=9, hour=11)))
    arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                   start=MONDAY.replace(day=9, hour=23)))
    mweb.sign_in("manager@example.com")
    # The day shift an hour earlier (6 AM to 6 PM) overlaps only what it was: saved at once.
    url = f"/manage/schedule/shifts/{day}?{_week(mweb)}&view=week"
    moved = mweb.client.post(url, data=_edit_data(mweb, day, start_time="06:00",
                                                  end_time="18:00"))
    assert moved.status_code == 303, _text(moved.get_data(as_text=True))
    # 6 PM to 7 PM starts as the day shift ends and ends as the night shift starts.
    data = {"csrf_token": mweb.csrf(), "date": "2027-06-09", "start_time": "18:00",
            "end_time": "19:00", "provider": str(mweb.world.provider),
            "role": str(mweb.world.ed_nurse_role)}
    posted = mweb.client.post(f"/manage/schedule/shifts?{_week(mweb)}", data=data)
    assert posted.status_code == 303, _text(posted.get_data(as_text=True))


def test_a_tampered_or_stale_confirmation_asks_again(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    url, data, first = _warned(mweb, shift, end_time="07:00")
    token = _confirm(first.get_data(as_text=True))
    tampered = mweb.client.post(url, data={**data, "confirm": token[:-2] + "xx"}, headers=HX)
    assert f"This shift is {_duration(mweb, 24 * 60)} long." in _text(
        tampered.get_data(as_text=True))
    # The confirmation named a 24-hour shift on Monday; the same on Tuesday is asked again.
    moved = mweb.client.post(url, data={**data, "date": "2027-06-08", "confirm": token},
                             headers=HX)
    assert f"This shift is {_duration(mweb, 24 * 60)} long." in _text(
        moved.get_data(as_text=True))
    editor = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}")
    ends = editor.get_data(as_text=True).split('id="end_time"', 1)[1].split(">", 1)[0]
    assert 'value="19:00"' in ends  # nothing was saved


def test_a_note_change_alone_saves_without_questions(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11), hours=20))
    mweb.sign_in("manager@example.com")
    data = _edit_data(mweb, shift, end_time="03:00", note="Bring the pager")
    data.update(orig_end_time="03:00")  # the 20-hour shift as loaded: only the note changes
    saved = mweb.client.post(f"/manage/schedule/shifts/{shift}?{_week(mweb)}", data=data)
    assert saved.status_code == 303, saved.get_data(as_text=True)


def test_a_new_shift_form_starts_with_no_role_and_requires_one(mweb):
    mweb.sign_in("manager@example.com")
    page = mweb.client.get(f"/manage/schedule/shifts/new?{_week(mweb)}").get_data(as_text=True)
    select = page.split('id="role"', 1)[1].split("</select>", 1)[0]
    first_option = select.split("<option", 2)[1]
    assert 'value=""' in first_option
    assert "Choose a role" in first_option
    assert "selected" not in select
    url = f"/manage/schedule/shifts?{_week(mweb)}"
    bad = mweb.client.post(url, data={"csrf_token": mweb.csrf(), "date": "2027-06-10",
                                      "start_time": "07:00", "end_time": "19:00",
                                      "role": ""}, headers=HX)
    assert bad.status_code == 422
    assert "Choose a role." in bad.get_data(as_text=True)


def test_a_long_open_shift_asks_for_confirmation_then_posts(mweb):
    mweb.sign_in("manager@example.com")
    url = f"/manage/schedule/shifts?{_week(mweb)}"
    data = {"csrf_token": mweb.csrf(), "date": "2027-06-10", "start_time": "07:00",
            "end_time": "07:00", "provider": "", "role": str(mweb.world.ed_nurse_role)}
    first = mweb.client.post(url, data=data, headers=HX)
    body = first.get_data(as_text=True)
    assert first.status_code == 200
    assert body.strip().startswith('<div id="schedule"')
    assert f"This shift is {_duration(mweb, 24 * 60)} long." in _text(body)
    posted = mweb.client.post(url, data={**data, "confirm": _confirm(body)})
    assert posted.status_code == 303
    page = mweb.client.get(f"/manage/schedule?{_week(mweb)}&view=week").get_data(as_text=True)
    assert "Open shift posted" in page
