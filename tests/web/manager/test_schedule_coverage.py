"""The coverage strip of the team schedule: the seeded forecast asks for 4 Emergency nurses from
7:00 AM to 7:00 PM on Monday 2 March 2026, and four nurses work 7:00 AM to 7:00 PM with a break
from 1:00 to 1:30 PM — covered but for the break hour, 2 short. The physician's role has no
forecast. Read-only: the shared seeded database."""

from __future__ import annotations

import html as markup
import re
from urllib.parse import unquote

from tests.web.conftest import Web

MANAGER = "manager@example.com"


def _text(html: str) -> str:
    return markup.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip())


def _page(web: Web, query: str) -> str:
    web.sign_in(MANAGER)
    response = web.client.get(f"/manage/schedule?team={web.world.ed}&{query}")
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_data(as_text=True)


def test_the_week_shows_each_hour_against_demand_in_words(web: Web) -> None:
    html = _page(web, "day=2026-03-02&view=week")
    section = html.split('<section class="cov"', 1)[1].split("</section>", 1)[0]
    text = _text(section)
    assert "Coverage against demand" in text
    assert "Registered Nurse: 2 staff-hours short this week" in text
    assert "7:00 AM: 4 needed, 4 scheduled, covered" in text
    assert "1:00 PM: 4 needed, 2 scheduled, 2 short" in text
    assert "\u22122" in text  # the visible mark of the short hour
    assert "No forecast for Physician" in text
    # One row per day of the week, 24 hours each.
    table = section.split('<table class="cov-table">', 1)[1].split("</table>", 1)[0]
    assert table.count('<th scope="row">') == 7
    assert table.count('class="cov-slot"') == 7 * 24


def test_the_day_names_its_short_stretches(web: Web) -> None:
    text = _text(_page(web, "day=2026-03-02&view=day"))
    assert ("Registered Nurse, 1:00 PM \u2013 2:00 PM: 4 needed, 2 scheduled \u2014 2 short"
            in text)
    covered = _text(_page(web, "day=2026-03-03&view=day"))
    assert "Every hour of this day is covered against the forecast." in covered


def test_a_week_without_a_forecast_shows_no_strip(web: Web) -> None:
    html = _page(web, "week=2027-06-07&view=week")
    assert "Coverage against demand" not in html
    assert "Short of staff" not in html


def test_a_short_stretch_offers_an_open_shift_for_its_hours_and_role(web: Web) -> None:
    html = markup.unescape(_page(web, "day=2026-03-02&view=day"))
    link = re.search(r'<a href="(/manage/schedule/shifts/new\?[^"]+)"[^>]*>Post an open shift '
                     r"for this gap", html)
    assert link is not None
    address = unquote(link.group(1))
    assert "from=13:00" in address
    assert "to=14:00" in address
    assert f"role={web.world.ed_nurse_role}" in address
    form = web.client.get(address).get_data(as_text=True)
    assert 'id="start_time" name="start_time" required type="time" value="13:00"' in form
    assert 'id="end_time" name="end_time" required type="time" value="14:00"' in form
    assert f'<option selected value="{web.world.ed_nurse_role}">' in form
    assert 'value="2026-03-02"' in form
    # A tampered role or time is ignored: the blank form's defaults.
    tampered = web.client.get(address.replace("from=13:00", "from=25:99").replace(
        f"role={web.world.ed_nurse_role}", "role=not-a-role")).get_data(as_text=True)
    assert 'id="start_time" name="start_time" required type="time" value="07:00"' in tampered
    role = tampered.split('name="role"', 1)[1].split("</select>", 1)[0]
    assert "selected" not in role
