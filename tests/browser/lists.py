"""Measures shared by the list-page journeys (issue 25): where a list's first record starts,
and which controls are smaller than a 44x44 px touch target."""

from __future__ import annotations

from typing import Any


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
