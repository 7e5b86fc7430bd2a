"""Where the IdP may send a browser: registered redirect URIs (with the RFC 8252 §7.3 loopback
rule) and local `next` paths. Everything else is refused, never followed: no open redirects.

Pure functions of strings; must not know about requests.
"""

from __future__ import annotations

from urllib.parse import urlsplit

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
SIGN_IN_CALLBACK_PATHS = ("/signin/callback",)
POST_LOGOUT_PATHS = ("/", "/signin", "/signed-out")


def _plain(value: str) -> bool:
    # Browsers drop tabs and newlines and read `\` as `/`: "/\t/evil" and "/\evil" become
    # "//evil", so none of those may appear at all.
    return all(0x21 <= ord(char) != 0x7F for char in value) and "\\" not in value


def is_loopback_uri(uri: str, paths: tuple[str, ...]) -> bool:
    """Whether `uri` is `http://<loopback>[:<any port>]<one of paths>`, nothing more."""
    if not _plain(uri):
        return False
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError:
        return False
    host = parts.hostname or ""
    expected = f"[{host}]" if ":" in host else host
    return (
        parts.scheme == "http"
        and host in LOOPBACK_HOSTS
        and parts.netloc.lower() == (expected if port is None else f"{expected}:{port}")
        and parts.path in paths
        and not parts.query
        and not parts.fragment
        and "#" not in uri
    )


def origin_of(uri: str) -> str | None:
    """The `scheme://host[:port]` of an absolute http(s) URI, for a CSP source list."""
    try:
        parts = urlsplit(uri)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.netloc or not _plain(uri):
        return None
    return f"{parts.scheme}://{parts.netloc.rsplit('@', 1)[-1]}"


def is_local_path(value: str) -> bool:
    """Whether `value` is a path on this server (`/shifts?week=2`), not anywhere else."""
    if not value.startswith("/") or value.startswith("//") or not _plain(value):
        return False
    parts = urlsplit(value)
    return not parts.scheme and not parts.netloc
