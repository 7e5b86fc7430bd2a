"""The menu model: which areas each user may use, read from their real `/v1/users/me`."""

from __future__ import annotations

import pytest

from app.client import ApiClient, build_http
from app.contract.permissions import PermissionRule
from app.contract.users import UserMe
from app.web import nav

ALL_ENDPOINTS = {item.endpoint for item in nav.NAV.values()}


@pytest.fixture
def me_of(web):
    http = build_http(wsgi_app=web.app)

    def me(email: str) -> UserMe:
        return ApiClient(http, web.token(email)).me()

    yield me
    http.close()


@pytest.mark.parametrize(("email", "labels"), [
    ("provider@example.com", ["Clock", "My timecard", "My shifts", "Open shifts", "Time off",
                              "Availability", "Shift swaps"]),
    ("manager@example.com", ["Time-off queue", "Timesheets", "Team schedule",
                             "Swaps", "Demand forecast", "Reports"]),
    ("scheduler@example.com", ["Find a slot", "Appointments", "Appointment types"]),
    ("admin@example.com", ["Time-off queue", "Timesheets", "Team schedule",
                           "Swaps", "Demand forecast",
                           "Find a slot",
                           "Appointments", "Appointment types", "Pay rules",
                           "Balance resets", "Reports", "People", "Settings", "Permissions",
                           "Audit trail"]),
])
def test_menu_fits_each_users_permissions(me_of, email, labels):
    assert [item.label for item in nav.menu(me_of(email), ALL_ENDPOINTS)] == labels


def test_menu_leaves_out_areas_without_pages(me_of):
    me = me_of("provider@example.com")
    assert [i.label for i in nav.menu(me, {"clock.index", "time_off.index"})] == \
        ["Clock", "Time off"]


def _me(*rules: tuple[str, str, object, bool], provider: bool = False) -> UserMe:
    return UserMe.model_validate({
        "id": "00000000-0000-0000-0000-000000000001", "type": "user", "name": "T",
        "email": "t@example.com", "status": "active", "isAdmin": False,
        "providerId": "00000000-0000-0000-0000-000000000001" if provider else None,
        "teamIds": [], "roles": [],
        "permissions": [PermissionRule.model_validate({
            "action": a, "subject": s, "conditions": c, "inverted": inv, "errorMessage": None,
        }).model_dump(by_alias=True) for a, s, c, inv in rules],
    })


def test_can_follows_manage_conditions_and_inverted_rules():
    me = _me(("manage", "Appointment", None, False), ("view", "Shift", {"team": 1}, False),
             ("edit", "Appointment", None, True))
    assert nav.can(me, "create", "Appointment")
    assert nav.can(me, "view", "Shift")  # a conditional rule still allows some shifts
    assert not nav.can(me, "edit", "Appointment")  # denied outright
    assert not nav.can(me, "view", "Timesheet")


def test_inverted_rule_with_conditions_still_allows_others():
    me = _me(("view", "Shift", None, False), ("view", "Shift", {"isCallout": True}, True))
    assert nav.can(me, "view", "Shift")


def test_own_areas_need_a_provider():
    rules = [("create", "Timecard", None, False)]
    assert nav.entitled(_me(*rules)) == []
    assert [i.label for i in nav.entitled(_me(*rules, provider=True))] == ["Clock"]


def test_home_groups_show_a_manager_the_forecast_beside_the_schedule(me_of):
    groups = nav.groups(me_of("manager@example.com"), ALL_ENDPOINTS)
    assert [(g.title, [i.label for i in items]) for g, items in groups] == [
        ("My teams", ["Time-off queue", "Timesheets", "Team schedule", "Swaps",
                      "Demand forecast",
                      "Reports"])]


def test_home_groups_leave_out_kinds_of_work_without_pages(me_of):
    groups = nav.groups(me_of("manager@example.com"), {"manage_timesheets.index"})
    assert [(g.title, [i.label for i in items]) for g, items in groups] == [
        ("My teams", ["Timesheets"])]
    assert nav.groups(me_of("scheduler@example.com"), {"manage_timesheets.index"}) == []


def test_home_groups_show_an_admin_all_teams_and_the_api_documents(me_of):
    groups = nav.groups(me_of("admin@example.com"), ALL_ENDPOINTS | {"openapi_document",
                                                                      "error_codes"})
    assert [(g.title, [i.label for i in items]) for g, items in groups] == [
        ("All teams", ["Time-off queue", "Timesheets", "Team schedule", "Swaps"]),
        ("Appointments", ["Find a slot", "Appointments", "Appointment types"]),
        ("Administration", ["Pay rules", "Balance resets", "People", "Settings", "Permissions",
                            "Audit trail",
                            "Demand forecast", "Reports",
                            "API description", "API error codes"])]


def test_every_menu_entry_has_a_page(web):
    assert set(web.app.view_functions) >= ALL_ENDPOINTS


@pytest.mark.parametrize(("email", "tabs"), [
    ("provider@example.com", ["Now", "Schedule", "Open shifts", "Time off"]),
    ("manager@example.com", []),
    ("scheduler@example.com", []),
    ("admin@example.com", []),  # an administrator is no provider: the header menu serves them
])
def test_bottom_tabs_are_the_providers(me_of, email, tabs):
    shown = nav.tabs(nav.menu(me_of(email), ALL_ENDPOINTS))
    assert [item.label for item in shown] == tabs
    assert [item.endpoint for item in shown] == \
        ["home.index", "shifts.mine", "shifts.open", "time_off.index"][:len(tabs)]


def test_bottom_tabs_leave_out_pages_that_do_not_exist(me_of):
    me = me_of("provider@example.com")
    assert [i.label for i in nav.tabs(nav.menu(me, {"clock.index", "time_off.index"}))] == \
        ["Now", "Time off"]
    assert nav.tabs(nav.menu(me, {"clock.index"})) == []


@pytest.mark.parametrize(("email", "titles"), [
    ("provider@example.com", ["My work"]),
    ("manager@example.com", ["My teams"]),
    ("admin@example.com", ["All teams", "Appointments", "Administration"]),
])
def test_header_groups_are_the_kinds_of_work_without_the_api_documents(me_of, email, titles):
    found = nav.header(me_of(email), ALL_ENDPOINTS | {"openapi_document", "error_codes"})
    assert [group.title for group, _items in found] == titles
    labels = [item.label for _group, items in found for item in items]
    assert "API description" not in labels
    assert len(labels) == len(set(labels))


def _wide_menu(html: str) -> str:
    return html[html.index('<ul class="nav-wide">'):html.index('<div class="nav-wide')]


def test_an_admin_header_has_one_menu_per_kind_of_work_marking_the_current_one(web):
    web.sign_in("admin@example.com")
    wide = _wide_menu(web.client.get("/admin/settings").get_data(as_text=True))
    assert wide.count('<details class="nav-group') == 3
    here = wide.split('<details class="nav-group nav-group-here" data-nav-group>', 1)[1]
    assert here.split("</details>", 1)[0].lstrip().startswith("<summary>Administration")
    assert 'href="/admin/settings" aria-current="page"' in wide


def test_one_kind_of_work_is_a_row_of_links(web):
    web.sign_in("provider@example.com")
    html = web.client.get("/").get_data(as_text=True)
    assert "nav-group" not in _wide_menu(html)
    assert "nav-heading" not in html
