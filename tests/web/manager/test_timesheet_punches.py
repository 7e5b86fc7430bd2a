"""Punches a manager adds and deletes on the team timesheet, and missing clock-outs fixed in one
action, through the test client as the ED manager; what Pat then sees on /timecard."""

from __future__ import annotations

import html as markup
import re
from datetime import UTC, datetime
from urllib.parse import quote

from sqlalchemy import select

from app.api import models as m
from tests.factories import uid
from tests.web.manager.conftest import pat_shift_of

PERIOD = "period=2026-03-02"
FIX_NOTE = "Clock-out added at the scheduled end of the shift."
PAT_CLOCK_IN = datetime(2026, 3, 3, 12, 25, tzinfo=UTC)  # the seeded late clock-in, 7:25 AM


def _text(html: str) -> str:
    """What a reader sees of `html`: tags dropped, spaces collapsed."""
    return markup.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip())


def _back(mweb, period: str = PERIOD) -> str:
    return f"/manage/timesheets?team={mweb.world.ed}&{period}&provider={mweb.world.provider}"



def _punches(mweb, **where):
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        rows = session.scalars(select(m.TimecardPunch).where(
            m.TimecardPunch.provider_id == where.pop("provider", mweb.world.provider),
            *(getattr(m.TimecardPunch, k) == v for k, v in where.items()))).all()
        for row in rows:
            session.expunge(row)
        return rows


def _add(mweb, headers=None, **fields):
    data = {"csrf_token": mweb.csrf(), "back": _back(mweb), "provider": str(mweb.world.provider),
            "action": "clock_out", "date": "2026-03-03", "time": "19:00",
            "admin_note": "Forgot to clock out", **fields}
    return mweb.client.post("/manage/timesheets/punches", data=data, headers=headers or {})


def _sign_off(arrange, start: datetime, end: datetime) -> None:
    def make(session, world):
        sign_off = m.TimesheetSignOff(team_id=world.ed, start_date=start, end_date=end,
                                      signed_by_id=world.manager)
        sign_off.providers = [session.get(m.Provider, world.provider)]
        session.add(sign_off)

    arrange(make)


def test_add_punch_form_prefills_the_missing_clock_out_of_a_row(mweb):
    mweb.sign_in("manager@example.com")
    key = pat_shift_of(mweb, 3)
    page = mweb.client.get(_back(mweb)).get_data(as_text=True)
    row = page.split(f'<li id="row-{key}"', 1)[1].split("</article>", 1)[0]
    link = re.search(r'href="([^"]+)" hx-get="[^"]+" hx-target="#sheet-[^"]+"'
                     r' hx-push-url="false">Add clock out', row)
    assert link is not None, row
    url = link.group(1).replace("&amp;", "&")
    answer = mweb.client.get(url)
    html = answer.get_data(as_text=True)
    assert answer.status_code == 200
    assert "<h1>Add a punch for Pat Provider</h1>" in html
    assert re.search(r'<option selected value="clock_out">|<option value="clock_out" selected',
                     html)
    assert 'value="2026-03-03"' in html
    assert 'value="19:00"' in html
    assert "no clock-out" in _text(html)  # the row's facts, for context
    fragment = mweb.client.get(url, headers={"HX-Request": "true"})
    assert fragment.get_data(as_text=True).lstrip().startswith('<section id="punch-form"')
    assert "HX-Request" in fragment.headers["Vary"]


def test_add_punch_creates_it_approved_with_the_note_and_pat_sees_it(mweb):
    mweb.sign_in("manager@example.com")
    answer = _add(mweb)
    assert answer.status_code == 303, answer.get_data(as_text=True)
    assert answer.headers["Location"].endswith(f"#sheet-{mweb.world.provider}")
    [added] = _punches(mweb, action="clock_out", time=datetime(2026, 3, 4, 0, tzinfo=UTC))
    assert added.state == "approved"
    assert added.admin_note == "Forgot to clock out"
    page = mweb.client.get(_back(mweb)).get_data(as_text=True)
    assert "Clock out at Tue 3 Mar, 7:00 PM added for Pat Provider" in _text(page)
    row = _text(page.split(f'<li id="row-{pat_shift_of(mweb, 3)}"', 1)[1].split("</article>", 1)[0])
    assert "7:25 AM \u2013 7:00 PM" in row
    assert "No clock-out" not in row
    mweb.sign_in("provider@example.com")
    card = _text(mweb.client.get("/timecard?period=2026-03-03").get_data(as_text=True))
    assert "Added by your manager: clocked out at 7:00 PM. Note: Forgot to clock out" in card


def test_add_punch_needs_a_note_and_shows_errors_at_the_fields(mweb):
    mweb.sign_in("manager@example.com")
    full = _add(mweb, admin_note="  ", time="")
    html = full.get_data(as_text=True)
    assert full.status_code == 422
    assert "<title>Error: Add a punch" in html
    assert 'id="admin_note-error"' in html
    assert "Tell the provider why you add this punch." in html
    assert "Enter the time of the punch." in html
    assert 'value="2026-03-03"' in html  # what was entered stays
    partial = _add(mweb, {"HX-Request": "true"}, admin_note="")
    assert partial.status_code == 422
    assert partial.get_data(as_text=True).lstrip().startswith('<section id="punch-form"')
    assert _punches(mweb, action="clock_out", time=datetime(2026, 3, 4, 0, tzinfo=UTC)) == []


def test_add_punch_refused_action_names_the_allowed_ones_in_words(mweb):
    mweb.sign_in("manager@example.com")
    answer = _add(mweb, action="clock_in", time="13:00")
    html = answer.get_data(as_text=True)
    assert answer.status_code == 422
    error = _text(html.split('id="action-error"', 1)[1].split("</p>", 1)[0])
    assert "Clock in is not allowed at Tue 3 Mar, 1:00 PM" in error
    assert "clock in at Tue 3 Mar, 7:25 AM" in error
    assert "the allowed actions are clock out, break start" in error
    assert "clock_" not in error
    assert "+0000" not in error


def test_add_punch_for_another_teams_provider_is_refused_inline(mweb):
    mweb.sign_in("manager@example.com")
    answer = _add(mweb, provider=str(mweb.world.icu_nurse), action="clock_out")
    html = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert 'class="form-errors" role="alert"' in html
    assert _punches(mweb, provider=mweb.world.icu_nurse, action="clock_out") == []
    garbage = _add(mweb, provider="not-an-id")
    assert garbage.status_code == 422
    assert "Choose the provider again" in garbage.get_data(as_text=True)


def test_add_punch_while_signed_off_answers_409_with_the_apis_words(mweb, arrange):
    _sign_off(arrange, datetime(2026, 2, 23, 5, tzinfo=UTC), datetime(2026, 3, 9, 4, tzinfo=UTC))
    mweb.sign_in("manager@example.com")
    for headers in ({}, {"HX-Request": "true"}):
        answer = _add(mweb, headers)
        html = answer.get_data(as_text=True)
        assert answer.status_code == 409
        alert = _text(html.split('role="alert"', 1)[1].split("</div>", 1)[0])
        assert "signed off" in alert
        assert "+0000" not in alert
    assert _punches(mweb, action="clock_out", time=datetime(2026, 3, 4, 0, tzinfo=UTC)) == []


def test_add_punch_in_the_hour_the_clocks_skip_says_so(mweb):
    mweb.sign_in("manager@example.com")
    answer = _add(mweb, date="2026-03-08", time="02:30", action="clock_in",
                  back=_back(mweb, "period=2026-03-08"))
    assert answer.status_code == 422
    error = _text(answer.get_data(as_text=True).split('id="time-error"', 1)[1].split("</p>")[0])
    assert "2:30 AM does not exist on Sun 8 Mar" in error
    assert "such as 3:30 AM" in error


def test_add_punch_in_the_hour_the_clocks_repeat_asks_which_one(mweb):
    mweb.sign_in("manager@example.com")
    back = _back(mweb, "period=2026-10-26")
    asked = _add(mweb, date="2026-11-01", time="01:30", action="clock_in", back=back)
    html = asked.get_data(as_text=True)
    assert asked.status_code == 422
    assert "1:30 AM happens twice on Sun 1 Nov" in _text(html)
    assert "The second 1:30 AM (EST, after the clocks go back)" in html
    done = _add(mweb, date="2026-11-01", time="01:30", action="clock_in", back=back, fold="1")
    assert done.status_code == 303, done.get_data(as_text=True)
    [punch] = _punches(mweb, action="clock_in", time=datetime(2026, 11, 1, 6, 30, tzinfo=UTC))
    assert punch.state == "approved"


def test_delete_a_punch_after_confirmation(mweb):
    mweb.sign_in("manager@example.com")
    [late] = _punches(mweb, time=PAT_CLOCK_IN)
    key = pat_shift_of(mweb, 3)
    editor = mweb.client.get(_back(mweb) + f"&edit={key}").get_data(as_text=True)
    link = re.search(rf'href="(/manage/timesheets/punches/{late.id}/delete[^"]*)"', editor)
    assert link is not None
    url = link.group(1).replace("&amp;", "&")
    confirm = mweb.client.get(url)
    html = confirm.get_data(as_text=True)
    assert confirm.status_code == 200
    facts = _text(html.split('class="ts-facts ts-punch-facts"', 1)[1].split("</dl>", 1)[0])
    assert "Provider Pat Provider" in facts
    assert "Punch Clock in" in facts
    assert "Tue 3 Mar, 7:25 AM" in facts
    fragment = mweb.client.get(url, headers={"HX-Request": "true"}).get_data(as_text=True)
    assert fragment.lstrip().startswith('<section id="punch-delete"')
    done = mweb.client.post(f"/manage/timesheets/punches/{late.id}/delete",
                            data={"csrf_token": mweb.csrf(), "back": _back(mweb)})
    assert done.status_code == 303
    assert _punches(mweb, time=PAT_CLOCK_IN) == []
    page = _text(mweb.client.get(_back(mweb)).get_data(as_text=True))
    assert "Deleted Pat Provider's clock in at Tue 3 Mar, 7:25 AM." in page


def test_delete_while_signed_off_shows_the_refusal_on_the_confirmation(mweb, arrange):
    _sign_off(arrange, datetime(2026, 2, 23, 5, tzinfo=UTC), datetime(2026, 3, 9, 4, tzinfo=UTC))
    mweb.sign_in("manager@example.com")
    [late] = _punches(mweb, time=PAT_CLOCK_IN)
    answer = mweb.client.post(f"/manage/timesheets/punches/{late.id}/delete",
                              data={"csrf_token": mweb.csrf(), "back": _back(mweb)},
                              headers={"HX-Request": "true"})
    html = answer.get_data(as_text=True)
    assert answer.status_code == 409
    assert html.lstrip().startswith('<section id="punch-delete"')
    assert "signed off" in _text(html.split('role="alert"', 1)[1].split("</div>", 1)[0])
    assert len(_punches(mweb, time=PAT_CLOCK_IN)) == 1


def _second_missing_clock_out(arrange) -> None:
    """Pat also clocked in for the shift of Wed 4 Mar (7 AM) and never out."""
    def make(session, world):
        session.add(m.TimecardPunch(timecard_id=uid("timecard:provider"),
                                    provider_id=world.provider, action="clock_in",
                                    state="pending", time=datetime(2026, 3, 4, 12, tzinfo=UTC)))

    arrange(make)


def _fix(mweb, keep, headers=None, **fields):
    data = {"csrf_token": mweb.csrf(), "back": _back(mweb), "keep": keep,
            "admin_note": "Clock-out added at the scheduled end of the shift.", **fields}
    return mweb.client.post("/manage/timesheets/fix-clock-outs", data=data,
                            headers=headers or {})


def test_fix_missing_clock_outs_proposes_the_scheduled_ends_and_adds_the_kept(mweb, arrange):
    _second_missing_clock_out(arrange)
    mweb.sign_in("manager@example.com")
    page = mweb.client.get(_back(mweb)).get_data(as_text=True)
    link = re.search(r'href="([^"]+)">Fix 2 missing clock-outs<', page)
    assert link is not None
    fix = mweb.client.get(link.group(1).replace("&amp;", "&"))
    html = fix.get_data(as_text=True)
    assert fix.status_code == 200
    third, fourth = pat_shift_of(mweb, 3), pat_shift_of(mweb, 4)
    for key, day in ((third, "Tue 3 Mar"), (fourth, "Wed 4 Mar")):
        box = re.search(rf'<input type="checkbox" id="keep-{key}" name="keep" value="{key}"'
                        r' checked>(.*?)</label>', html, re.S)
        assert box is not None
        assert f"Pat Provider , {day}: clock out at 7:00 PM" in _text(box.group(1))
    assert 'value="Clock-out added at the scheduled end of the shift."' in html
    done = _fix(mweb, [third, fourth])
    assert done.status_code == 303, done.get_data(as_text=True)
    added = _punches(mweb, action="clock_out", state="approved",
                     admin_note="Clock-out added at the scheduled end of the shift.")
    assert sorted(p.time for p in added) == [datetime(2026, 3, 4, 0, tzinfo=UTC),
                                             datetime(2026, 3, 5, 0, tzinfo=UTC)]
    after = _text(mweb.client.get(_back(mweb)).get_data(as_text=True))
    assert "Clock-out added for Pat Provider's shift of Tue 3 Mar at 7:00 PM." in after
    assert "Clock-out added for Pat Provider's shift of Wed 4 Mar at 7:00 PM." in after
    assert "missing clock-out" not in after


def test_fix_missing_clock_outs_skips_the_unkept_and_refuses_tampered_ids(mweb, arrange):
    _second_missing_clock_out(arrange)
    mweb.sign_in("manager@example.com")
    third, fourth = pat_shift_of(mweb, 3), pat_shift_of(mweb, 4)
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        foreign = str(session.scalar(select(m.Shift.id).where(
            m.Shift.provider_id == mweb.world.icu_nurse)))
    answer = _fix(mweb, [third, foreign], {"HX-Request": "true"})
    html = answer.get_data(as_text=True)
    assert answer.status_code == 409
    assert html.lstrip().startswith('<section id="fix-clock-outs"')
    assert "not your team" in _text(html)
    assert "Clock-out added for Pat Provider's shift of Tue 3 Mar at 7:00 PM." in _text(html)
    assert [p.time for p in _punches(mweb, action="clock_out", admin_note=FIX_NOTE)] == [
        datetime(2026, 3, 4, 0, tzinfo=UTC)]
    # The skipped one is still proposed; the fixed one is gone.
    assert f'id="keep-{fourth}"' in html
    assert f'id="keep-{third}"' not in html
    nothing = _fix(mweb, [])
    assert nothing.status_code == 422
    assert "Keep at least one clock-out" in nothing.get_data(as_text=True)


def test_fix_missing_clock_outs_reports_each_refusal(mweb, arrange):
    _second_missing_clock_out(arrange)
    # Pat started a break on the 4th: only its end may follow, so that clock-out is refused.
    arrange(lambda session, world: session.add(m.TimecardPunch(
        timecard_id=uid("timecard:provider"), provider_id=world.provider, action="break_start",
        state="pending", time=datetime(2026, 3, 4, 18, tzinfo=UTC))))
    mweb.sign_in("manager@example.com")
    answer = _fix(mweb, [pat_shift_of(mweb, 3), pat_shift_of(mweb, 4)])
    html = answer.get_data(as_text=True)
    assert answer.status_code == 409
    assert "<title>Error: Fix missing clock-outs" in html
    refused = _text(html.split('id="fix-refused-title">', 1)[1].split("</section>", 1)[0])
    assert refused.startswith("1 clock-out not added")
    assert "Pat Provider, Wed 4 Mar, clock out at 7:00 PM:" in refused
    assert "the allowed actions are break end" in refused
    assert "Clock-out added for Pat Provider's shift of Tue 3 Mar" in _text(html)


def test_fix_missing_clock_outs_link_only_while_one_is_missing(mweb):
    mweb.sign_in("manager@example.com")
    page = mweb.client.get(_back(mweb, "period=2026-03-16")).get_data(as_text=True)
    assert "missing clock-out" not in page
    empty = mweb.client.get("/manage/timesheets/fix-clock-outs?"
                            + _back(mweb, "period=2026-03-16").split("?", 1)[1])
    assert empty.status_code == 200
    assert "No shift of this period waits for a clock-out" in empty.get_data(as_text=True)


def test_section_offers_a_punch_for_its_provider(mweb):
    mweb.sign_in("manager@example.com")
    page = mweb.client.get(_back(mweb)).get_data(as_text=True)
    section = page.split(f'id="sheet-{mweb.world.provider}"', 1)[1].split("</details>", 1)[0]
    link = re.search(r'href="(/manage/timesheets/punches/new[^"]+)" hx-get="\1"'
                     rf' hx-target="#sheet-{mweb.world.provider}" hx-push-url="false">Add a punch',
                     section)
    assert link is not None
    url = link.group(1).replace("&amp;", "&")
    assert f"provider={mweb.world.provider}" in url
    form = mweb.client.get(url).get_data(as_text=True)
    assert "<h1>Add a punch for Pat Provider</h1>" in form
    back = re.search(r'name="back" value="([^"]+)"', form)
    assert back is not None
    assert f"team={mweb.world.ed}" in markup.unescape(back.group(1))
    assert "period=2026-02-23" in markup.unescape(back.group(1))


def test_a_fixed_time_shows_on_pats_timecard_with_the_managers_note(mweb):
    mweb.sign_in("manager@example.com")
    [late] = _punches(mweb, time=PAT_CLOCK_IN)
    fixed = mweb.client.post(f"/manage/timesheets/punches/{late.id}", data={
        "csrf_token": mweb.csrf(), "decision": "fix", "time": "2026-03-03T07:02",
        "row": pat_shift_of(mweb, 3), "admin_note": "Badge reader down", "back": _back(mweb)})
    assert fixed.status_code == 303
    mweb.sign_in("provider@example.com")
    card = _text(mweb.client.get("/timecard?period=2026-03-03").get_data(as_text=True))
    assert "Manager's note (clocked in at 7:02 AM): Badge reader down" in card
    assert "Added by your manager" not in card  # Pat made it; the manager corrected it


def test_hostile_addresses_answer_pages_not_errors(mweb):
    mweb.sign_in("manager@example.com")
    evil = quote("//evil.example/manage/timesheets", safe="")
    new = mweb.client.get(f"/manage/timesheets/punches/new?provider=x&row=%00&back={evil}")
    assert new.status_code == 303
    assert new.headers["Location"].startswith("/manage/timesheets")
    page = mweb.client.get(new.headers["Location"]).get_data(as_text=True)
    assert "Choose the provider on this timesheet" in page
    gone = mweb.client.get(f"/manage/timesheets/punches/{uid('nothing')}/delete?back={evil}")
    assert gone.status_code == 303
    assert gone.headers["Location"].startswith("/manage/timesheets")
    fix = mweb.client.get("/manage/timesheets/fix-clock-outs?team=x&period=99999-1-1&provider=%00")
    assert fix.status_code == 200
    hostile_fold = _add(mweb, fold="7", date="2026-11-01", time="01:30", action="clock_in",
                        back=_back(mweb, "period=2026-10-26"))
    assert hostile_fold.status_code == 422
    assert "happens twice" in hostile_fold.get_data(as_text=True)


def test_fix_missing_clock_outs_names_a_tampered_id_when_nothing_is_left(mweb):
    mweb.sign_in("manager@example.com")
    third = pat_shift_of(mweb, 3)
    answer = _fix(mweb, [third, str(uid("nothing"))])
    html = answer.get_data(as_text=True)
    assert answer.status_code == 409
    assert "No shift of this period waits" in _text(html)  # the one proposal was added
    alert = _text(html.split('class="form-errors" role="alert"', 1)[1].split("</div>", 1)[0])
    assert "not your team" in alert


def test_add_punch_from_a_section_opens_and_refreshes_it_in_place_for_htmx(mweb):
    mweb.sign_in("manager@example.com")
    section = {"HX-Request": "true", "HX-Target": f"sheet-{mweb.world.provider}"}
    key = pat_shift_of(mweb, 3)
    opened = mweb.client.get(f"/manage/timesheets/punches/new?provider={mweb.world.provider}"
                             f"&row={key}&back={quote(_back(mweb), safe='')}", headers=section)
    html = opened.get_data(as_text=True)
    assert opened.status_code == 200
    assert html.lstrip().startswith(f'<details id="sheet-{mweb.world.provider}"')
    assert "HX-Target" in opened.headers["Vary"]
    assert "Add a punch for Pat Provider</h3>" in html
    assert f'id="time-{mweb.world.provider}" name="time"' in html  # ids of this section
    assert 'value="19:00"' in html
    assert f'hx-target="#sheet-{mweb.world.provider}"' in html
    bad = _add(mweb, section, admin_note="")
    assert bad.status_code == 422
    assert bad.get_data(as_text=True).lstrip().startswith('<details id="sheet-')
    assert f'id="admin_note-{mweb.world.provider}-error"' in bad.get_data(as_text=True)
    done = _add(mweb, section, row=key)
    html = done.get_data(as_text=True)
    assert done.status_code == 200
    assert html.lstrip().startswith(f'<details id="sheet-{mweb.world.provider}"')
    assert "Add a punch for Pat Provider</h3>" not in html  # closed again
    assert "7:25 AM \u2013 7:00 PM" in _text(html.split(f'<li id="row-{key}"', 1)[1])
    assert 'hx-swap-oob="true"' in html
    assert "added for Pat Provider" in _text(html.split('id="messages"', 1)[1])
