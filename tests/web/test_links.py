"""Addresses built once (app.web.links) are the addresses `url_for` builds, under any mount
point, and a record's address carries its id safely."""

from __future__ import annotations

import uuid

from flask import url_for

from app.web.links import address_of, fixed_url


def test_a_fixed_address_is_url_for_under_each_mount_point(web):
    for root in ("", "/shiftdesk"):
        with web.app.test_request_context("/", environ_overrides={"SCRIPT_NAME": root}):
            assert fixed_url("people.index") == url_for("people.index") == f"{root}/admin/people"
            assert fixed_url("static", filename="js/app.js") == \
                url_for("static", filename="js/app.js")


def test_a_record_address_is_url_for_with_the_records_id(web):
    person = uuid.uuid4()
    with web.app.test_request_context("/", environ_overrides={"SCRIPT_NAME": "/sd"}):
        show = address_of("people.show", "person_id")
        assert show(person) == url_for("people.show", person_id=person)
        assert show("a/b?c") == "/sd/admin/people/a%2Fb%3Fc"  # never a different address
        with_back = address_of("manage_schedule.edit", "shift_id", view="day")
        assert with_back(person) == url_for("manage_schedule.edit", shift_id=person, view="day")


def test_the_header_links_every_menu_entry_to_its_page(web):
    web.sign_in("admin@example.com")
    page = web.client.get("/admin/people").get_data(as_text=True)
    with web.app.test_request_context("/"):
        for endpoint in ("people.index", "audit.index", "home.index"):
            assert f'href="{url_for(endpoint)}"' in page
