"""Fixtures for the UI through Flask's test client: a seeded SQLite database, apps built with
server-side sessions in a temporary folder, and a client that is signed in as a named user.

Signing in here puts a freshly minted access token into the server-side session, as the OIDC
callback would (the callback itself is exercised by tests/browser). A test-only blueprint
(`probe`) stands in for the area views of later issues: it renders templates from memory and
calls the real API through `api()`, so the helpers and error handlers are tested as views use
them.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from flask import Blueprint, Flask, Response, flash, request
from flask.testing import FlaskClient
from jinja2 import ChoiceLoader, DictLoader

from app import create_app
from app.api.db import Database
from app.api.migrate import upgrade
from app.api.tokens import mint_access_token
from app.client.errors import problem_exception
from app.contract.problems import Problem
from app.web import register_area
from app.web.auth import api, current_user
from app.web.forms import BaseForm
from app.web.htmx import render, render_macro, see_other
from tests.conftest import make_settings
from tests.factories import World, build_world, uid

PROBE_TEMPLATES = {
    "probe/page.html": """{# Test page. Fragments: probe_list (#probe-list). #}
{% extends "base.html" %}{% block title %}Probe{% endblock %}
{% block main %}<h1>Probe page</h1>
{% block probe_list %}{% from "probe/macros.html" import row %}
<ul id="probe-list">{% for item in items %}{{ row(item) }}{% endfor %}</ul>
{% endblock %}{% endblock %}""",
    "probe/macros.html": """{% macro row(item) %}<li id="item-{{ item }}">Item {{ item }}</li>
{% endmacro %}""",
    "probe/form.html": """{% extends "base.html" %}
{% block title %}{% if form.errors %}Error: {% endif %}Probe form{% endblock %}
{% block main %}{% from "_macros/forms.html" import field, form_errors, csrf_field %}
<form method="post" novalidate>{{ csrf_field() }}{{ form_errors(form) }}
{{ field(form.start_date) }}<button>Save</button></form>{% endblock %}""",
    "probe/when.html": """{% from "_macros/time.html" import when %}{{ when(at) }}""",
}


def make_probe() -> Blueprint:
    """Views that use the UI's helpers the way area views will."""
    from wtforms import StringField
    from wtforms.validators import InputRequired

    class ProbeForm(BaseForm):
        start_date = StringField("Start date", validators=[InputRequired()])

    bp = Blueprint("probe", __name__, url_prefix="/probe")

    @bp.get("/page")
    def index() -> Response:
        if request.args.get("flash"):
            flash(request.args["flash"], "success")
        return render("probe/page.html", fragment="probe_list", items=[1, 2, 3])

    @bp.get("/row/<int:item>")
    def show(item: int) -> Response:
        return render_macro("probe/macros.html", "row", item)

    @bp.post("/save")
    def create() -> Response:
        flash("Saved.", "success")
        return see_other("/probe/page")

    @bp.get("/shift")
    def shift() -> Response:
        api().get_shift(uuid.UUID(request.args["id"]))
        return Response("found")

    @bp.post("/shift")
    def claim() -> Response:
        api().claim_shift(uuid.UUID(request.args["id"]))
        flash("Claimed.", "success")
        return see_other("/probe/page")

    @bp.get("/time-off")
    def time_off() -> Response:
        api().get_time_off_request(uuid.UUID(request.args["id"]))
        return Response("found")

    @bp.route("/answer/<int:status>/<code>", methods=["GET", "POST"])
    def answer(status: int, code: str) -> Response:
        # Stands in for an API answer no /v1 endpoint gives yet (e.g. a write in maintenance).
        raise problem_exception(Problem(
            type=f"https://errors.shiftdesk.test/v1/errors#{code}", title=code.title(),
            status=status, detail=f"The API answered {code}."))

    @bp.get("/me")
    def me() -> Response:
        return Response(current_user().email)

    @bp.get("/crash")
    def crash() -> Response:
        raise RuntimeError("boom")

    @bp.route("/form", methods=["GET", "POST"])
    def form() -> Response:
        probe = ProbeForm()
        if request.method == "POST" and not probe.validate():
            return render("probe/form.html", form=probe, status=422)
        if request.method == "POST":
            return see_other("/probe/page")
        return render("probe/form.html", form=probe)

    return bp


@dataclass
class Web:
    """A Flask test client on a UI app, able to sign in as any seeded user."""

    app: Flask
    world: World
    client: FlaskClient

    def token(self, email: str, ttl: int = 600) -> str:
        """A fresh access token for `email`, signed by the app's key."""
        settings = self.app.config["SHIFTDESK"]
        return mint_access_token(self.app.extensions["shiftdesk"].signing_key,
                                 subject=str(uid(f"user:{email}")), issuer=settings.issuer,
                                 audience=settings.audience, ttl=ttl)

    def sign_in(self, email: str, **auth: Any) -> str:
        """Put tokens for `email` into the client's server-side session; return the token."""
        token = self.token(email)
        with self.client.session_transaction() as session:
            session["auth"] = {"access_token": token, "refresh_token": None, "id_token": None,
                               "expires_at": time.time() + 600, **auth}
            session["user"] = {"name": email.split("@")[0].title(), "email": email}
        return token

    def csrf(self) -> str:
        """The session's CSRF token as a page would carry it."""
        page = self.client.get("/probe/page").get_data(as_text=True)
        marker = 'name="csrf_token" value="'
        start = page.index(marker) + len(marker)
        return page[start:page.index('"', start)]

    def session(self) -> dict[str, Any]:
        """The client's server-side session."""
        with self.client.session_transaction() as session:
            return dict(session)


@pytest.fixture(scope="session")
def web_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, World]:
    """One migrated, seeded SQLite database shared by the web tests (read-only use)."""
    path = tmp_path_factory.mktemp("web-db") / "web.db"
    url = f"sqlite:///{path}"
    upgrade(url)
    database = Database(url)
    with database.unit_of_work(write=True) as session:
        world = build_world(session)
    database.dispose()
    return url, world


def build_web(web_db: tuple[str, World], key: Path, sessions: Path, **overrides: Any) -> Web:
    """An app with the probe blueprint on the shared database."""
    url, world = web_db
    app = create_app(make_settings(url, key, session_dir=sessions, **overrides))
    app.jinja_env.loader = ChoiceLoader([app.jinja_env.loader, DictLoader(PROBE_TEMPLATES)])
    register_area(app, make_probe())
    return Web(app=app, world=world, client=app.test_client())


@pytest.fixture
def make_web(web_db: tuple[str, World], signing_key_path: Path, tmp_path: Path,
             ) -> Iterator[Callable[..., Web]]:
    """Build apps with settings overridden (e.g. `maintenance_mode=True`)."""
    built: list[Web] = []

    def make(**overrides: Any) -> Web:
        web = build_web(web_db, signing_key_path, tmp_path / f"sessions-{len(built)}",
                        **overrides)
        built.append(web)
        return web

    yield make
    for web in built:
        web.app.extensions["shiftdesk"].db.dispose()


@pytest.fixture
def web(make_web: Callable[..., Web]) -> Web:
    """A fresh app and client (own session store) on the shared database."""
    return make_web()
