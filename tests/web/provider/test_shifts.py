"""My shifts, the calendar export and open shifts with claims, through the test client."""

from __future__ import annotations

import html
import re
from datetime import UTC, datetime, time, timedelta

from app.api import models as m
from tests.factories import uid
from tests.web.provider.conftest import arrange, fresh_provider, hours, now, shift_for


def _claim(pweb, shift_id, *, partial: bool = False):
    headers = {"HX-Request": "true"} if partial else {}
    return pweb.client.post(f"/shifts/{shift_id}/claim", data={"csrf_token": pweb.csrf()},
                            headers=headers)


def test_my_shifts_week_shows_shift_with_breaks_labels_and_note(pweb):
    email = fresh_provider(pweb)
    sid = shift_for(pweb, email, start=now() + hours(2), hours=12, break_at=6,
                    note="Pod B", )

    def label(session):
        shift = session.get(m.Shift, sid)
        shift.segments[0].labels = [session.get(m.Label, uid("label:charge"))]

    arrange(pweb, label)
    pweb.sign_in(email)
    local = (now() + hours(2)).astimezone(pweb.app.config["SHIFTDESK"].zone).date()
    page = pweb.client.get(f"/shifts/mine?week={local.isoformat()}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "<h1>My shifts</h1>" in html
    assert "Registered Nurse" in html
    assert "Charge nurse" in html
    assert "Note: Pod B" in html
    assert "Breaks:" in html
    assert "1 shift, 11h 30m of work." in html


def test_my_shifts_list_shows_segments(pweb):
    email = fresh_provider(pweb)
    shift_for(pweb, email, start=now() + hours(24), hours=12, break_at=6)
    pweb.sign_in(email)
    html = pweb.client.get("/shifts/mine?view=list").get_data(as_text=True)
    assert "Next four weeks" in html
    assert "Unpaid break" in html
    assert "11h 30m of work, 30m of breaks" in html


def test_my_shifts_bad_week_falls_back_to_this_week(pweb):
    pweb.sign_in(fresh_provider(pweb))
    page = pweb.client.get("/shifts/mine?week=not-a-date", headers={"HX-Request": "true"})
    assert page.status_code == 200
    assert page.get_data(as_text=True).lstrip().startswith('<div id="my-shifts"')


def test_calendar_export_is_rfc5545(pweb):
    email = fresh_provider(pweb)
    sid = shift_for(pweb, email, start=now() + hours(30), note="Bring badge; parking, level 2")
    pweb.sign_in(email)
    answer = pweb.client.get("/shifts/mine.ics")
    assert answer.status_code == 200
    assert answer.mimetype == "text/calendar"
    assert "attachment" in answer.headers["Content-Disposition"]
    text = answer.get_data(as_text=True)
    assert text.startswith("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n")
    assert text.endswith("END:VCALENDAR\r\n")
    assert f"UID:shift-{sid}@" in text
    assert re.search(r"DTSTART:\d{8}T\d{6}Z\r\n", text)
    unfolded = text.replace("\r\n ", "")
    assert "Note: Bring badge\\; parking\\, level 2" in unfolded
    assert all(len(line.encode()) <= 75 for line in text.split("\r\n"))


def test_open_shifts_lists_team_open_shifts_with_claim(pweb):
    email = fresh_provider(pweb)
    sid = shift_for(pweb, None, start=now() + hours(26))
    pweb.sign_in(email)
    page = pweb.client.get("/shifts/open").get_data(as_text=True)
    assert f'id="open-shift-{sid}"' in page
    assert f'action="/shifts/{sid}/claim"' in page


def test_claim_then_second_claim_is_already_claimed(pweb):
    first, second = fresh_provider(pweb), fresh_provider(pweb)
    sid = shift_for(pweb, None, start=now() + hours(50))
    pweb.sign_in(second)
    assert f'action="/shifts/{sid}/claim"' in pweb.client.get("/shifts/open").get_data(
        as_text=True)  # the page the second provider has open
    pweb.sign_in(first)
    fragment = _claim(pweb, sid, partial=True)
    assert fragment.status_code == 200
    assert "Claimed. It is yours now" in fragment.get_data(as_text=True)
    pweb.sign_in(second)
    fragment = _claim(pweb, sid, partial=True)
    body = fragment.get_data(as_text=True)
    assert body.lstrip().startswith(f'<li id="open-shift-{sid}"')
    assert 'role="alert"' in body
    assert "Someone else already claimed this shift." in body
    assert "<button" not in body


def test_refused_claim_without_javascript_redirects_to_the_list_with_the_message(pweb):
    first, second = fresh_provider(pweb), fresh_provider(pweb)
    sid = shift_for(pweb, None, start=now() + hours(52))
    pweb.sign_in(first)
    assert _claim(pweb, sid).status_code == 303
    pweb.sign_in(second)
    refused = _claim(pweb, sid)
    assert refused.status_code == 303
    assert refused.headers["Location"].endswith("/shifts/open")
    listed = pweb.client.get("/shifts/open").get_data(as_text=True)
    assert "Someone else already claimed this shift." in listed
    assert f'id="open-shift-{sid}"' not in listed
    again = pweb.client.get("/shifts/open").get_data(as_text=True)
    assert "Someone else already claimed this shift." not in again  # shown once


def test_claim_inside_notice_window_says_how_long(pweb):
    email = fresh_provider(pweb)
    sid = shift_for(pweb, None, start=now() + hours(1))
    pweb.sign_in(email)
    listed = pweb.client.get("/shifts/open").get_data(as_text=True)
    assert "Not available to you (1)" in listed
    assert "shifts must be claimed at least 2h before they start" in listed
    assert f'action="/shifts/{sid}/claim"' not in listed
    fragment = _claim(pweb, sid, partial=True).get_data(as_text=True)
    assert "at least 2h before they start" in fragment
    assert f'id="claim-problem-{sid}"' in fragment
    assert "<button" not in fragment


def test_open_shift_of_a_role_not_held_has_no_claim_but_says_why(pweb):
    email = fresh_provider(pweb)
    physician = shift_for(pweb, None, start=now() + hours(30), role_name="Physician")
    nurse = shift_for(pweb, None, start=now() + hours(31))
    pweb.sign_in(email)
    listed = pweb.client.get("/shifts/open").get_data(as_text=True)
    assert f'action="/shifts/{physician}/claim"' not in listed
    assert f'action="/shifts/{nurse}/claim"' in listed
    assert "This shift is for Physician, and you don&#39;t hold that role." in listed
    claimable, unavailable = listed.split("Not available to you")
    assert f'id="open-shift-{nurse}"' in claimable
    assert f'id="open-shift-{physician}"' in unavailable


def test_open_shift_in_a_signed_off_period_says_so_in_words(pweb):
    email = fresh_provider(pweb)
    start = now() + hours(30)
    shift = shift_for(pweb, None, start=start)

    def sign_off(session):
        person = session.get(m.Provider, uid(f"user:{email}"))
        session.add(m.TimesheetSignOff(team_id=uid("team:Emergency"), start_date=now(),
                                       end_date=start + hours(24), providers=[person],
                                       signed_by_id=uid("user:manager@example.com")))

    arrange(pweb, sign_off)
    pweb.sign_in(email)
    words = "falls in a pay period your manager has already signed off"
    listed = html.unescape(pweb.client.get("/shifts/open").get_data(as_text=True))
    assert f'action="/shifts/{shift}/claim"' not in listed
    _, unavailable = listed.split("Not available to you")
    assert f'id="open-shift-{shift}"' in unavailable
    assert words in unavailable
    refused = html.unescape(_claim(pweb, shift, partial=True).get_data(as_text=True))
    assert words in refused
    assert "signOff" not in refused


def test_claim_with_missing_skills_lists_them(pweb):
    email = fresh_provider(pweb)
    sid = shift_for(pweb, None, start=now() + hours(40))

    def require(session):
        shift = session.get(m.Shift, sid)
        for segment in shift.segments:
            segment.skill_requirement = {"type": "equal", "skill": "language", "value": "Tagalog"}

    arrange(pweb, require)
    pweb.sign_in(email)
    listed = pweb.client.get("/shifts/open").get_data(as_text=True)
    assert "You don't have the skills this shift needs: language: Tagalog." in html.unescape(
        listed)
    fragment = _claim(pweb, sid, partial=True)
    body = fragment.get_data(as_text=True)
    assert "You don't have the skills this shift needs: language: Tagalog." in html.unescape(body)
    assert body.lstrip().startswith(f'<li id="open-shift-{sid}"')


def test_open_shift_overlapping_own_shift_says_so_from_the_api(pweb):
    email = fresh_provider(pweb)
    start = now() + hours(60)
    shift_for(pweb, email, start=start - hours(2))
    sid = shift_for(pweb, None, start=start)
    pweb.sign_in(email)
    listed = pweb.client.get("/shifts/open").get_data(as_text=True)
    assert "This shift overlaps shifts you already have:" in listed
    assert f'action="/shifts/{sid}/claim"' not in listed


def test_claim_started_shift_is_refused_in_words(pweb):
    email = fresh_provider(pweb)
    sid = shift_for(pweb, None, start=now() - timedelta(minutes=5))
    pweb.sign_in(email)
    answer = _claim(pweb, sid)
    assert answer.status_code == 303
    page = pweb.client.get("/shifts/open").get_data(as_text=True)
    assert "This shift has already started" in html.unescape(page)


def test_ics_escapes_text_and_folds_without_splitting_characters():
    from app.web.shifts import ics

    assert ics.escape("a\\b;c,d\ne") == "a\\\\b\\;c\\,d\\ne"
    line = "DESCRIPTION:" + "é" * 80
    folded = ics.fold(line)
    pieces = folded.split("\r\n")
    assert all(len(p.encode("utf-8")) <= 75 for p in pieces)
    assert all(p.startswith(" ") for p in pieces[1:])
    assert "".join(p[1:] if i else p for i, p in enumerate(pieces)) == line
    assert ics.fold("SUMMARY:short") == "SUMMARY:short"


# Approved time off on My shifts and in the calendar -----------------------------------------------

def _approved(pweb, email, *, start, end, full_day=True):
    """An approved PTO request of `email` from `start` to `end` (UTC); returns its id."""
    def make(session):
        request = m.TimeOffRequest(
            status="approved", start_date=start, end_date=end, policy_id=uid("policy:pto"),
            provider_id=uid(f"user:{email}"), note=None, paid_hours=8.0, is_full_day=full_day)
        session.add(request)
        session.flush()
        return request.id

    return arrange(pweb, make)


def _midnight(pweb, day):
    zone = pweb.app.config["SHIFTDESK"].zone
    return datetime.combine(day, time(0), tzinfo=zone).astimezone(UTC)


def test_approved_time_off_shows_on_the_week_and_the_list(pweb):
    email = fresh_provider(pweb)
    zone = pweb.app.config["SHIFTDESK"].zone
    first = (now() + timedelta(days=3)).astimezone(zone).date()
    _approved(pweb, email, start=_midnight(pweb, first),
              end=_midnight(pweb, first + timedelta(days=2)))
    pweb.sign_in(email)
    # The week asked for by the day itself and by another day of its (Monday to Sunday) week.
    other = first - timedelta(days=1) if first.weekday() == 6 else first + timedelta(days=1)
    for week in (first, other):
        page = pweb.client.get(f"/shifts/mine?week={week.isoformat()}",
                               headers={"HX-Request": "true"})
        body = html.unescape(page.get_data(as_text=True))
        assert page.status_code == 200
        day = body[body.index(f"{first:%a} {first.day} {first:%b}"):]
        day = day[:day.index("</li>")]
        assert "Time off · Paid time off" in day
        assert "Free" not in day
    listing = html.unescape(pweb.client.get("/shifts/mine?view=list").get_data(as_text=True))
    assert "Time off · Paid time off" in listing
    assert "· 2 days" in listing


def test_part_day_time_off_shows_its_hours_on_the_week(pweb):
    email = fresh_provider(pweb)
    zone = pweb.app.config["SHIFTDESK"].zone
    day = (now() + timedelta(days=4)).astimezone(zone).date()
    start = datetime.combine(day, time(9), tzinfo=zone)
    _approved(pweb, email, start=start, end=start + hours(4), full_day=False)
    pweb.sign_in(email)
    body = html.unescape(pweb.client.get(f"/shifts/mine?week={day.isoformat()}").get_data(
        as_text=True))
    assert "Time off · Paid time off, 9:00 AM \u2013 1:00 PM" in body


def test_calendar_export_has_time_off_as_all_day_and_timed_events(pweb):
    email = fresh_provider(pweb)
    zone = pweb.app.config["SHIFTDESK"].zone
    first = (now() + timedelta(days=5)).astimezone(zone).date()
    whole = _approved(pweb, email, start=_midnight(pweb, first),
                      end=_midnight(pweb, first + timedelta(days=2)))
    start = datetime.combine(first + timedelta(days=7), time(9), tzinfo=zone)
    part = _approved(pweb, email, start=start, end=start + hours(4), full_day=False)
    pweb.sign_in(email)
    text = pweb.client.get("/shifts/mine.ics").get_data(as_text=True).replace("\r\n ", "")
    event = text[text.index(f"UID:time-off-{whole}@"):]
    event = event[:event.index("END:VEVENT")]
    assert f"DTSTART;VALUE=DATE:{first:%Y%m%d}" in event
    assert f"DTEND;VALUE=DATE:{first + timedelta(days=2):%Y%m%d}" in event
    assert "SUMMARY:Time off · Paid time off" in event
    timed = text[text.index(f"UID:time-off-{part}@"):]
    timed = timed[:timed.index("END:VEVENT")]
    assert f"DTSTART:{start.astimezone(UTC):%Y%m%dT%H%M%SZ}" in timed


# Night shifts: "+1" after an end on the next day -------------------------------------------------

def _night(pweb, email):
    """A 12-hour shift of `email` (open when None) from 7 PM local, three days from now."""
    zone = pweb.app.config["SHIFTDESK"].zone
    day = (now() + timedelta(days=3)).astimezone(zone).date()
    start = datetime.combine(day, time(19), tzinfo=zone).astimezone(UTC)
    return shift_for(pweb, email, start=start, hours=12, break_at=None)


def _card(page: str, element_id: str) -> str:
    begin = page.index(f'id="{element_id}"')
    return page[begin:page.index("</li>", begin)]


def test_night_shift_ends_plus_one_on_my_shifts_and_open_shifts(pweb):
    email = fresh_provider(pweb)
    mine = _night(pweb, email)
    day = _night(pweb, None)
    pweb.sign_in(email)
    listed = pweb.client.get("/shifts/mine?view=list").get_data(as_text=True)
    card = _card(listed, f"shift-{mine}")
    heading = re.sub(r"<[^>]+>", "", card[card.index("<h3"):card.index("</h3>")])
    assert re.search("7:00 PM \u2013 7:00 AM \\+1 day$", heading.strip()), heading
    opened = pweb.client.get("/shifts/open").get_data(as_text=True)
    card = _card(opened, f"open-shift-{day}")
    assert 'data-record' in card
    assert re.search(r'<span class="next-day">\+1<span class="visually-hidden"> day</span>', card)


def test_day_shift_has_no_plus_one(pweb):
    email = fresh_provider(pweb)
    zone = pweb.app.config["SHIFTDESK"].zone
    day = (now() + timedelta(days=3)).astimezone(zone).date()
    start = datetime.combine(day, time(7), tzinfo=zone).astimezone(UTC)
    sid = shift_for(pweb, email, start=start, hours=12, break_at=None)
    pweb.sign_in(email)
    listed = pweb.client.get("/shifts/mine?view=list").get_data(as_text=True)
    card = _card(listed, f"shift-{sid}")
    assert "7:00 PM" in card
    assert "+1" not in card
