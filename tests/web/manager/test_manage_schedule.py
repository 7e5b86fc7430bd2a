"""The team schedule through the test client as the ED manager."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from tests.web.manager.conftest import add_request, add_shift

MONDAY = datetime(2026, 6, 1, 4, 0, tzinfo=UTC)  # Mon 1 Jun 2026, midnight in New York
HX = {"HX-Request": "true"}


def _csrf(mweb):
    page = mweb.client.get("/manage/time-off").get_data(as_text=True)
    marker = 'name="csrf_token" value="'
    start = page.index(marker) + len(marker)
    return page[start:page.index('"', start)]


def _week(mweb):
    return f"team={mweb.world.ed}&week=2026-06-01"


def test_week_grid_shows_shifts_open_shifts_and_time_off(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    open_shift = arrange(lambda s, w: add_shift(s, w, provider=None,
                                                start=MONDAY.replace(day=2, hour=11)))
    arrange(lambda s, w: add_request(s, w, start=MONDAY.replace(day=3), status="approved"))
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


def test_edit_opens_the_editor_fragment(mweb, arrange):
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    response = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}",
                               headers=HX)
    body = response.get_data(as_text=True)
    assert response.status_code == 200
    assert body.strip().startswith('<section id="shift-editor"')
    assert 'value="07:00"' in body


def _edit_data(mweb, shift, **changes):
    page = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}")
    body = page.get_data(as_text=True)
    data = dict(re.findall(r'name="(\w+)"[^>]*value="([^"]*)"', body))
    data.update({"date": "2026-06-01", "start_time": "07:00", "end_time": "19:00",
                 "csrf_token": _csrf(mweb)})
    data.setdefault("provider", str(mweb.world.provider))
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
    assert "8:00 AM \u2013 8:00 PM" in page


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
    again = dict(re.findall(r'name="(\w+)"[^>]*value="([^"]*)"', body.split("Reload")[1]))
    response = mweb.client.post(url, data=again)
    assert response.status_code == 303, response.get_data(as_text=True)
    page = mweb.client.get(f"/manage/schedule?{_week(mweb)}").get_data(as_text=True)
    assert "7:00 AM \u2013 5:00 PM" in page
    editor = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}")
    assert 'value="Pod A"' in editor.get_data(as_text=True)


def test_create_open_shift_and_inline_errors(mweb):
    mweb.sign_in("manager@example.com")
    token = _csrf(mweb)
    url = f"/manage/schedule/shifts?{_week(mweb)}"
    bad = mweb.client.post(url, data={"csrf_token": token, "open-date": "",
                                      "open-start_time": "07:00", "open-end_time": "19:00",
                                      "open-role": str(mweb.world.ed_nurse_role)}, headers=HX)
    assert bad.status_code == 422
    assert bad.get_data(as_text=True).strip().startswith('<section id="open-shift"')
    good = mweb.client.post(url, data={"csrf_token": token, "open-date": "2026-06-04",
                                       "open-start_time": "07:00", "open-end_time": "15:00",
                                       "open-role": str(mweb.world.ed_nurse_role),
                                       "open-note": "Extra hands"})
    assert good.status_code == 303
    page = mweb.client.get(f"/manage/schedule?{_week(mweb)}").get_data(as_text=True)
    assert "Open shift posted" in page
    assert "7:00 AM \u2013 3:00 PM" in page


def test_admin_in_no_team_sees_the_first_teams_week_and_a_picker_of_every_team(mweb):
    mweb.sign_in("admin@example.com")
    response = mweb.client.get("/manage/schedule?week=2026-06-01")
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
                                             start=MONDAY.replace(day=2, hour=11)))
    icu_open = arrange(lambda s, w: add_shift(s, w, provider=None, team="Intensive Care",
                                              start=MONDAY.replace(day=2, hour=11)))
    mweb.sign_in("admin@example.com")  # may see every team's shifts
    body = mweb.client.get("/manage/schedule?week=2026-06-01").get_data(as_text=True)
    open_row = body.split('class="mgr-open-row"', 1)[1].split("</tr>", 1)[0]
    assert f'id="shift-{ed_open}"' in open_row
    assert f'id="shift-{icu_open}"' not in body
    legend = body.split('class="mgr-role-legend"', 1)[1].split("</ul>", 1)[0]
    assert legend.count("Registered Nurse") == 1
    icu = mweb.client.get(f"/manage/schedule?team={mweb.world.icu}&week=2026-06-01")
    icu_body = icu.get_data(as_text=True)
    assert f'id="shift-{icu_open}"' in icu_body
    assert f'id="shift-{ed_open}"' not in icu_body


def test_unknown_team_shows_the_default_teams_week_not_every_team(mweb, arrange):
    icu_open = arrange(lambda s, w: add_shift(s, w, provider=None, team="Intensive Care",
                                              start=MONDAY.replace(day=2, hour=11)))
    mweb.sign_in("admin@example.com")
    body = mweb.client.get("/manage/schedule?team=00000000-0000-4000-8000-000000000000"
                           "&week=2026-06-01").get_data(as_text=True)
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
