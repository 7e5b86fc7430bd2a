"""The coverage strip follows every edit of the team schedule (issue 18): with htmx, a saved
create, edit or delete answers `HX-Location`, and the page htmx then loads carries the strip
with the new figures; a form answered with errors re-renders `#schedule`, strip included, as
the schedule stands; without JavaScript the 303 reloads the page. On a private copy of the
seeded world: 4 Emergency nurses wanted 7:00 AM to 7:00 PM on Monday 2 March 2026, four at
work with a break from 1:00 to 1:30 PM (Pat among them)."""

from __future__ import annotations

import html as markup
import json
import re

from tests.web.manager.conftest import pat_shift_of
from tests.web.manager.shift_forms import as_dict, submission

HX = {"HX-Request": "true"}
QUERY = "day=2026-03-02&view=week"


def _text(html: str) -> str:
    return markup.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip())


def _strip(html: str) -> str:
    """The words of the week's coverage strip in `html`."""
    assert '<section class="cov" aria-labelledby="cov-title" id="coverage">' in html
    return _text(html.split('id="coverage">', 1)[1].split("</section>", 1)[0])


def _manager(mweb):
    mweb.sign_in("manager@example.com")
    return f"team={mweb.world.ed}&{QUERY}"


def _after_htmx(mweb, response) -> str:
    """The page htmx loads after a saved edit: `HX-Location`'s path, as boosted navigation."""
    assert response.status_code == 204, response.get_data(as_text=True)
    location = json.loads(response.headers["HX-Location"])
    assert location["target"] == "body"
    page = mweb.client.get(location["path"], headers={**HX, **location["headers"]})
    assert page.status_code == 200
    return page.get_data(as_text=True)


def test_before_any_edit_the_nurses_are_short_only_in_the_break_hour(mweb):
    query = _manager(mweb)
    strip = _strip(mweb.client.get(f"/manage/schedule?{query}").get_data(as_text=True))
    assert "Registered Nurse: 2 staff-hours short this week" in strip
    assert "7:00 AM: 4 needed, 4 scheduled, covered" in strip


def test_deleting_a_nurses_shift_with_htmx_loads_the_strip_with_her_hours_short(mweb):
    query = _manager(mweb)
    shift = pat_shift_of(mweb, 2)
    ask = mweb.client.get(f"/manage/schedule/shifts/{shift}/delete?{query}")
    data = as_dict(submission(ask.get_data(as_text=True), f"/manage/schedule/shifts/{shift}/"
                                                          "delete"))
    done = mweb.client.post(f"/manage/schedule/shifts/{shift}/delete?{query}", data=data,
                            headers=HX)
    strip = _strip(_after_htmx(mweb, done))
    # Pat's 11.5 working hours are missing now, on top of the break hour's 2.
    assert "Registered Nurse: 13.5 staff-hours short this week" in strip
    assert "7:00 AM: 4 needed, 3 scheduled, 1 short" in strip
    assert "1:00 PM: 4 needed, 1.5 scheduled, 2.5 short" in strip


def test_making_a_nurses_shift_open_with_htmx_loads_the_strip_with_it_offered(mweb):
    query = _manager(mweb)
    shift = pat_shift_of(mweb, 2)
    page = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{query}")
    data = as_dict(submission(page.get_data(as_text=True), f"/manage/schedule/shifts/{shift}?"))
    data["provider"] = ""
    warned = mweb.client.post(f"/manage/schedule/shifts/{shift}?{query}", data=data,
                              headers=HX)
    # The shift lies in the past: the editor asks to confirm, the strip unchanged meanwhile.
    assert "7:00 AM: 4 needed, 4 scheduled, covered" in _strip(warned.get_data(as_text=True))
    confirmed = as_dict(submission(warned.get_data(as_text=True),
                                   f"/manage/schedule/shifts/{shift}?"))
    assert confirmed["confirm"]
    saved = mweb.client.post(f"/manage/schedule/shifts/{shift}?{query}", data=confirmed,
                             headers=HX)
    strip = _strip(_after_htmx(mweb, saved))
    assert "7:00 AM: 4 needed, 3 scheduled, 1 short, 1 in open shifts" in strip


def test_posting_an_open_shift_for_a_gap_with_htmx_loads_the_strip_offering_it(mweb):
    query = _manager(mweb)
    day = markup.unescape(mweb.client.get(f"/manage/schedule?team={mweb.world.ed}"
                                          "&day=2026-03-02&view=day").get_data(as_text=True))
    gap = re.search(r'<a href="(/manage/schedule/shifts/new\?[^"]+)"[^>]*>Post an open shift '
                    r"for this gap", day)
    assert gap is not None
    form = mweb.client.get(gap.group(1)).get_data(as_text=True)
    data = as_dict(submission(form, "/manage/schedule/shifts?"))
    assert (data["start_time"], data["end_time"]) == (["13:00"], ["14:00"])
    action = re.search(r'<form method="post" action="(/manage/schedule/shifts\?[^"]+)"',
                       form).group(1).replace("&amp;", "&")
    warned = mweb.client.post(action, data=data, headers=HX)
    confirmed = as_dict(submission(warned.get_data(as_text=True), "/manage/schedule/shifts?"))
    assert confirmed["confirm"]  # the day is past: the form asks to confirm
    page = _text(_after_htmx(mweb, mweb.client.post(action, data=confirmed, headers=HX)))
    # The day view htmx loads offers the open hour; the stretch stays short (nobody holds it).
    assert "Registered Nurse 4 + 1 open" in page
    assert ("Registered Nurse, 1:00 PM \u2013 2:00 PM: 4 needed, 2 scheduled \u2014 2 short"
            in page)
    week = mweb.client.get(f"/manage/schedule?{query}").get_data(as_text=True)
    assert "1:00 PM: 4 needed, 2 scheduled, 2 short, 1 in open shifts" in _strip(week)
    # Without JavaScript the same post answers 303 to the page, which shows the strip anew.
    again = mweb.client.post(action, data=confirmed)
    assert again.status_code == 303
    week = mweb.client.get(f"/manage/schedule?{query}").get_data(as_text=True)
    assert "1:00 PM: 4 needed, 2 scheduled, 2 short, 2 in open shifts" in _strip(week)


def test_a_refused_htmx_save_re_renders_the_schedule_with_the_strip_as_it_stands(mweb):
    query = _manager(mweb)
    shift = pat_shift_of(mweb, 2)
    page = mweb.client.get(f"/manage/schedule/shifts/{shift}/edit?{query}")
    data = as_dict(submission(page.get_data(as_text=True), f"/manage/schedule/shifts/{shift}?"))
    data["start_time"] = "25:00"
    refused = mweb.client.post(f"/manage/schedule/shifts/{shift}?{query}", data=data,
                               headers=HX)
    assert refused.status_code == 422
    fragment = refused.get_data(as_text=True)
    assert fragment.strip().startswith('<div id="schedule"')
    strip = _strip(fragment)
    assert "Registered Nurse: 2 staff-hours short this week" in strip
    assert "7:00 AM: 4 needed, 4 scheduled, covered" in strip
