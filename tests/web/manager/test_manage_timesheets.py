"""Timesheet review through the test client as the ED manager."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from app.api import models as m
from tests.factories import START, uid
from tests.web.manager.conftest import add_shift, pat_shift_of

PERIOD = "period=2026-03-02"



def _url(mweb):
    return f"/manage/timesheets?team={mweb.world.ed}&{PERIOD}&provider={mweb.world.provider}"


def _late_punch(mweb):
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        from sqlalchemy import select
        return session.scalar(select(m.TimecardPunch.id).where(
            m.TimecardPunch.provider_id == mweb.world.provider,
            m.TimecardPunch.state == "pending"))


def _text(html: str) -> str:
    """What a reader sees of `html`: tags dropped, spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def _row(body: str, key: object) -> str:
    """The markup of the row of a shift (or of a session of no shift)."""
    return body.split(f'<li id="row-{key}"', 1)[1].split("</article>", 1)[0]



def test_timesheet_shows_the_period_and_one_row_per_shift(mweb):
    mweb.sign_in("manager@example.com")
    response = mweb.client.get(_url(mweb))
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    period = _text(body.split('class="ts-period"', 1)[1].split("</p>", 1)[0])
    assert "Mon 23 Feb" in period
    assert "Sun 8 Mar" in period
    clean = _text(_row(body, pat_shift_of(mweb, 2)))
    assert "Approved" in clean
    assert "6:56 AM \u2013 7:02 PM" in clean
    assert "Breaks 30 min" in clean or "Breaks 30m" in clean
    late = _row(body, pat_shift_of(mweb, 3))
    assert "data-record" in late
    assert "Clocked in late" in _text(late)
    assert "No clock-out" in _text(late)
    assert "Pending review" in _text(late)
    totals = _text(body.split('class="ts-totals"', 1)[1].split("</section>", 1)[0])
    assert "Scheduled to date" in totals
    assert "Scheduled, whole period" in totals
    assert "shifts that have started by now" in totals
    # Pat is chosen in the address: Pat's section is open, the others folded.
    assert re.search(rf'id="sheet-{mweb.world.provider}" class="ts-person" data-record open', body)
    assert body.count('class="ts-person" data-record open') == 1


def test_previous_and_next_period_keep_team_and_provider(mweb):
    mweb.sign_in("manager@example.com")
    body = mweb.client.get(_url(mweb)).get_data(as_text=True)
    nav = body.split('aria-label="Pay periods"', 1)[1].split("</nav>", 1)[0]
    links = {re.sub(r"<[^>]+>", "", text): href.replace("&amp;", "&") for href, text in
             re.findall(r'<a href="([^"]+)"[^>]*>(.*?)</a>', nav)}
    assert "period=2026-02-09" in links["Previous period"]
    assert "period=2026-03-09" in links["Next period"]
    for href in (links["Previous period"], links["Next period"]):
        assert f"team={mweb.world.ed}" in href
        assert f"provider={mweb.world.provider}" in href
    later = mweb.client.get(links["Next period"]).get_data(as_text=True)
    period = _text(later.split('class="ts-period"', 1)[1].split("</p>", 1)[0])
    assert "Mon 9 Mar" in period
    assert "Sun 22 Mar" in period


def test_punch_editor_opens_on_demand_and_alone_for_htmx(mweb):
    mweb.sign_in("manager@example.com")
    key = pat_shift_of(mweb, 3)
    closed = mweb.client.get(_url(mweb)).get_data(as_text=True)
    assert "Save time" not in closed
    url = _url(mweb) + f"&edit={key}"
    full = mweb.client.get(url).get_data(as_text=True)
    assert "<h1>" in full
    assert "Save time" in _row(full, key)
    fragment = mweb.client.get(url, headers={"HX-Request": "true"})
    html = fragment.get_data(as_text=True)
    assert html.lstrip().startswith(f'<li id="row-{key}"')
    assert "Save time" in html
    assert "<h1>" not in html
    assert "HX-Request" in fragment.headers.get("Vary", "")


def test_reject_needs_a_note_and_then_saves_it(mweb):
    punch = _late_punch(mweb)
    key = pat_shift_of(mweb, 3)
    mweb.sign_in("manager@example.com")
    token = mweb.csrf()
    url = f"/manage/timesheets/punches/{punch}"
    bad = mweb.client.post(url, data={"csrf_token": token, "decision": "reject", "row": key,
                                      "admin_note": "", "back": _url(mweb)},
                           headers={"HX-Request": "true"})
    assert bad.status_code == 422
    html = bad.get_data(as_text=True)
    assert html.strip().startswith(f'<li id="row-{key}"')
    assert "Tell the provider why" in html
    assert "Save time" in html  # the editor stays open, with the message at the row
    good = mweb.client.post(url, data={"csrf_token": token, "decision": "reject", "row": key,
                                       "admin_note": "Not on shift", "back": _url(mweb)})
    assert good.status_code == 303
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        row = session.get(m.TimecardPunch, punch)
        assert row.state == "rejected"
        assert row.admin_note == "Not on shift"


def test_reject_without_javascript_shows_the_problem_at_the_row_of_the_full_page(mweb):
    punch = _late_punch(mweb)
    key = pat_shift_of(mweb, 3)
    mweb.sign_in("manager@example.com")
    bad = mweb.client.post(f"/manage/timesheets/punches/{punch}", data={
        "csrf_token": mweb.csrf(), "decision": "reject", "row": key, "admin_note": "",
        "back": _url(mweb)})
    assert bad.status_code == 422
    body = bad.get_data(as_text=True)
    assert "<title>Error: Timesheets" in body
    assert "Tell the provider why" in _row(body, key)


def _clean_day(mweb, day: int = 4) -> None:
    """Pat clocked in and out on time for the shift of `day` March 2026 (7 AM to 7 PM)."""
    start = datetime(2026, 3, day, 12, 0, tzinfo=UTC)
    with mweb.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        card = uid("timecard:provider")
        for minutes, action in [(-2, "clock_in"), (720, "clock_out")]:
            session.add(m.TimecardPunch(timecard_id=card, provider_id=mweb.world.provider,
                                        action=action, state="pending",
                                        time=start + timedelta(minutes=minutes)))


def _states(mweb) -> dict[str, str]:
    from sqlalchemy import select
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        return {str(p.id): p.state for p in session.scalars(select(m.TimecardPunch).where(
            m.TimecardPunch.provider_id == mweb.world.provider))}


def test_approve_all_clean_approves_the_team_and_leaves_warned_shifts_pending(mweb):
    _clean_day(mweb, 4)
    _clean_day(mweb, 5)
    late = str(_late_punch(mweb))
    mweb.sign_in("manager@example.com")
    page = mweb.client.get(_url(mweb)).get_data(as_text=True)
    assert "2 shifts without a warning or an error, 4 punches" in _text(page)
    done = mweb.client.post("/manage/timesheets/approve-clean", data={
        "csrf_token": mweb.csrf(), "back": _url(mweb)})
    assert done.status_code == 303
    page = mweb.client.get(_url(mweb)).get_data(as_text=True)
    assert "Approved 4 punches in 2 shifts; 1 shift with warnings left for you." in page
    states = _states(mweb)
    assert states[late] == "pending"
    assert list(states.values()).count("pending") == 1
    assert "Pending review" in _text(_row(page, pat_shift_of(mweb, 3)))
    assert "Approved" in _text(_row(page, pat_shift_of(mweb, 4)))


def test_approve_one_shift_approves_its_pending_punches(mweb):
    _clean_day(mweb, 4)
    mweb.sign_in("manager@example.com")
    key = pat_shift_of(mweb, 3)
    done = mweb.client.post("/manage/timesheets/approve-shift", data={
        "csrf_token": mweb.csrf(), "row": key, "back": _url(mweb)},
        headers={"HX-Request": "true"})
    assert done.status_code == 204
    assert "HX-Location" in done.headers
    states = _states(mweb)
    assert states[str(_late_punch_any(mweb))] == "approved"
    assert list(states.values()).count("pending") == 2  # the other shift's punches wait
    page = mweb.client.get(_url(mweb)).get_data(as_text=True)
    assert "Approved 1 punch of Pat Provider&#39;s shift." in page


def _late_punch_any(mweb):
    from sqlalchemy import select
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        return session.scalar(select(m.TimecardPunch.id).where(
            m.TimecardPunch.provider_id == mweb.world.provider,
            m.TimecardPunch.time == START + timedelta(days=1, minutes=25)))


def test_fix_time_removes_the_warning(mweb):
    mweb.sign_in("manager@example.com")
    token = mweb.csrf()
    punch = _late_punch(mweb)
    key = pat_shift_of(mweb, 3)
    fixed = mweb.client.post(f"/manage/timesheets/punches/{punch}", data={
        "csrf_token": token, "decision": "fix", "time": "2026-03-03T07:02", "row": key,
        "admin_note": "Badge reader down", "back": _url(mweb)})
    assert fixed.status_code == 303, fixed.get_data(as_text=True)
    page = mweb.client.get(_url(mweb)).get_data(as_text=True)
    assert "Punch time corrected." in page
    row = _text(_row(page, key))
    assert "7:02 AM" in row
    assert "Clocked in late" not in row


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


def test_night_shift_is_one_row_under_the_day_it_started_without_warnings(mweb, arrange):
    _nights(mweb, arrange)
    mweb.sign_in("manager@example.com")
    response = mweb.client.get(f"/manage/timesheets?team={mweb.world.ed}&period=2026-10-26"
                               f"&provider={mweb.world.provider}")
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    section = body.split(f'id="sheet-{mweb.world.provider}"', 1)[1].split("</details>", 1)[0]
    rows = section.split('<li id="row-')[1:]
    nights = [r for r in rows if "punch-" in r]
    assert len(nights) == 2
    # The second night is 13 hours long: the clocks fall back in it.
    for row, started, worked in zip(nights, ("Mon 26 Oct", "Sat 31 Oct"), (11, 12), strict=True):
        assert row.count('id="punch-') == 4, row
        text = _text(row)
        assert started in text
        assert "7:00 PM \u2013 7:00 AM +1 day" in text, text
        assert f"Worked {worked} h 30 min" in text or f"Worked {worked}h 30m" in text, text
    assert "No scheduled shift" not in body


def test_editor_of_a_row_that_is_gone_answers_with_the_whole_timesheet(mweb):
    mweb.sign_in("manager@example.com")
    answer = mweb.client.get(_url(mweb) + "&edit=punch-gone", headers={"HX-Request": "true"})
    assert answer.status_code == 200
    assert answer.headers["HX-Retarget"] == "#timesheet"
    assert answer.get_data(as_text=True).lstrip().startswith('<div id="timesheet"')


def test_folded_sections_load_their_rows_on_demand(mweb):
    mweb.sign_in("manager@example.com")
    page = mweb.client.get(f"/manage/timesheets?team={mweb.world.ed}&{PERIOD}")
    body = page.get_data(as_text=True)
    assert 'data-record open' not in body  # nobody chosen: every section folded
    assert f'<li id="row-{pat_shift_of(mweb, 3)}"' not in body
    section = body.split(f'id="sheet-{mweb.world.provider}"', 1)[1].split("</details>", 1)[0]
    link = re.search(r'<a class="ts-edit-link" href="([^"#]+)#[^"]*" hx-get="([^"]+)"', section)
    assert link is not None
    assert link.group(1) == link.group(2)
    assert "Show Pat Provider" in _text(section)
    answer = mweb.client.get(link.group(2).replace("&amp;", "&"), headers={
        "HX-Request": "true", "HX-Target": f"sheet-{mweb.world.provider}"})
    html = answer.get_data(as_text=True)
    assert html.lstrip().startswith(f'<details id="sheet-{mweb.world.provider}"')
    assert f'<li id="row-{pat_shift_of(mweb, 3)}"' in html
    assert "HX-Target" in answer.headers["Vary"]
