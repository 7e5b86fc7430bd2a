"""Notification emails: with SMTP configured, the worker (the embedded job pool here) mails each
committed notice through a local SMTP server (aiosmtpd), after the request that caused it has
answered; failures are retried; without SMTP nothing is sent and nothing fails."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select

from app import create_app
from app.api import models as m
from app.api.jobs.context import JobContext
from app.api.jobs.queue import EmbeddedQueue
from tests.conftest import Api, make_settings
from tests.factories import uid

PTO = str(uid("policy:pto"))
WAIT = 20.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Inbox:
    """An SMTP handler that keeps what it receives; it can hold each delivery until released,
    and refuse the first `refuse` deliveries with a temporary error."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.release = threading.Event()
        self.release.set()
        self.refuse = 0
        self.attempts = 0

    async def handle_DATA(self, _server: Any, _session: Any, envelope: Any) -> str:
        self.attempts += 1
        if self.refuse > 0:
            self.refuse -= 1
            return "451 4.3.0 Try again later"
        await asyncio.get_running_loop().run_in_executor(None, self.release.wait, WAIT)
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"

    def wait_for(self, count: int) -> list[Message]:
        deadline = time.monotonic() + WAIT
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.messages) >= count, f"{len(self.messages)} of {count} mails arrived"
        return self.messages


@pytest.fixture
def inbox() -> Iterator[tuple[Inbox, int]]:
    """A local SMTP server on a free port."""
    handler = Inbox()
    port = _free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    yield handler, port
    handler.release.set()
    controller.stop()


@pytest.fixture
def mailing(fresh_api: Api, signing_key_path: Path, tmp_path: Path,
            inbox: tuple[Inbox, int]) -> Iterator[Callable[..., Api]]:
    """An app on the test's own database that mails notices through the local server."""
    built: list[Api] = []

    def build(**overrides: Any) -> Api:
        values: dict[str, Any] = {
            "smtp_host": "127.0.0.1", "smtp_port": inbox[1], "smtp_starttls": False,
            "smtp_from": "Shiftdesk <rota@hospital.test>",
            "session_dir": tmp_path / f"s{len(built)}", **overrides}
        settings = make_settings(fresh_api.settings.database_url, signing_key_path, **values)
        api = Api(create_app(settings), fresh_api.world, fresh_api.backend)
        built.append(api)
        return api

    yield build
    for api in built:
        api.app.extensions["shiftdesk"].jobs.close()
        api.db.dispose()


def _reject(api: Api, reason: str = "Short-staffed that week") -> tuple[Any, str]:
    request = api.post("/v1/time-off/requests", user="provider@example.com", json={
        "policyId": PTO, "startDate": "2026-03-02T05:00:00+0000",
        "endDate": "2026-03-03T05:00:00+0000"}).get_json()
    response = api.post(f"/v1/time-off/requests/{request['id']}/reject",
                        user="manager@example.com", json={"rejectionReason": reason})
    return response, request["id"]


def _emailed_at(api: Api, record_id: str) -> Any:
    with api.db.unit_of_work() as session:
        return session.scalar(select(m.Notification.emailed_at).where(
            m.Notification.record_id == uuid.UUID(record_id)))


def test_the_worker_mails_the_notice_after_the_request_answered(mailing, inbox):
    handler, _ = inbox
    handler.release.clear()  # the SMTP server holds every delivery until released
    api = mailing()
    response, request_id = _reject(api)
    # The request answered while the mail is still held by the server: it did not wait for it.
    assert response.status_code == 200, response.get_json()
    assert handler.messages == []
    assert _emailed_at(api, request_id) is None
    handler.release.set()
    [mail] = handler.wait_for(1)
    assert mail["To"] == "Pat Provider <provider@example.com>"
    assert mail["From"] == "Shiftdesk <rota@hospital.test>"
    assert mail["Subject"] == "Time off declined"
    text = mail.get_payload(decode=True).decode()
    assert "“Short-staffed that week”" in text
    assert "http://testserver/notifications" in text
    deadline = time.monotonic() + WAIT
    while _emailed_at(api, request_id) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _emailed_at(api, request_id) is not None


def test_a_refused_write_mails_nothing(mailing, inbox):
    handler, _ = inbox
    api = mailing()
    response, request_id = _reject(api)
    assert response.status_code == 200
    handler.wait_for(1)
    again = api.post(f"/v1/time-off/requests/{request_id}/reject", user="manager@example.com",
                     json={"rejectionReason": "again"})
    assert again.status_code == 409
    api.app.extensions["shiftdesk"].jobs.close()  # every job it took has ended
    assert len(handler.messages) == 1


def test_a_failed_send_is_retried_with_backoff(mailing, inbox):
    handler, _ = inbox
    api = mailing()
    with api.db.unit_of_work(write=True) as session:
        notice = m.Notification(user_id=api.world.provider, kind="shift-deleted",
                                title="Shift cancelled", body="Your shift was deleted.",
                                subject="Shift", record_id=uuid.uuid4())
        session.add(notice)
        session.flush()
        notice_id = notice.id
    handler.refuse = 2
    queue = EmbeddedQueue(JobContext(api.db, api.settings), retry_delays=(0.1, 0.2, 0.2))
    try:
        queue.enqueue_notification_email(notice_id)
        [mail] = handler.wait_for(1)
    finally:
        queue.close()
    assert mail["Subject"] == "Shift cancelled"
    assert handler.attempts == 3


def test_without_smtp_the_notice_stays_in_the_app_and_nothing_is_sent(fresh_api, inbox):
    handler, _ = inbox
    response, request_id = _reject(fresh_api)
    assert response.status_code == 200, response.get_json()
    [notice] = fresh_api.get("/v1/notifications", user="provider@example.com").get_json()["items"]
    assert notice["recordId"] == request_id
    assert fresh_api.app.extensions["shiftdesk"].jobs.depth() == 0
    assert handler.attempts == 0
    assert _emailed_at(fresh_api, request_id) is None


def test_an_unreachable_smtp_server_never_fails_the_request(mailing):
    api = mailing(smtp_port=_free_port())  # nothing listens there
    response, request_id = _reject(api)
    assert response.status_code == 200, response.get_json()
    assert _emailed_at(api, request_id) is None
    assert api.get("/v1/notifications", user="provider@example.com").get_json()["items"]
