"""Overtime on the pages (issue 23): the manager's team timesheet explains each overtime stretch
and rounded punch and gives hours by week; the provider's /timecard says how much of this
workweek is worked and when overtime would start.

The tests with overtime work on private copies of the seeded database, one per module: each
copy gets an overtime pay code (the world has none); the manager's week below is arranged once
on one copy, and each timecard test gives Emergency a work rule of its own on the other. The
tests without a work rule read the shared seeded database.

The manager's week (Sunday 5 April 2026, New York, US federal preset: weekly over 40, with
quarter-hour rounding), worked by a new provider without shifts:

| day | punched       | paid          | hours | week so far | overtime            |
|-----|---------------|---------------|-------|-------------|---------------------|
| Mon | 06:53 - 15:08 | 07:00 - 15:15 | 8:15  | 8:15        |                     |
| Tue | 07:00 - 18:00 |               | 11    | 19:15       |                     |
| Wed | 07:00 - 18:00 |               | 11    | 30:15       |                     |
| Thu | 07:00 - 17:45 |               | 10:45 | 41          | 1 h (hours 40-41)   |
| Fri | 07:00 - 13:00 |               | 6     | 47          | 6 h (hours 41-47)   |
"""

from __future__ import annotations

import re
import shutil
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy.orm import Session

from app.api import models as m
from app.api.seed import install_roles
from tests.factories import World, make_provider, make_shift, uid
from tests.web.conftest import Web, build_web

NEW_YORK = ZoneInfo("America/New_York")
OT = str(uid("pay:OT"))
QUARTER = str(uid("rounding:quarter"))
ADMIN = "admin@example.com"


def _overtime_copy(web_db: tuple[str, World], key: Path, folder: Path) -> Web:
    """An app on a private copy of the seeded database, with an overtime pay code (1.5)."""
    url, world = web_db
    target = folder / "overtime.db"
    shutil.copyfile(url.removeprefix("sqlite:///"), target)
    web = build_web((f"sqlite:///{target}", world), key, folder / "sessions")
    _arrange(web, lambda s: s.add(m.PayCode(id=uid("pay:OT"), name="Overtime",
                                            shorthand_name="OT", hex_color="#E45756",
                                            type="hours", value=1.5)))
    return web


@pytest.fixture(scope="module")
def oweb(web_db: tuple[str, World], signing_key_path: Path,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """The copy the manager's overtime week is arranged on (once); its tests only read."""
    web = _overtime_copy(web_db, signing_key_path, tmp_path_factory.mktemp("overtime"))
    yield web
    web.app.extensions["shiftdesk"].db.dispose()


@pytest.fixture(scope="module")
def week_web(web_db: tuple[str, World], signing_key_path: Path,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[Web]:
    """A copy for the timecard's week: each test gives Emergency a work rule of its own and
    makes its own provider before it reads."""
    web = _overtime_copy(web_db, signing_key_path, tmp_path_factory.mktemp("overtime-week"))
    yield web
    web.app.extensions["shiftdesk"].db.dispose()


def _arrange(web: Web, change: Any) -> Any:
    with web.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        result = change(session)
        session.flush()
        return result


def _api(web: Web, method: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    response = web.client.open(path, method=method, json=body,
                               headers={"Authorization": f"Bearer {web.token(ADMIN)}"})
    assert response.status_code in (200, 201), response.get_json()
    answer: dict[str, Any] = response.get_json()
    return answer


def _give_emergency(web: Web, rule: dict[str, Any]) -> None:
    _api(web, "PUT", f"/v1/teams/{uid('team:Emergency')}/work-rule", {"workRuleId": rule["id"]})


def _provider(web: Web, email: str, name: str, card: tuple[datetime, datetime]) -> uuid.UUID:
    """A provider of the Emergency team with the Provider role and a timecard over `card`."""

    def make(session: Session) -> uuid.UUID:
        rbac = install_roles(session)
        team = session.get(m.Team, uid("team:Emergency"))
        person = make_provider(session, email, team, name,
                               default_role_id=uid("role:Emergency:Registered Nurse"))
        session.flush()
        person.user.rbac_roles = [rbac["Provider"]]
        person.manager_id = uid("user:manager@example.com")
        timecard = m.Timecard(provider_id=person.id, period_start=card[0], period_end=card[1])
        session.add(timecard)
        session.flush()
        session.info["timecard"] = timecard.id
        return person.id

    return _arrange(web, make)


def _punch(web: Web, provider: uuid.UUID, sessions: list[tuple[datetime, datetime]]) -> None:
    def make(session: Session) -> None:
        card = session.query(m.Timecard).filter_by(provider_id=provider).one()
        for clock_in, clock_out in sessions:
            for action, moment in (("clock_in", clock_in), ("clock_out", clock_out)):
                session.add(m.TimecardPunch(timecard_id=card.id, provider_id=provider,
                                            action=action, state="approved", time=moment))

    _arrange(web, make)


def _local(day: date, clock: str) -> datetime:
    hour, minute = map(int, clock.split(":"))
    return datetime(day.year, day.month, day.day, hour, minute, tzinfo=NEW_YORK).astimezone(UTC)


def _text(html: str) -> str:
    """What a reader sees of `html`: tags dropped, spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


MONDAY = date(2026, 4, 6)
WEEK = [("06:53", "15:08"), ("07:00", "18:00"), ("07:00", "18:00"), ("07:00", "17:45"),
        ("07:00", "13:00")]


@pytest.fixture(scope="module")
def overtime_week(oweb: Web) -> uuid.UUID:
    """The US federal preset with quarter-hour rounding for Emergency, and Olive's 47 hours."""
    rule = _api(oweb, "POST", "/v1/settings/work-rules", {
        "name": "US federal", "preset": "us-federal", "timeZone": "America/New_York",
        "effectiveFrom": "2026-03-01", "payCodes": {"overtime": OT},
        "roundingRuleId": QUARTER})
    _give_emergency(oweb, rule)
    olive = _provider(oweb, "olive.overtime@example.com", "Olive Overtime",
                      (datetime(2026, 3, 29, 4, tzinfo=UTC), datetime(2026, 5, 3, 4, tzinfo=UTC)))
    days = [MONDAY + timedelta(days=i) for i in range(len(WEEK))]
    _punch(oweb, olive, [(_local(d, a), _local(d, b))
                         for d, (a, b) in zip(days, WEEK, strict=True)])
    return olive


def _page(web: Web, provider: uuid.UUID, **headers: str) -> str:
    web.sign_in("manager@example.com")
    response = web.client.get(f"/manage/timesheets?team={uid('team:Emergency')}"
                              f"&period=2026-04-06&provider={provider}", headers=headers)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_data(as_text=True)


def _section(body: str, provider: uuid.UUID) -> str:
    return body.split(f'id="sheet-{provider}"', 1)[1].split("</details>", 1)[0]


def test_team_timesheet_gives_hours_by_week_and_the_overtime_total(
        oweb: Web, overtime_week: uuid.UUID) -> None:
    section = _section(_page(oweb, overtime_week), overtime_week)
    summary = _text(section.split("</summary>", 1)[0])
    assert "7h overtime" in summary
    assert "double time" not in summary
    table = section.split('<table class="ts-weeks">', 1)[1].split("</table>", 1)[0]
    assert "Hours by week" in _text(table)
    assert "<th scope=\"col\">Overtime</th>" in table
    first = _text(table.split("<tbody>", 1)[1].split("</tr>", 1)[0])
    assert first == "Sun 5 Apr 40h 7h 0m"
    # The period starts on Monday 6 April, inside that workweek.
    assert "counts its hours in the period only" in _text(section)


def test_each_overtime_stretch_says_why_with_its_rule(oweb: Web,
                                                      overtime_week: uuid.UUID) -> None:
    section = _text(_section(_page(oweb, overtime_week), overtime_week))
    rule = "(weekly rule \u201cUS federal: Weekly overtime over 40 hours\u201d)"
    assert ("Overtime \u00d71.5, 1h \u2014 hours 40\u201341 of the week, after 40 regular "
            f"hours {rule}") in section
    assert ("Overtime \u00d71.5, 6h \u2014 hours 41\u201347 of the week, after 40 regular "
            f"hours {rule}") in section
    assert section.count("Overtime \u00d7") == 2  # Monday to Wednesday are regular


def test_a_rounded_punch_shows_its_raw_and_its_paid_time(oweb: Web,
                                                         overtime_week: uuid.UUID) -> None:
    section = _section(_page(oweb, overtime_week), overtime_week)
    text = _text(section)
    assert "6:53 AM \u2192 paid from 7:00 AM" in text
    assert "3:08 PM \u2192 paid to 3:15 PM" in text
    assert 'title="Rounded to the quarter hour by the work rule"' in section
    assert "(rounded to the quarter hour by the work rule)" in text
    # Punches the rule did not move show only their time.
    assert "6:00 PM \u2192" not in text


def test_the_section_fragment_carries_the_overtime_too(oweb: Web,
                                                       overtime_week: uuid.UUID) -> None:
    oweb.sign_in("manager@example.com")
    response = oweb.client.get(
        f"/manage/timesheets?team={uid('team:Emergency')}&period=2026-04-06"
        f"&provider={overtime_week}", headers={"HX-Request": "true",
                                               "HX-Target": f"sheet-{overtime_week}"})
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<details id="sheet-{overtime_week}"')
    assert "Hours by week" in html
    assert "paid from" in _text(html)
    assert "HX-Request" in response.headers.get("Vary", "")


def test_a_team_without_a_work_rule_shows_no_overtime(web: Web) -> None:
    web.sign_in("manager@example.com")
    body = web.client.get(f"/manage/timesheets?team={uid('team:Emergency')}&period=2026-03-02"
                          f"&provider={web.world.provider}").get_data(as_text=True)
    assert "Hours by week" not in body
    assert "overtime" not in _text(body).lower()
    assert "paid from" not in body


def _this_week(web: Web, threshold: int) -> tuple[uuid.UUID, str, datetime]:
    """A weekly rule over `threshold` minutes whose workweek began yesterday at midnight; a new
    provider worked 4 hours (ended an hour ago) and has an 8-hour shift from an hour on."""
    now = datetime.now(UTC).replace(second=0, microsecond=0)
    yesterday = now.astimezone(NEW_YORK).date() - timedelta(days=1)
    overtime = _api(web, "POST", "/v1/settings/overtime-rules", {
        "name": "Weekly over a little", "kind": "weekly", "thresholdMinutes": threshold,
        "payCodeId": OT})
    rule = _api(web, "POST", "/v1/settings/work-rules", {
        "name": "Short week", "timeZone": "America/New_York",
        "weekStartDay": yesterday.weekday(), "weekStartTime": "00:00",
        "effectiveFrom": (yesterday - timedelta(days=7)).isoformat(),
        "overtimeRuleIds": [overtime["id"]]})
    _give_emergency(web, rule)
    email = f"tess-{uuid.uuid4().hex[:6]}@example.com"
    tess = _provider(web, email, "Tess Week", (now - timedelta(days=20), now + timedelta(days=20)))
    _punch(web, tess, [(now - timedelta(hours=5), now - timedelta(hours=1))])

    def shift(session: Session) -> None:
        make_shift(session, provider=session.get(m.Provider, tess),
                   team=session.get(m.Team, uid("team:Emergency")),
                   role=session.get(m.Role, uid("role:Emergency:Registered Nurse")),
                   start=now + timedelta(hours=1), hours=8, break_at=None)

    _arrange(web, shift)
    web.sign_in(email)
    response = web.client.get("/timecard")
    body = response.get_data(as_text=True)
    assert response.status_code == 200, body
    return tess, body, now


def _block(body: str) -> str:
    return _text(body.split('class="ts-week"', 1)[1].split("</section>", 1)[0])


def test_timecard_says_when_overtime_would_start(week_web: Web) -> None:
    _tess, body, now = _this_week(week_web, 6 * 60)
    block = _block(body)
    assert "This week" in block
    assert "Worked so far 4h" in block
    assert "Overtime so far 0m" in block
    starts = (now + timedelta(hours=3)).astimezone(NEW_YORK)
    clock = f"{starts.hour % 12 or 12}:{starts.minute:02d} {'AM' if starts.hour < 12 else 'PM'}"
    assert "Overtime would start" in block
    assert f"at {clock}" in block
    # The block comes before the totals and the rows.
    assert body.index('class="ts-week"') < body.index('class="ts-totals"')


def test_timecard_says_when_overtime_started(week_web: Web) -> None:
    _tess, body, now = _this_week(week_web, 3 * 60)
    block = _block(body)
    assert "Worked so far 4h" in block
    assert "Overtime so far 1h" in block
    started = (now - timedelta(hours=2)).astimezone(NEW_YORK)
    clock = f"{started.hour % 12 or 12}:{started.minute:02d} {'AM' if started.hour < 12 else 'PM'}"
    assert "Overtime started" in block
    assert f"at {clock}" in block
    # The shift's row on the timecard explains its overtime as the team timesheet does.
    assert ("Overtime \u00d71.5, 1h \u2014 hours 3\u20134 of the week, after 3 regular hours "
            "(weekly rule \u201cWeekly over a little\u201d)") in _text(body)


def test_timecard_without_a_work_rule_has_no_week_block(web: Web) -> None:
    web.sign_in("provider@example.com")
    body = web.client.get("/timecard").get_data(as_text=True)
    assert 'class="ts-week"' not in body
