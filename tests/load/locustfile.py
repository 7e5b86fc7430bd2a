"""The load scenario (`make load`, `make soak`): the three staff journeys through the UI as a
browser makes them, and reads of the `/v1` API with bearer tokens.

Every simulated person is one of these (weights in brackets), waits 1 to 3 seconds between
steps, as a person reading a page does, and signs in first through the real sign-in form (the
authorization redirect, the form with its CSRF token, the code exchange):

- `Provider` (5): a provider of their own (no two simulated providers share one; the runner gave
  every active provider a password). Opens `/clock`, clocks in (confirming when the page asks),
  starts a break, ends it, clocks out, each press an htmx post of the panel's form with its
  CSRF token; then looks at `/timecard` or `/shifts/mine`.
- `Manager` (2): a team manager (the demo's managers, shared round-robin). Opens the time-off
  queue; when it holds no pending request, one is asked for through the API (an admin token)
  for a provider of the manager's team on one of the next 14 days, where their shifts are. Opens
  a pending request picked at random, and approves it with one of the conflict strategies the
  page offers, as an htmx post. A request another simulated manager decided a moment before is
  the app's "changed while you were looking" answer (409), counted apart, not as an error.
- `Scheduler` (2): one of the runner's scheduler accounts. Opens `/slots`, searches a random
  appointment type over the week (htmx), opens one of the slots found at random and books it
  (member id and location). A slot another scheduler took meanwhile is answered with fresh
  results (409), counted apart, not as an error.
- `ApiReader` (3): bearer tokens from `shiftdesk token`; `GET /v1/shifts` (a week, a page of 50),
  a team's two-week timesheet (`GET /v1/timekeeping/timesheet`), a slot search over 14 days
  (`POST /v1/appointments/slots`), `GET /v1/time-off/requests`.

The runner (`python -m tests.load`) passes the accounts file in `LOAD_ACCOUNTS` (made by
`tests.load.accounts`) and the tokens in `LOAD_TOKENS` (space-separated).
"""

from __future__ import annotations

import html
import itertools
import json
import os
import random
import re
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urljoin

from locust import HttpUser, between, task
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

ACCOUNTS: dict[str, Any] = json.loads(open(os.environ["LOAD_ACCOUNTS"]).read())  # noqa: SIM115
TOKENS = os.environ.get("LOAD_TOKENS", "").split()
API_BASE = os.environ.get("LOAD_API_BASE", "")
"""Where /v1 answers: the UI's own address in the embedded mode, the API's in scale mode."""
HTMX = {"HX-Request": "true"}
CSRF = re.compile(r'name="csrf_token" value="([^"]+)"')
FORM_ACTION = re.compile(r'<form[^>]*action="([^"]*)"')
BUTTONS = re.compile(r'name="action" value="(clock_in|break_start|break_end|clock_out)"')
REQUEST_LINK = re.compile(r'href="/manage/time-off/([0-9a-f-]{36})"')
TEAM_OPTIONS = re.compile(r'<option value="([0-9a-f-]{36})"')
BOOK_LINK = re.compile(r'href="(/slots/book\?[^"]+)"')
_next_provider = itertools.count()
_next_manager = itertools.count()
_next_scheduler = itertools.count()


def _browser_like(user: HttpUser) -> None:
    """Send a request again once when a kept-alive connection turns out closed by the server
    (gunicorn closes one idle for its keep-alive seconds, 2 by default, while a person reads
    the page), as browsers do; any other failure counts."""
    retry = Retry(total=1, connect=1, read=1, status=0, other=0, allowed_methods=None,
                  raise_on_status=False, respect_retry_after_header=False)
    user.client.mount("http://", HTTPAdapter(max_retries=retry))


def _stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _hidden(page: str, form_id: str) -> dict[str, str]:
    """The hidden fields of the form with id `form_id`."""
    start = page.find(f'id="{form_id}"')
    block = page[start:page.find("</form>", start)] if start >= 0 else ""
    return {name: html.unescape(value) for name, value in re.findall(
        r'<input[^>]*name="([^"]+)"[^>]*type="hidden"[^>]*value="([^"]*)"', block)} | {
        name: html.unescape(value) for name, value in re.findall(
            r'<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"', block)}


class StaffUser(HttpUser):
    """A person at a browser: signs in through the form, keeps the session cookie."""

    abstract = True
    wait_time = between(1, 3)
    email = ""

    def on_start(self) -> None:
        _browser_like(self)
        self.email = self.pick_email()
        self.sign_in()

    def pick_email(self) -> str:
        raise NotImplementedError

    def sign_in(self) -> None:
        """GET / (redirected to the sign-in form), post the form, follow back to the app."""
        with self.client.get("/", name="UI sign-in form", catch_response=True) as page:
            found = CSRF.search(page.text)
            action = FORM_ACTION.search(page.text)
            if found is None or action is None:
                page.failure(f"no sign-in form (HTTP {page.status_code})")
                return
        with self.client.post(urljoin(page.url, html.unescape(action.group(1))),
                              data={"csrf_token": found.group(1), "email": self.email,
                                    "password": ACCOUNTS["password"]},
                              name="UI sign-in post", catch_response=True) as answer:
            if "/auth/" in answer.url:  # still on the form: not signed in
                answer.failure(f"not signed in as {self.email} (HTTP {answer.status_code})")

    def page(self, path: str, name: str, **options: Any) -> str:
        """GET a UI page; a page that sends the person to sign in again is a failure (the
        session was lost), and they sign in again."""
        with self.client.get(path, name=name, catch_response=True, **options) as answer:
            if "/auth/" in answer.url:
                answer.failure(f"signed out: {path} went to the sign-in form")
                lost = True
            else:
                lost = False
            text = answer.text
        if lost:
            self.sign_in()
        return text

    def post(self, path: str, name: str, *, meanwhile: str | None = None,
             **options: Any) -> str:
        """POST a form as the UI's page does; a 409 is the app's answer to a record changed
        by someone else a moment before, counted apart under `meanwhile` when given, and an
        answer that sends the person to sign in again is a failure."""
        with self.client.post(path, name=name, catch_response=True, **options) as answer:
            if "/auth/" in answer.url:
                answer.failure(f"signed out: {path} went to the sign-in form")
            elif answer.status_code == 409 and meanwhile:
                answer.success()
                answer.request_meta["name"] += f" ({meanwhile})"
            return answer.text

    def csrf(self, page: str) -> str:
        found = CSRF.search(page)
        return found.group(1) if found else ""


class Provider(StaffUser):
    """Clock in, take a break, clock out."""

    weight = 5

    def pick_email(self) -> str:
        providers = ACCOUNTS["providers"]
        return str(providers[next(_next_provider) % len(providers)])

    @task
    def shift(self) -> None:
        page = self.page("/clock", "UI GET /clock")
        csrf = self.csrf(page)
        for _ in range(4):
            allowed = BUTTONS.findall(page)
            if not allowed:
                return
            action = allowed[0] if "clock_out" not in allowed or len(allowed) == 1 else (
                "break_start" if "break_start" in allowed and random.random() < .5
                else "clock_out")
            page = self.punch(csrf, action)
            if action == "clock_out":
                break
            self.wait()
        self.page(random.choice(["/timecard", "/shifts/mine"]), "UI GET provider page")

    def punch(self, csrf: str, action: str) -> str:
        data = {"csrf_token": csrf, "action": action, "back": "clock", "provider_note": ""}
        answer = self.post("/clock/punches", f"UI POST /clock/punches {action}", data=data,
                           headers=HTMX)
        if 'name="confirm" value="yes"' in answer:
            answer = self.post("/clock/punches", f"UI POST /clock/punches {action} confirmed",
                               data={**data, "confirm": "yes"}, headers=HTMX)
        return answer


class Manager(StaffUser):
    """Approve a time-off request with a conflict strategy."""

    weight = 2

    def pick_email(self) -> str:
        managers = ACCOUNTS["managers"]
        return str(managers[next(_next_manager) % len(managers)])

    @task
    def decide(self) -> None:
        queue = self.page("/manage/time-off", "UI GET /manage/time-off")
        pending = REQUEST_LINK.findall(queue)
        if not pending:
            select = queue[queue.find('id="team"'):]
            self.ask_for_time_off(TEAM_OPTIONS.findall(select[:select.find("</select>")]))
            queue = self.page("/manage/time-off", "UI GET /manage/time-off")
            pending = REQUEST_LINK.findall(queue)
            if not pending:
                return
        self.wait()
        request_id = random.choice(pending)
        page = self.page(f"/manage/time-off/{request_id}", "UI GET /manage/time-off/<id>")
        form = _hidden(page, f"approve-{request_id}")
        if "seen_status" not in form:
            return  # decided meanwhile: the page says so, and there is nothing to approve
        strategies = re.findall(r'name="conflict_resolution"[^>]*value="([^"]+)"', page)
        form["conflict_resolution"] = random.choice(strategies or ["keep"])
        self.wait()
        self.post(f"/manage/time-off/{request_id}/approve",
                  "UI POST /manage/time-off/<id>/approve", meanwhile="decided meanwhile",
                  data=form, headers=HTMX)

    def ask_for_time_off(self, teams: list[str]) -> None:
        """A pending request for someone on one of the manager's teams, via the API."""
        people = [p for team in teams for p in ACCOUNTS["teamProviders"].get(team, [])]
        if not TOKENS or not people:
            return
        day = datetime.now(UTC).replace(hour=5, minute=0, second=0, microsecond=0) + timedelta(
            days=random.randint(1, 14))
        with self.client.post(f"{API_BASE}/v1/time-off/requests", json={
                "policyId": ACCOUNTS["policyId"], "providerId": random.choice(people),
                "startDate": _stamp(day), "endDate": _stamp(day + timedelta(days=1)),
                "note": "load test"},
                headers={"Authorization": f"Bearer {random.choice(TOKENS)}"},
                name="API POST /v1/time-off/requests", catch_response=True) as answer:
            if answer.status_code == 409:  # that person already has time off on that day
                answer.success()
                answer.request_meta["name"] += " (overlap)"


class Scheduler(StaffUser):
    """Find a slot and book it."""

    weight = 2

    def pick_email(self) -> str:
        schedulers = ACCOUNTS["schedulers"]
        return str(schedulers[next(_next_scheduler) % len(schedulers)])

    @task
    def book(self) -> None:
        self.page("/slots", "UI GET /slots")
        self.wait()
        kind = random.choice(ACCOUNTS["appointmentTypes"])
        found = self.page("/slots", "UI GET /slots search", headers=HTMX,
                          params={"type": kind, "range": "week"})
        links = BOOK_LINK.findall(found)
        if not links:
            return
        page = self.page(html.unescape(random.choice(links)), "UI GET /slots/book")
        block = page[page.find('action="/slots/book"'):]
        form = {name: html.unescape(value) for name, value in re.findall(
            r'<input[^>]*name="([^"]+)"[^>]*type="hidden"[^>]*value="([^"]*)"',
            block[:block.find("</form>")])}
        form["csrf_token"] = self.csrf(page)
        form["member_id"] = f"M{random.randint(100000, 999999)}"
        form["location"] = "Clinic room 2"
        self.wait()
        self.post("/slots/book", "UI POST /slots/book", meanwhile="taken meanwhile", data=form)


class ApiReader(HttpUser):
    """Reads of the /v1 API with a bearer token."""

    weight = 3
    wait_time = between(1, 3)

    def on_start(self) -> None:
        _browser_like(self)
        if API_BASE:
            self.client.base_url = API_BASE
        token = random.choice(TOKENS) if TOKENS else ""
        self.client.headers["Authorization"] = f"Bearer {token}"

    @task(3)
    def shifts(self) -> None:
        start = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        self.client.get("/v1/shifts", params={
            "startDate": _stamp(start - timedelta(days=random.randint(0, 14))),
            "endDate": _stamp(start + timedelta(days=7)), "pageSize": 50},
            name="API GET /v1/shifts")

    @task(2)
    def timesheet(self) -> None:
        end = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        self.client.get("/v1/timekeeping/timesheet", params={
            "team": random.choice(list(ACCOUNTS["teamProviders"])), "pageSize": 60,
            "startDate": _stamp(end - timedelta(days=14)), "endDate": _stamp(end)},
            name="API GET /v1/timekeeping/timesheet")

    @task(2)
    def slots(self) -> None:
        start = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
        self.client.post("/v1/appointments/slots", json={
            "appointmentTypeId": random.choice(ACCOUNTS["appointmentTypes"]),
            "startDate": _stamp(start), "endDate": _stamp(start + timedelta(days=14)),
            "limit": 10}, name="API POST /v1/appointments/slots")

    @task(1)
    def time_off(self) -> None:
        self.client.get("/v1/time-off/requests", params={"pageSize": 50},
                        name="API GET /v1/time-off/requests")
