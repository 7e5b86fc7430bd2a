"""Live servers and a browser for the journeys in tests/browser.

One migrated, seeded SQLite database per mode (the demo accounts get the password "demo"), served
by werkzeug in background threads on loopback, port 0:
- "embedded": one server hosts the UI, /v1 and /auth; the UI reaches the API in-process;
- "split": the API and sign-in on 127.0.0.1:A, the UI on localhost:U with SHIFTDESK_API_URL set,
  so the UI can only speak to the API over HTTP (different hosts also keep their cookies apart).
- "scaled": scale mode as `make run-scaled` starts it: the `Procfile`'s two UI and two API
  gunicorn processes and report worker under honcho, on a PostgreSQL database made (and
  dropped) for the run and Redis database SCALED_REDIS_DB, once per test session.
Every journey runs embedded; the split mode runs only the journeys marked `split_mode` (one or
two per kind of user, a report download among them), which prove the UI speaks to the API over
HTTP alone. `SHIFTDESK_BROWSER_MODES=all` (`make test-all-modes`) runs every journey in both.
The scaled mode runs only the journeys marked `scaled_mode` (one per kind of staff and the
payroll download, run by the worker and fetched through the UI and API processes), all on one
test worker (one set of processes).
Another site, `demo_site`, serves the demo organisation (`shiftdesk init --demo`) as people first
see it, for the crawler of every page. The servers run the real app as it ships: no test-only
pages, so a link to a page that does not exist is a 404 here as it is for users.
Chromium is Debian's: its headless shell (`chromium-headless-shell`, the same engine without the
browser's own window and pages, the build Playwright itself runs headless) when installed, else
the full browser (`chromium`); the shell runs the journeys in about two thirds of the time.
Every page a test reaches goes through `Browse`, which checks it with axe-core (WCAG 2.2 AA and
best-practice rules) and fails on console errors such as CSP violations.
"""

from __future__ import annotations

import copy
import os
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, request
from sqlalchemy import select
from werkzeug.security import generate_password_hash
from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler, make_server

from app import create_app
from app.api.db import Database
from app.api.migrate import upgrade
from app.api.models import User
from app.config import Settings
from app.web.session import COOKIE_NAME
from tests.conftest import INSTALL_CHROMIUM, NO_CHROMIUM, built_once, copy_demo_database
from tests.factories import build_world

if os.environ.get("CI"):  # CI runs every browser test or fails: never a silent skip
    import axe_playwright_python.base as axe_base
    import playwright.sync_api as playwright_sync
else:
    playwright_sync = pytest.importorskip("playwright.sync_api")
    axe_base = pytest.importorskip("axe_playwright_python.base")
AXE_SCRIPT, AxeResults = axe_base.AXE_SCRIPT, axe_base.AxeResults

CHROMIUM = (os.environ.get("SHIFTDESK_TEST_CHROMIUM") or shutil.which("chromium-headless-shell")
            or shutil.which("chromium") or "/usr/bin/chromium")
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run"]
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
# axe-core's best-practice rules too (unique landmarks, one main, headings in order …).
AXE_ALL_TAGS = [*AXE_TAGS, "best-practice"]
PASSWORD = "demo"
# The demo password under cheap scrypt parameters (the check reads them from the stored hash):
# the default ones cost a tenth of a second or more at every sign-in.
PASSWORD_HASH = generate_password_hash(PASSWORD, method="scrypt:1024:8:1")
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
# A page is audited once per mode: the same path, title and visible text (digits aside, so
# tokens and times do not count) is the same page.
_PAGE_IDENTITY = """() => [location.pathname, document.title,
    document.body.innerText.replace(/[0-9]+/g, "#")].join("\\n")"""
_AUDITED: set[tuple[str, str]] = set()
_HTMX_IDLE = """() => document.readyState === "complete" && !document.querySelector(
    ".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added")"""


class _Quiet(WSGIRequestHandler):
    def log(self, type: str, message: str, *args: Any) -> None:
        pass


class _Slot:
    """The WSGI app of a server, filled in once its port (and so its URLs) is known."""

    def __init__(self) -> None:
        self.app: Flask | None = None
        self.seen: list[str] = []  # "METHOD /path" of every request, for the split-mode proof

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        assert self.app is not None
        self.seen.append(f"{environ['REQUEST_METHOD']} {environ['PATH_INFO']}")
        return _closed_when_done(self.app(environ, start_response))


def _closed_when_done(body: Any) -> Iterator[bytes]:
    """The response body, closed however its sending ends: werkzeug's development server does
    not close a body whose client went away mid-answer (Chromium cancels a favicon request when
    the page moves on), and the open static file then warns in whichever test runs next."""
    try:
        yield from body
    finally:
        close = getattr(body, "close", None)
        if close is not None:
            close()


@dataclass
class _Server:
    server: BaseWSGIServer
    thread: threading.Thread
    slot: _Slot

    @property
    def port(self) -> int:
        return int(self.server.server_port)

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


def _serve() -> _Server:
    slot = _Slot()
    server = make_server("127.0.0.1", 0, slot, threaded=True, request_handler=_Quiet)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    return _Server(server, thread, slot)


@dataclass
class Site:
    """A running Shiftdesk as a browser reaches it."""

    mode: str
    url: str
    ui: Flask
    api: Flask
    servers: list[_Server] = field(default_factory=list)
    api_server_url: str | None = None

    def api_server_saw(self) -> list[str]:
        """The requests the API server answered (split mode: the UI's calls over HTTP)."""
        return list(self.servers[0].slot.seen)

    def _session_id(self, context: Any) -> str | None:
        for cookie in context.cookies(self.url):
            if cookie["name"] == COOKIE_NAME:
                return str(cookie["value"])
        return None

    def session(self, context: Any) -> dict[str, Any]:
        """The UI's server-side session of the browser `context`."""
        sid = self._session_id(context)
        if sid is None:
            return {}
        with self.ui.test_request_context("/", base_url=self.url,
                                          headers={"Cookie": f"{COOKIE_NAME}={sid}"}):
            return dict(self.ui.session_interface.open_session(self.ui, request))

    def edit_session(self, context: Any, change: Callable[[dict[str, Any]], None]) -> None:
        """Change the UI's server-side session of `context` in place (e.g. age its tokens)."""
        sid = self._session_id(context)
        assert sid is not None, "the browser has no session"
        with self.ui.test_request_context("/", base_url=self.url,
                                          headers={"Cookie": f"{COOKIE_NAME}={sid}"}):
            stored = self.ui.session_interface.open_session(self.ui, request)
            assert stored.sid == sid, "the session is gone from the store"
            change(stored)
            stored.modified = True
            self.ui.session_interface.save_session(self.ui, stored, self.ui.response_class())


def _seed(url: str) -> None:
    upgrade(url)
    database = Database(url)
    with database.unit_of_work(write=True) as session:
        build_world(session)
        session.flush()
        for user in session.scalars(select(User).where(User.type == "user")):
            user.password_hash = PASSWORD_HASH
    database.dispose()


def _mode(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return None if callspec is None else callspec.params.get("site")


@pytest.hookimpl(trylast=True)  # after pytest-xdist's, which names each item's group
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the split-mode runs of journeys not marked `split_mode`, unless
    `SHIFTDESK_BROWSER_MODES=all`: the split mode differs from the embedded one only in how the
    UI reaches the API, which the marked journeys prove for each kind of user. Leave out the
    scaled-mode runs of journeys not marked `scaled_mode`, always (it starts real processes),
    and the other modes' runs of tests marked `scaled_mode(only=True)`.

    The scaled runs all go to one test worker: `--dist loadgroup` sends each group (the node id's
    suffix after "@", which pytest-xdist adds from the `xdist_group` marks) to one worker, so
    they are put in the group `browser-scaled` whatever their module's group.
    """
    every = os.environ.get("SHIFTDESK_BROWSER_MODES") == "all"
    kept, left_out = [], []
    for item in items:
        mode = _mode(item)
        scaled = item.get_closest_marker("scaled_mode")
        out = ((mode == "split" and not every and item.get_closest_marker("split_mode") is None)
               or (mode == "scaled" and scaled is None)
               or (mode != "scaled" and scaled is not None and scaled.kwargs.get("only")))
        (left_out if out else kept).append(item)
        if mode == "scaled" and "@" in item.nodeid:
            item._nodeid = item.nodeid.rsplit("@", 1)[0] + "@browser-scaled"
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


@pytest.fixture(scope="session")
def seeded_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated, seeded SQLite file that each mode copies (made once per run)."""
    return built_once(tmp_path_factory, "browser-seeded.db",
                      lambda path: _seed(f"sqlite:///{path}"))


def _settings(db: Path, key: Path, sessions: Path, issuer: str, **extra: Any) -> Settings:
    return Settings(database_url=f"sqlite:///{db}", signing_key_path=key, secret_key="browser-test",
                    timezone="America/New_York", issuer=issuer, session_dir=sessions,
                    **{"rate_limits": False, **extra})  # journeys sign in faster than people


@pytest.fixture(scope="session", params=["embedded", "split", "scaled"])
def site(request: pytest.FixtureRequest, browser: Any, seeded_db: Path, signing_key_path: Path,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """Shiftdesk served for the browser, in one of the three modes. The browser comes first:
    without Chromium the test skips before anything is seeded or served."""
    mode = request.param
    folder = tmp_path_factory.mktemp(f"site-{mode}")
    if mode == "scaled":
        with scaled_site(folder) as scaled:
            yield scaled
        return
    db = folder / "shiftdesk.db"
    shutil.copyfile(seeded_db, db)
    if mode == "embedded":
        server = _serve()
        base = f"http://127.0.0.1:{server.port}"
        app = create_app(_settings(db, signing_key_path, folder / "sessions", f"{base}/auth"))
        server.slot.app = app
        built = Site(mode, base, ui=app, api=app, servers=[server])
    else:
        api_server, ui_server = _serve(), _serve()
        api_base = f"http://127.0.0.1:{api_server.port}"
        api_app = create_app(_settings(db, signing_key_path, folder / "api-sessions",
                                       f"{api_base}/auth"))
        ui_app = create_app(_settings(db, signing_key_path, folder / "ui-sessions",
                                      f"{api_base}/auth", api_url=api_base))
        api_server.slot.app, ui_server.slot.app = api_app, ui_app
        built = Site(mode, f"http://localhost:{ui_server.port}", ui=ui_app, api=api_app,
                     servers=[api_server, ui_server], api_server_url=api_base)
    yield built
    for server in built.servers:
        server.stop()
    for app in {built.ui, built.api}:
        app.extensions["shiftdesk"].db.dispose()


SCALED_REDIS_DB = 13
"""The Redis database of the scaled site (`make run-scaled` uses 0): its sessions and queue."""
SCALED_START_TIMEOUT = 120.0


@dataclass
class ScaledSite(Site):
    """The scaled site, with the addresses of each of its processes."""

    ui_urls: tuple[str, str] = ("", "")
    api_urls: tuple[str, str] = ("", "")
    log: Path | None = None


def _scaled_services() -> str | None:
    """Why the scaled site cannot run here (PostgreSQL or Redis unreachable), or None."""
    import redis

    from tests.conftest import PG_AVAILABLE

    if not PG_AVAILABLE:
        return "PostgreSQL is not reachable"
    try:
        redis.Redis(socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        return f"Redis is not reachable at 127.0.0.1:6379 ({exc})"
    return None


def _answers(url: str) -> bool:
    import httpx

    try:
        return httpx.get(f"{url}/readyz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


@contextmanager
def scaled_site(folder: Path) -> Iterator[ScaledSite]:
    """Start the `Procfile` under honcho on a new PostgreSQL database seeded as the other sites
    (its signing key in the database), wait until every process is ready, stop them after."""
    import signal
    import subprocess
    import sys

    from app.api.signing_keys import signing_key
    from deploy.run_scaled import PROCFILE, process_environment
    from tests.conftest import WORKER, _pg_execute, _pg_url

    reason = _scaled_services()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"the scaled site needs its services: {reason}", pytrace=False)
        pytest.skip(f"the scaled site needs its services: {reason}")
    name = f"shiftdesk_browser_scaled_{WORKER}_{os.getpid()}"
    _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    _pg_execute(f'CREATE DATABASE "{name}"')
    url = _pg_url(name)
    redis_url = f"redis://127.0.0.1:6379/{SCALED_REDIS_DB}"
    ui_port, ui1, ui2, api_port, api1, api2 = (_free_port() for _ in range(6))
    api_url = f"http://127.0.0.1:{api_port}"
    settings = Settings(database_url=url, redis_url=redis_url, api_url=api_url,
                        signing_key_store="database", secret_key="browser-test",
                        timezone="America/New_York", issuer=f"{api_url}/auth", rate_limits=False)
    upgrade(url)  # what the processes need to start; the people come while they start
    database = Database(url)
    signing_key(settings, database, create=True)
    database.dispose()
    base = {k: v for k, v in os.environ.items() if not k.startswith("SHIFTDESK_")}
    base.update(SHIFTDESK_DATABASE_URL=url, SHIFTDESK_REDIS_URL=redis_url,
                SHIFTDESK_SECRET_KEY=settings.secret_key, SHIFTDESK_TIMEZONE=settings.timezone,
                SHIFTDESK_RATE_LIMITS="false", SHIFTDESK_LOG_FORMAT="text",
                SHIFTDESK_LOG_LEVEL="WARNING", WEB_CONCURRENCY="1", GUNICORN_THREADS="8")
    env = process_environment(base, host="127.0.0.1", ui_port=ui_port, api_port=api_port,
                              ui_ports=(ui1, ui2), api_ports=(api1, api2),
                              metrics=folder / "metrics")
    log = folder / "honcho.log"
    honcho = str(Path(sys.executable).parent / "honcho")
    with log.open("wb") as output:
        processes = subprocess.Popen(
            [honcho, "--no-colour", "--procfile", str(PROCFILE), "--app-root",
             str(PROCFILE.parent), "start"],
            env=env, stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
    app: Flask | None = None
    try:
        _seed(url)
        app = create_app(settings)  # this test process's view: the database and the sessions
        built = ScaledSite(
            "scaled", f"http://localhost:{ui_port}", ui=app, api=app, api_server_url=api_url,
            ui_urls=(f"http://localhost:{ui1}", f"http://localhost:{ui2}"),
            api_urls=(f"http://127.0.0.1:{api1}", f"http://127.0.0.1:{api2}"), log=log)
        every = [f"http://127.0.0.1:{port}" for port in (ui_port, ui1, ui2, api_port, api1, api2)]
        deadline = time.monotonic() + SCALED_START_TIMEOUT
        waiting = list(every)
        while waiting:
            if processes.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"scale mode did not start: {', '.join(waiting)} not ready\n"
                            f"{log.read_text()[-4000:]}", pytrace=False)
            waiting = [address for address in waiting if not _answers(address)]
            time.sleep(0.25)
        yield built
    finally:
        if processes.poll() is None:
            processes.send_signal(signal.SIGTERM)  # honcho stops every process it started
            try:
                processes.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(processes.pid, signal.SIGKILL)
                processes.wait(timeout=10)
        if app is not None:
            app.extensions["shiftdesk"].db.dispose()
        _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def demo_site(browser: Any, signing_key_path: Path, tmp_path_factory: pytest.TempPathFactory,
              ) -> Iterator[Site]:
    """The demo organisation (four teams, sixty providers, a month of work) served embedded
    (once there is a browser to reach it)."""
    folder = tmp_path_factory.mktemp("site-demo")
    db = folder / "shiftdesk.db"
    server = _serve()
    base = f"http://127.0.0.1:{server.port}"
    settings = _settings(db, signing_key_path, folder / "sessions", f"{base}/auth")
    copy_demo_database(tmp_path_factory, db)
    app = create_app(settings)
    server.slot.app = app
    yield Site("demo", base, ui=app, api=app, servers=[server])
    server.stop()
    app.extensions["shiftdesk"].db.dispose()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Chromium (Debian's when installed), headless."""
    executable = CHROMIUM if os.path.exists(CHROMIUM) else None
    with playwright_sync.sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=executable, args=LAUNCH_ARGS,
                                                  headless=True)
        except playwright_sync.Error as exc:  # pragma: no cover - depends on the machine
            reason = f"{NO_CHROMIUM} at {CHROMIUM} ({INSTALL_CHROMIUM}): {exc}"
            if os.environ.get("CI"):
                pytest.fail(reason, pytrace=False)
            pytest.skip(reason)
        yield launched
        launched.close()


@dataclass
class _SignedIn:
    """What a sign-in through the form left: the UI's session and the tab's cookies."""

    session: dict[str, Any]
    cookies: list[dict[str, Any]]
    made: float


# Sign-ins kept for reuse, per mode and email (one worker's; see `Browse.sign_in`). A kept one
# is handed out for KEEP_SIGN_IN seconds: its access token (900 s) then has over ten minutes
# left, so no copy refreshes it during a journey (copies share the refresh token, and a refresh
# token used twice revokes its family).
_SIGNED_IN: dict[tuple[str, str], _SignedIn] = {}
KEEP_SIGN_IN = 240
_REAL_SIGN_IN = False


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Note whether the test signs in through the form every time (`real_sign_in`)."""
    global _REAL_SIGN_IN
    _REAL_SIGN_IN = item.get_closest_marker("real_sign_in") is not None


class Browse:
    """A browser tab on the site; every page it reaches is checked for accessibility."""

    def __init__(self, site: Site, context: Any, *, javascript: bool = True) -> None:
        self.site = site
        self.context = context
        self.page = context.new_page()
        self.javascript = javascript
        self.problems: list[str] = []
        self.page.on("console", self._console)
        self.page.on("response", self._response)
        self.page.on("pageerror", lambda exc: self.problems.append(f"page error: {exc}"))

    def _console(self, message: Any) -> None:
        text = message.text
        if text.startswith("Failed to load resource: the server responded with a status"):
            return  # error pages answer with their status; subresources are checked below
        if message.type == "error" or "Content Security Policy" in text:
            self.problems.append(f"console {message.type}: {text}")

    def _response(self, response: Any) -> None:
        kind = response.request.resource_type
        if kind == "document":
            return
        # htmx swaps 4xx answers (a refused form, a version conflict: STYLE §6), so only a 5xx
        # is a failure there; any error on a script, style or image is one.
        if response.status >= (500 if kind in ("xhr", "fetch") else 400):
            self.problems.append(f"{response.status} for {response.url}")

    @property
    def url(self) -> str:
        """The address the tab shows."""
        return str(self.page.url)

    def path(self) -> str:
        """The path (and query) the tab shows, without the site's origin."""
        return self.url.removeprefix(self.site.url) or "/"

    def audit(self) -> None:
        """Check the page as it is now against WCAG 2.2 AA and best practice with axe-core."""
        self.settle()
        if not self.javascript:
            # axe-core needs page timers, which a context without JavaScript stops; the server
            # cannot tell the two apart, so the journeys with JavaScript audit the same markup.
            return
        if self.site.mode == "scaled":
            # The same templates render the same markup in every mode; the embedded runs of
            # these journeys audit it, and the scaled ones keep to what differs: the processes.
            return
        seen = (self.site.mode, self.page.evaluate(_PAGE_IDENTITY))
        if seen in _AUDITED:
            return
        if not self.page.evaluate("typeof window.axe === 'object'"):
            self.page.evaluate(AXE_SCRIPT)
        response = self.page.evaluate("options => window.axe.run(document, options)",
                                      {"runOnly": {"type": "tag", "values": AXE_ALL_TAGS},
                                       "resultTypes": ["violations"]})
        results = AxeResults(response)
        assert results.violations_count == 0, f"{self.url}\n{results.generate_report()}"
        _AUDITED.add(seen)

    def goto(self, path: str) -> Any:
        """Open `path` (relative to the site) and audit the page it ends on."""
        response = self.page.goto(path if "://" in path else self.site.url + path)
        self.audit()
        return response

    def click(self, locator: Any) -> None:
        """Follow a link or press a button, then audit the page that results."""
        locator.click()
        self.settle()
        self.audit()

    def settle(self) -> None:
        """Wait for the page load and for htmx to finish any request, swap and settle."""
        self.page.wait_for_load_state()
        if self.javascript:
            self.page.wait_for_function(_HTMX_IDLE)

    def sign_in(self, email: str, password: str = PASSWORD, *, start: str = "/") -> None:
        """Sign in from `start` (which sends a visitor to the provider's sign-in page), ending
        wherever it leads.

        Outside the tests marked `real_sign_in` (those of signing in and out themselves), a
        person this worker signed in with the right password less than `KEEP_SIGN_IN` seconds
        ago enters as that sign-in left them instead: a session of their own on the UI's server
        holding a copy of what the sign-in stored, and the provider's cookie; the tab then opens
        `start`. A tab that already holds cookies always signs in through the form.
        """
        key = (self.site.mode, email)
        reuse = not _REAL_SIGN_IN and password == PASSWORD and not self.context.cookies()
        kept = _SIGNED_IN.get(key)
        if reuse and kept is not None and time.monotonic() - kept.made < KEEP_SIGN_IN:
            self._enter(kept)
            self.goto(start)
            if not self._on_sign_in_form():
                return
            # Signed out since (signing out ends every session of the person): sign in anew.
            del _SIGNED_IN[key]
        else:
            self.goto(start)
        self.fill_credentials(email, password)
        if reuse:
            stored = self.site.session(self.context)
            if stored.get("auth"):
                _SIGNED_IN[key] = _SignedIn(copy.deepcopy(stored), self.context.cookies(),
                                            time.monotonic())

    def _on_sign_in_form(self) -> bool:
        """Whether the tab shows the provider's sign-in form."""
        return self.page.get_by_label("Email address").count() > 0

    def _enter(self, kept: _SignedIn) -> None:
        """Give the tab a new UI session holding a copy of `kept`, and its cookies."""
        ui = self.site.ui
        with ui.test_request_context("/", base_url=self.site.url):
            session = ui.session_interface.open_session(ui, request)  # a new, empty one
            session.update(copy.deepcopy(kept.session))
            session.modified = True
            ui.session_interface.save_session(ui, session, ui.response_class())
            sid = session.sid
        self.context.add_cookies([{**cookie, "value": sid} if cookie["name"] == COOKIE_NAME
                                  else cookie for cookie in kept.cookies])

    def fill_credentials(self, email: str, password: str = PASSWORD) -> None:
        """Type into the provider's sign-in form and send it."""
        self.page.get_by_label("Email address").fill(email)
        self.page.get_by_label("Password").fill(password)
        self.click(self.page.get_by_role("button", name="Sign in", exact=True))

    def menu(self) -> list[str]:
        """The names of the links in the main menu, as a wide screen shows them (those in a
        closed menu of an administrator's header too)."""
        links = self.page.get_by_role("navigation", name="Main").locator("ul.nav-wide a")
        return [re.sub(r"\s+", " ", text).strip() for text in links.all_text_contents()]

    def menu_groups(self) -> list[str]:
        """The titles of the header's menus (an administrator's kinds of work), if any."""
        summaries = self.page.get_by_role("navigation", name="Main").locator(
            "ul.nav-wide details > summary")
        return [re.sub(r"\s+", " ", text).strip() for text in summaries.all_inner_texts()]

    def follow_menu(self, name: str) -> None:
        """Follow the main menu's link `name`, opening the header's menu that holds it first
        (on a wide screen) or the phone's menu."""
        nav = self.page.get_by_role("navigation", name="Main")
        link = nav.get_by_role("link", name=name, exact=True)
        if not link.first.is_visible():
            holder = nav.locator("ul.nav-wide details", has=self.page.locator(
                f'a:text-is("{name}")'))
            if holder.count() and holder.first.locator("summary").is_visible():
                holder.first.locator("summary").click()
            elif nav.get_by_text("Menu", exact=True).is_visible():
                nav.get_by_text("Menu", exact=True).click()
        self.click(link.locator("visible=true").first)

    def sign_out(self) -> None:
        """Press the header's sign-out button (and, without JavaScript, the button that hands
        sign-out on to the provider, which the script presses by itself)."""
        self.click(self.page.get_by_role("navigation", name="Main")
                   .get_by_role("button", name="Sign out"))
        if not self.javascript:
            self.click(self.page.get_by_role("button", name="Finish signing out"))


def screen_options(size: dict[str, int]) -> dict[str, Any]:
    """Browser context options for a screen of `size`: below 600 px, a phone's touch screen."""
    options: dict[str, Any] = {"viewport": size}
    if size["width"] < 600:
        options.update(device_scale_factor=2, is_mobile=True, has_touch=True)
    return options


def open_tab(site: Site, browser: Any, *, javascript: bool = True, **options: Any,
             ) -> Iterator[Browse]:
    """A fresh browser context on the site; the page problems it met fail the test when it
    closes."""
    context = browser.new_context(java_script_enabled=javascript, **options)
    browse = Browse(site, context, javascript=javascript)
    try:
        yield browse
    finally:
        problems = list(browse.problems)
        context.close()
    assert not problems, "\n".join(problems)


@pytest.fixture
def tab(site: Site, browser: Any) -> Iterator[Browse]:
    """A fresh browser context (no cookies) on the site, 1280x900, JavaScript on."""
    yield from open_tab(site, browser, viewport=DESKTOP)


@pytest.fixture
def second_tab(site: Site, browser: Any) -> Iterator[Browse]:
    """Another fresh browser context, 1280x900, JavaScript on: a second person at once."""
    yield from open_tab(site, browser, viewport=DESKTOP)


@pytest.fixture
def no_js_tab(site: Site, browser: Any) -> Iterator[Browse]:
    """A fresh browser context with JavaScript disabled."""
    yield from open_tab(site, browser, javascript=False, viewport=DESKTOP)


@pytest.fixture
def phone(site: Site, browser: Any) -> Iterator[Browse]:
    """A fresh browser context the size of a phone (390x844, touch)."""
    yield from open_tab(site, browser, **screen_options(PHONE))


@pytest.fixture
def screens(site: Site, browser: Any) -> Iterator[Callable[..., Browse]]:
    """Make fresh contexts, each one person: `screens(size=PHONE, javascript=False)` (a phone
    by default; see `screen_options`). Their problems are checked when the test ends."""
    with ExitStack() as opened:
        def make(*, size: dict[str, int] = PHONE, javascript: bool = True) -> Browse:
            return opened.enter_context(contextmanager(open_tab)(
                site, browser, javascript=javascript, **screen_options(size)))

        yield make


@pytest.fixture
def phones(screens: Callable[..., Browse]) -> Callable[..., Browse]:
    """Make fresh phone-sized contexts (390x844, touch): `phones(javascript=False)`."""
    return lambda *, javascript=True: screens(size=PHONE, javascript=javascript)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots go (git-ignored)."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
