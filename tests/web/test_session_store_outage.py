"""With Redis (the UI's session store) down, every page answers a clear 503 page instead of
crashing, static files and the API carry on, and the UI recovers by itself once Redis is back.

A private redis-server on a free loopback port, stopped and started again by the test.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Callable, Iterator

import pytest
from redis import Redis

from tests.web.conftest import Web


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """A redis-server of the test's own, keeping nothing on disk."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while True:
            try:
                if Redis.from_url(self.url, socket_connect_timeout=0.2).ping():
                    return
            except Exception:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        assert self.process is not None
        self.process.terminate()
        self.process.wait(timeout=10)


@pytest.fixture
def redis_server() -> Iterator[Server]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    server = Server(_free_port())
    server.start()
    yield server
    if server.process is not None and server.process.poll() is None:
        server.stop()


def test_pages_answer_503_while_redis_is_down_and_recover(
        make_web: Callable[..., Web], redis_server: Server) -> None:
    web = make_web(redis_url=redis_server.url)
    web.sign_in("provider@example.com")
    assert web.client.get("/").status_code == 200

    redis_server.stop()
    for path in ("/", "/shifts/mine", "/signin", "/time-off"):
        down = web.client.get(path)
        assert down.status_code == 503, path
        assert down.headers["Retry-After"] == "30"
        assert "Shiftdesk is briefly unavailable" in down.get_data(as_text=True)
    partial = web.client.get("/shifts/mine", headers={"HX-Request": "true"})
    assert partial.status_code == 503
    with web.client.get("/static/css/app.css") as stylesheet:  # a file: close it when read
        assert stylesheet.status_code == 200
    assert web.client.get("/assets/styles-0000000000000000.css").status_code == 200
    assert web.client.get("/v1/openapi.json").status_code == 200
    assert web.client.get("/auth/.well-known/openid-configuration").status_code == 200

    redis_server.start()  # empty again: the session is gone, so sign in anew
    back = web.client.get("/")
    assert back.status_code == 303
    assert back.headers["Location"] == "/signin"
    web.sign_in("provider@example.com")
    assert web.client.get("/").status_code == 200
