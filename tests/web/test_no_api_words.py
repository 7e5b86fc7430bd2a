"""No page says what only the API should: field names, enum values or record versions.

On the demo organisation, each demo account signs in and follows every same-origin link in the
navigation and on each page it reaches (and each choice of its GET forms' selects, such as a
status filter), two clicks deep from the home page (GET only, addresses
deduplicated by kind as in tests/browser/test_every_page.py), through the test client. The
visible text of each page (text nodes, not attributes or addresses; scripts and styles left out)
must hold no camelCase member name of the `/v1` contract (`endDate`, `providerId`), no enum value
of it written as code (`clock_in`, `pending_sync`, `calloutWithOpen`) and no "version 2".
Text inside `<code>` is literal, to be typed as shown (the balance reset file's column names),
and is left out, as is a `<textarea>`'s: the value being edited (a permission's conditions as
JSON), not words of the page.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import pkgutil
import re
import time
import typing
from collections import Counter, deque
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlencode, urljoin, urlsplit, urlunsplit

import pytest
from pydantic import BaseModel

import app.contract as contract_package
from app import create_app
from app.api.demo.state import demo_id
from app.api.tokens import mint_access_token
from tests.conftest import copy_demo_database, make_settings
from tests.page_kinds import kind

ACCOUNTS = ["admin", "manager", "scheduler", "provider"]
DEPTH = 2
PER_KIND = 12  # addresses of one kind visited: records differ in what they show
SKIPPED_PREFIXES = ("/signin", "/auth/", "/v1/", "/static/", "/signout")
FILE_SUFFIXES = (".ics", ".csv", ".json", ".css", ".js", ".svg", ".png")
VERSION = re.compile(r"\bversion \d+\b", re.IGNORECASE)
CAMEL = re.compile(r"^[a-z]+(?:[A-Z][a-z0-9]*)+$")
CODE = re.compile(r"^[a-z]+(?:_[a-z0-9]+)+$")


def _contract_models() -> list[type[BaseModel]]:
    models: list[type[BaseModel]] = []
    for info in pkgutil.iter_modules(contract_package.__path__):
        module = importlib.import_module(f"app.contract.{info.name}")
        models += [obj for _name, obj in inspect.getmembers(module, inspect.isclass)
                   if issubclass(obj, BaseModel) and obj.__module__ == module.__name__]
    return models


def _literals(annotation: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {str(m.value) for m in annotation if isinstance(m.value, str)}
    if typing.get_origin(annotation) is Literal:
        return {v for v in typing.get_args(annotation) if isinstance(v, str)}
    for arg in typing.get_args(annotation):
        found |= _literals(arg)
    return found


def api_words() -> set[str]:
    """The contract's camelCase member names and its enum values written as code."""
    words: set[str] = set()
    for model in _contract_models():
        for name, info in model.model_fields.items():
            alias = info.alias or name
            if CAMEL.match(alias):
                words.add(alias)
            words |= {v for v in _literals(info.annotation) if CAMEL.match(v) or CODE.match(v)}
    return words


WORDS = api_words()
LEAK = re.compile(r"(?<![\w/.#=-])(" + "|".join(sorted(map(re.escape, WORDS), key=len,
                                                         reverse=True)) + r")(?![\w/])")


def test_the_scan_knows_the_words_it_looks_for():
    assert {"endDate", "startDate", "providerId", "isFullDay", "calloutWithOpen", "clock_in",
            "break_start", "paid_break", "pending_sync"} <= WORDS
    assert "no_clock_out" in WORDS
    text = visible_text('<p title="endDate">Ends <a href="/x?endDate=1">soon</a></p>'
                        '<script>var startDate;</script><p>Shifts: calloutWithOpen</p>')
    assert leaks(text) == ["calloutWithOpen"]
    assert leaks("Saved (version 2).") == ["version 2"]


class _Text(HTMLParser):
    """A page's visible text and its links."""

    HIDDEN = {"script", "style", "template", "noscript", "code", "textarea"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.links: list[str] = []
        self._skip = 0
        self._form: str | None = None
        self._select: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag in self.HIDDEN:
            self._skip += 1
        if tag == "a" and values.get("href"):
            self.links.append(values["href"] or "")
        # A GET form's choices are addresses too: one per option of each of its selects.
        if tag == "form":
            get = (values.get("method") or "get").lower() == "get"
            self._form = (values.get("action") or "") if get else None
        elif tag == "select" and self._form is not None:
            self._select = values.get("name")
        elif tag == "option" and self._form is not None and self._select:
            choice = {self._select: values.get("value") or ""}
            self.links.append(f"{self._form}?{urlencode(choice)}")
        self.parts.append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN and self._skip:
            self._skip -= 1
        if tag == "form":
            self._form = None
        if tag == "select":
            self._select = None
        self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def _parse(html: str) -> _Text:
    parser = _Text()
    parser.feed(html)
    parser.close()
    return parser


def visible_text(html: str) -> str:
    """The text a page shows (and reads out): text nodes outside scripts and styles."""
    return re.sub(r"\s+", " ", "".join(_parse(html).parts)).strip()


def leaks(text: str) -> list[str]:
    """API words and versions in `text`, each once, in order."""
    found = [m.group(1) for m in LEAK.finditer(text)] + [m.group(0) for m in VERSION.finditer(text)]
    return list(dict.fromkeys(found))




@pytest.fixture(scope="module")
def demo_app(signing_key_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The demo organisation behind a UI app, for the test client."""
    folder = tmp_path_factory.mktemp("demo-words")
    settings = make_settings(f"sqlite:///{folder / 'demo.db'}", signing_key_path,
                             session_dir=folder / "sessions")
    copy_demo_database(tmp_path_factory, folder / "demo.db")
    app = create_app(settings)
    yield app
    app.extensions["shiftdesk"].db.dispose()


def _sign_in(app: Any, client: Any, email: str) -> None:
    settings = app.config["SHIFTDESK"]
    token = mint_access_token(app.extensions["shiftdesk"].signing_key,
                 subject=str(demo_id(f"user:{email}")),
                 issuer=settings.issuer, audience=settings.audience, ttl=600)
    with client.session_transaction() as session:
        session["auth"] = {"access_token": token, "refresh_token": None, "id_token": None,
                           "expires_at": time.time() + 600}
        session["user"] = {"name": email.split("@")[0].title(), "email": email}


def _crawl(app: Any, account: str) -> tuple[list[str], list[str]]:
    client = app.test_client()
    _sign_in(app, client, f"{account}@example.com")
    base = "http://localhost"
    seen: Counter[str] = Counter({kind(base + "/"): 1})
    known = {base + "/"}
    queue = deque([(base + "/", 0)])
    visited: list[str] = []
    problems: list[str] = []
    while queue:
        url, depth = queue.popleft()
        parts = urlsplit(url)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        visited.append(path)
        response = client.get(path)
        if response.status_code >= 400:
            problems.append(f"{path} [{account}]: answers {response.status_code}")
            continue
        if response.status_code >= 300 or response.mimetype != "text/html":
            continue
        page = _parse(response.get_data(as_text=True))
        text = re.sub(r"\s+", " ", "".join(page.parts))
        for word in leaks(text):
            at = text.find(word)
            problems.append(f"{path} [{account}]: shows {word!r} in "
                            f"“…{text[max(0, at - 60):at + len(word) + 40].strip()}…”")
        if depth >= DEPTH:
            continue
        for href in page.links:
            target = urlunsplit(urlsplit(urljoin(url, href))._replace(fragment=""))
            target_parts = urlsplit(target)
            if target_parts.netloc != "localhost" or not target_parts.scheme.startswith("http"):
                continue
            if target_parts.path.startswith(SKIPPED_PREFIXES) or \
                    target_parts.path.endswith(FILE_SUFFIXES):
                continue
            if target not in known and seen[kind(target)] < PER_KIND:
                known.add(target)
                seen[kind(target)] += 1
                queue.append((target, depth + 1))
    return visited, problems


@pytest.mark.parametrize("account", ACCOUNTS)
def test_no_page_shows_api_field_names_enum_values_or_versions(demo_app, account):
    visited, problems = _crawl(demo_app, account)
    assert len(visited) > 5, visited
    assert not problems, f"{len(problems)} problems on {len(visited)} pages:\n" + \
        "\n".join(problems)
