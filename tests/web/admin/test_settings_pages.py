"""The administrator's settings pages: the index, and labels listed a page at a time, created,
edited (with someone else's save meanwhile shown beside the user's change) and deleted after a
confirmation that says where the label is in use. Bad input is shown on the form, a label that
does not exist is a not-found page or a message on the list (never an error after a form), and
other roles neither see the pages in the menu nor open them.

The seeded world has two labels: "Charge nurse" (#9467BD) on one Emergency shift, and "Float".
Tests share the worker's database, so each creates the labels it changes and reads what it made.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import timedelta

import pytest
from sqlalchemy import select

from app.api import models as m
from tests.factories import uid
from tests.web.conftest import Web

HX = {"HX-Request": "true"}
LABELS = "/admin/settings/labels"
CHARGE = uid("label:charge")


def _text(html: str) -> str:
    """What a reader sees of `html`: tags dropped, spaces collapsed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def _label(web: Web, name: str) -> m.Label | None:
    with web.app.extensions["shiftdesk"].db.unit_of_work() as session:
        label = session.scalars(select(m.Label).where(m.Label.name == name)).first()
        if label is not None:
            session.expunge(label)
        return label


def _card(web: Web, label_id: uuid.UUID) -> str | None:
    """The text of a label's card, found by following the list's pages; None when not listed."""
    url: str | None = LABELS
    while url:
        html = web.client.get(url).get_data(as_text=True)
        card = re.search(rf'<li id="label-{label_id}".*?</li>', html, re.S)
        if card:
            return _text(card.group(0))
        found = re.search(r'<a href="([^"]+)">Next page</a>', html)
        url = found.group(1).replace("&amp;", "&") if found else None
    return None


def _create(web: Web, name: str, color: str = "#17BECF", description: str = "") -> m.Label:
    response = web.client.post(LABELS, data={"csrf_token": web.csrf(), "name": name,
                                             "description": description, "color": color})
    assert response.status_code == 303, response.get_data(as_text=True)
    label = _label(web, name)
    assert label is not None
    return label


def _name() -> str:
    return f"Preceptor {uuid.uuid4().hex[:6]}"


@pytest.mark.parametrize("email", ["manager@example.com", "provider@example.com",
                                   "scheduler@example.com"])
def test_settings_are_not_in_the_menu_and_not_allowed_for_other_roles(web: Web,
                                                                      email: str) -> None:
    web.sign_in(email)
    home = web.client.get("/")
    assert home.status_code == 200
    assert "/admin/settings" not in home.get_data(as_text=True)
    for url in ("/admin/settings", LABELS, f"{LABELS}/new", f"{LABELS}/{CHARGE}/edit",
                f"{LABELS}/{CHARGE}/delete"):
        page = web.client.get(url)
        assert page.status_code == 403, url
        assert "open this page" in _text(page.get_data(as_text=True))
    for url in (LABELS, f"{LABELS}/{CHARGE}", f"{LABELS}/{CHARGE}/delete"):
        posted = web.client.post(url, data={"csrf_token": web.csrf(), "name": "Mine",
                                            "color": "#000000"})
        assert posted.status_code == 403, url


def test_home_and_settings_lead_to_the_labels(aweb: Web) -> None:
    assert 'href="/admin/settings"' in aweb.client.get("/").get_data(as_text=True)
    page = aweb.client.get("/admin/settings")
    assert page.status_code == 200
    assert f'href="{LABELS}"' in page.get_data(as_text=True)


def test_labels_list_shows_each_label_with_its_colour_and_description(aweb: Web) -> None:
    page = aweb.client.get(LABELS)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    text = _text(html)
    assert "Charge nurse Colour #9467BD" in text
    assert "Float" in text
    assert f'href="{LABELS}/{CHARGE}/edit"' in html
    assert f'href="{LABELS}/{CHARGE}/delete"' in html
    assert 'fill="#9467BD"' in html  # the swatch beside the code


def test_labels_fragment_is_the_list(aweb: Web) -> None:
    response = aweb.client.get(LABELS, headers=HX)
    assert response.status_code == 200
    assert response.get_data(as_text=True).strip().startswith('<section id="label-list"')
    assert "HX-Request" in response.headers["Vary"]


def test_labels_page_a_page_at_a_time(aweb: Web) -> None:
    names = [f"Paged {uuid.uuid4().hex[:6]} {i:02}" for i in range(55)]
    with aweb.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        session.add_all([m.Label(id=uuid.uuid4(), name=n, color="#1F77B4") for n in names])
    first = aweb.client.get(LABELS).get_data(as_text=True)
    assert first.count('class="record-card"') == 50
    found = re.search(r'<a href="(/admin/settings/labels\?cursor=[^"]+)">Next page</a>', first)
    assert found
    second = aweb.client.get(found.group(1).replace("&amp;", "&")).get_data(as_text=True)
    assert f'<a href="{LABELS}">First page</a>' in second
    seen = _text(first) + _text(second)
    assert all(n in seen for n in names)


def test_labels_with_a_tampered_cursor_start_again_at_the_first_page(aweb: Web) -> None:
    response = aweb.client.get(f"{LABELS}?cursor=not-a-cursor")
    assert response.status_code == 303
    assert response.headers["Location"] == LABELS
    page = aweb.client.get(LABELS).get_data(as_text=True)
    assert "out of date" in page


def test_create_label_saves_it_and_shows_it_in_the_list(aweb: Web) -> None:
    name = _name()
    assert aweb.client.get(f"{LABELS}/new").status_code == 200
    response = aweb.client.post(LABELS, data={"csrf_token": aweb.csrf(), "name": f"  {name} ",
                                              "description": "Trains new staff",
                                              "color": "#17becf"})
    assert response.status_code == 303
    assert response.headers["Location"] == LABELS
    assert f"Label “{name}” created." in _text(aweb.client.get(LABELS).get_data(as_text=True))
    label = _label(aweb, name)
    assert label is not None
    assert _card(aweb, label.id) == (f"{name} Colour #17BECF Description Trains new staff "
                                     f"Edit {name} Delete {name}")


@pytest.mark.parametrize(("data", "field", "message"), [
    ({"name": ""}, "name", "Enter a name."),
    ({"name": "   "}, "name", "Enter a name."),
    ({"name": "x" * 101}, "name", "Use at most 100 characters."),
    ({"description": "y" * 501}, "description", "Use at most 500 characters."),
    ({"color": "red"}, "color", "Use a colour such as #1F77B4."),
    ({"color": ""}, "color", "Pick a colour."),
])
def test_create_label_shows_bad_input_on_its_field(aweb: Web, data: dict[str, str], field: str,
                                                   message: str) -> None:
    form = {"csrf_token": aweb.csrf(), "name": "Kept name", "description": "Kept text",
            "color": "#17BECF", **data}
    response = aweb.client.post(LABELS, data=form)
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "<title>Error: New label" in html
    assert f'<p id="{field}-error" class="field-error">{message}</p>' in html
    tag = re.search(rf'<(?:input|textarea)[^>]*\bid="{field}"[^>]*>', html)
    assert tag
    assert 'aria-invalid="true"' in tag.group(0)
    if field != "name":
        assert 'value="Kept name"' in html  # the rest of the submission is shown again


def test_edit_label_shows_it_and_saves_the_change(aweb: Web) -> None:
    label = _create(aweb, _name(), description="Old text")
    edit = aweb.client.get(f"{LABELS}/{label.id}/edit").get_data(as_text=True)
    assert f'value="{label.name}"' in edit
    assert "Old text</textarea>" in edit
    loaded = re.search(r'name="loaded" type="hidden" value="([^"]+)"', edit)
    assert loaded
    renamed = label.name + " (lead)"
    response = aweb.client.post(f"{LABELS}/{label.id}", data={
        "csrf_token": aweb.csrf(), "name": renamed, "description": "", "color": "#2CA02C",
        "loaded": loaded.group(1)})
    assert response.status_code == 303
    assert f"Label “{renamed}” saved." in _text(aweb.client.get(LABELS).get_data(as_text=True))
    assert (_card(aweb, label.id) or "").startswith(f"{renamed} Colour #2CA02C Description None")


def test_edit_label_shows_bad_input_on_its_field(aweb: Web) -> None:
    label = _create(aweb, _name())
    response = aweb.client.post(f"{LABELS}/{label.id}", data={
        "csrf_token": aweb.csrf(), "name": "", "color": "#2CA02C", "loaded": "x"})
    assert response.status_code == 422
    html = response.get_data(as_text=True)
    assert "<title>Error: Edit" in html
    assert '<p id="name-error" class="field-error">Enter a name.</p>' in html


def test_edit_label_saved_by_someone_else_meanwhile_shows_both_then_applies_mine(
        aweb: Web) -> None:
    label = _create(aweb, _name(), color="#17BECF")
    edit = aweb.client.get(f"{LABELS}/{label.id}/edit").get_data(as_text=True)
    loaded = re.search(r'name="loaded" type="hidden" value="([^"]+)"', edit)
    assert loaded
    with aweb.app.extensions["shiftdesk"].db.unit_of_work(write=True) as session:
        theirs = session.get(m.Label, label.id)
        assert theirs is not None
        theirs.name, theirs.updated_at = label.name + " (theirs)", \
            theirs.updated_at + timedelta(minutes=1)

    mine = label.name + " (mine)"
    response = aweb.client.post(f"{LABELS}/{label.id}", data={
        "csrf_token": aweb.csrf(), "name": mine, "description": "", "color": "#17BECF",
        "loaded": loaded.group(1)})

    assert response.status_code == 409
    html = response.get_data(as_text=True)
    text = _text(html)
    assert "<title>Error: Edit" in html
    assert "Someone else changed this label while you were editing it." in text
    assert f"Name {label.name} (theirs) {mine} differs" in text
    assert _label(aweb, mine) is None  # nothing saved
    assert f'href="{LABELS}/{label.id}/edit" role="button" class="secondary">Reload</a>' in html
    apply = dict(re.findall(r'<input type="hidden" name="(\w+)" value="([^"]*)">',
                            html.split("Apply my change")[0].rsplit("<form", 1)[1]))
    assert apply["name"] == mine
    again = aweb.client.post(f"{LABELS}/{label.id}", data=apply)
    assert again.status_code == 303
    assert _label(aweb, mine) is not None


def test_unknown_label_is_a_not_found_page_or_a_message_on_the_list(aweb: Web) -> None:
    unknown = uuid.uuid4()
    for url in (f"{LABELS}/{unknown}/edit", f"{LABELS}/{unknown}/delete"):
        page = aweb.client.get(url)
        assert page.status_code == 404, url
        assert "There is no such label" in _text(page.get_data(as_text=True))
    assert aweb.client.get(f"{LABELS}/not-an-id/edit").status_code == 404
    for url in (f"{LABELS}/{unknown}", f"{LABELS}/{unknown}/delete"):
        response = aweb.client.post(url, data={"csrf_token": aweb.csrf(), "name": "Mine",
                                               "color": "#000000", "loaded": "x"})
        assert response.status_code == 303, url
        assert response.headers["Location"] == LABELS
        assert "That label no longer exists" in aweb.client.get(LABELS).get_data(as_text=True)


def test_unknown_label_for_htmx_is_an_out_of_band_message(aweb: Web) -> None:
    response = aweb.client.post(f"{LABELS}/{uuid.uuid4()}/delete",
                                headers={**HX, "X-CSRF-Token": aweb.csrf()})
    assert json.loads(response.headers["HX-Location"])["path"] == LABELS
    assert "That label no longer exists" in aweb.client.get(LABELS).get_data(as_text=True)


def test_confirm_delete_says_where_the_label_is_in_use(aweb: Web) -> None:
    page = aweb.client.get(f"{LABELS}/{CHARGE}/delete")
    assert page.status_code == 200
    text = _text(page.get_data(as_text=True))
    assert "Delete “Charge nurse”?" in text
    assert "1 shift carries this label, 0 of them not yet ended." in text
    assert "Emergency: 1 shift" in text
    assert "takes it off all of them" in text


def test_delete_label_after_confirming_removes_it(aweb: Web) -> None:
    label = _create(aweb, _name())
    confirm = _text(aweb.client.get(f"{LABELS}/{label.id}/delete").get_data(as_text=True))
    assert "No shift carries this label." in confirm
    response = aweb.client.post(f"{LABELS}/{label.id}/delete",
                                data={"csrf_token": aweb.csrf(), "name": label.name})
    assert response.status_code == 303
    assert response.headers["Location"] == LABELS
    text = _text(aweb.client.get(LABELS).get_data(as_text=True))
    assert f"Label “{label.name}” deleted." in text
    assert _label(aweb, label.name) is None
    assert _card(aweb, label.id) is None


@pytest.mark.parametrize(("url", "heading", "card"), [
    ("/admin/settings/pay-codes", "Pay codes",
     "On-call stipend Short name ONC Pays $50.00 Colour #F58518"),
    ("/admin/settings/pay-codes", "Pay codes", "Overtime Short name OT Pays \u00d71.5 per hour"),
    ("/admin/settings/teams", "Teams",
     "Emergency Short name ED Roles Physician, Registered Nurse"),
    ("/admin/settings/roles", "Roles", "Physician Team Emergency Colour #D62728"),
    ("/admin/settings/employment-types", "Employment types",
     "Per diem Kind Contractor, paid by the hour, temporary"),
    ("/admin/settings/time-off-policies", "Time-off policies",
     "Sick leave Counted in days Paid as Unpaid Balance Keeps no balance"),
    ("/admin/settings/time-off-policies", "Time-off policies",
     "Paid time off Counted in hours Paid as Paid time off About Accrues every pay period"),
])
def test_read_only_settings_list_what_the_api_has(aweb: Web, url: str, heading: str,
                                                  card: str) -> None:
    index = aweb.client.get("/admin/settings").get_data(as_text=True)
    assert f'href="{url}"' in index
    page = aweb.client.get(url)
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert f"<h1>{heading}</h1>" in html
    cards = [_text(c) for c in re.findall(r'<li class="record-card".*?</li>\s*(?=<li|</ol>)',
                                          html, re.S)]
    assert any(c.startswith(card) for c in cards), cards
    assert "Edit" not in _text(html.split("<main", 1)[1])  # nothing to change here
    fragment = aweb.client.get(url, headers=HX)
    assert fragment.get_data(as_text=True).strip().startswith('<section id="setting-list"')


def test_roles_show_the_schedules_colour_beside_its_code(aweb: Web) -> None:
    html = aweb.client.get("/admin/settings/roles").get_data(as_text=True)
    role = uid("role:Emergency:Physician")
    assert '<link rel="stylesheet" href="/manage/schedule/roles.css"' in html
    assert f'<span class="role-swatch role-{role}" aria-hidden="true"></span>#D62728' in html


@pytest.mark.parametrize("url", ["/admin/settings/pay-codes", "/admin/settings/teams",
                                 "/admin/settings/roles", "/admin/settings/employment-types",
                                 "/admin/settings/time-off-policies"])
def test_read_only_settings_are_refused_to_other_roles_and_survive_a_bad_cursor(
        web: Web, aweb: Web, url: str) -> None:
    web.sign_in("manager@example.com")
    assert web.client.get(url).status_code == 403
    response = aweb.client.get(f"{url}?cursor=tampered")
    assert response.status_code == 303
    assert response.headers["Location"] == url
