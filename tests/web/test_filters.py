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
