"""Timesheet review through the test client as the ED manager."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from app.api import models as m
from tests.factories import uid
from tests.web.manager.conftest import add_shift

PERIOD = "period=2026-03-02"


def _csrf(mweb):
    page = mweb.client.get("/manage/time-off").get_data(as_text=True)
    marker = 'name="csrf_token" value="'
    start = page.index(marker) + len(marker)
    return page[start:page.index('"', start)]


def _url(mweb):
    return f"/manage/timesheets?team={mweb.world.ed}&{PERIOD}&provider={mweb.world.provider}"


def _late_punch(mweb):
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        from sqlalchemy import select
        return session.scalar(select(m.TimecardPunch.id).where(
            m.TimecardPunch.provider_id == mweb.world.provider,
            m.TimecardPunch.state == "pending"))


def test_timesheet_shows_punches_warnings_and_totals(mweb):
    mweb.sign_in("manager@example.com")
    response = mweb.client.get(_url(mweb))
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    assert "Pat Provider" in body
    assert "Clocked in late" in body
    assert "Scheduled and worked time by pay code" in body
    assert "Regular" in body


def test_reject_needs_a_note_and_then_saves_it(mweb):
    punch = _late_punch(mweb)
    mweb.sign_in("manager@example.com")
    token = _csrf(mweb)
    url = f"/manage/timesheets/punches/{punch}"
    bad = mweb.client.post(url, data={"csrf_token": token, "decision": "reject",
                                      "admin_note": "", "back": _url(mweb)},
                           headers={"HX-Request": "true"})
    assert bad.status_code == 422
    assert bad.get_data(as_text=True).strip().startswith('<section id="timesheet"')
    assert "Tell the provider why" in bad.get_data(as_text=True)
    good = mweb.client.post(url, data={"csrf_token": token, "decision": "reject",
                                       "admin_note": "Not on shift", "back": _url(mweb)})
    assert good.status_code == 303
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        row = session.get(m.TimecardPunch, punch)
        assert row.state == "rejected"
        assert row.admin_note == "Not on shift"


def test_fix_time_and_approve_clean(mweb):
    start = datetime(2026, 3, 4, 12, 0, tzinfo=UTC)
    with mweb.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        card = uid("timecard:provider")
        for minutes, action in [(0, "clock_in"), (720, "clock_out")]:
            session.add(m.TimecardPunch(timecard_id=card, provider_id=mweb.world.provider,
                                        action=action, state="pending",
                                        time=start + timedelta(minutes=minutes)))
    mweb.sign_in("manager@example.com")
    token = _csrf(mweb)
    punch = _late_punch(mweb)
    fixed = mweb.client.post(f"/manage/timesheets/punches/{punch}", data={
        "csrf_token": token, "decision": "fix", "time": "2026-03-03T07:02",
        "admin_note": "Badge reader down", "back": _url(mweb)})
    assert fixed.status_code == 303, fixed.get_data(as_text=True)
    page = mweb.client.get(_url(mweb)).get_data(as_text=True)
    assert "Punch time corrected." in page
    assert "Approve 3 clean punches" in page
    done = mweb.client.post("/manage/timesheets/approve-clean", data={
        "csrf_token": token, "back": _url(mweb)})
    assert done.status_code == 303
    page = mweb.client.get(_url(mweb)).get_data(as_text=True)
    assert "Approved 3 clean punches." in page


def test_admin_in_no_team_gets_the_first_team_and_a_picker_of_every_team(mweb):
    mweb.sign_in("admin@example.com")
    response = mweb.client.get("/manage/timesheets")
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    assert "<h1>Timesheets: Emergency</h1>" in body
    picker = body.split('id="ts-team"', 1)[1].split("</select>", 1)[0]
    assert ">Emergency<" in picker
    assert ">Intensive Care<" in picker
    assert "Pat Provider" in body


def test_admin_can_pick_another_team(mweb):
    mweb.sign_in("admin@example.com")
    response = mweb.client.get(f"/manage/timesheets?team={mweb.world.icu}")
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    assert "<h1>Timesheets: Intensive Care</h1>" in body
    assert "Pat Provider" not in body


def _nights(mweb, arrange):
    """Pat's night shifts Mon 26 Oct 2026 7 PM to Tue 7 AM, and Sat 31 Oct 7 PM EDT to Sun
    1 Nov 7 AM EST (clocks fall back), clocked in and out on time, with a break after midnight;
    the pay period is 19 Oct to 1 Nov."""
    nights = [(datetime(2026, 10, 26, 23, tzinfo=UTC), datetime(2026, 10, 27, 11, tzinfo=UTC)),
              (datetime(2026, 10, 31, 23, tzinfo=UTC), datetime(2026, 11, 1, 12, tzinfo=UTC))]

    def make(session, world):
        card = m.Timecard(provider_id=world.provider,
                          period_start=datetime(2026, 10, 19, 4, tzinfo=UTC),
                          period_end=datetime(2026, 11, 2, 5, tzinfo=UTC))
        session.add(card)
        session.flush()
        for start, end in nights:
            shift = session.get(m.Shift, add_shift(session, world, provider=world.provider,
                                                   start=start))
            shift.end_date = end
            shift.segments = [m.ShiftSegment(role_id=world.ed_nurse_role, type="working",
                                             start_date=start, end_date=end)]
            for action, at in [("clock_in", start), ("break_start", start + timedelta(hours=6)),
                               ("break_end", start + timedelta(hours=6, minutes=30)),
                               ("clock_out", end)]:
                session.add(m.TimecardPunch(timecard_id=card.id, provider_id=world.provider,
                                            action=action, state="pending", time=at))

    arrange(make)


def test_night_shift_punches_show_under_the_day_it_started_without_warnings(mweb, arrange):
    _nights(mweb, arrange)
    mweb.sign_in("manager@example.com")
    response = mweb.client.get(f"/manage/timesheets?team={mweb.world.ed}&period=2026-10-26"
                               f"&provider={mweb.world.provider}")
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    for started, ended in (("2026-10-26", "2026-10-27"), ("2026-10-31", "2026-11-01")):
        assert f'id="day-{ended}"' not in body
        section = body.split(f'id="day-{started}"', 1)[1].split("</section>", 1)[0]
        assert section.count('class="mgr-punch ') == 4, section
        scheduled = re.sub(r"<[^>]+>", "", section.split("</p>", 1)[0])
        assert scheduled.endswith("Scheduled: 7:00 PM \u2013 7:00 AM +1 day"), scheduled
    assert "no shift" not in body
    assert "No scheduled shift" not in body
