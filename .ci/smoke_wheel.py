"""Install Shiftdesk as a user would and check that it starts and serves.

Builds the wheel from this checkout, installs it with no extras into a new virtual environment
in an empty temporary folder (so nothing in the checkout can stand in for what the wheel lacks),
then runs `shiftdesk init --demo`, `shiftdesk serve` on a free port and `shiftdesk token`, and
checks from outside over HTTP: an anonymous visitor is sent to sign in, the sign-in page shows
its form, the stylesheets and htmx load, and a token reads /v1/providers.

Standard library only: it runs before anything of the project is installed. Exits non-zero
with what went wrong (and the server's output) on the first failure.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import venv
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urljoin, urlsplit

CHECKOUT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 60.0


class SmokeFailure(Exception):
    """A check that failed, with what a reader needs to fix it."""


def run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    """Run a command; on failure raise with its output."""
    result = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    if result.returncode != 0:
        raise SmokeFailure(f"`{' '.join(command)}` exited {result.returncode}:\n"
                           f"{result.stdout}\n{result.stderr}")
    return result


class Response:
    def __init__(self, status: int, headers: dict[str, str], body: str, url: str) -> None:
        self.status, self.headers, self.body, self.url = status, headers, body, url


class Browser:
    """Just enough of a browser: a cookie jar and manual redirects, over plain http.client."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.cookies: dict[str, str] = {}

    def get(self, url: str, headers: dict[str, str] | None = None) -> Response:
        url = urljoin(self.base, url)
        parts = urlsplit(url)
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        request_headers = dict(headers or {})
        if self.cookies:
            request_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        connection.request("GET", path or "/", headers=request_headers)
        raw = connection.getresponse()
        body = raw.read().decode("utf-8", "replace")
        for name, value in raw.getheaders():
            if name.lower() == "set-cookie":
                key, _, rest = value.partition("=")
                self.cookies[key.strip()] = rest.split(";", 1)[0]
        response = Response(raw.status, {k.lower(): v for k, v in raw.getheaders()}, body, url)
        connection.close()
        return response

    def follow(self, url: str, limit: int = 10) -> tuple[Response, list[str]]:
        """GET `url`, following redirects; answer the last response and the URLs passed."""
        chain = [urljoin(self.base, url)]
        response = self.get(url)
        while response.status in (301, 302, 303, 307, 308) and len(chain) <= limit:
            chain.append(urljoin(response.url, response.headers["location"]))
            response = self.get(chain[-1])
        return response, chain


class Assets(HTMLParser):
    """Stylesheets, scripts and forms of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.stylesheets: list[str] = []
        self.scripts: list[str] = []
        self.inputs: list[dict[str, str | None]] = []
        self.forms = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "link" and "stylesheet" in (values.get("rel") or "").split():
            self.stylesheets.append(values.get("href") or "")
        elif tag == "script" and values.get("src"):
            self.scripts.append(values["src"] or "")
        elif tag == "form":
            self.forms += 1
        elif tag == "input":
            self.inputs.append(values)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def check(condition: bool, message: str) -> None:
    if not condition:
        raise SmokeFailure(message)


def build_wheel(into: Path) -> Path:
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(into),
         str(CHECKOUT)])
    wheels = sorted(into.glob("shiftdesk-*.whl"))
    check(len(wheels) == 1, f"expected one shiftdesk wheel in {into}, found {wheels}")
    return wheels[0]


def install(wheel: Path, where: Path) -> Path:
    venv.EnvBuilder(with_pip=True, clear=True).create(where)
    python = where / "bin" / "python"
    run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         str(wheel)])
    return where / "bin"


def wait_until_up(base: str, server: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SmokeFailure(f"`shiftdesk serve` exited with {server.returncode} at start-up")
        try:
            Browser(base).get("/auth/.well-known/openid-configuration")
            return
        except OSError:
            time.sleep(0.25)
    raise SmokeFailure(f"`shiftdesk serve` did not answer on {base} within {START_TIMEOUT:.0f} s")


def check_served(base: str, bin_dir: Path, env: dict[str, str], workdir: Path) -> None:
    browser = Browser(base)
    home = browser.get("/")
    check(home.status in (302, 303), f"GET / as an anonymous visitor answered {home.status}, "
          "expected a redirect to sign in")
    page, chain = browser.follow("/")
    check(page.status == 200, f"following / to sign in ended in {page.status} at {chain[-1]}")
    assets = Assets()
    assets.feed(page.body)
    names = {i.get("name") for i in assets.inputs}
    check(assets.forms >= 1 and "password" in names,
          f"the sign-in page {chain[-1]} shows no form with a password field")
    # The sign-in page is the IdP's; the staff pages carry htmx. Read both kinds of asset.
    stylesheets = list(assets.stylesheets)
    scripts = list(assets.scripts)
    for path in ("/signed-out", "/signin"):
        extra = Assets()
        extra.feed(browser.get(path).body)
        stylesheets += extra.stylesheets
        scripts += extra.scripts
    check(bool(stylesheets), "no stylesheet linked from the sign-in pages")
    check(any("htmx" in s for s in scripts), f"no htmx script on the pages ({scripts})")
    for asset in sorted(set(stylesheets + scripts)):
        response = browser.get(urljoin(chain[-1], asset))
        check(response.status == 200 and len(response.body) > 0,
              f"{asset} answered {response.status} ({len(response.body)} bytes): static files "
              "must ship inside the wheel")
    token = run([str(bin_dir / "shiftdesk"), "token", "manager@example.com"], env=env,
                cwd=workdir).stdout.strip()
    check(bool(re.fullmatch(r"[\w-]+\.[\w-]+\.[\w-]+", token)),
          f"`shiftdesk token` printed {token!r}, not a JWT")
    providers = browser.get("/v1/providers", headers={"Authorization": f"Bearer {token}"})
    check(providers.status == 200, f"GET /v1/providers with a token answered {providers.status}:"
          f" {providers.body[:500]}")
    items = json.loads(providers.body).get("items")
    check(bool(items), "GET /v1/providers answered no providers after `init --demo`")
    print(f"smoke: {chain[-1]} shows the sign-in form; {len(set(stylesheets + scripts))} "
          f"assets load; /v1/providers lists {len(items)} providers")


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="shiftdesk-smoke-") as tmp:
        root = Path(tmp)
        wheel = build_wheel(root / "dist")
        bin_dir = install(wheel, root / "venv")
        workdir = root / "site"  # empty: only what the wheel carries can be used
        workdir.mkdir()
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("SHIFTDESK_", "PYTHON", "VIRTUAL_ENV"))}
        env.update(PATH=f"{bin_dir}:{env.get('PATH', '')}", SHIFTDESK_DEMO="1",
                   SHIFTDESK_ISSUER=f"{base}/auth")
        run([str(bin_dir / "shiftdesk"), "init", "--demo"], env=env, cwd=workdir)
        log = (root / "serve.log").open("w+")
        server = subprocess.Popen([str(bin_dir / "shiftdesk"), "serve", "--port", str(port)],
                                  env=env, cwd=workdir, stdout=log, stderr=subprocess.STDOUT,
                                  text=True)
        try:
            wait_until_up(base, server)
            check_served(base, bin_dir, env, workdir)
        except SmokeFailure:
            log.seek(0)
            print(f"--- shiftdesk serve output ---\n{log.read()[-6000:]}", file=sys.stderr)
            raise
        finally:
            server.terminate()
            server.wait(timeout=30)
            log.close()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SmokeFailure as failure:
        print(f"smoke: FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
