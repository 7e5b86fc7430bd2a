"""The administrator's pay-rules pages: the overview in words, a team's rule from a preset with
a preview that saves nothing, saving (a new rule given to the team), a rule's new version, and
every bad input shown inline on the form (never an error page). Other roles neither see the
pages in the menu nor open them.

Pat (Emergency) worked Monday 2 March 2026 from 06:56 to 19:02 with a 30-minute break: 11 h 36
min, all regular while Emergency has no work rule, of which 3 h 36 min are daily overtime under
the US hospital 8-and-80 preset.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from sqlalchemy import select

from app.api import models as m
from tests.factories import uid
from tests.web.conftest import Web

EMERGENCY = uid("team:Emergency")
TEAM_URL = f"/admin/pay-rules/teams/{EMERGENCY}"
WEEK = {"start_date": "2026-03-01", "end_date": "2026-03-07"}


def _text(html: str) -> str:
    """What a reader sees of `html`: tags dropped, spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def _team_rule(web: Web, team: uuid.UUID = EMERGENCY) -> uuid.UUID | None:
    with web.app.extensions["shiftdesk"].db.unit_of_work() as session:
        return session.scalar(select(m.Team.work_rule_id).where(m.Team.id == team))


def _rule_count(web: Web) -> int:
    with web.app.extensions["shiftdesk"].db.unit_of_work() as session:
        return len(session.scalars(select(m.WorkRule.id)).all())


def _draft(web: Web, **changes: Any) -> dict[str, Any]:
    """The team form as the page fills it for the 8-and-80 preset, with `changes`."""
    data = {"csrf_token": web.csrf(), "source": "preset:us-hospital-8-80",
            "name": f"Hospital {uuid.uuid4().hex[:6]}", "time_zone": "America/New_York",
            "week_start_day": "6", "week_start_time": "00:00", "day_start_time": "00:00",
            "period_anchor": "2026-03-01", "rounding": "", "meal_deduct_minutes": "",
            "meal_after_minutes": "", "min_unpaid_break_minutes": "30",
            "overtime_pay_code": str(uid("pay:OT")),
            "double_time_pay_code": str(uid("pay:DT")), **WEEK}
    data.update(changes)
    return data


@pytest.mark.parametrize("email", ["manager@example.com", "provider@example.com",
                                   "scheduler@example.com"])
def test_pay_rules_are_not_in_the_menu_and_not_allowed_for_other_roles(web: Web,
                                                                       email: str) -> None:
    web.sign_in(email)
    if email.startswith("manager"):  # the menu (tests/web/test_nav.py covers every role's)
        home = web.client.get("/")
        assert home.status_code == 200
        assert "Pay rules" not in home.get_data(as_text=True)
    for url in ("/admin/pay-rules", TEAM_URL):
        page = web.client.get(url)
        assert page.status_code == 403
        assert "open this page" in _text(page.get_data(as_text=True))
    posted = web.client.post(TEAM_URL + "/preview", data={"csrf_token": web.csrf()})
    assert posted.status_code == 403


def test_overview_names_each_team_and_rule_in_words(aweb: Web) -> None:
    home = aweb.client.get("/")
    assert 'href="/admin/pay-rules"' in home.get_data(as_text=True)
    page = aweb.client.get("/admin/pay-rules")
    assert page.status_code == 200
    text = _text(page.get_data(as_text=True))
    assert "Emergency" in text
    assert "Intensive Care" in text
    assert "Change rule for Emergency" in text
    saved = aweb.client.post(TEAM_URL, data=_draft(aweb, name="Words check", rounding="15-nearest",
                                                   meal_deduct_minutes="30",
                                                   meal_after_minutes="360"))
    assert saved.status_code == 303
    text = _text(aweb.client.get("/admin/pay-rules").get_data(as_text=True))
    assert "Paid under Words check" in text
    assert "Over 8 hours a day, paid as Overtime \u00d71.5" in text
    assert "Over 80 hours in a 14-day period, paid as Overtime \u00d71.5" in text
    assert "Rounded to the nearest 15 minutes" in text
    assert "A 30m meal is deducted after 6h worked without a punched meal" in text
    assert "Workweek starts Sunday at midnight" in text


def test_preview_shows_each_persons_hours_side_by_side_and_saves_nothing(aweb: Web) -> None:
    form = aweb.client.get(TEAM_URL + "?source=preset:us-hospital-8-80")
    assert form.status_code == 200
    html = form.get_data(as_text=True)
    assert 'aria-current="true">US hospital 8 and 80' in html
    assert 'hx-target="#rule-preview"' in html
    before, rules = _team_rule(aweb), _rule_count(aweb)

    page = aweb.client.post(TEAM_URL + "/preview", data=_draft(aweb))
    assert page.status_code == 200
    text = _text(page.get_data(as_text=True))
    assert "<html" in page.get_data(as_text=True)  # without JavaScript: the whole page
    assert "Nothing has been saved." in text
    assert "Pat" in text
    assert "Total" in text
    assert "+3h 36m" in text  # Pat's Monday beyond 8 hours, now overtime

    fragment = aweb.client.post(TEAM_URL + "/preview", data=_draft(aweb),
                                headers={"HX-Request": "true", "HX-Target": "rule-preview"})
    assert fragment.status_code == 200
    body = fragment.get_data(as_text=True).strip()
    assert body.startswith('<section id="rule-preview"')
    assert "<html" not in body
    assert "+3h 36m" in body
    assert "HX-Request" in fragment.headers.get("Vary", "")
    assert (_team_rule(aweb), _rule_count(aweb)) == (before, rules)


def test_save_creates_the_rule_and_gives_it_to_the_team(aweb: Web) -> None:
    name = f"Emergency 8 and 80 {uuid.uuid4().hex[:6]}"
    saved = aweb.client.post(TEAM_URL, data=_draft(aweb, name=name))
    assert saved.status_code == 303
    assert saved.headers["Location"].startswith("/admin/pay-rules")
    with aweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        rule = session.scalar(select(m.WorkRule).where(m.WorkRule.name == name))
        assert rule is not None
        assert _team_rule(aweb) == rule.id
    overview = aweb.client.get("/admin/pay-rules").get_data(as_text=True)
    assert f"Emergency is now paid under “{name}”." in overview
    assert f"Paid under <strong>{name}</strong>" in overview


def _refused(aweb: Web, url: str, changes: dict[str, str], errors: dict[str, str]) -> None:
    page = aweb.client.post(url, data=_draft(aweb, **changes))
    assert page.status_code == 422, (url, page.status_code)
    html = page.get_data(as_text=True)
    assert "<title>Error:" in html
    for field, message in errors.items():
        assert f'id="{field}-error"' in html, (url, field)
        found = re.search(rf'id="{field}-error" class="field-error">([^<]*)<', html)
        assert found is not None
        assert message in found.group(1), (url, field, found.group(1))


def test_bad_input_is_shown_on_its_field_and_saves_nothing(aweb: Web) -> None:
    before, rules = _team_rule(aweb), _rule_count(aweb)
    shapes = ({"start_date": "0001-01-01", "end_date": "9999-01-02", "rounding": "7-sideways",
               "meal_deduct_minutes": "30", "min_unpaid_break_minutes": "9" * 30},
              {"start_date": "Enter a date from", "end_date": "Enter a date from",
               "rounding": "Choose a rounding from the list.",
               "meal_after_minutes": "Give both meal numbers",
               "min_unpaid_break_minutes": "Between 0 and 1440"})
    zone = ({"time_zone": "Mars/Olympus"}, {"time_zone": ""})
    for url in (TEAM_URL + "/preview", TEAM_URL):
        _refused(aweb, url, *shapes)
        _refused(aweb, url, *zone)  # the API's word on the zone, on its field
    _refused(aweb, TEAM_URL + "/preview", {"end_date": "2026-02-01"},
             {"end_date": "on or after the first day"})
    _refused(aweb, TEAM_URL + "/preview", {"start_date": "2026-01-01", "end_date": "2026-06-30"},
             {"end_date": "62"})
    assert (_team_rule(aweb), _rule_count(aweb)) == (before, rules)


def test_a_bad_preview_with_htmx_answers_the_whole_form_inline(aweb: Web) -> None:
    page = aweb.client.post(TEAM_URL + "/preview", data=_draft(aweb, start_date="9999-01-01"),
                            headers={"HX-Request": "true", "HX-Target": "rule-preview"})
    assert page.status_code == 422
    assert page.headers["HX-Retarget"] == "#rule-form"
    body = page.get_data(as_text=True).strip()
    assert body.startswith('<section id="rule-form"')
    assert 'id="start_date-error"' in body


def test_tampered_team_and_source_never_give_an_error_page(aweb: Web) -> None:
    assert aweb.client.get(f"/admin/pay-rules/teams/{uuid.uuid4()}").status_code == 404
    assert aweb.client.get("/admin/pay-rules/teams/not-a-team").status_code == 404
    assert aweb.client.post(f"/admin/pay-rules/teams/{uuid.uuid4()}",
                            data=_draft(aweb)).status_code == 404
    page = aweb.client.get(TEAM_URL + "?source=rule:nonsense")
    assert page.status_code == 200  # an unknown source reads as the default
    preview = aweb.client.post(TEAM_URL + "/preview",
                               data=_draft(aweb, source=f"rule:{uuid.uuid4()}",
                                           overtime_pay_code="not-an-id"))
    assert preview.status_code == 200
    assert "Nothing has been saved." in preview.get_data(as_text=True)


def _rule_of_emergency(aweb: Web) -> uuid.UUID:
    name = f"Versioned {uuid.uuid4().hex[:6]}"
    assert aweb.client.post(TEAM_URL, data=_draft(aweb, name=name)).status_code == 303
    rule = _team_rule(aweb)
    assert rule is not None
    return rule


def _version_form(aweb: Web, rule: uuid.UUID, **changes: str) -> dict[str, str]:
    page = aweb.client.get(f"/admin/pay-rules/rules/{rule}/edit")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    days = re.findall(r'<option (?:selected )?value="(\d{4}-\d{2}-\d{2})"', html)
    version = re.search(r'name="version" type="hidden" value="(\d+)"', html)
    assert days
    assert version
    data = {"csrf_token": aweb.csrf(), "effective_from": days[-1], "version": version.group(1),
            "name": "Renamed", "time_zone": "America/New_York", "week_start_day": "6",
            "week_start_time": "00:00", "day_start_time": "00:00",
            "period_anchor": "2026-03-01", "rounding": "6-nearest",
            "min_unpaid_break_minutes": "20", "team_id": str(EMERGENCY), **WEEK}
    data.update(changes)
    return data


def test_a_new_version_is_previewed_then_saved_from_a_workweek_start(aweb: Web) -> None:
    rule = _rule_of_emergency(aweb)
    data = _version_form(aweb, rule)
    preview = aweb.client.post(f"/admin/pay-rules/rules/{rule}/preview", data=data,
                               headers={"HX-Request": "true"})
    assert preview.status_code == 200
    assert "Pat" in preview.get_data(as_text=True)
    saved = aweb.client.post(f"/admin/pay-rules/rules/{rule}", data=data)
    assert saved.status_code == 303, _text(saved.get_data(as_text=True))[:2000]
    overview = _text(aweb.client.get("/admin/pay-rules").get_data(as_text=True))
    assert "“Renamed” has a new version from" in overview
    assert "No overtime: every minute is regular time" in overview  # no overtime rule ticked


def test_an_outdated_version_or_a_refused_day_shows_on_the_form(aweb: Web) -> None:
    rule = _rule_of_emergency(aweb)
    data = _version_form(aweb, rule)
    stale = aweb.client.post(f"/admin/pay-rules/rules/{rule}",
                             data={**data, "version": str(int(data["version"]) + 40)})
    assert stale.status_code == 422
    assert "Someone changed this rule since you opened it" in stale.get_data(as_text=True)
    tuesday = aweb.client.post(f"/admin/pay-rules/rules/{rule}",
                               data={**data, "effective_from": "2026-03-03"})
    assert tuesday.status_code == 422
    assert 'id="effective_from-error"' in tuesday.get_data(as_text=True)
    tampered = aweb.client.post(f"/admin/pay-rules/rules/{rule}",
                                data={**data, "effective_from": "9999-99-99",
                                      "version": "-5"})
    assert tampered.status_code == 422
    other_team = aweb.client.post(f"/admin/pay-rules/rules/{rule}/preview",
                                  data={**data, "team_id": str(uuid.uuid4())})
    assert other_team.status_code == 422
    assert aweb.client.get(f"/admin/pay-rules/rules/{uuid.uuid4()}/edit").status_code == 404


def test_a_team_takes_a_copy_of_an_existing_period_rule_from_a_period_start(aweb: Web) -> None:
    rule = _rule_of_emergency(aweb)
    icu = uid("team:Intensive Care")
    page = aweb.client.get(f"/admin/pay-rules/teams/{icu}?source=rule:{rule}")
    assert page.status_code == 200
    ticked = re.findall(r'name="overtime_rule_ids" value="([0-9a-f-]+)" checked',
                        page.get_data(as_text=True))
    assert len(ticked) == 2  # the preset's daily and period rules
    data = _draft(aweb, source=f"rule:{rule}", name="ICU copy", period_anchor="2026-03-08")
    del data["overtime_pay_code"], data["double_time_pay_code"]
    saved = aweb.client.post(f"/admin/pay-rules/teams/{icu}",
                             data={**data, "overtime_rule_ids": ticked})
    assert saved.status_code == 303, _text(saved.get_data(as_text=True))[:1500]
    with aweb.app.extensions["shiftdesk"].db.unit_of_work() as session:
        copy = session.scalar(select(m.WorkRule).where(m.WorkRule.id == _team_rule(aweb, icu)))
        assert copy is not None
        assert copy.name == "ICU copy"
        (version,) = copy.versions
        assert (version.effective_from - version.period_anchor).days % 14 == 0
