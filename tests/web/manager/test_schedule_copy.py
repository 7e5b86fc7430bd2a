"""Copying on the team schedule through the test client as the ED manager: a shift to other
days of its week, and last week into this one (preview, copy, result), with and without htmx.
"""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from app.api import models as m
from tests.factories import uid
from tests.web.manager.conftest import add_request, add_shift

HX = {"HX-Request": "true"}
MONDAY = datetime(2027, 6, 7, 4, 0, tzinfo=UTC)  # Mon 7 Jun 2027, midnight in New York
NEXT = "2027-06-14"



def _text(body):
    """What a person reads: tags gone, entities decoded, spaces collapsed, ranges' dashes tight."""
    text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", body)).split())
    return re.sub(r"\s*\u2013\s*", "\u2013", text).replace(" ,", ",").replace(" .", ".")


def _starts(mweb, arrange, provider, begin, end):
    """The start instants (UTC) of the shifts of `provider` (None: open) in [begin, end)."""
    def read(session, world):
        query = select(m.Shift).where(m.Shift.start_date >= begin, m.Shift.start_date < end,
                                      m.Shift.team_id == world.ed)
        query = query.where(m.Shift.provider_id.is_(None) if provider is None
                            else m.Shift.provider_id == provider)
        return sorted(s.start_date.astimezone(UTC) for s in session.scalars(query))
    return arrange(read)


def _shift(arrange, shift_id):
    def read(session, world):
        shift = session.get(m.Shift, shift_id)
        return shift.version

    return arrange(read)


def _copy_shift(mweb, shift_id, days, *, version=None, headers=None, arrange=None):
    data = {"csrf_token": mweb.csrf(), "days": days,
            "version": str(version if version is not None else _shift(arrange, shift_id))}
    return mweb.client.post(f"/manage/schedule/shifts/{shift_id}/copy?team={mweb.world.ed}",
                            data=data, headers=headers or {})


# -- one shift to other days --------------------------------------------------------------------

def test_copy_shift_keeps_local_times_and_details_across_the_dst_change(mweb, arrange):
    # Fri 12 Mar 2027, 7:00 AM EST (12:00 UTC); clocks go forward on Sun 14 Mar.
    start = datetime(2027, 3, 12, 12, 0, tzinfo=UTC)

    def shift_with_details(session, world):
        shift_id = add_shift(session, world, provider=world.provider, start=start)
        shift = session.get(m.Shift, shift_id)
        shift.note = "Charge on pod A"
        shift.segments[0].labels = [session.get(m.Label, uid("label:charge"))]
        shift.pay_codes = [m.ShiftPayCode(pay_code_id=uid("pay:REG"))]
        return shift_id

    shift_id = arrange(shift_with_details)
    mweb.sign_in("manager@example.com")
    page = mweb.client.get(f"/manage/schedule/shifts/{shift_id}/copy?team={mweb.world.ed}")
    body = page.get_data(as_text=True)
    assert page.status_code == 200, body
    own = re.search(r'<input[^>]*value="2027-03-12"[^>]*>', body).group(0)
    assert "disabled" in own
    assert "(this shift's day)" in _text(body)
    assert body.count('name="days"') == 7

    response = _copy_shift(mweb, shift_id, ["2027-03-13", "2027-03-14"], arrange=arrange)
    assert response.status_code == 303
    result = mweb.client.get(response.headers["Location"])
    text = _text(result.get_data(as_text=True))
    assert "Copied 2 shifts" in text
    assert "Sun 14 Mar" in text
    assert "7:00 AM\u20137:00 PM" in text

    def copies(session, world):
        rows = session.scalars(select(m.Shift).where(
            m.Shift.provider_id == world.provider, m.Shift.start_date > start,
            m.Shift.start_date < start + timedelta(days=3)).order_by(m.Shift.start_date))
        return [(s.start_date.astimezone(UTC), s.end_date.astimezone(UTC), s.note,
                 [[label.id for label in seg.labels] for seg in s.segments],
                 [seg.start_date.astimezone(UTC) for seg in s.segments],
                 [p.pay_code_id for p in s.pay_codes]) for s in rows]

    saturday, sunday = arrange(copies)
    assert saturday[0] == datetime(2027, 3, 13, 12, 0, tzinfo=UTC)  # 7:00 AM EST
    assert sunday[:2] == (datetime(2027, 3, 14, 11, 0, tzinfo=UTC),  # 7:00 AM EDT
                          datetime(2027, 3, 14, 23, 0, tzinfo=UTC))  # 7:00 PM EDT
    assert sunday[2] == "Charge on pod A"
    assert sunday[3] == [[uid("label:charge")], [], []]
    # The break keeps its local clock time too: 1:00 PM EDT.
    assert sunday[4][1] == datetime(2027, 3, 14, 17, 0, tzinfo=UTC)
    assert sunday[5] == [uid("pay:REG")]


def test_copy_shift_skips_overlaps_and_time_off_with_their_reasons(mweb, arrange):
    shift_id = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                              start=MONDAY.replace(hour=11)))
    arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                   start=MONDAY.replace(day=8, hour=15)))
    arrange(lambda s, w: add_request(s, w, start=MONDAY.replace(day=9), status="approved"))
    mweb.sign_in("manager@example.com")
    response = _copy_shift(mweb, shift_id, ["2027-06-08", "2027-06-09", "2027-06-10"],
                           arrange=arrange, headers=HX)
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    assert body.strip().startswith('<section id="copy-shift"')
    assert "HX-Request" in response.headers["Vary"]
    text = _text(body)
    assert "Copied 1 shift; skipped 2" in text
    assert "Overlaps Pat Provider's shift Tue 8 Jun 2027, 11:00 AM\u201311:00 PM" in text
    assert "Pat Provider has approved time off Wed 9 Jun" in text
    starts = _starts(mweb, arrange, mweb.world.provider, MONDAY, MONDAY + timedelta(days=7))
    assert starts == [MONDAY.replace(hour=11), MONDAY.replace(day=8, hour=15),
                      MONDAY.replace(day=10, hour=11)]


def test_copy_open_shift_stays_open_and_a_second_copy_is_skipped(mweb, arrange):
    shift_id = arrange(lambda s, w: add_shift(s, w, provider=None,
                                              start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    first = _copy_shift(mweb, shift_id, ["2027-06-11"], arrange=arrange)
    assert first.status_code == 303
    again = _copy_shift(mweb, shift_id, ["2027-06-11"], arrange=arrange)
    text = _text(mweb.client.get(again.headers["Location"]).get_data(as_text=True))
    assert "Nothing was copied; skipped 1" in text
    assert "The same open shift is already posted" in text
    assert "already on the schedule" in text
    assert _starts(mweb, arrange, None, MONDAY.replace(day=11), MONDAY.replace(day=12)) == [
        MONDAY.replace(day=11, hour=11)]


def test_copy_shift_needs_a_day_of_its_own_week(mweb, arrange):
    shift_id = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                              start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    for days, message in [([], "Tick at least one day."),
                          (["2027-06-14"], "Choose days of the shift's own week"),
                          (["2027-06-07"], "Choose days of the shift's own week"),
                          (["not-a-day"], "Choose days of the shift's own week")]:
        response = _copy_shift(mweb, shift_id, days, arrange=arrange)
        body = response.get_data(as_text=True)
        assert response.status_code == 422, days
        assert message in _text(body)
        assert "<title>Error:" in body
        assert 'aria-invalid="true"' in body
    tampered = _copy_shift(mweb, shift_id, ["2027-06-08"], version="seven")
    assert tampered.status_code == 422
    assert "This form was damaged in transit" in _text(tampered.get_data(as_text=True))
    assert len(_starts(mweb, arrange, mweb.world.provider, MONDAY,
                       MONDAY + timedelta(days=14))) == 1


def test_copy_shift_changed_meanwhile_is_a_version_conflict_then_copies_the_latest(mweb,
                                                                                    arrange):
    shift_id = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                              start=MONDAY.replace(hour=11)))
    mweb.sign_in("manager@example.com")
    seen = _shift(arrange, shift_id)

    def move(session, world):
        shift = session.get(m.Shift, shift_id)
        shift.note = "Moved to pod C"

    arrange(move)
    response = _copy_shift(mweb, shift_id, ["2027-06-08"], version=seen, headers=HX)
    body = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "Someone else changed this shift" in _text(body)
    assert "Copy the latest version" in body
    assert re.search(r'value="2027-06-08"[^>]*checked', body)
    assert f'name="version" value="{seen + 1}"' in body
    assert _starts(mweb, arrange, mweb.world.provider, MONDAY.replace(day=8),
                   MONDAY.replace(day=9)) == []
    again = _copy_shift(mweb, shift_id, ["2027-06-08"], version=seen + 1)
    assert again.status_code == 303


def test_copy_shift_into_a_signed_off_period_is_skipped_with_the_apis_reason(mweb, arrange):
    shift_id = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                              start=MONDAY.replace(hour=11)))

    def sign_off(session, world):
        session.add(m.TimesheetSignOff(
            team_id=world.ed, start_date=MONDAY.replace(day=12), end_date=MONDAY.replace(day=13),
            providers=[session.get(m.Provider, world.provider)], signed_by_id=world.manager))

    arrange(sign_off)
    mweb.sign_in("manager@example.com")
    response = _copy_shift(mweb, shift_id, ["2027-06-11", "2027-06-12"], arrange=arrange)
    text = _text(mweb.client.get(response.headers["Location"]).get_data(as_text=True))
    assert "Copied 1 shift; skipped 1" in text
    assert "The timesheet for that time is signed off" in text


# -- last week into this one --------------------------------------------------------------------

@pytest.fixture
def last_week(arrange):
    """Last week (7 Jun) of the ED: Pat Mon, Dana Tue (Dana already works Tue this week), an
    open shift Wed, Pat's callout Thu, a dismissed nurse's shift Fri, Ed Nurse 1 Sat (on
    approved leave that Saturday next week)."""
    def build(session, world):
        nurse = uid("user:ed.nurse1@example.com")
        ids = {
            "pat": add_shift(session, world, provider=world.provider,
                             start=MONDAY.replace(hour=11)),
            "dana": add_shift(session, world, provider=world.doctor, role_name="Physician",
                              start=MONDAY.replace(day=8, hour=11)),
            "open": add_shift(session, world, provider=None, start=MONDAY.replace(day=9, hour=11)),
            "callout": add_shift(session, world, provider=world.provider,
                                 start=MONDAY.replace(day=10, hour=11)),
            "gone": add_shift(session, world, provider=world.dismissed,
                              start=MONDAY.replace(day=11, hour=11)),
            "nurse": add_shift(session, world, provider=nurse,
                               start=MONDAY.replace(day=12, hour=11)),
        }
        session.get(m.Shift, ids["callout"]).is_callout = True
        add_shift(session, world, provider=world.doctor, role_name="Physician",
                  start=MONDAY.replace(day=15, hour=15))
        add_request(session, world, provider=nurse, start=MONDAY.replace(day=19),
                    status="approved")
        return ids

    return arrange(build)


def _preview(mweb, week=NEXT, headers=None):
    return mweb.client.get(f"/manage/schedule/copy-week?team={mweb.world.ed}&week={week}",
                           headers=headers or {})


def _plan(body):
    return html.unescape(re.search(r'name="plan" value="([^"]*)"', body).group(1))


def _copy_week(mweb, plan, week=NEXT, headers=None):
    return mweb.client.post(f"/manage/schedule/copy-week?team={mweb.world.ed}&week={week}",
                            data={"csrf_token": mweb.csrf(), "plan": plan},
                            headers=headers or {})


def test_copy_week_previews_then_copies_and_lists_what_it_skipped(mweb, arrange, last_week):
    mweb.sign_in("manager@example.com")
    schedule = mweb.client.get(f"/manage/schedule?team={mweb.world.ed}&week=2027-06-14")
    assert "/manage/schedule/copy-week?" in schedule.get_data(as_text=True)
    preview = _preview(mweb)
    body = preview.get_data(as_text=True)
    assert preview.status_code == 200, body
    text = _text(body)
    assert "2 shifts will be copied, 3 skipped" in text
    assert "Callouts are not copied: last week had 1, left out" in text
    assert "Overlaps Dana Doctor's shift Tue 15 Jun 2027, 11:00 AM\u201311:00 PM" in text
    assert "Gone Away is no longer in the team" in text
    assert "Ed Nurse 1 has approved time off Sat 19 Jun" in text
    assert "Copy 2 shifts" in text

    response = _copy_week(mweb, _plan(body))
    assert response.status_code == 303
    assert "result=" in response.headers["Location"]
    result = _text(mweb.client.get(response.headers["Location"]).get_data(as_text=True))
    assert "Copied 2 shifts; skipped 3" in result
    assert "Gone Away is no longer in the team" in result
    this_week = (MONDAY + timedelta(days=7), MONDAY + timedelta(days=14))
    assert _starts(mweb, arrange, mweb.world.provider, *this_week) == [
        MONDAY.replace(day=14, hour=11)]  # the callout was not copied
    assert _starts(mweb, arrange, None, *this_week) == [MONDAY.replace(day=16, hour=11)]
    assert _starts(mweb, arrange, mweb.world.dismissed, *this_week) == []

    again = _text(_preview(mweb).get_data(as_text=True))
    assert "0 shifts will be copied, 5 skipped" in again
    assert "Overlaps Pat Provider's shift Mon 14 Jun" in again
    assert "The same open shift is already posted" in again
    assert "Copy 0 shifts" not in again


def test_copy_week_with_htmx_answers_the_result_in_place(mweb, arrange, last_week):
    mweb.sign_in("manager@example.com")
    preview = _preview(mweb, headers=HX)
    body = preview.get_data(as_text=True)
    assert body.strip().startswith('<section id="copy-week"')
    response = _copy_week(mweb, _plan(body), headers=HX)
    fragment = response.get_data(as_text=True)
    assert response.status_code == 200
    assert fragment.strip().startswith('<section id="copy-week"')
    assert "Copied 2 shifts; skipped 3" in _text(fragment)
    assert "HX-Request" in response.headers["Vary"]


def test_copy_week_changed_since_the_preview_shows_the_new_preview(mweb, arrange, last_week):
    mweb.sign_in("manager@example.com")
    plan = _plan(_preview(mweb).get_data(as_text=True))
    arrange(lambda s, w: add_shift(s, w, provider=uid("user:ed.nurse2@example.com"),
                                   start=MONDAY.replace(day=13, hour=11)))
    response = _copy_week(mweb, plan)
    body = response.get_data(as_text=True)
    assert response.status_code == 409
    assert "The schedule changed since you previewed this copy" in _text(body)
    assert "Copy 3 shifts" in _text(body)
    this_week = (MONDAY + timedelta(days=7), MONDAY + timedelta(days=14))
    assert _starts(mweb, arrange, mweb.world.provider, *this_week) == []
    tampered = _copy_week(mweb, "not-a-plan")
    assert tampered.status_code == 409
    assert _copy_week(mweb, _plan(body)).status_code == 303


def test_copy_week_across_the_dst_change_keeps_the_local_times(mweb, arrange):
    # Mon 8 Mar 2027, 7:00 AM EST; the week after starts in daylight time.
    arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                   start=datetime(2027, 3, 8, 12, 0, tzinfo=UTC)))
    mweb.sign_in("manager@example.com")
    body = _preview(mweb, week="2027-03-15").get_data(as_text=True)
    assert "7:00 AM\u20137:00 PM" in _text(body)
    assert _copy_week(mweb, _plan(body), week="2027-03-15").status_code == 303
    assert _starts(mweb, arrange, mweb.world.provider,
                   datetime(2027, 3, 15, tzinfo=UTC), datetime(2027, 3, 16, tzinfo=UTC)) == [
        datetime(2027, 3, 15, 11, 0, tzinfo=UTC)]


@pytest.mark.parametrize("week", ["0001-01-01", "9999-12-31", "2027-02-30", "next"])
def test_copy_week_refuses_a_week_it_cannot_show_inline(mweb, arrange, last_week, week):
    mweb.sign_in("manager@example.com")
    shown = _preview(mweb, week=week)
    assert shown.status_code == 200
    assert "is not a week Shiftdesk can copy into" in _text(shown.get_data(as_text=True))
    plan = _plan(_preview(mweb).get_data(as_text=True))
    response = _copy_week(mweb, plan, week=week)
    assert response.status_code == 422
    body = response.get_data(as_text=True)
    assert "is not a week Shiftdesk can copy into" in _text(body)
    assert "<title>Error:" in body
    this_week = (MONDAY + timedelta(days=7), MONDAY + timedelta(days=14))
    assert _starts(mweb, arrange, mweb.world.provider, *this_week) == []
