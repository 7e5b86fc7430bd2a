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


@pytest.mark.parametrize(("instant", "shown"), [
    # spring forward: 2026-03-08 02:00 EST becomes 03:00 EDT (07:00 UTC)
    (datetime(2026, 3, 8, 6, 59, tzinfo=UTC), "Sun 8 Mar 2026, 1:59 AM EST"),
    (datetime(2026, 3, 8, 7, 0, tzinfo=UTC), "Sun 8 Mar 2026, 3:00 AM EDT"),
    # fall back: 2026-11-01 02:00 EDT becomes 01:00 EST (06:00 UTC); 1 AM happens twice
    (datetime(2026, 11, 1, 5, 30, tzinfo=UTC), "Sun 1 Nov 2026, 1:30 AM EDT"),
    (datetime(2026, 11, 1, 6, 30, tzinfo=UTC), "Sun 1 Nov 2026, 1:30 AM EST"),
    # the local day differs from the UTC day in the evening
    (datetime(2026, 3, 3, 2, 15, tzinfo=UTC), "Mon 2 Mar 2026, 9:15 PM EST"),
])
def test_local_datetime_shows_site_wall_clock_across_dst(web, instant, shown):
    assert _render(web, "{{ at|local_datetime }}", at=instant) == shown


def test_filters_accept_wire_timestamps_and_other_offsets(web):
    assert _render(web, "{{ '2026-07-01T16:05:00+0000'|local_time }}") == "12:05 PM"
    berlin = datetime(2026, 7, 1, 18, 5, tzinfo=timezone(timedelta(hours=2)))
    assert _render(web, "{{ at|local_time }}", at=berlin) == "12:05 PM"


def test_local_date_of_late_evening_shift_is_the_local_day(web):
    assert _render(web, "{{ at|local_date }}",
                   at=datetime(2026, 3, 9, 3, 0, tzinfo=UTC)) == "Sun 8 Mar 2026"


def test_naive_datetime_is_refused(web):
    with pytest.raises(ValueError, match="offset"):
        _render(web, "{{ at|local_time }}", at=datetime(2026, 3, 8, 7, 0))


def test_time_macro_gives_machine_readable_instant(web):
    with web.app.test_request_context("/"):
        html = render_template("probe/when.html", at=datetime(2026, 3, 8, 7, 0, tzinfo=UTC))
    assert html.strip() == ('<time datetime="2026-03-08T07:00:00+00:00">'
                            "Sun 8 Mar 2026, 3:00 AM EDT</time>")


def test_site_timezone_setting_decides_the_clock(make_web):
    web = make_web(timezone="Europe/Berlin")
    at = datetime(2026, 3, 29, 1, 0, tzinfo=UTC)  # Berlin springs forward at 01:00 UTC
    assert _render(web, "{{ at|local_datetime }}", at=at) == "Sun 29 Mar 2026, 3:00 AM CEST"
    before = at - timedelta(minutes=1)
    assert _render(web, "{{ at|local_time }}", at=before) == "1:59 AM"


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
