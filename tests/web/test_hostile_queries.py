"""No query string makes a staff page answer 5xx, for any role: dates at the calendar's ends,
impossible dates, huge, binary and markup values, in every parameter a page reads.

Property-based (hypothesis). The parameters of a page are those its GET forms name plus the ones
the views read by hand (`KNOWN`); the pages are every GET route of the UI without path
parameters. `make test` tries a few examples of each page and role; `make fuzz` many
(`SHIFTDESK_FUZZ_EXAMPLES`).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.web.conftest import Web

EXAMPLES = int(os.environ.get("SHIFTDESK_FUZZ_EXAMPLES", "12"))
ROLES = ["provider@example.com", "manager@example.com", "scheduler@example.com",
         "admin@example.com"]
KNOWN = ["week", "view", "type", "start", "end", "from", "to", "provider", "team", "range",
         "period", "cursor", "status", "member", "location", "back", "next", "anyone", "date",
         "day", "page", "q", "name", "edit", "export", "sort", "interval", "recordId"]
"""Query parameters views read by hand (not through a form the page renders)."""
SKIP = {"signin.start", "signin.callback", "signin.confirm_sign_out", "signin.signed_out",
        "home.favicon", "static"}
"""Routes that leave the app (sign-in goes to the provider) or serve files."""
HOSTILE = ["0001-01-01", "9999-12-31", "10000-01-01", "0000-00-00", "2026-02-30", "2026-13-01",
           "2026-W53", "9999-W52", "0001-W01", "-1", "0", "99999999999999999999", "1e309",
           "nan", "", " ", "x" * 5000, "\x00", "%", "%ff", "<script>alert(1)</script>",
           "' OR '1'='1", "../../etc/passwd", "00000000-0000-0000-0000-000000000000",
           "not-a-uuid", "2026-11-25T25:61", "1899-12-31", "3000-01-01", "true", "[]", "{}",
           "\u202e\u0000\ud7ff", "🩺" * 100]
VALUES = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=40),
                   st.dates().map(lambda d: d.isoformat()))

_GET_FORM = re.compile(r"<form\b(?![^>]*method=\"post\")[^>]*>(.*?)</form>", re.S | re.I)
_NAME = re.compile(r"<(?:input|select|textarea)\b[^>]*\bname=\"([^\"]+)\"", re.I)


def _routes(web: Web) -> list[str]:
    paths = []
    for rule in web.app.url_map.iter_rules():
        if ("GET" not in rule.methods or rule.arguments or rule.endpoint in SKIP
                or rule.endpoint.split(".")[0] in ("api", "idp", "probe")):
            continue
        paths.append(rule.rule)
    return sorted(paths)


def _parameters(web: Web, path: str) -> list[str]:
    page = web.client.get(path).get_data(as_text=True)
    named = {name for form in _GET_FORM.findall(page) for name in _NAME.findall(form)}
    return sorted(named - {"csrf_token"} | set(KNOWN))


@pytest.fixture
def signed_in(make_web: Callable[..., Web]) -> Callable[[str], Web]:
    def sign_in(email: str) -> Web:
        web = make_web()
        web.sign_in(email)
        return web
    return sign_in


@pytest.mark.parametrize("email", ROLES)
def test_no_query_string_makes_a_page_fail(signed_in, email):
    web = signed_in(email)
    failures: list[str] = []
    for path in _routes(web):
        # A failure is collected with its falsifying example; go on with the next page.
        with contextlib.suppress(AssertionError):
            _probe(web, email, path, _parameters(web, path), failures)()
    assert not failures, "\n".join(dict.fromkeys(failures))


def _probe(web: Web, email: str, path: str, names: list[str],
           failures: list[str]) -> Callable[[], None]:
    @settings(max_examples=EXAMPLES, deadline=None,
              derandomize=not os.environ.get("SHIFTDESK_FUZZ_EXAMPLES"),
              suppress_health_check=list(HealthCheck))
    @given(query=st.dictionaries(st.sampled_from(names), VALUES, min_size=1, max_size=4),
           partial=st.booleans())
    def probe(query: dict[str, str], partial: bool) -> None:
        headers = {"HX-Request": "true"} if partial else {}
        response = web.client.get(path, query_string=query, headers=headers)
        if response.status_code >= 500:
            failures.append(f"{email} GET {path} {query!r} htmx={partial}: "
                            f"{response.status_code}")
        assert response.status_code < 500

    return probe


@pytest.mark.parametrize(("email", "path"), [
    ("provider@example.com", "/shifts/mine?week={day}"),
    ("manager@example.com", "/manage/schedule?week={day}"),
    ("manager@example.com", "/manage/timesheets?period={day}"),
])
@pytest.mark.parametrize(("day", "says"), [
    ("0001-01-01", "Shiftdesk keeps dates from 1900 to 2999"),
    ("9999-12-31", "Shiftdesk keeps dates from 1900 to 2999"),
    ("2026-02-30", "is not a date"),
])
def test_a_date_a_page_cannot_show_is_an_inline_message_and_today(signed_in, email, path, day,
                                                                   says):
    web = signed_in(email)
    today = web.client.get(path.format(day="")).get_data(as_text=True)

    response = web.client.get(path.format(day=day))

    assert response.status_code == 200
    page = response.get_data(as_text=True)
    assert says in page
    assert "showing today&#39;s week instead" in page or "showing today's week instead" in page
    heading = re.search(r"<h1[^>]*>(.*?)</h1>", page, re.S)
    assert heading is not None
    assert heading.group(1) == re.search(r"<h1[^>]*>(.*?)</h1>", today, re.S).group(1)


@pytest.mark.parametrize(("email", "path"), [
    ("manager@example.com", "/manage/time-off?status=any&start={day}&end={day}"),
    ("scheduler@example.com", "/appointments?start={day}&end={day}"),
    ("admin@example.com", "/admin/audit?start={day}&end={day}"),
])
@pytest.mark.parametrize("day", ["0001-01-01", "9999-12-31"])
def test_a_filter_by_a_day_the_api_does_not_keep_is_a_message_on_its_field(signed_in, email,
                                                                            path, day):
    """A filter's first or last day at the calendar's ends (where a day more, or a time zone,
    would leave the calendar) is refused beside the field, like any invalid filter (422)."""
    response = signed_in(email).client.get(path.format(day=day))
    assert response.status_code == 422
    assert "Pick a day between 1900 and 2999." in response.get_data(as_text=True)


@pytest.mark.parametrize(("email", "path"), [
    ("scheduler@example.com", "/appointments?provider={v}&team={v}&status={v}&type={v}"),
    ("admin@example.com", "/admin/audit?actor={v}"),
])
def test_a_choice_of_only_blanks_is_no_choice(signed_in, email, path):
    """Control characters Python counts as blanks (the group and unit separators) pass WTForms'
    `Optional` as an empty value; the page treats them as no choice instead of sending them."""
    response = signed_in(email).client.get(path.format(v="%1D%1F"))
    assert response.status_code == 200


@pytest.mark.parametrize(("email", "path"), [
    ("admin@example.com", "/admin/settings/pay-codes"),
    ("admin@example.com", "/admin/settings/roles"),
    ("admin@example.com", "/admin/settings/teams"),
    ("admin@example.com", "/admin/settings/time-off-policies"),
    ("admin@example.com", "/admin/settings/labels"),
    ("admin@example.com", "/admin/people"),
    ("admin@example.com", "/admin/permissions"),
    ("admin@example.com", "/admin/reports"),
    ("admin@example.com", "/admin/balance-resets"),
    ("admin@example.com", "/admin/audit"),
    ("provider@example.com", "/notifications"),
    ("scheduler@example.com", "/appointments"),
    ("manager@example.com", "/manage/time-off"),
])
@pytest.mark.parametrize("cursor", ["x" * 5000, "forged"], ids=["too-long", "forged"])
def test_a_cursor_no_list_gave_shows_the_first_page(signed_in, email, path, cursor):
    web = signed_in(email)
    first = web.client.get(path)
    response = web.client.get(path, query_string={"cursor": cursor}, follow_redirects=True)
    assert first.status_code == 200
    # Pages of filters say it beside them (422), the others above the first page.
    assert response.status_code in (200, 422)
    said = response.get_data(as_text=True)
    if path != "/manage/time-off":  # the queue goes back to its first page without a word
        assert ("out of date" in said or "no longer available" in said
                or "the cursor is not valid" in said)
    heading = re.compile(r"<h1[^>]*>(.*?)</h1>", re.S)
    assert heading.findall(response.get_data(as_text=True)) == heading.findall(
        first.get_data(as_text=True))
