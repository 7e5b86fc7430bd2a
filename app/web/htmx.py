"""Page or fragment: the helpers every UI view answers through (STYLE §6).

`render` returns the whole page, or — for a *partial* request — the named block of the same
template alone, plus the `#messages` region out of band when messages are pending. `see_other`
is post/redirect/get for both kinds of request. Views never read `HX-*` headers themselves.

Built on htmx-flask: `install` registers its extension, whose request class parses the headers
htmx sends into `request.htmx`; responses get their `HX-*` headers from its `make_response`.
Two things to know about its only release (0.1.0): the request class is swapped app-wide (the
API's and IdP's requests carry the unused attribute too), and its list of `HX-Reswap` values
runs "beforebegin" "afterbegin" together (a missing comma), so it refuses both; `_respond` sets
that header itself for those two. tests/web/test_htmx.py pins what we rely on. Must not call
the API.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Request, Response, current_app, g, render_template, session
from htmx_flask import Htmx, make_response, request
from htmx_flask.requests import HtmxAwareRequest

VARY = ("HX-Request", "HX-Boosted", "HX-History-Restore-Request")

RESWAP_STYLES = ("innerHTML", "outerHTML", "beforebegin", "afterbegin", "beforeend", "afterend",
                 "delete", "none")
"""The `HX-Reswap` values a view may ask for (https://htmx.org/attributes/hx-swap/)."""

_RESWAPS_HTMX_FLASK_REFUSES = ("beforebegin", "afterbegin")


def install(app: Flask) -> None:
    """Register htmx-flask, which gives every request of `app` its `request.htmx`."""
    if not (app.request_class is Request or issubclass(app.request_class, HtmxAwareRequest)):
        # htmx-flask replaces the request class outright; a custom one would be lost silently.
        raise RuntimeError(f"app.request_class is already {app.request_class!r}")
    Htmx(app)


def is_htmx() -> bool:
    """Whether htmx sent the request at all (boosted navigation included)."""
    return bool(request.htmx)


def is_partial() -> bool:
    """Whether to answer with a fragment: htmx asked, and not for a whole page."""
    htmx = request.htmx
    return bool(htmx) and not htmx.boosted and not htmx.history_restore_request


def target() -> str | None:
    """The id of the element htmx will swap the answer into (`HX-Target`), if it has one.

    The response then varies on that header too.
    """
    _vary_also("HX-Target")
    return request.htmx.target


def trigger() -> str | None:
    """The id of the element that sent the request (`HX-Trigger`), if it has one.

    The response then varies on that header too.
    """
    _vary_also("HX-Trigger")
    return request.htmx.trigger


def _vary_also(header: str) -> None:
    extra: set[str] = g.setdefault("htmx_vary", set())
    extra.add(header)


def _vary(response: Response) -> Response:
    for header in (*VARY, *sorted(g.get("htmx_vary", ()))):
        response.vary.add(header)
    return response


def _respond(body: str, status: int, headers: dict[str, str] | None = None, *,
             location: dict[str, Any] | None = None, redirect: str | None = None,
             reswap: str | None = None, retarget: str | None = None) -> Response:
    """A text/html response with its `HX-*` headers and `Vary`."""
    if reswap is not None and reswap not in RESWAP_STYLES:
        raise ValueError(f"HX-Reswap must be one of {RESWAP_STYLES}, not {reswap!r}")
    refused = reswap in _RESWAPS_HTMX_FLASK_REFUSES
    response = make_response(body, status, headers or {}, location=location, redirect=redirect,
                             reswap=None if refused else reswap, retarget=retarget)
    if refused:
        # htmx-flask 0.1.0's RESWAPS reads `"beforebegin" "afterbegin",`: one string, so its
        # make_response raises ValueError for either style, though htmx accepts both.
        response.headers["HX-Reswap"] = str(reswap)
    return _vary(response)


def messages_pending() -> bool:
    """Whether flashed messages wait to be shown (without consuming them)."""
    return bool(session.get("_flashes")) if session else False


def messages_oob() -> str:
    """The `#messages` region marked for an out-of-band swap (empty when nothing is pending)."""
    if not messages_pending():
        return ""
    return render_template("_partials/messages.html", oob=True)


def render_block(template: str, block: str, **context: Any) -> str:
    """Render one block of `template` alone, with the same context a full render gets."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    compiled = app.jinja_env.get_or_select_template(template)
    app.update_template_context(context)
    return "".join(compiled.blocks[block](compiled.new_context(context)))


def render(template: str, *, fragment: str | None = None, status: int = 200,
           headers: dict[str, str] | None = None, reswap: str | None = None,
           retarget: str | None = None, **context: Any) -> Response:
    """The page, or for a partial request its `fragment` block plus pending messages.

    `reswap` and `retarget` (`HX-Reswap`, `HX-Retarget`) change where htmx puts the answer.
    A whole page asked for by boosted navigation always replaces the body: a boosted link
    inside an element with `hx-target` (a Cancel link in a form that swaps one region) inherits
    that target, and would otherwise nest the page inside the region.
    """
    if fragment is not None and is_partial():
        body = render_block(template, fragment, **context) + messages_oob()
    else:
        body = render_template(template, **context)
        if retarget is None and request.htmx.boosted and target() is not None:
            retarget, reswap = "body", reswap or "innerHTML"
    return _respond(body, status, headers, reswap=reswap, retarget=retarget)


def render_macro(template: str, macro: str, *args: Any, status: int = 200, **kwargs: Any,
                 ) -> Response:
    """One macro of `template` (a per-record fragment such as a table row), plus messages."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    context: dict[str, Any] = {}
    app.update_template_context(context)
    module = app.jinja_env.get_template(template).make_module(context)
    body = str(getattr(module, macro)(*args, **kwargs))
    if is_partial():
        body += messages_oob()
    return _respond(body, status)


def see_other(url: str) -> Response:
    """After success: 303 to `url`, or for a partial request let htmx load it as a page.

    `HX-Location` makes htmx fetch `url` and swap it into the body like boosted navigation; the
    `HX-Boosted` header it sends along makes that view answer with its whole page.
    """
    if is_partial():
        return _respond("", 204, location={"path": url, "target": "body", "swap": "innerHTML",
                                           "headers": {"HX-Boosted": "true"}})
    return _respond("", 303, {"Location": url})


def leave_to(url: str) -> Response:
    """Send the browser to `url` with a full page load (e.g. to sign in at another origin)."""
    if is_htmx():
        return _respond("", 204, redirect=url)
    return _respond("", 303, {"Location": url})
