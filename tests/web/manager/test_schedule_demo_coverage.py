"""The demo organisation's first look (issue 18): `shiftdesk init --demo` forecasts a daily and
weekly pattern for every role, so the demo manager's current week already shows hours short of
staff and hours over, role by role. Read-only: a copy of the demo database loaded for this run
(at the real date, as `make run` loads it).
"""

from __future__ import annotations

import html as markup
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app import create_app
from app.api.demo.state import demo_id
from app.api.tokens import mint_access_token
from tests.conftest import copy_demo_database, make_settings

MANAGER = "manager@example.com"


@pytest.fixture(scope="module")
def demo_app(signing_key_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The demo organisation behind a UI app, for the test client."""
    folder = tmp_path_factory.mktemp("demo-coverage")
    settings = make_settings(f"sqlite:///{folder / 'demo.db'}", signing_key_path,
                             session_dir=folder / "sessions")
    copy_demo_database(tmp_path_factory, folder / "demo.db")
    app = create_app(settings)
    yield app
    app.extensions["shiftdesk"].db.dispose()


def _manager(app: Any) -> Any:
    client = app.test_client()
    settings = app.config["SHIFTDESK"]
    token = mint_access_token(app.extensions["shiftdesk"].signing_key,
                              subject=str(demo_id(f"user:{MANAGER}")), issuer=settings.issuer,
                              audience=settings.audience, ttl=600)
    with client.session_transaction() as session:
        session["auth"] = {"access_token": token, "refresh_token": None, "id_token": None,
                           "expires_at": time.time() + 600}
        session["user"] = {"name": "Manager", "email": MANAGER}
    return client


def _text(html: str) -> str:
    return markup.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip())


def test_the_demo_managers_week_shows_hours_short_and_hours_over(demo_app):
    response = _manager(demo_app).get("/manage/schedule?view=week")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert '<section class="cov"' in html, "no coverage strip on the demo's current week"
    section = html.split('<section class="cov"', 1)[1].split("</section>", 1)[0]
    text = _text(section)
    assert re.search(r"<h1>Team schedule: (Emergency|Intensive Care)</h1>", html)
    # Every role of the team has a forecast (none is listed as having nothing to compare with),
    # and the nurses are short somewhere in the week.
    assert "No forecast for" not in text
    captions = re.findall(r"<caption[^>]*>(.*?)</caption>", section, re.S)
    assert len(captions) == 5, captions
    assert all(re.fullmatch(r"[A-Za-z ]+: (\d+(\.\d+)? staff-hours short this week|covered all "
                            r"week)", _text(c)) for c in captions), captions
    assert re.search(r"Registered Nurse: \d+(\.\d+)? staff-hours short this week", text)
    # Cells short of staff and cells over, each said in words as well as marked.
    assert 'class="cov-cell cov-short"' in section
    assert 'class="cov-cell cov-over"' in section
    assert re.search(r"\d{1,2}:\d{2} [AP]M: \d+ needed, \d+ scheduled, \d+ short", text)
    assert re.search(r"\d{1,2}:\d{2} [AP]M: \d+ needed, \d+ scheduled, \d+ over", text)
