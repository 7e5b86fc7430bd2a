"""Times in templates: UTC instants shown on the site's wall clock, right across DST changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest
from flask import render_template, render_template_string

NEW_YORK = ZoneInfo("America/New_York")


def _render(web, source, **context):
    with web.app.test_request_context("/"):
        return render_template_string(source, **context)


TODAY = datetime(2026, 11, 25).date()  # a Wednesday; the rules below are decided against it


@pytest.mark.parametrize(("instant", "shown"), [
    # spring forward: 2026-03-08 02:00 EST becomes 03:00 EDT (07:00 UTC)
    (datetime(2026, 3, 8, 6, 59, tzinfo=UTC), "Sun 8 Mar, 1:59 AM"),
    (datetime(2026, 3, 8, 7, 0, tzinfo=UTC), "Sun 8 Mar, 3:00 AM"),
    # fall back: 2026-11-01 02:00 EDT becomes 01:00 EST (06:00 UTC); 1 AM happens twice, so
    # that hour alone names the zone
    (datetime(2026, 11, 1, 5, 30, tzinfo=UTC), "Sun 1 Nov, 1:30 AM EDT"),
    (datetime(2026, 11, 1, 6, 30, tzinfo=UTC), "Sun 1 Nov, 1:30 AM EST"),
    (datetime(2026, 11, 1, 7, 0, tzinfo=UTC), "Sun 1 Nov, 2:00 AM"),
    # the local day differs from the UTC day in the evening
    (datetime(2026, 3, 3, 2, 15, tzinfo=UTC), "Mon 2 Mar, 9:15 PM"),
])
def test_local_datetime_shows_site_wall_clock_across_dst(instant, shown):
    from app.web.filters import format_datetime
    assert format_datetime(instant, NEW_YORK, TODAY) == shown


@pytest.mark.parametrize(("instant", "shown"), [
    (datetime(2026, 11, 25, 5, 0, tzinfo=UTC), "Today"),  # local midnight
    (datetime(2026, 11, 26, 4, 59, tzinfo=UTC), "Today"),  # 11:59 PM, already the 26th in UTC
    (datetime(2026, 11, 26, 5, 0, tzinfo=UTC), "Tomorrow"),
    (datetime(2026, 11, 25, 4, 59, tzinfo=UTC), "Yesterday"),
    (datetime(2026, 11, 27, 15, 0, tzinfo=UTC), "Fri 27 Nov"),
    (datetime(2026, 11, 23, 15, 0, tzinfo=UTC), "Mon 23 Nov"),
    # no year inside the current year, the year outside it
    (datetime(2026, 1, 1, 15, 0, tzinfo=UTC), "Thu 1 Jan"),
    (datetime(2027, 2, 2, 15, 0, tzinfo=UTC), "Tue 2 Feb 2027"),
    (datetime(2025, 12, 31, 15, 0, tzinfo=UTC), "Wed 31 Dec 2025"),
])
def test_local_date_says_today_tomorrow_yesterday_and_the_year_only_outside_this_one(
        instant, shown):
    from app.web.filters import format_date
    assert format_date(instant, NEW_YORK, TODAY) == shown


def test_local_date_names_relative_days_in_their_year_and_plain_dates_too():
    from app.web.filters import format_date, format_datetime
    new_year = datetime(2027, 1, 1).date()
    assert format_date(datetime(2026, 12, 31, 17, tzinfo=UTC), NEW_YORK, new_year) == "Yesterday"
    assert format_date(datetime(2026, 12, 30, 17, tzinfo=UTC), NEW_YORK, new_year) \
        == "Wed 30 Dec 2026"
    assert format_date(TODAY, NEW_YORK, TODAY) == "Today"
    assert format_date(TODAY, NEW_YORK, TODAY, relative=False) == "Wed 25 Nov"
    at = datetime(2026, 11, 26, 14, 0, tzinfo=UTC)
    assert format_datetime(at, NEW_YORK, TODAY) == "Tomorrow, 9:00 AM"
    assert format_datetime(at, NEW_YORK, TODAY, relative=False) == "Thu 26 Nov, 9:00 AM"


def test_filters_decide_today_by_the_sites_calendar(web):
    from app.web.filters import site_today
    today = site_today(NEW_YORK)
    noon = datetime.combine(today, datetime.min.time(), NEW_YORK).replace(hour=12)
    shown = _render(web, "{{ a|local_date }} / {{ b|local_date }} / {{ c|local_datetime }} / "
                    "{{ a|local_date(relative=False) }}",
                    a=noon, b=noon + timedelta(days=1), c=noon - timedelta(days=1))
    assert shown == (f"Today / Tomorrow / Yesterday, 12:00 PM / "
                     f"{today:%a} {today.day} {today:%b}")


def test_filters_accept_wire_timestamps_and_other_offsets(web):
    assert _render(web, "{{ '2026-07-01T16:05:00+0000'|local_time }}") == "12:05 PM"
    berlin = datetime(2026, 7, 1, 18, 5, tzinfo=timezone(timedelta(hours=2)))
    assert _render(web, "{{ at|local_time }}", at=berlin) == "12:05 PM"


def test_local_date_of_late_evening_shift_is_the_local_day():
    from app.web.filters import format_date
    assert format_date(datetime(2026, 3, 9, 3, 0, tzinfo=UTC), NEW_YORK, TODAY) == "Sun 8 Mar"


def test_naive_datetime_is_refused(web):
    with pytest.raises(ValueError, match="offset"):
        _render(web, "{{ at|local_time }}", at=datetime(2026, 3, 8, 7, 0))


def test_time_macro_gives_machine_readable_instant(web):
    at = datetime(2027, 3, 14, 7, 0, tzinfo=UTC)  # another year than any test run's today
    with web.app.test_request_context("/"):
        html = render_template("probe/when.html", at=at)
    assert html.strip() == ('<time datetime="2027-03-14T07:00:00+00:00">'
                            "Sun 14 Mar 2027, 3:00 AM</time>")


def test_site_timezone_setting_decides_the_clock(make_web):
    web = make_web(timezone="Europe/Berlin")
    at = datetime(2027, 3, 28, 1, 0, tzinfo=UTC)  # Berlin springs forward at 01:00 UTC
    assert _render(web, "{{ at|local_datetime }}", at=at) == "Sun 28 Mar 2027, 3:00 AM"
    before = at - timedelta(minutes=1)
    assert _render(web, "{{ at|local_time }}", at=before) == "1:59 AM"


# Time ranges: "+1" when a range ends on a later local day ---------------------------------------

@pytest.mark.parametrize(("start", "end", "shown"), [
    (datetime(2026, 11, 25, 12, tzinfo=UTC), datetime(2026, 11, 25, 20, tzinfo=UTC),
     "7:00 AM - 3:00 PM"),
    # a night shift: 7 PM to 7:30 AM the next morning
    (datetime(2026, 11, 26, 0, tzinfo=UTC), datetime(2026, 11, 26, 12, 30, tzinfo=UTC),
     "7:00 PM - 7:30 AM +1"),
    # 7 PM to 11 PM local is already the next day in UTC, and still the same local day
    (datetime(2026, 11, 26, 0, tzinfo=UTC), datetime(2026, 11, 26, 4, tzinfo=UTC),
     "7:00 PM - 11:00 PM"),
    # ending at midnight ends on the next day
    (datetime(2026, 11, 26, 0, tzinfo=UTC), datetime(2026, 11, 26, 5, tzinfo=UTC),
     "7:00 PM - 12:00 AM +1"),
    # across the spring-forward night (11 real hours) and the fall-back night (13 real hours)
    (datetime(2026, 3, 8, 0, tzinfo=UTC), datetime(2026, 3, 8, 11, tzinfo=UTC),
     "7:00 PM - 7:00 AM +1"),
    (datetime(2026, 10, 31, 23, tzinfo=UTC), datetime(2026, 11, 1, 12, tzinfo=UTC),
     "7:00 PM - 7:00 AM +1"),
    # a range in the hour that happens twice names the zone of each end
    (datetime(2026, 11, 1, 5, 15, tzinfo=UTC), datetime(2026, 11, 1, 6, 15, tzinfo=UTC),
     "1:15 AM EDT - 1:15 AM EST"),
    # two nights on
    (datetime(2026, 11, 25, 12, tzinfo=UTC), datetime(2026, 11, 27, 12, tzinfo=UTC),
     "7:00 AM - 7:00 AM +2"),
])
def test_time_range_marks_an_end_on_a_later_local_day(start, end, shown):
    from app.web.filters import format_time_range
    assert format_time_range(start, end, NEW_YORK) == _says(shown)


def test_time_range_filter_and_macro_read_the_same(web):
    start = datetime(2026, 11, 26, 0, tzinfo=UTC)
    end = datetime(2026, 11, 26, 12, 30, tzinfo=UTC)
    assert _render(web, "{{ s|time_range(e) }}", s=start, e=end) == _says("7:00 PM - 7:30 AM +1")
    html = _render(web, '{% from "_macros/time.html" import time_range %}{{ time_range(s, e) }}',
                   s=start, e=end)
    assert html == ('<time datetime="2026-11-26T00:00:00+00:00">7:00 PM</time> \u2013 '
                    '<time datetime="2026-11-26T12:30:00+00:00">7:30 AM</time> '
                    '<span class="next-day">+1<span class="visually-hidden"> day</span></span>')
    same_day = _render(web, '{% from "_macros/time.html" import time_range %}'
                       "{{ time_range(s, e) }}", s=start, e=start + timedelta(hours=3))
    assert same_day.endswith("10:00 PM</time>")


# Durations: one style everywhere ----------------------------------------------------------------

@pytest.mark.parametrize(("minutes", "shown"), [
    (450, "7h 30m"), (45, "45m"), (720, "12h"), (0, "0m"), (None, "0m"), (1, "1m"),
    (60, "1h"), (61, "1h 1m"),
    (2081, "34h 41m"), (1440, "24h"), (2745, "45h 45m"),  # a day or more stays in hours
    (-65, "\u22121h 5m"), (-30, "\u221230m"),
    (29.6, "30m"),  # fractions of a minute round
])
def test_durations_read_hours_and_minutes(minutes, shown):
    from app.web.filters import format_minutes
    assert format_minutes(minutes) == shown


@pytest.mark.parametrize(("hours", "shown"), [
    (8, "8h"), (8.0, "8h"), (3.5, "3h 30m"), (24.0, "24h"), (0.25, "15m"), (0, "0m"),
    (7.3333333, "7h 20m"),
])
def test_durations_given_in_hours_read_the_same_way(hours, shown):
    from app.web.filters import format_hours
    assert format_hours(hours) == shown


def test_duration_filters_are_shared_by_every_page(web):
    assert _render(web, "{{ 450|hours_minutes }} / {{ 7.5|duration_hours }}") == "7h 30m / 7h 30m"


# States: one word per state, whoever reads it --------------------------------------------------

@pytest.mark.parametrize(("value", "kind", "shown"), [
    ("pending", "request", "Pending"), ("approved", "request", "Approved"),
    ("rejected", "request", "Declined"), ("cancelled", "request", "Cancelled"),
    ("pending_sync", "request", "Being recorded"),
    ("pending", "punch", "Pending review"), ("rejected", "punch", "Rejected"),
    ("no-show", "appointment", "No-show"), ("re-scheduled", "appointment", "Re-scheduled"),
    ("something_new", "request", "Unknown"),  # never the API's own word
])
def test_status_word_is_one_word_per_state(value, kind, shown):
    from app.web.filters import status_word
    assert status_word(value, kind) == shown


def test_status_word_filter_defaults_to_requests(web):
    assert _render(web, "{{ 'pending'|status_word }} / {{ 'pending'|status_word('punch') }}") \
        == "Pending / Pending review"


# Time-off ranges as people say them (`leave_dates`) ----------------------------------------------

def _says(text):
    """`text` with its spaced hyphens as the en dashes the pages write."""
    return text.replace(" - ", " \u2013 ")


def _leave(start, end, full_day=True):
    return {"startDate": start.isoformat(), "endDate": end.isoformat(), "isFullDay": full_day}


def _midnight(y, m, d):
    return datetime(y, m, d, tzinfo=NEW_YORK)


THIS_YEAR = datetime(2026, 6, 1).date()


@pytest.mark.parametrize(("start", "end", "shown"), [
    # the stored end is the exclusive midnight after the last day
    (_midnight(2026, 12, 8), _midnight(2026, 12, 10), "Tue 8 - Wed 9 Dec · 2 days"),
    (_midnight(2026, 12, 15), _midnight(2026, 12, 16), "Tue 15 Dec · 1 day"),
    (_midnight(2026, 11, 30), _midnight(2026, 12, 3), "Mon 30 Nov - Wed 2 Dec · 3 days"),
    # across a year end: both years written out
    (_midnight(2026, 12, 31), _midnight(2027, 1, 3), "Thu 31 Dec 2026 - Sat 2 Jan 2027 · 3 days"),
    (_midnight(2026, 12, 31), _midnight(2027, 1, 1), "Thu 31 Dec · 1 day"),
    # another year than this one: the year is written
    (_midnight(2027, 1, 4), _midnight(2027, 1, 6), "Mon 4 - Tue 5 Jan 2027 · 2 days"),
    # DST days are 23 and 25 hours long and still one day each
    (_midnight(2026, 3, 8), _midnight(2026, 3, 9), "Sun 8 Mar · 1 day"),
    (_midnight(2026, 3, 7), _midnight(2026, 3, 10), "Sat 7 - Mon 9 Mar · 3 days"),
    (_midnight(2026, 11, 1), _midnight(2026, 11, 2), "Sun 1 Nov · 1 day"),
    (_midnight(2026, 10, 31), _midnight(2026, 11, 3), "Sat 31 Oct - Mon 2 Nov · 3 days"),
])
def test_leave_dates_show_the_inclusive_last_day_and_a_day_count(start, end, shown):
    from app.web.filters import format_leave
    assert format_leave(_leave(start, end), NEW_YORK, THIS_YEAR) == _says(shown)


def test_leave_dates_of_part_of_a_day_show_the_times():
    from app.web.filters import format_leave
    morning = _leave(datetime(2026, 12, 15, 9, tzinfo=NEW_YORK),
                     datetime(2026, 12, 15, 13, tzinfo=NEW_YORK), full_day=False)
    assert format_leave(morning, NEW_YORK, THIS_YEAR) == _says("Tue 15 Dec, 9:00 AM - 1:00 PM")
    overnight = _leave(datetime(2026, 3, 7, 18, tzinfo=NEW_YORK),
                       datetime(2026, 3, 8, 9, tzinfo=NEW_YORK), full_day=False)
    assert format_leave(overnight, NEW_YORK, THIS_YEAR) \
        == _says("Sat 7 Mar, 6:00 PM - Sun 8 Mar, 9:00 AM")


def test_leave_dates_from_utc_instants_and_older_requests():
    """The wire gives UTC; a request without `isFullDay` is full-day when it runs from local
    midnight to local midnight (a problem's `conflicts` member), or by its policy's unit."""
    from app.contract.time_off import TimeOffRequestRead
    from app.web.filters import format_leave, leave_span
    member = {"startDate": "2026-12-08T05:00:00+0000", "endDate": "2026-12-10T05:00:00+0000"}
    assert format_leave(member, NEW_YORK, THIS_YEAR) == _says("Tue 8 - Wed 9 Dec · 2 days")
    span = leave_span(member, NEW_YORK)
    assert span.days == [datetime(2026, 12, 8).date(), datetime(2026, 12, 9).date()]
    read = TimeOffRequestRead.model_validate({
        "id": "00000000-0000-0000-0000-000000000001", "createdAt": "2026-01-01T00:00:00Z",
        "status": "approved", "startDate": "2026-03-08T05:00:00Z",
        "endDate": "2026-03-09T04:00:00Z", "policyId": "00000000-0000-0000-0000-000000000002",
        "providerId": "00000000-0000-0000-0000-000000000003", "note": None, "dailyHours": [],
        "paidHours": 8, "isFullDay": None,
        "policy": {"id": "00000000-0000-0000-0000-000000000002",
                   "createdAt": "2026-01-01T00:00:00Z", "type": "paid-time-off",
                   "name": "Paid time off", "description": None, "accrualUnit": "days",
                   "payCodeId": None}})
    assert format_leave(read, NEW_YORK, THIS_YEAR) == "Sun 8 Mar · 1 day"


def test_leave_dates_is_one_filter_every_template_shares(web):
    start, end = _midnight(2026, 12, 8), _midnight(2026, 12, 10)
    shown = _render(web, "{{ r|leave_dates }} / {{ leave_dates(r) }}", r=_leave(start, end))
    first, second = shown.split(" / ")
    assert first == second
    assert first.startswith(_says("Tue 8 - Wed 9 Dec"))
    assert first.endswith("· 2 days")
