"""Scheduler lists on a phone (issue 25), and at 1280 px, as scheduler@example.com, with and
without JavaScript:
appointments come first as cards with the filters folded under "Filter" and the active ones as
chips that each remove one; roles and skills of an appointment type are checkbox lists whose
choice survives a refused form and an edit."""

from __future__ import annotations

import re
from datetime import date

import pytest

from tests.browser.lists import SCREEN_IDS, SCREENS, first_record_top, screen, too_small
from tests.browser.scheduler.conftest import local, type_card

pytestmark = pytest.mark.xdist_group("browser-scheduler")
expect = pytest.importorskip("playwright.sync_api").expect

EMAIL = "scheduler@example.com"
JS = pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
SCREEN = pytest.mark.parametrize(("size", "javascript"), SCREENS, ids=SCREEN_IDS)


@SCREEN
def test_appointments_are_cards_with_folded_filters_and_chips(site, browser, arrange, book,
                                                              size, javascript):
    if site.mode == "split" and (size["width"] != 390 or not javascript):
        pytest.skip("proven in the embedded mode")
    index = SCREENS.index((size, javascript))
    day = date(2027, 4, 24 + index)
    key = f"cards{index}{site.mode}"
    setup = arrange(key, day)
    name = next(iter(setup.providers))
    book(setup, name, local(day, 9), f"M-{key}-1")
    book(setup, name, local(day, 10), f"M-{key}-2")
    with screen(site, browser, size, javascript) as tab:
        _cards_and_chips(tab, setup, name, key, day)


def _cards_and_chips(tab, setup, name: str, key: str, day: date) -> None:
    javascript = tab.javascript
    size = tab.page.viewport_size
    tab.sign_in(EMAIL, start=f"/appointments?start={day.isoformat()}&end={day.isoformat()}"
                             f"&type={setup.type_name}")
    page = tab.page
    cards = page.get_by_role("list", name="Matching appointments").get_by_role("listitem")
    expect(cards).to_have_count(2)
    expect(cards.first).to_contain_text(setup.type_name)
    expect(cards.first).to_contain_text(name)
    expect(cards.first).to_contain_text("9:00 AM")
    assert first_record_top(page) < size["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    expect(page.get_by_label("Member id")).to_be_hidden()  # folded away
    chips = page.get_by_role("list", name="Active filters")
    expect(chips.get_by_role("link", name=re.compile(f"^Type: {setup.type_name}"))) \
        .to_be_visible()
    assert too_small(page) == []

    page.get_by_text("Filter", exact=True).click()
    page.get_by_label("Member id").fill(f"M-{key}-2")
    if javascript:
        tab.settle()
    else:
        tab.click(page.get_by_role("button", name="Show appointments"))
    member_chip = chips.get_by_role("link", name=re.compile(f"^Member id: M-{key}-2"))
    expect(member_chip).to_be_visible()
    expect(cards).to_have_count(1)
    expect(cards.first).to_contain_text("10:00 AM")

    tab.click(member_chip)
    expect(cards).to_have_count(2)
    expect(chips.get_by_role("link", name=re.compile("^Member id"))).to_have_count(0)
    expect(page).to_have_url(re.compile(f"type={setup.type_name.replace(' ', '[+ ]')}"))
    assert too_small(page) == []


@JS
def test_appointment_type_checkboxes_keep_the_choice(site, phones, arrange, javascript):
    if site.mode == "split":
        pytest.skip("the type pages do not depend on the mode")
    key = "checks" if javascript else "checksnojs"
    arrange(key, date(2027, 4, 8 if javascript else 9),
            {f"Sched {key.title()}": {"language": ["Ilocano", "Cebuano"]}})
    tab = phones(javascript=javascript)
    tab.sign_in(EMAIL, start="/appointment-types/new")
    page = tab.page
    roles = page.get_by_role("group", name="Allowed roles")
    roles.get_by_label("Registered Nurse (Emergency)").check()
    roles.get_by_label("Physician (Emergency)").check()
    group = page.get_by_role("group", name="Group 1: any of")
    group.get_by_label("language: Ilocano").check()
    group.get_by_label("language: Cebuano").check()  # a second tap adds, never replaces
    assert too_small(page) == []
    name = f"Visayan consult {key}"
    page.get_by_label("Name").fill(name)
    page.get_by_label("Length in minutes").fill("2")
    tab.click(page.get_by_role("button", name="Create appointment type"))
    expect(page.get_by_label("Length in minutes")).to_have_attribute("aria-invalid", "true")
    for box in (roles.get_by_label("Registered Nurse (Emergency)"),
                roles.get_by_label("Physician (Emergency)"),
                group.get_by_label("language: Ilocano"), group.get_by_label("language: Cebuano")):
        expect(box).to_be_checked()
    expect(roles.get_by_role("checkbox", checked=True)).to_have_count(2)
    page.get_by_label("Length in minutes").fill("40")
    tab.click(page.get_by_role("button", name="Create appointment type"))
    expect(page.get_by_role("status")).to_contain_text(f"“{name}” created")

    tab.click(page.get_by_role("link", name=f"Edit {name}"))
    expect(roles.get_by_role("checkbox", checked=True)).to_have_count(2)
    expect(group.get_by_role("checkbox", checked=True)).to_have_count(2)
    group.get_by_label("language: Cebuano").uncheck()
    tab.click(page.get_by_role("button", name="Save appointment type"))
    row = type_card(page, name)
    expect(row).to_contain_text("language: Ilocano")
    expect(row).not_to_contain_text("Cebuano")
    expect(row).to_contain_text("Physician (Emergency)")
