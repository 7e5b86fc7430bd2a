"""A manager reads a week with overtime on the team timesheet, each overtime stretch saying why,
and exports the period for payroll: the file pays exactly the overtime the page shows — with
JavaScript at 1280 px and without it at 390 px.

Each run makes its own team (with its own manager, nurse and US federal work rule), so no other
journey sees the rule. The week is the 46-hour week of 29 CFR 778.110(a): 40 regular hours and
6 at one and a half times the rate.
"""

from __future__ import annotations

import csv
import io
import itertools
import re
import uuid
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.orm import Session

from app.api import models as m
from app.api.seed import install_roles
from app.api.tokens import mint_access_token
from app.web.filters import format_minutes
from tests.browser.conftest import PASSWORD_HASH
from tests.browser.manager.conftest import export_link
from tests.factories import make_provider, make_role, make_team, make_user, uid

pytestmark = pytest.mark.xdist_group("browser-manager")
expect = pytest.importorskip("playwright.sync_api").expect

NEW_YORK = ZoneInfo("America/New_York")
OT = uid("pay:OT")
# A pay period of the seeded biweekly template (every other Monday from 23 February 2026), in
# 2025 where nothing else happens; its second workweek (Sunday 16 March) holds the long week.
PERIOD = date(2025, 3, 10)
WEEK = date(2025, 3, 16)
# Monday to Thursday ten hours, Friday six: 46 hours.
DAYS = [(WEEK + timedelta(days=1 + i), 7, 17) for i in range(4)] + [(WEEK + timedelta(days=5),
                                                                      7, 13)]
_COUNTER = itertools.count(1)


def _at(day: date, hour: int) -> datetime:
    return datetime(day.year, day.month, day.day, hour, tzinfo=NEW_YORK).astimezone(UTC)


def _ward(site: Any) -> tuple[uuid.UUID, str, str]:
    """A new team with a manager and a nurse who worked the long week (approved punches);
    returns the team's id, the manager's email and the nurse's name."""
    tag = f"{next(_COUNTER)}-{uuid.uuid4().hex[:6]}"
    manager_email = f"ward.manager.{tag}@example.com"
    nurse_name = f"Olive Overtime {tag}"

    def make(session: Session) -> uuid.UUID:
        rbac = install_roles(session)
        team = make_team(session, f"Overtime Ward {tag}", id=uuid.uuid4())
        session.flush()
        role = make_role(session, team, id=uuid.uuid4())
        manager = make_user(session, manager_email, f"Wade Manager {tag}",
                            password_hash=PASSWORD_HASH)
        session.flush()
        manager.managed_teams = [team]
        manager.rbac_roles = [rbac["Manager"]]
        nurse = make_provider(session, f"olive.{tag}@example.com", team, nurse_name,
                              default_role_id=role.id)
        session.flush()
        nurse.user.rbac_roles = [rbac["Provider"]]
        nurse.roles = [role]
        nurse.manager_id = manager.id
        if session.get(m.PayCode, OT) is None:
            session.add(m.PayCode(id=OT, name="Overtime", shorthand_name="OT",
                                  hex_color="#E45756", type="hours", value=1.5))
        card = m.Timecard(provider_id=nurse.id, period_start=_at(PERIOD, 0),
                          period_end=_at(PERIOD + timedelta(days=14), 0))
        session.add(card)
        session.flush()
        for day, start, end in DAYS:
            for action, hour in (("clock_in", start), ("clock_out", end)):
                session.add(m.TimecardPunch(timecard_id=card.id, provider_id=nurse.id,
                                            action=action, state="approved", time=_at(day, hour)))
        return team.id

    with site.api.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        team_id = make(session)
    _give_us_federal(site, team_id)
    return team_id, manager_email, nurse_name


def _give_us_federal(site: Any, team_id: uuid.UUID) -> None:
    """The US federal preset (over 40 hours a week) for the team, from the long week's Sunday,
    made as an administrator would through the API."""
    settings = site.api.config["SHIFTDESK"]
    token = mint_access_token(site.api.extensions["shiftdesk"].signing_key,
                              subject=str(uid("user:admin@example.com")), issuer=settings.issuer,
                              audience=settings.audience, ttl=600)
    api = site.api.test_client()
    headers = {"Authorization": f"Bearer {token}"}
    made = api.post("/v1/settings/work-rules", headers=headers, json={
        "name": f"US federal {team_id.hex[:6]}", "preset": "us-federal",
        "timeZone": "America/New_York", "effectiveFrom": WEEK.isoformat(),
        "payCodes": {"overtime": str(OT)}})
    assert made.status_code == 201, made.get_json()
    given = api.put(f"/v1/teams/{team_id}/work-rule", headers=headers,
                    json={"workRuleId": made.get_json()["id"]})
    assert given.status_code == 200, given.get_json()


def _text(locator: Any) -> str:
    return re.sub(r"\s+", " ", locator.inner_text()).strip()


@pytest.mark.parametrize("way", ["desktop-js", "phone-no-js"])
def test_overtime_is_explained_and_the_payroll_file_pays_the_same(site, tab, phones, way,
                                                                   tmp_path: Path):
    if site.mode == "split":
        pytest.skip("the export's split mode is the sign-off journey's")
    javascript = way == "desktop-js"
    browse = tab if javascript else phones(javascript=False)
    page = browse.page
    team_id, manager, nurse = _ward(site)
    browse.sign_in(manager, start="/manage/timesheets")
    browse.goto(f"/manage/timesheets?team={team_id}&period={PERIOD.isoformat()}")

    section = page.locator("details.ts-person", has_text=nurse)
    summary = section.locator("summary")
    expect(summary).to_contain_text("6h overtime")
    expect(summary).not_to_contain_text("double time")
    if section.get_attribute("open") is None:
        browse.click(summary)
    weeks = section.get_by_role("table", name=re.compile("^Hours by week"))
    expect(weeks).to_be_visible()
    long_week = weeks.locator("tbody tr", has_text="16 Mar")
    assert _text(long_week).split(" ")[-3:] == ["40h", "6h", "0m"]  # regular, overtime, double
    stretches = section.get_by_role("list", name="Overtime")
    expect(stretches).to_have_count(1)  # Monday to Thursday make the 40 regular hours
    expect(stretches).to_contain_text(
        "Overtime \u00d71.5, 6h \u2014 hours 40\u201346 of the week, after 40 regular hours "
        "(weekly rule")
    if not javascript:
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    # The export (preliminary: the period is not signed off); it follows itself with
    # JavaScript, by Refresh without.
    panel = page.locator("#ts-panel")
    browse.click(panel.get_by_role("button", name=re.compile("export", re.I)).first)
    download = export_link(browse, javascript=javascript)
    with page.expect_download() as caught:
        download.click()
    saved = tmp_path / "payroll.csv"
    caught.value.save_as(saved)
    rows = list(csv.DictReader(io.StringIO(saved.read_text())))
    paid: dict[str, int] = defaultdict(int)
    for row in rows:
        assert row["provider"] == nurse
        paid[row["payCode"]] += int(row["actualMinutes"])
    # The file pays what the page said: 6 hours of overtime, 40 regular.
    assert format_minutes(paid["OT"]) == "6h"
    assert paid["OT"] + sum(v for code, v in paid.items() if code != "OT") == 46 * 60
    assert {row["status"] for row in rows} == {"preliminary"}
