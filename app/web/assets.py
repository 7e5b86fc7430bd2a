"""One stylesheet for every UI page: Pico CSS and the app's own files, joined in cascade order.

Pages link `styles_url()`, an address carrying the digest of the joined text, served by the
`styles` endpoint with a year's caching: a browser fetches one stylesheet once per release
instead of nine on every first visit, and compressed whole it is smaller than the nine apart
(each file's compression starts from nothing). In debug mode the files are read again when one
changes, so an edited stylesheet shows on the next reload. The files' comments are left out
(each file's name heads its part). The sign-in provider's pages and the
error catalogue keep their own small stylesheets.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from flask import Flask, Response, current_app, url_for

STYLESHEETS = (
    "vendor/pico.min.css",
    "css/app.css",
    "css/provider.css",
    "css/manager.css",
    "css/scheduler.css",
    "css/timesheet.css",
    "css/schedule.css",
    "css/pay_rules.css",
    "css/settings.css",
    "css/permissions.css",
    "css/people.css",
    "css/audit.css",
    "css/notifications.css",
)
"""The files of the bundle, in the order their rules cascade (later files win ties)."""

ENDPOINT = "styles"
YEAR = 365 * 24 * 3600


@dataclass(frozen=True)
class Bundle:
    """The joined stylesheets, the digest naming them, and the files' times when read."""

    body: bytes
    digest: str
    stamps: tuple[float, ...]


_STRING_OR_COMMENT = re.compile(r"""("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')|/\*.*?\*/""", re.S)


def without_comments(css: str) -> str:
    """`css` without its comments (strings, which may hold `/*`, kept as they are): the
    files' notes are for their readers, and a phone need not download them."""
    return _STRING_OR_COMMENT.sub(lambda found: found.group(1) or "", css)


def _read(folder: Path) -> Bundle:
    files = [folder / name for name in STYLESHEETS]
    body = b"\n".join(f"/* {name} */\n{without_comments(path.read_text())}".encode()
                      for name, path in zip(STYLESHEETS, files, strict=True))
    return Bundle(body, hashlib.sha256(body).hexdigest()[:16],
                  tuple(path.stat().st_mtime for path in files))


def _bundle() -> Bundle:
    app = current_app
    bundle: Bundle = app.extensions["shiftdesk_styles"]
    if app.debug:
        folder = Path(app.static_folder or "")
        stamps = tuple((folder / name).stat().st_mtime for name in STYLESHEETS)
        if stamps != bundle.stamps:
            bundle = app.extensions["shiftdesk_styles"] = _read(folder)
    return bundle


def styles_url() -> str:
    """The address of the current bundle."""
    return url_for(ENDPOINT, digest=_bundle().digest)


def _styles(digest: str) -> Response:
    """The bundle; cached for a year when asked by its current digest (an older page's
    address gets today's bundle, not cached, so a stale page still looks right)."""
    bundle = _bundle()
    response = Response(bundle.body, mimetype="text/css")
    if digest == bundle.digest:
        response.headers["Cache-Control"] = f"public, max-age={YEAR}, immutable"
    else:
        response.headers["Cache-Control"] = "no-cache"
    return response


def install(app: Flask) -> None:
    """Read the bundle and serve it at `/assets/styles-<digest>.css`."""
    app.extensions["shiftdesk_styles"] = _read(Path(app.static_folder or ""))
    app.add_url_rule("/assets/styles-<digest>.css", ENDPOINT, _styles)
    app.jinja_env.globals["styles_url"] = styles_url
