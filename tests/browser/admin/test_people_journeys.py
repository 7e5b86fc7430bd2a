"""The administrator's people pages in the browser, JavaScript on and off: search the directory
(a name over the API's 50 characters is refused inline) and page through it; import a CSV with
bad rows (shown, nothing written), then a good one, then the same one again (no duplicates);
then sign in as an imported person through their set-password link."""

from __future__ import annotations

import uuid
from urllib.parse import unquote_plus

import pytest
from playwright.sync_api import expect
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.api import models as m
from tests.browser.conftest import Site
from tests.browser.provider.conftest import arrange
from tests.factories import make_provider

# Through the sign-in form every time: this journey signs out, which ends the administrator's
# other sessions of this worker.
pytestmark = [pytest.mark.xdist_group("browser-admin"), pytest.mark.real_sign_in]

HEADER = "name,email,type,team,role,employment_type,pay_period,pay_period_start,imported_id\n"


def _people(site: Site) -> int:
    return arrange(site, lambda s: s.scalar(select(func.count()).select_from(m.User)))


def _pagers(site: Site, tag: str, count: int) -> None:
    def make(session: Session) -> None:
        for i in range(count):
            make_provider(session, f"pager.{tag}.{i}@example.org", None, f"Pager {tag} {i:02}")

    arrange(site, make)


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_admin_searches_and_pages_the_directory(site, tab, no_js_tab, javascript):
    if site.mode == "split":
        pytest.skip("the embedded server is enough")
    browse = tab if javascript else no_js_tab
    tag = uuid.uuid4().hex[:6]
    _pagers(site, tag, 27)
    browse.sign_in("admin@example.com", start="/")
    page = browse.page
    browse.follow_menu("People")
    expect(page.get_by_role("heading", name="People", level=1)).to_be_visible()
    expect(page.get_by_text("providers match")).to_be_visible()

    page.get_by_text("Search and filter").click()
    page.get_by_label("Name").fill("x" * 51)  # the field takes the API's 50 characters
    assert len(page.get_by_label("Name").input_value()) == 50
    browse.goto("/admin/people?name=" + "x" * 51)  # a longer one in the address
    expect(page.get_by_role("alert")).to_contain_text("at most 50 characters")
    assert page.title().startswith("Error:")

    page.get_by_label("Name").fill(f"Pager {tag}")
    browse.click(page.get_by_role("button", name="Show people"))
    assert f"Pager {tag}" in unquote_plus(browse.url)
    people = page.get_by_role("list", name="People on this page")
    expect(people.get_by_role("listitem")).to_have_count(25)
    expect(page.get_by_text("27 providers match")).to_be_visible()
    first = people.get_by_role("heading").first.inner_text()
    browse.click(page.get_by_role("link", name="Next page"))
    expect(people.get_by_role("listitem")).to_have_count(2)
    assert first not in people.inner_text()
    assert "cursor=" in browse.url
    browse.click(page.get_by_role("link", name="First page"))
    expect(people.get_by_role("listitem")).to_have_count(25)

    browse.click(people.get_by_role("link", name=first))
    expect(page.get_by_role("heading", name=first, level=1)).to_be_visible()
    expect(page.get_by_text("Pay period template")).to_be_visible()


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_admin_imports_people_and_one_signs_in_with_the_link(site, tab, no_js_tab, javascript):
    if site.mode == "split":
        pytest.skip("the embedded server is enough")
    browse = tab if javascript else no_js_tab
    tag = uuid.uuid4().hex[:6]
    email = f"nia.{tag}@example.org"
    good = (f"{HEADER}Nia {tag},{email},provider,Emergency,Registered Nurse,Full-time staff,"
            f"biweekly,2026-01-05,HR-{tag}-1\n"
            f"Omar {tag},omar.{tag}@example.org,user,,,,,,HR-{tag}-2\n")
    bad = (good + f"Nobody,not-an-email,provider,Nowhere,,,,,HR-{tag}-3\n")
    before = _people(site)
    browse.sign_in("admin@example.com", start="/admin/people")
    page = browse.page
    browse.click(page.get_by_role("link", name="Import people"))
    expect(page.get_by_role("heading", name="Import people", level=1)).to_be_visible()

    def send(content: str, name: str) -> None:
        page.get_by_label("CSV file").set_input_files(
            {"name": name, "mimeType": "text/csv", "buffer": content.encode()})
        browse.click(page.get_by_role("button", name="Check and import"))

    send(bad, "people-bad.csv")
    refusal = page.get_by_role("table", name="Rows to fix")
    expect(refusal).to_contain_text("not an email address")
    expect(refusal).to_contain_text("No team named “Nowhere”")
    expect(page.get_by_role("alert").first).to_contain_text("No one was added or changed")
    assert _people(site) == before

    send(good, "people.csv")
    expect(page.get_by_role("status").filter(has_text="people added")).to_contain_text(
        "2 people added, 0 updated")
    link = page.get_by_label(f"Set-password link for Nia {tag}").input_value()
    assert "/auth/set-password/" in link
    page.set_viewport_size({"width": 390, "height": 844})  # the links stay inside a phone
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.set_viewport_size({"width": 1280, "height": 900})
    assert _people(site) == before + 2

    browse.click(page.get_by_role("link", name="Import another file"))
    send(good, "people.csv")
    expect(page.get_by_role("status").filter(has_text="people added")).to_contain_text(
        "0 people added, 2 updated")
    assert _people(site) == before + 2

    browse.sign_out()
    browse.goto(link.removeprefix(site.url))
    expect(page.get_by_role("heading", name="Choose your password")).to_be_visible()
    page.get_by_label("New password").fill("nia's new secret")
    page.get_by_label("The same password again").fill("nia's new secret")
    browse.click(page.get_by_role("button", name="Set my password"))
    expect(page.get_by_role("heading", name="Your password is set")).to_be_visible()
    browse.click(page.get_by_role("link", name="Sign in to Shiftdesk"))
    browse.fill_credentials(email, "nia's new secret")
    expect(page.get_by_role("navigation", name="Main")).to_contain_text(f"Nia {tag}")
    browse.goto(link.removeprefix(site.url))
    expect(page.get_by_role("heading", name="This link has been used")).to_be_visible()
