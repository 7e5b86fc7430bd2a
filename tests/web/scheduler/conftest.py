"""Fixtures of the scheduler pages' web tests: an app on a private copy of the seeded database
(these tests book and change appointments), signed in as the scheduler, and a CSRF helper."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.factories import World
from tests.web.conftest import Web, build_web


@pytest.fixture
def sched(web_db: tuple[str, World], signing_key_path: Path, tmp_path: Path) -> Iterator[Web]:
    """A fresh app on its own copy of the web tests' database, signed in as the scheduler."""
    url, world = web_db
    copy = tmp_path / "scheduler.db"
    shutil.copyfile(url.removeprefix("sqlite:///"), copy)
    web = build_web((f"sqlite:///{copy}", world), signing_key_path, tmp_path / "sessions")
    web.sign_in("scheduler@example.com")
    yield web
    web.app.extensions["shiftdesk"].db.dispose()
