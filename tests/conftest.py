"""Shared fixtures: settings, a signing key, migrated databases on SQLite and PostgreSQL, apps,
clients and tokens.

Every API test that takes `api` runs twice, once per backend. The shared organisation
(`tests.factories.build_world`) is migrated and loaded once per worker and backend into a
template; read-only tests share one copy (`api`), tests that write get their own copy
(`fresh_api`: a file copy on SQLite, `CREATE DATABASE … TEMPLATE` on PostgreSQL).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import threading
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import settings as hypothesis_settings
from jinja2 import BytecodeCache
from jinja2.bccache import Bucket
from sqlalchemy import event
from werkzeug.routing import Rule

import app.api.signing_keys as key_store
from app import create_app
from app.api.db import Database
from app.api.migrate import upgrade
from app.api.tokens import create_signing_key, mint_access_token
from app.config import Settings
from tests.factories import BOT_TOKEN, World, build_world

# No example may fail for being slow: a loaded CI machine is no bug (speed is `make bench`'s).
hypothesis_settings.register_profile("shiftdesk", deadline=None)
hypothesis_settings.load_profile("shiftdesk")

PG_ADMIN = os.environ.get("SHIFTDESK_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
BACKENDS = ("sqlite", "postgresql")
# Browser tests skip with this reason where Chromium is missing (and fail under CI).
NO_CHROMIUM = "no Chromium to drive"
INSTALL_CHROMIUM = "apt-get install -y chromium-headless-shell"


_load_signing_key = key_store.load_signing_key
_SIGNING_KEYS: dict[tuple[str, int, int, int], Any] = {}


def _kept_signing_key(path: Path, **kw: Any) -> Any:
    """`load_signing_key` as apps call it, read once per key file and content: the suite
    builds a thousand apps on a handful of key files, and each read parses and checks an RSA
    private key (a tenth of an app's start-up). A changed or replaced file is read again."""
    try:
        stat = path.stat()
    except OSError:
        return _load_signing_key(path, **kw)
    key = (str(path), stat.st_ino, stat.st_mtime_ns, stat.st_size)
    if key not in _SIGNING_KEYS:
        _SIGNING_KEYS[key] = _load_signing_key(path, **kw)
    return _SIGNING_KEYS[key]


key_store.load_signing_key = _kept_signing_key  # what create_app calls


class _CompiledTemplates(BytecodeCache):
    """Templates compiled once per worker for every app the tests build: each app has a Jinja
    environment of its own, which otherwise parses and compiles again every template it renders
    (most of a web test's time on a big page such as the team timesheet). Jinja hands back the
    kept code only for the same template name and source (its checksum), so a changed template
    is compiled again; every app comes from `create_app`, so their compiler settings agree."""

    def __init__(self) -> None:
        self._code: dict[str, tuple[str, Any]] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        kept = self._code.get(bucket.key)
        if kept is not None and kept[0] == bucket.checksum:
            bucket.code = kept[1]

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._code[bucket.key] = (bucket.checksum, bucket.code)


Flask.jinja_options = {**Flask.jinja_options, "bytecode_cache": _CompiledTemplates()}

_compile_builder = Rule._compile_builder
_BUILDERS: dict[tuple[Any, ...], Any] = {}


def _kept_builder(self: Rule, append_unknown: bool = True) -> Any:
    """`Rule._compile_builder` as werkzeug calls it for every rule of every new app, kept per
    rule text, parts, defaults and converters: it generates and compiles Python code for each
    of the app's two hundred routes (most of `create_app`'s time, and the suite builds over a
    thousand apps). The function it makes takes the rule as its argument, so rules alike share
    it."""
    key = (append_unknown, self.rule, tuple(self._trace),
           repr(sorted((self.defaults or {}).items())),
           tuple((name, type(converter)) for name, converter in self._converters.items()))
    if key not in _BUILDERS:
        _BUILDERS[key] = _compile_builder(self, append_unknown)
    return _BUILDERS[key]


Rule._compile_builder = _kept_builder  # type: ignore[method-assign]


def _pg_available() -> bool:
    try:
        with psycopg.connect(PG_ADMIN, connect_timeout=3):
            return True
    except psycopg.Error:
        return False


PG_AVAILABLE = _pg_available()
if os.environ.get("CI") and not PG_AVAILABLE:  # CI must run both backends, never skip one
    raise RuntimeError(f"PostgreSQL is not reachable at {PG_ADMIN}")


def _pg_execute(sql: str) -> None:
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(sql)  # type: ignore[arg-type]


def _pg_url(name: str) -> str:
    return PG_ADMIN.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://") + "/" + name


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               build: Callable[[Path], None]) -> Path:
    """The file `name`, made by `build(path)` in the first test worker that asks for it and
    shared by every worker of the run (they copy it; nobody writes to it). A lock on the run's
    temporary folder makes the others wait for it."""
    root = tmp_path_factory.getbasetemp()
    if WORKER != "main":  # xdist: the workers' folders share one parent per run
        root = root.parent
    target = root / name
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not target.exists():
            partial = root / f"{name}.partial"
            build(partial)
            partial.rename(target)
    return target


def copy_demo_database(tmp_path_factory: pytest.TempPathFactory, target: Path) -> None:
    """Copy the demo organisation (`shiftdesk init --demo`, in the tests' time zone) to the
    SQLite file `target`; it is migrated and loaded once per run."""

    def load(path: Path) -> None:
        from app.api.demo import load_demo

        settings = make_settings(f"sqlite:///{path}", path.with_suffix(".key"))
        upgrade(settings.database_url)
        database = Database(settings.database_url)
        load_demo(database, settings)
        database.dispose()

    shutil.copyfile(built_once(tmp_path_factory, "demo.db", load), target)


@dataclass
class Template:
    """A migrated, seeded database that copies are made from."""

    backend: str
    url: str
    path: Path | None  # SQLite file
    name: str | None  # PostgreSQL database name
    world: World

    def copy(self, tmp: Path) -> tuple[str, Any]:
        """A new database with the template's content: its URL and how to drop it."""
        if self.backend == "sqlite":
            assert self.path is not None
            target = tmp / f"copy-{uuid.uuid4().hex}.db"
            shutil.copyfile(self.path, target)
            return f"sqlite:///{target}", lambda: None
        name = f"sd_{WORKER}_{uuid.uuid4().hex[:10]}"
        _pg_execute(f'CREATE DATABASE "{name}" TEMPLATE "{self.name}"')
        return _pg_url(name), lambda: _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def signing_key_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One RSA key per test worker."""
    path = tmp_path_factory.mktemp("keys") / "signing-key.json"
    create_signing_key(path)
    return path


def make_settings(url: str, key: Path, **overrides: Any) -> Settings:
    """Settings for a test app on `url`."""
    values: dict[str, Any] = {
        "database_url": url,
        "signing_key_path": key,
        "secret_key": "test-secret",
        "timezone": "America/New_York",
        "issuer": "http://testserver/auth",
        "errors_url": "https://errors.shiftdesk.test/v1/errors",
        # The suite signs in and writes far faster than people do; tests/api/test_rate_limits.py
        # turns the limits on with tiny values.
        "rate_limits": False,
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture(scope="session", params=BACKENDS)
def template(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
             ) -> Iterator[Template]:
    """The migrated and seeded template database of one backend."""
    backend = request.param
    if backend == "postgresql":
        if not PG_AVAILABLE:
            pytest.skip("PostgreSQL is not running at 127.0.0.1:5432")
        name = f"sd_tpl_{WORKER}_{uuid.uuid4().hex[:8]}"
        _pg_execute(f'CREATE DATABASE "{name}"')
        url, path = _pg_url(name), None
    else:
        path = tmp_path_factory.mktemp("db") / "template.db"
        url, name = f"sqlite:///{path}", None
    upgrade(url)
    database = Database(url)
    with database.unit_of_work(write=True) as session:
        world = build_world(session)
    database.dispose()
    yield Template(backend, url, path, name, world)
    if name:
        _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


class Api:
    """A Flask test client that signs requests in as a named user."""

    def __init__(self, app: Flask, world: World, backend: str) -> None:
        self.app = app
        self.world = world
        self.backend = backend
        self.client: FlaskClient = app.test_client()
        self._tokens: dict[str, str] = {}

    @property
    def settings(self) -> Settings:
        """The app's settings."""
        return self.app.config["SHIFTDESK"]

    @property
    def db(self) -> Database:
        """The app's database."""
        return self.app.extensions["shiftdesk"].db

    def token(self, email: str, ttl: int = 600) -> str:
        """An access token for the user with `email` (bots: their API token)."""
        if email == "bot@example.com":
            return BOT_TOKEN
        if email not in self._tokens:
            from tests.factories import uid

            key = self.app.extensions["shiftdesk"].signing_key
            self._tokens[email] = mint_access_token(
                key, subject=str(uid(f"user:{email}")), issuer=self.settings.issuer,
                audience=self.settings.audience, ttl=ttl,
            )
        return self._tokens[email]

    def headers(self, user: str | None) -> dict[str, str]:
        """The Authorization header for `user` (an email), or none."""
        return {"Authorization": f"Bearer {self.token(user)}"} if user else {}

    def request(self, method: str, path: str, *, user: str | None = "admin@example.com",
                **kw: Any) -> Any:
        """Send a request as `user` (default: the admin)."""
        headers = {**self.headers(user), **kw.pop("headers", {})}
        return self.client.open(path, method=method, headers=headers, **kw)

    def get(self, path: str, **kw: Any) -> Any:
        """GET as a user."""
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> Any:
        """POST as a user."""
        return self.request("POST", path, **kw)

    def patch(self, path: str, **kw: Any) -> Any:
        """PATCH as a user."""
        return self.request("PATCH", path, **kw)

    def put(self, path: str, **kw: Any) -> Any:
        """PUT as a user."""
        return self.request("PUT", path, **kw)

    def delete(self, path: str, **kw: Any) -> Any:
        """DELETE as a user."""
        return self.request("DELETE", path, **kw)

    def walk(self, path: str, *, page_size: int, **kw: Any) -> list[list[dict[str, Any]]]:
        """Every page of a list, following cursors to the end."""
        pages: list[list[dict[str, Any]]] = []
        params: dict[str, Any] = dict(kw.pop("query_string", {}), pageSize=page_size)
        while True:
            response = self.get(path, query_string=params, **kw)
            assert response.status_code == 200, response.get_json()
            body = response.get_json()
            pages.append(body["items"])
            if body["cursor"] is None:
                return pages
            params["cursor"] = body["cursor"]
            assert len(pages) < 1000, "pagination does not end"

    def race(self, calls: list[tuple[str, str, str | None, Any]]) -> list[Any]:
        """Send `(method, path, user, json)` calls at once, one thread and test client (so one
        connection) each, released together by a barrier; return the responses in order."""
        headers = [self.headers(user) for _, _, user, _ in calls]
        barrier = threading.Barrier(len(calls), timeout=60)
        responses: list[Any] = [None] * len(calls)

        def send(index: int) -> None:
            method, path, _, body = calls[index]
            client = self.app.test_client()
            barrier.wait()
            responses[index] = client.open(path, method=method, headers=headers[index],
                                           json=body)

        threads = [threading.Thread(target=send, args=(i,)) for i in range(len(calls))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        assert all(r is not None for r in responses), "a request did not finish"
        return responses

    @contextmanager
    def count_queries(self) -> Iterator[list[str]]:
        """Collect the SQL statements the app runs inside the block, from a cold start: the
        actors the process keeps between requests are dropped first, so every counted block
        pays for its caller's permissions alike."""
        from app.api.auth import forget_kept_actors

        forget_kept_actors()
        statements: list[str] = []

        def _record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            if not statement.lstrip().upper().startswith(("BEGIN", "PRAGMA", "COMMIT",
                                                          "ROLLBACK", "SAVEPOINT", "RELEASE")):
                statements.append(statement)

        engine = self.db.engine
        event.listen(engine, "before_cursor_execute", _record)
        try:
            yield statements
        finally:
            event.remove(engine, "before_cursor_execute", _record)


@pytest.fixture(scope="session")
def shared_db(template: Template, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One copy of the template that read-only tests share."""
    url, drop = template.copy(tmp_path_factory.mktemp("shared"))
    yield url
    drop()


@pytest.fixture(scope="session")
def api(template: Template, shared_db: str, signing_key_path: Path) -> Iterator[Api]:
    """A client on the shared, read-only copy. Tests using it must not write."""
    app = create_app(make_settings(shared_db, signing_key_path))
    yield Api(app, template.world, template.backend)
    app.extensions["shiftdesk"].db.dispose()


@pytest.fixture
def fresh_api(template: Template, signing_key_path: Path, tmp_path: Path) -> Iterator[Api]:
    """A client on a database of its own, for tests that write."""
    url, drop = template.copy(tmp_path)
    app = create_app(make_settings(url, signing_key_path))
    yield Api(app, template.world, template.backend)
    app.extensions["shiftdesk"].db.dispose()
    drop()


@pytest.fixture
def world(template: Template) -> World:
    """Ids of the shared organisation."""
    return template.world


def pytest_unconfigure(config: pytest.Config) -> None:
    """End the run with one visible line when browser tests were skipped for want of Chromium
    (after pytest's own closing line, so that it is the last thing a reader sees)."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    skipped = [report for report in reporter.stats.get("skipped", [])
               if NO_CHROMIUM in str(report.longrepr)]
    if skipped:
        reporter.write_line(
            f"{len(skipped)} browser tests skipped: {NO_CHROMIUM}. "
            f"Install it with `{INSTALL_CHROMIUM}` and run `make test` again.",
            yellow=True, bold=True)
