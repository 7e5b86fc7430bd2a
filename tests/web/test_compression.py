"""Compression: UI pages and static files travel compressed; /v1 answers stay plain JSON."""

from __future__ import annotations

import gzip
import re

import brotli

_CSRF = re.compile(rb'"X-CSRF-Token": "[^"]+"|name="csrf_token" value="[^"]+"')


def _without_csrf(page: bytes) -> bytes:
    """The page with its CSRF tokens blanked: a token is signed with the second it was made,
    so two requests a second apart differ there and nowhere else."""
    return _CSRF.sub(b"CSRF", page)


def test_signed_in_page_is_sent_with_brotli_when_accepted(web):
    web.sign_in("provider@example.com")
    plain = web.client.get("/")
    response = web.client.get("/", headers={"Accept-Encoding": "br, gzip"})
    assert response.headers["Content-Encoding"] == "br"
    assert "Accept-Encoding" in response.headers["Vary"]
    assert _without_csrf(brotli.decompress(response.get_data())) == _without_csrf(
        plain.get_data())
    assert len(response.get_data()) < len(plain.get_data()) / 2


def test_static_file_is_sent_gzipped_to_a_browser_without_brotli(web):
    with web.client.get("/static/vendor/htmx.min.js",
                        headers={"Accept-Encoding": "gzip"}) as response:
        assert response.headers["Content-Encoding"] == "gzip"
        assert gzip.decompress(response.get_data()).startswith(b"var htmx")


def test_page_is_plain_without_accept_encoding(web):
    web.sign_in("provider@example.com")
    response = web.client.get("/")
    assert "Content-Encoding" not in response.headers
    assert b"<!doctype html>" in response.get_data()


def test_api_answers_are_not_compressed(web):
    token = web.sign_in("provider@example.com")
    response = web.client.get("/v1/users/me", headers={"Authorization": f"Bearer {token}",
                                                       "Accept-Encoding": "br, gzip"})
    assert response.status_code == 200
    assert "Content-Encoding" not in response.headers
    assert response.get_json()["email"] == "provider@example.com"
