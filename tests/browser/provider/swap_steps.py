"""Steps of a shift swap as its people take them in the browser, shared by the swap journeys
(`browse`: the journey's signed-out tab, with or without JavaScript)."""

from __future__ import annotations

import uuid
from typing import Any

from playwright.sync_api import expect


def offer(browse: Any, lister: str, shift_id: uuid.UUID, note: str) -> None:
    """`lister` offers one of their shifts from the swaps page, with `note` for colleagues."""
    page = browse.page
    browse.sign_in(lister, start=f"/swaps?shift={shift_id}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Shift swaps")
    page.get_by_label("Note for colleagues").fill(note)
    browse.click(page.get_by_role("button", name="Offer this shift"))
    expect(page.get_by_role("status")).to_contain_text("Your shift is offered")
    browse.sign_out()


def accept(browse: Any, lister: str) -> None:
    """`lister` accepts the application waiting on their offer."""
    page = browse.page
    browse.sign_in(lister, start="/swaps")
    browse.click(page.get_by_role("button", name="Accept"))
    expect(page.get_by_role("status")).to_contain_text("Accepted.")
    browse.sign_out()
