"""Measures shared by the list-page journeys (issue 25): where a list's first record starts,
and which controls are smaller than a 44x44 px touch target."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from tests.browser.conftest import Browse, open_tab, screen_options


def first_record_top(page: Any) -> float:
    """Where the first record of the list starts on the page, in CSS pixels."""
    box = page.locator("[data-record]").first.bounding_box()
    assert box is not None
    return box["y"]


def too_small(page: Any) -> list[str]:
    """The visible controls of the main region smaller than 44x44 px (the summary, buttons,
    selects, fields, chips, checkbox labels and the cards' own links)."""
    return page.evaluate("""() => {
        const picked = document.querySelectorAll(
            'main button, main summary, main select, main textarea, ' +
            'main input:not([type=hidden]):not([type=checkbox]):not([type=radio]), ' +
            'main .filter-chip, main label:has(> input[type=checkbox]), ' +
            'main [data-record] p > a:only-child');
        return [...picked].filter(e => e.offsetParent !== null).filter(e => {
            const r = e.getBoundingClientRect();
            return r.width < 44 || r.height < 43.5;
        }).map(e => e.outerHTML.slice(0, 90));
    }""")


SCREENS = [({"width": 390, "height": 844}, True), ({"width": 390, "height": 844}, False),
           ({"width": 1280, "height": 900}, True), ({"width": 1280, "height": 900}, False)]
SCREEN_IDS = ["390-js", "390-no-js", "1280-js", "1280-no-js"]


@contextmanager
def screen(site: Any, browser: Any, size: dict[str, int], javascript: bool) -> Iterator[Browse]:
    """A fresh browser context of `size` (a phone's touch screen at 390 px), JavaScript on or
    off; the page problems it met (console errors, failed loads) fail the test at the end."""
    yield from open_tab(site, browser, javascript=javascript, **screen_options(size))
