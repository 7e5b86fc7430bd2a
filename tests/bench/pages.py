"""`python -m tests.bench.pages`: each staff page's server time against the API calls it makes.

For every `PageCase` of the page benchmark modules (`tests/bench/pages_<group>.py`), on the demo
organisation, signed in as the case's user:
- *page*: the median time to answer `GET path` through the whole app in-process (UI view,
  its in-process API calls, templates, compression);
- *api*: the median time of the same API calls made directly with `ApiClient` (the case's
  `api_calls`, concurrent where the view makes them concurrently);
- their ratio (target ≤ 1.3), and for cases that ask, the bytes a browser transfers for the page
  with its scripts and styles, compressed as the server sends them (target ≤ 60 kB); a case may
  set a stricter ratio and a target for its own document's compressed bytes (the team timesheet:
  ≤ 1.2, and ≤ 35 kB for the page, whose shared styles and scripts are counted apart).
No network: both sides run in this process, so the ratio is the UI's own overhead.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
GROUPS = ("provider", "manager", "scheduler", "admin")
RATIO_TARGET = 1.3
BYTES_TARGET = 60_000
_ASSETS = re.compile(r'<(?:link[^>]+rel="stylesheet"[^>]+href|script[^>]+src)="([^"]+)"')


@dataclass(frozen=True)
class PageCase:
    """One page to measure: who opens it, where, and the API calls its view makes."""

    name: str
    email: str
    path: str | Callable[[Any], str]
    api_calls: Callable[[Any], object]
    compressed_bytes: bool = False
    ratio_target: float | None = None
    """A stricter ratio target than `RATIO_TARGET` for this page, if any."""
    page_bytes_target: int | None = None
    """A target for the page's own compressed bytes (without the shared styles and scripts)."""
    shows: str | None = None
    """Markup the page must hold for the figures to count (the part being measured)."""


@dataclass
class Figures:
    """What one case measured, in milliseconds and bytes."""

    page_ms: float
    api_ms: float
    transferred: int | None
    page_bytes: int | None = None

    @property
    def ratio(self) -> float:
        return self.page_ms / self.api_ms if self.api_ms else float("inf")


def _paired_medians(first: Callable[[], object], second: Callable[[], object], runs: int,
                    ) -> tuple[float, float]:
    """Median milliseconds of `first` and of `second`, timed alternately so that a busy
    machine slows both alike and the ratio stays fair."""
    for _ in range(max(2, runs // 10)):  # warm caches, pools and compiled templates
        first()
        second()
    timings: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for action, samples in ((first, timings[0]), (second, timings[1])):
            began = time.perf_counter()
            action()
            samples.append((time.perf_counter() - began) * 1000)
    return statistics.median(timings[0]), statistics.median(timings[1])


class Harness:
    """The demo app in-process, a signed-in test client per user, an `ApiClient` per user."""

    def __init__(self, workdir: Path) -> None:
        os.environ.update({
            "SHIFTDESK_DATABASE_URL": f"sqlite:///{workdir / 'pages.db'}",
            "SHIFTDESK_SIGNING_KEY_PATH": str(workdir / "key.json"),
            "SHIFTDESK_SECRET_KEY": "bench-secret",
            "SHIFTDESK_SESSION_DIR": str(workdir / "sessions"),
            "SHIFTDESK_DEMO": "1",
        })
        subprocess.run([sys.executable, "-m", "app", "init", "--demo"], check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        from app import create_app

        self.app = create_app()

    def token(self, email: str) -> str:
        from sqlalchemy import select

        from app.api.models import User
        from app.api.tokens import mint_access_token

        settings = self.app.config["SHIFTDESK"]
        state = self.app.extensions["shiftdesk"]
        with state.db.unit_of_work() as session:
            user_id = session.scalar(select(User.id).where(User.email == email))
        assert user_id is not None, f"no demo user {email}"
        return mint_access_token(state.signing_key, subject=str(user_id), issuer=settings.issuer,
                                 audience=settings.audience, ttl=3600)

    def browser(self, email: str, token: str) -> Any:
        """A test client whose server-side session holds `token`, as after signing in."""
        client = self.app.test_client()
        with client.session_transaction() as session:
            session["auth"] = {"access_token": token, "refresh_token": None, "id_token": None,
                               "expires_at": time.time() + 3600}
            session["user"] = {"name": email, "email": email}
        return client

    def api(self, token: str) -> Any:
        from app.client import ApiClient

        return ApiClient(self.app.extensions["shiftdesk_web"].http, token)

    def measure(self, case: PageCase, runs: int) -> Figures:
        token = self.token(case.email)
        browser, client = self.browser(case.email, token), self.api(token)
        path = case.path(client) if callable(case.path) else case.path

        def page() -> bytes:
            response = browser.get(path)
            assert response.status_code == 200, f"{path}: {response.status_code}"
            return response.get_data()

        if case.shows is not None and case.shows not in page().decode():
            raise SystemExit(f"{case.name}: {path} does not show {case.shows!r}")
        page_ms, api_ms = _paired_medians(page, lambda: case.api_calls(client), runs)
        transferred = self.transferred(browser, path) if case.compressed_bytes else None
        page_bytes = self.page_bytes(browser, path) if case.page_bytes_target else None
        return Figures(page_ms, api_ms, transferred, page_bytes)

    @staticmethod
    def page_bytes(browser: Any, path: str) -> int:
        """Bytes on the wire for the page's document alone, compressed as the server sends it."""
        with browser.get(path, headers={"Accept-Encoding": "br, gzip"}) as response:
            return len(response.get_data())

    @staticmethod
    def transferred(browser: Any, path: str) -> int:
        """Bytes on the wire for the page, its stylesheets and scripts, as a browser gets them."""
        headers = {"Accept-Encoding": "br, gzip"}
        total = len(browser.get(path, headers=headers).get_data())
        for asset in _ASSETS.findall(browser.get(path).get_data(as_text=True)):
            with browser.get(asset, headers=headers) as response:
                total += len(response.get_data())
        return total


def cases(groups: tuple[str, ...]) -> list[PageCase]:
    """Every page case of the benchmark modules that exist."""
    found: list[PageCase] = []
    for group in groups:
        try:
            module = importlib.import_module(f"tests.bench.pages_{group}")
        except ModuleNotFoundError:
            continue
        found.extend(module.CASES)
    return found


def report(case: PageCase, figures: Figures) -> str:
    ratio_target = case.ratio_target or RATIO_TARGET
    verdict = "ok" if figures.ratio <= ratio_target else "MISSED"
    line = (f"{case.name}: page {figures.page_ms:.1f} ms, its API calls {figures.api_ms:.1f} ms, "
            f"ratio {figures.ratio:.2f} (target ≤ {ratio_target}) {verdict}")
    if figures.page_bytes is not None and case.page_bytes_target:
        kb, target = figures.page_bytes / 1000, case.page_bytes_target
        fits = "ok" if figures.page_bytes <= target else "MISSED"
        line += f"; the page {kb:.1f} kB compressed as served (target ≤ {target // 1000} kB) {fits}"
    if figures.transferred is not None:
        kb = figures.transferred / 1000
        fits = "ok" if figures.transferred <= BYTES_TARGET else "MISSED"
        line += (f"; with its styles and scripts {kb:.1f} kB compressed "
                 f"(target ≤ {BYTES_TARGET // 1000} kB) {fits}")
    return line


def run(runs: int, groups: tuple[str, ...] = GROUPS) -> None:
    """Measure every page case and print one line each."""
    selected = cases(groups)
    if not selected:
        print("pages: no page benchmarks")
        return
    with tempfile.TemporaryDirectory(prefix="shiftdesk-pages-") as tmp:
        harness = Harness(Path(tmp))
        try:
            for case in selected:
                print(report(case, harness.measure(case, runs)), flush=True)
        finally:
            harness.app.extensions["shiftdesk"].db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--group", action="append", choices=GROUPS)
    args = parser.parse_args()
    run(args.runs, tuple(args.group or GROUPS))


if __name__ == "__main__":
    main()
