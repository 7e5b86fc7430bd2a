"""The notifications page and the header's bell through the test client: the unread count on
every page, the list newest first with unread marked and each notice's link, marking one read
(with its version; a stale one says so) and all read, with and without htmx."""

from __future__ import annotations

import html
import re
import uuid
from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session

from app.api import models as m
from tests.factories import uid
from tests.web.provider.conftest import arrange, fresh_provider

HX = {"HX-Request": "true"}


def _text(response) -> str:
    return html.unescape(response.get_data(as_text=True))


def _notify(pweb, email: str, *, kind: str = "time-off-rejected", title: str = "Time off declined",
            body: str = "Your time off Mon 2 Mar was declined: “Short-staffed”",
            subject: str = "TimeOffRequest", minutes_ago: int = 0,
            record_time: datetime | None = None) -> uuid.UUID:
    def make(session: Session) -> uuid.UUID:
        notice = m.Notification(
            user_id=uid(f"user:{email}"), kind=kind, title=title, body=body, subject=subject,
            record_id=uuid.uuid4(), record_time=record_time,
            created_at=datetime.now(UTC) - timedelta(minutes=minutes_ago))
        session.add(notice)
        session.flush()
        return notice.id

    return arrange(pweb, make)


def _bell(body: str) -> str:
    found = re.search(r'<a class="nav-bell"[^>]*>.*?</a>', body, re.S)
    assert found is not None, "no bell in the header"
    return found.group(0)


def test_the_bell_shows_the_unread_count_on_every_page(pweb):
    email = fresh_provider(pweb)
    pweb.sign_in(email)
    assert "nav-bell-count" not in _bell(_text(pweb.client.get("/")))
    _notify(pweb, email)
    _notify(pweb, email, minutes_ago=5)
    for page in ("/", "/time-off", "/notifications"):
        bell = _bell(_text(pweb.client.get(page)))
        assert 'href="/notifications"' in bell
        assert 'aria-label="Notifications, 2 unread"' in bell
        assert re.sub(r"<[^>]+>", "", bell) == "2"


def test_the_list_is_newest_first_with_unread_marked_and_links_to_records(pweb):
    email = fresh_provider(pweb)
    pweb.sign_in(email)
    older = _notify(pweb, email, minutes_ago=30)
    start = datetime(2026, 3, 4, 12, tzinfo=UTC)  # a Wednesday: the week of Mon 2 Mar
    newer = _notify(pweb, email, kind="shift-changed", title="Shift changed",
                    body="Your shift on Wed 4 Mar was changed.", subject="Shift",
                    record_time=start)
    page = pweb.client.get("/notifications")
    body = _text(page)
    assert page.status_code == 200
    assert body.index(f'id="notification-{newer}"') < body.index(f'id="notification-{older}"')
    assert body.count("nt-badge") == 2
    assert "2 unread" in body
    assert 'href="/shifts/mine?week=2026-03-02"' in body
    assert "See the request" in body
    assert "“Short-staffed”" in body


def test_mark_one_read_redirects_and_the_bell_counts_down(pweb):
    email = fresh_provider(pweb)
    pweb.sign_in(email)
    notice = _notify(pweb, email)
    _notify(pweb, email, minutes_ago=5)
    answer = pweb.client.post(f"/notifications/{notice}/read",
                              data={"csrf_token": pweb.csrf(), "version": "1"})
    assert answer.status_code == 303
    assert answer.headers["Location"] == "/notifications"
    body = _text(pweb.client.get("/notifications"))
    assert "Marked read." in body
    assert 'aria-label="Notifications, 1 unread"' in _bell(body)
    section = body[body.index(f'id="notification-{notice}"'):]
    assert "nt-badge" not in section[:section.index("</li>")]


def test_a_stale_version_or_someone_elses_notice_says_so_and_changes_nothing(pweb):
    email = fresh_provider(pweb)
    other = fresh_provider(pweb)
    pweb.sign_in(email)
    mine = _notify(pweb, email)
    theirs = _notify(pweb, other)
    stale = pweb.client.post(f"/notifications/{mine}/read",
                             data={"csrf_token": pweb.csrf(), "version": "7"})
    assert stale.status_code == 303
    assert "changed meanwhile" in _text(pweb.client.get("/notifications"))
    pweb.client.post(f"/notifications/{theirs}/read", data={"csrf_token": pweb.csrf()})
    assert "no longer there" in _text(pweb.client.get("/notifications"))
    tampered = pweb.client.post(f"/notifications/{mine}/read",
                                data={"csrf_token": pweb.csrf(), "version": "x"})
    assert tampered.status_code == 303
    assert "could not be marked read" in _text(pweb.client.get("/notifications"))
    assert "1 unread" in _text(pweb.client.get("/notifications"))
    pweb.sign_in(other)
    assert "1 unread" in _text(pweb.client.get("/notifications"))


def test_mark_all_read_with_htmx_answers_hx_location(pweb):
    email = fresh_provider(pweb)
    pweb.sign_in(email)
    _notify(pweb, email)
    _notify(pweb, email, minutes_ago=3)
    answer = pweb.client.post("/notifications/read-all", data={"show": "unread"},
                              headers={**HX, "X-CSRF-Token": pweb.csrf()})
    assert answer.status_code == 204
    assert '"/notifications?show=unread"' in answer.headers["HX-Location"]
    body = _text(pweb.client.get("/notifications?show=unread"))
    assert "Marked 2 notifications read." in body
    assert "No unread notifications." in body
    assert "nav-bell-count" not in _bell(body)
    assert 'aria-label="Notifications"' in _bell(body)


def test_a_tampered_cursor_goes_back_to_the_first_page(pweb):
    email = fresh_provider(pweb)
    pweb.sign_in(email)
    answer = pweb.client.get("/notifications?cursor=forged")
    assert answer.status_code == 303
    assert answer.headers["Location"] == "/notifications"


def test_older_pages_follow_the_cursor(pweb):
    email = fresh_provider(pweb)
    pweb.sign_in(email)
    for minutes in range(21):
        _notify(pweb, email, minutes_ago=minutes)
    body = _text(pweb.client.get("/notifications"))
    assert body.count("data-record") == 20
    older = re.search(r'href="(/notifications\?cursor=[^"]+)">Older notifications', body)
    assert older is not None
    second = _text(pweb.client.get(html.unescape(older.group(1))))
    assert second.count("data-record") == 1
    assert ">Newest</a>" in second


def test_a_manager_sees_an_empty_list_without_provider_words(pweb):
    pweb.sign_in("manager@example.com")
    body = _text(pweb.client.get("/notifications"))
    assert "No notifications yet." in body
    assert "open shifts that fit you" not in body
