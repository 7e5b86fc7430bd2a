"""The stylesheet bundle: every page links one stylesheet, named by its content, cached for a
year, compressed, holding every rule of the files it joins, and served to anyone (signed out,
or while the session store is down)."""

from __future__ import annotations

import re
from pathlib import Path

import brotli

from app.web.assets import STYLESHEETS, without_comments

STATIC = Path(__file__).resolve().parents[2] / "app" / "static"
_LINK = re.compile(r'<link rel="stylesheet" href="([^"]+)"')


def _stylesheets(html: str) -> list[str]:
    return _LINK.findall(html)


def test_a_page_links_one_stylesheet_holding_every_file_in_order(web):
    web.sign_in("manager@example.com")
    links = _stylesheets(web.client.get("/").get_data(as_text=True))
    assert len(links) == 1
    assert re.fullmatch(r"/assets/styles-[0-9a-f]{16}\.css", links[0])
    response = web.client.get(links[0])
    assert response.status_code == 200
    assert response.mimetype == "text/css"
    assert response.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    body = response.get_data(as_text=True)
    where = [body.index(without_comments((STATIC / name).read_text())) for name in STYLESHEETS]
    assert where == sorted(where)  # the cascade order of the files is kept
    assert "/* The " not in body  # the files' notes to their readers are left out


def test_leaving_out_comments_keeps_strings_that_look_like_them():
    css = 'a { content: "/* kept */"; } /* dropped\n  over lines */ b { x: url(\'/*.png\'); }'
    assert without_comments(css) == 'a { content: "/* kept */"; }  b { x: url(\'/*.png\'); }'


def test_the_bundle_needs_no_session_and_is_the_same_for_everyone(web):
    web.sign_in("provider@example.com")
    provider = _stylesheets(web.client.get("/").get_data(as_text=True))
    signed_out = web.app.test_client().get(provider[0])
    assert signed_out.status_code == 200
    assert "Set-Cookie" not in signed_out.headers
    web.sign_in("admin@example.com")
    assert _stylesheets(web.client.get("/").get_data(as_text=True)) == provider


def test_an_older_address_gets_the_current_bundle_uncached(web):
    web.sign_in("provider@example.com")
    current = web.client.get(_stylesheets(web.client.get("/").get_data(as_text=True))[0])
    stale = web.client.get("/assets/styles-0000000000000000.css")
    assert stale.status_code == 200
    assert stale.headers["Cache-Control"] == "no-cache"
    assert stale.get_data() == current.get_data()


def test_the_bundle_travels_compressed_and_smaller_than_its_files_apart(web):
    web.sign_in("scheduler@example.com")
    link = _stylesheets(web.client.get("/").get_data(as_text=True))[0]
    plain = web.client.get(link).get_data()
    response = web.client.get(link, headers={"Accept-Encoding": "br, gzip"})
    assert response.headers["Content-Encoding"] == "br"
    assert brotli.decompress(response.get_data()) == plain
    apart = 0
    for name in STYLESHEETS:  # each file compressed as the server sends it
        with web.client.get(f"/static/{name}", headers={"Accept-Encoding": "br"}) as file:
            apart += len(file.get_data())
    assert len(response.get_data()) < apart
