"""The team schedule's shift form through the test client as the ED manager: create a shift
with segments, edit every field, a version conflict on a segment edit, delete with
confirmation, and bad or tampered input answered inline."""

from __future__ import annotations

import html
import re
import uuid
from datetime import UTC, datetime

import pytest

from app.api import models as m
from tests.factories import uid
from tests.web.manager.conftest import add_shift
from tests.web.manager.shift_forms import as_dict, submission

MONDAY = datetime(2027, 6, 7, 4, 0, tzinfo=UTC)  # Mon 7 Jun 2027, midnight in New York
HX = {"HX-Request": "true"}
CHARGE, FLOAT = uid("label:charge"), uid("label:float")
REGULAR, ON_CALL = uid("pay:REG"), uid("pay:ONC")


def _week(mweb):
    return f"team={mweb.world.ed}&week=2027-06-07"



def _text(html):
    text = " ".join(re.sub(r"<[^>]+>", "", html).split())
    return re.sub(r"\s*\u2013\s*", "\u2013", text)


def _stored(mweb, shift_id):
    """The shift as the database holds it: times, segments (UTC), labels, pay codes."""
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        shift = session.get(m.Shift, shift_id)
        if shift is None:
            return None
        return {
            "provider": shift.provider_id, "note": shift.note, "callout": shift.is_callout,
            "start": shift.start_date.replace(tzinfo=UTC),
            "end": shift.end_date.replace(tzinfo=UTC),
            "version": shift.version,
            "pay_codes": [p.pay_code_id for p in shift.pay_codes],
            "segments": [(s.type, s.role_id, s.start_date.replace(tzinfo=UTC),
                          s.end_date.replace(tzinfo=UTC), sorted(x.id for x in s.labels))
                         for s in sorted(shift.segments, key=lambda s: s.start_date)],
        }


def _newest(mweb):
    with mweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        shift = max(session.query(m.Shift).all(), key=lambda s: s.created_at)
        return shift.id


def _new_form(mweb, **changes):
    """The new-shift form as a browser would post it, with `changes`."""
    page = mweb.client.get(f"/manage/schedule/shifts/new?{_week(mweb)}").get_data(as_text=True)
    data = as_dict(submission(page, "/manage/schedule/shifts?"))
    data.update(changes)
    return data


def _edit_form(mweb, shift, **changes):
    page = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}")
    data = as_dict(submission(page.get_data(as_text=True), f"/manage/schedule/shifts/{shift}?"))
    data.update(changes)
    return data


def _at(day, hour, minute=0):
    """A June 2027 New York wall time as UTC (EDT, four hours behind)."""
    return datetime(2027, 6, day, hour + 4, minute, tzinfo=UTC) if hour < 20 else \
        datetime(2027, 6, day + 1, hour - 20, minute, tzinfo=UTC)


@pytest.fixture
def manager(mweb):
    mweb.sign_in("manager@example.com")
    return mweb


# -- create -------------------------------------------------------------------------------------

def test_new_shift_form_is_prefilled_with_the_provider_and_day_of_the_cell(manager):
    mweb = manager
    week = mweb.client.get(f"/manage/schedule?{_week(mweb)}&view=week").get_data(as_text=True)
    assert "New shift for Pat Provider, Wed 9 Jun" in _text(week)
    link = re.search(r'href="([^"]*day=2027-06-09&amp;provider=' + str(mweb.world.provider)
                     + r')"', week).group(1).replace("&amp;", "&")
    full = mweb.client.get(link)
    body = full.get_data(as_text=True)
    assert full.status_code == 200
    assert "<title>Team schedule" in body
    assert f'<option selected value="{mweb.world.provider}">' in body
    assert 'value="2027-06-09"' in body
    partial = mweb.client.get(link, headers=HX)
    fragment = partial.get_data(as_text=True)
    assert fragment.strip().startswith('<div id="schedule"')
    assert 'id="new-shift"' in fragment
    assert "HX-Request" in partial.headers["Vary"]


def test_create_a_shift_with_segments_labels_pay_code_and_note(manager):
    mweb = manager
    data = _new_form(mweb, **{
        "date": "2027-06-08", "start_time": "07:00", "end_time": "19:00",
        "provider": str(mweb.world.provider), "role": str(mweb.world.ed_nurse_role),
        "pay_code": str(REGULAR), "note": "Pod B",
        "segments-0-type": "working", "segments-0-role": "",
        "segments-0-start_time": "07:00", "segments-0-end_time": "12:00",
        "segments-0-labels": [str(CHARGE), str(FLOAT)],
        "segments-1-type": "unpaid_break", "segments-1-role": "",
        "segments-1-start_time": "12:00", "segments-1-end_time": "12:30",
        "segments-2-type": "on_call", "segments-2-role": str(mweb.world.ed_doctor_role),
        "segments-2-start_time": "12:30", "segments-2-end_time": "19:00",
    })
    response = mweb.client.post(f"/manage/schedule/shifts?{_week(mweb)}", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    page = mweb.client.get(response.headers["Location"]).get_data(as_text=True)
    assert "Added Pat Provider's shift." in html.unescape(page)
    saved = _stored(mweb, _newest(mweb))
    assert saved["provider"] == mweb.world.provider
    assert saved["note"] == "Pod B"
    assert saved["pay_codes"] == [REGULAR]
    assert saved["segments"] == [
        ("working", mweb.world.ed_nurse_role, _at(8, 7), _at(8, 12), sorted([CHARGE, FLOAT])),
        ("unpaid_break", mweb.world.ed_nurse_role, _at(8, 12), _at(8, 12, 30), []),
        ("on_call", mweb.world.ed_doctor_role, _at(8, 12, 30), _at(8, 19), []),
    ]


def test_a_shift_with_blank_segment_rows_is_one_working_segment(manager):
    mweb = manager
    data = _new_form(mweb, date="2027-06-10", start_time="08:00", end_time="16:00",
                     provider="", role=str(mweb.world.ed_nurse_role))
    response = mweb.client.post(f"/manage/schedule/shifts?{_week(mweb)}", data=data)
    assert response.status_code == 303, response.get_data(as_text=True)
    saved = _stored(mweb, _newest(mweb))
    assert saved["provider"] is None
    assert saved["segments"] == [("working", mweb.world.ed_nurse_role, _at(10, 8), _at(10, 16),
                                  [])]


def test_overnight_segments_past_midnight_land_on_the_next_day_across_the_dst_change(manager):
    mweb = manager
    # Sat 6 Nov 2027, 7 PM EDT to Sun 7 Nov, 7 AM EST: clocks go back at 2 AM (13 hours).
    data = _new_form(mweb, **{
        "date": "2027-11-06", "start_time": "19:00", "end_time": "07:00",
        "provider": str(mweb.world.provider), "role": str(mweb.world.ed_nurse_role),
        "segments-0-start_time": "19:00", "segments-0-end_time": "03:00",
        "segments-1-type": "paid_break", "segments-1-start_time": "03:00",
        "segments-1-end_time": "03:30",
        "segments-2-start_time": "03:30", "segments-2-end_time": "07:00",
    })
    url = f"/manage/schedule/shifts?team={mweb.world.ed}&week=2027-11-01"
    first = mweb.client.post(url, data=data)
    if first.status_code == 200:  # a 13-hour shift asks nothing, but the past might
        data["confirm"] = re.search(r'name="confirm" value="([^"]*)"',
                                    first.get_data(as_text=True)).group(1)
        first = mweb.client.post(url, data=data)
    assert first.status_code == 303, first.get_data(as_text=True)
    saved = _stored(mweb, _newest(mweb))
    assert saved["start"] == datetime(2027, 11, 6, 23, 0, tzinfo=UTC)
    assert saved["end"] == datetime(2027, 11, 7, 12, 0, tzinfo=UTC)
    assert [(s[2], s[3]) for s in saved["segments"]] == [
        (datetime(2027, 11, 6, 23, 0, tzinfo=UTC), datetime(2027, 11, 7, 8, 0, tzinfo=UTC)),
        (datetime(2027, 11, 7, 8, 0, tzinfo=UTC), datetime(2027, 11, 7, 8, 30, tzinfo=UTC)),
        (datetime(2027, 11, 7, 8, 30, tzinfo=UTC), datetime(2027, 11, 7, 12, 0, tzinfo=UTC)),
    ]


def test_add_another_segment_answers_the_form_with_one_more_row_keeping_the_input(manager):
    mweb = manager
    data = _new_form(mweb, **{"note": "Keep me", "segments-0-start_time": "07:00",
                              "segments-0-end_time": "10:00", "add_segment": "y"})
    url = f"/manage/schedule/shifts?{_week(mweb)}"
    full = mweb.client.post(url, data=data)
    body = full.get_data(as_text=True)
    assert full.status_code == 200
    assert "Segment 2" in _text(body)
    assert 'id="segments-1-start_time"' in body
    assert 'value="Keep me"' in body
    assert 'value="10:00"' in body
    assert "Please fix" not in body
    partial = mweb.client.post(url, data=data, headers=HX)
    assert partial.get_data(as_text=True).strip().startswith('<div id="schedule"')
    assert 'id="segments-1-start_time"' in partial.get_data(as_text=True)


@pytest.mark.parametrize(("rows", "field", "words"), [
    ({"segments-0-start_time": "05:00", "segments-0-end_time": "06:00"},
     "segments-0-end_time", "must not be after"),
    ({"segments-0-start_time": "10:00", "segments-0-end_time": "09:00"},
     "segments-0-end_time", "must not be after"),
    ({"segments-0-start_time": "07:00", "segments-0-end_time": "13:00",
      "segments-1-start_time": "12:00", "segments-1-end_time": "19:00"},
     "segments-1-start_time", "must not be before the end of segment"),
    ({"segments-0-start_time": "07:00"}, "segments-0-end_time", "Enter when this segment ends."),
    ({"segments-0-start_time": "07:00", "segments-0-end_time": "19:00",
      "segments-0-role": str(uuid.UUID(int=7))}, "segments-0-role", "no role has the id"),
    ({"segments-0-start_time": "07:00", "segments-0-end_time": "19:00",
      "segments-0-role": "not-a-role"}, "segments-0-role", "Choose a role from the list."),
    ({"segments-0-start_time": "07:00", "segments-0-end_time": "19:00",
      "segments-0-labels": str(uuid.UUID(int=9))}, "segments-0-labels", "no label has the id"),
    ({"segments-0-start_time": "07:00", "segments-0-end_time": "19:00",
      "segments-0-role": str(uid("role:Intensive Care:Registered Nurse"))},
     "segments-0-role", "belongs to another team"),
    ({"pay_code": str(uuid.UUID(int=11))}, "pay_code", "no pay code has the id"),
    ({"provider": str(uuid.UUID(int=12))}, "provider", "no provider has the id"),
    ({"date": "0001-01-01"}, "date", "Enter a date from 1900 to 2999."),
    ({"date": "9999-12-31"}, "date", "Enter a date from 1900 to 2999."),
    ({"end_time": "25:00"}, "end_time", "Not a valid time"),
    ({"segments-0-start_time": "07:00", "segments-0-end_time": "19:00",
      "segments-0-type": "lunch"}, "segments-0-type", "Not a valid choice"),
], ids=["outside", "end-before-start", "overlap", "half-row", "unknown-role", "tampered-role",
        "unknown-label", "other-teams-role", "unknown-pay-code", "unknown-provider", "year-1",
        "year-9999", "bad-time", "tampered-type"])
def test_bad_input_is_answered_on_its_field(manager, rows, field, words):
    mweb = manager
    data = _new_form(mweb, **{"date": "2027-06-09", "start_time": "07:00", "end_time": "19:00",
                              "provider": str(mweb.world.provider),
                              "role": str(mweb.world.ed_nurse_role), **rows})
    response = mweb.client.post(f"/manage/schedule/shifts?{_week(mweb)}", data=data,
                                headers=HX)
    body = response.get_data(as_text=True)
    assert response.status_code == 422, body
    assert body.strip().startswith('<div id="schedule"')
    error = re.search(rf'id="{field}-error"[^>]*>([^<]*)<', body)
    assert error, body
    assert words in error.group(1)
    assert "+0000" not in body  # the API's UTC stamps read as local times
    assert 'role="alert"' in body


# -- edit ---------------------------------------------------------------------------------------

def test_edit_shows_the_segments_as_rows_and_saves_segments_labels_pay_code_and_note(manager,
                                                                                      arrange):
    mweb = manager
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    editor = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}")
    body = editor.get_data(as_text=True)
    assert "Segment 3" in body  # three segments
    assert "Segment 4" in body  # and one blank row
    assert 'id="segments-1-start_time"' in body
    data = _edit_form(mweb, shift, **{
        "segments-0-end_time": "12:00",
        "segments-1-type": "paid_break", "segments-1-start_time": "12:00",
        "segments-1-end_time": "12:45", "segments-2-start_time": "12:45",
        "segments-2-labels": str(FLOAT), "pay_code": str(ON_CALL), "note": "Triage lead"})
    saved = mweb.client.post(f"/manage/schedule/shifts/{shift}?{_week(mweb)}", data=data)
    assert saved.status_code == 303, saved.get_data(as_text=True)
    row = _stored(mweb, shift)
    assert row["note"] == "Triage lead"
    assert row["pay_codes"] == [ON_CALL]
    assert row["segments"] == [
        ("working", mweb.world.ed_nurse_role, _at(7, 7), _at(7, 12), []),
        ("paid_break", mweb.world.ed_nurse_role, _at(7, 12), _at(7, 12, 45), []),
        ("working", mweb.world.ed_nurse_role, _at(7, 12, 45), _at(7, 19), [FLOAT]),
    ]


def test_moving_a_one_segment_shift_moves_its_segment_along(manager, arrange):
    mweb = manager
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    # First make it one working segment, then change only the shift's times.
    data = _edit_form(mweb, shift, **{"segments-0-end_time": "19:00",
                                      "segments-1-start_time": "", "segments-1-end_time": "",
                                      "segments-2-start_time": "", "segments-2-end_time": ""})
    assert mweb.client.post(f"/manage/schedule/shifts/{shift}?{_week(mweb)}",
                            data=data).status_code == 303
    data = _edit_form(mweb, shift, start_time="09:00", end_time="21:00")
    assert mweb.client.post(f"/manage/schedule/shifts/{shift}?{_week(mweb)}",
                            data=data).status_code == 303
    assert _stored(mweb, shift)["segments"] == [
        ("working", mweb.world.ed_nurse_role, _at(7, 9), _at(7, 21), [])]


def test_mark_a_callout_and_the_card_says_so(manager, arrange):
    mweb = manager
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    data = _edit_form(mweb, shift, is_callout="y")
    assert mweb.client.post(f"/manage/schedule/shifts/{shift}?{_week(mweb)}",
                            data=data).status_code == 303
    assert _stored(mweb, shift)["callout"] is True
    day = mweb.client.get(f"/manage/schedule?team={mweb.world.ed}&view=day&day=2027-06-07")
    card = day.get_data(as_text=True).split(f'<li id="shift-{shift}"', 1)[1].split("</li>")[0]
    assert "Callout" in _text(card)
    again = _edit_form(mweb, shift)
    assert again.get("is_callout") == ["y"]  # the editor shows it checked


def test_version_conflict_on_a_segment_edit_compares_and_applies_only_my_change(manager,
                                                                                 arrange):
    mweb = manager
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    url = f"/manage/schedule/shifts/{shift}?{_week(mweb)}"
    theirs = _edit_form(mweb, shift, note="Pod A", pay_code=str(REGULAR))
    mine = _edit_form(mweb, shift, **{"segments-1-start_time": "13:00",
                                      "segments-1-end_time": "13:30",
                                      "segments-0-end_time": "13:00",
                                      "segments-2-start_time": "13:30",
                                      "segments-0-labels": str(CHARGE)})
    assert mweb.client.post(url, data=theirs).status_code == 303
    conflict = mweb.client.post(url, data=mine, headers=HX)
    body = conflict.get_data(as_text=True)
    assert conflict.status_code == 409
    assert "Someone else changed this shift" in body
    rows = {m_.group(1): m_.group(2) for m_ in re.finditer(
        r'<th scope="row">([^<]+)</th>(.*?)</tr>', body, re.S)}
    assert "your change" in rows["Segments"]
    assert "Charge nurse" in _text(rows["Segments"])
    assert "changed by them" in rows["Note"]
    assert "Pod A" in rows["Note"]
    assert "changed by them" in rows["Pay code"]
    assert "Regular" in rows["Pay code"]
    assert "your change" not in rows["Note"]
    again = as_dict(submission(body, f"/manage/schedule/shifts/{shift}?"))
    applied = mweb.client.post(url, data=again)
    assert applied.status_code == 303, applied.get_data(as_text=True)
    row = _stored(mweb, shift)
    assert row["note"] == "Pod A"
    assert row["pay_codes"] == [REGULAR]
    assert row["segments"] == [
        ("working", mweb.world.ed_nurse_role, _at(7, 7), _at(7, 13), [CHARGE]),
        ("unpaid_break", mweb.world.ed_nurse_role, _at(7, 13), _at(7, 13, 30), []),
        ("working", mweb.world.ed_nurse_role, _at(7, 13, 30), _at(7, 19), []),
    ]


def test_a_tampered_provider_or_version_on_edit_is_answered_inline(manager, arrange):
    mweb = manager
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    url = f"/manage/schedule/shifts/{shift}?{_week(mweb)}"
    data = _edit_form(mweb, shift, provider="not-a-provider")
    response = mweb.client.post(url, data=data, headers=HX)
    body = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Choose a provider from the list, or Open shift." in body
    no_version = _edit_form(mweb, shift, note="x", version="")
    lost = mweb.client.post(url, data=no_version, headers=HX)
    assert lost.status_code == 422
    assert "lost the shift's version" in html.unescape(lost.get_data(as_text=True))
    assert _stored(mweb, shift)["provider"] == mweb.world.provider


# -- delete -------------------------------------------------------------------------------------

def test_delete_asks_first_then_deletes(manager, arrange):
    mweb = manager
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    editor = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{_week(mweb)}")
    ask = re.search(r'href="([^"#]*/delete\?[^"#]*)', editor.get_data(as_text=True)).group(1)
    page = mweb.client.get(ask.replace("&amp;", "&"))
    body = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "Delete shift: Pat Provider" in body
    assert "cannot be undone" in body
    assert _stored(mweb, shift) is not None
    partial = mweb.client.get(ask.replace("&amp;", "&"), headers=HX).get_data(as_text=True)
    assert partial.strip().startswith('<div id="schedule"')
    assert "Delete shift: Pat Provider" in partial
    data = as_dict(submission(body, f"/manage/schedule/shifts/{shift}/delete"))
    done = mweb.client.post(f"/manage/schedule/shifts/{shift}/delete?{_week(mweb)}", data=data)
    assert done.status_code == 303
    assert _stored(mweb, shift) is None
    after = mweb.client.get(done.headers["Location"]).get_data(as_text=True)
    assert "Deleted Pat Provider's shift of Mon 7 Jun" in html.unescape(after)


def test_delete_of_a_shift_changed_since_asks_again(manager, arrange):
    mweb = manager
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))
    ask = mweb.client.get(f"/manage/schedule/shifts/{shift}/delete?{_week(mweb)}")
    data = as_dict(submission(ask.get_data(as_text=True), "/delete"))
    edit = _edit_form(mweb, shift, note="Changed")
    mweb.client.post(f"/manage/schedule/shifts/{shift}?{_week(mweb)}", data=edit)
    refused = mweb.client.post(f"/manage/schedule/shifts/{shift}/delete?{_week(mweb)}",
                               data=data, headers=HX)
    assert refused.status_code == 409
    assert "Someone changed this shift since you asked" in refused.get_data(as_text=True)
    assert _stored(mweb, shift) is not None


def test_delete_in_a_signed_off_period_is_refused_inline(manager, arrange):
    mweb = manager
    shift = arrange(lambda s, w: add_shift(s, w, provider=w.provider,
                                           start=MONDAY.replace(hour=11)))

    def sign_off(session, world):
        session.add(m.TimesheetSignOff(
            team_id=world.ed, start_date=MONDAY, end_date=MONDAY.replace(day=14),
            providers=[session.get(m.Provider, world.provider)],
            signed_by_id=world.manager))

    arrange(sign_off)
    ask = mweb.client.get(f"/manage/schedule/shifts/{shift}/delete?{_week(mweb)}")
    data = as_dict(submission(ask.get_data(as_text=True), "/delete"))
    refused = mweb.client.post(f"/manage/schedule/shifts/{shift}/delete?{_week(mweb)}",
                               data=data, headers=HX)
    body = refused.get_data(as_text=True)
    assert refused.status_code == 409
    assert body.strip().startswith('<div id="schedule"')
    assert "signed off" in _text(body)
    assert _stored(mweb, shift) is not None
