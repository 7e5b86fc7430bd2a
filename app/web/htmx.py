"""Page or fragment: the helpers every UI view answers through (STYLE §6).

`render` returns the whole page, or — for a *partial* request — the named block of the same
template alone, plus the `#messages` region out of band when messages are pending. `see_other`
is post/redirect/get for both kinds of request. Views never read `HX-*` headers themselves.

We do not use the `htmx-flask` package: its only release (0.1.0, 2022) replaces Flask's request
class, offers none of these helpers and ships a broken `RESWAPS` list; these twenty lines are
simpler. Must not call the API.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Response, current_app, render_template, request, session

VARY = ("HX-Request", "HX-Boosted", "HX-History-Restore-Request")


def is_htmx() -> bool:
    """Whether htmx sent the request at all (boosted navigation included)."""
    return "HX-Request" in request.headers


def is_partial() -> bool:
    """Whether to answer with a fragment: htmx asked, and not for a whole page."""
    headers = request.headers
    return ("HX-Request" in headers and "HX-Boosted" not in headers
            and "HX-History-Restore-Request" not in headers)


def _vary(response: Response) -> Response:
    for header in VARY:
        response.vary.add(header)
    return response


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
           headers: dict[str, str] | None = None, **context: Any) -> Response:
    """The page, or for a partial request its `fragment` block plus pending messages."""
    if fragment is not None and is_partial():
        body = render_block(template, fragment, **context) + messages_oob()
    else:
        body = render_template(template, **context)
    return _vary(Response(body, status=status, headers=headers, mimetype="text/html"))


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
    return _vary(Response(body, status=status, mimetype="text/html"))


def see_other(url: str) -> Response:
    """After success: 303 to `url`, or for a partial request let htmx load it as a page.

    `HX-Location` makes htmx fetch `url` and swap it into the body like boosted navigation; the
    `HX-Boosted` header it sends along makes that view answer with its whole page.
    """
    if is_partial():
        location = {"path": url, "target": "body", "swap": "innerHTML",
                    "headers": {"HX-Boosted": "true"}}
        response = Response(status=204, headers={"HX-Location": json.dumps(location)})
    else:
        response = Response(status=303, headers={"Location": url})
    return _vary(response)


def leave_to(url: str) -> Response:
    """Send the browser to `url` with a full page load (e.g. to sign in at another origin)."""
    if is_htmx():
        return _vary(Response(status=204, headers={"HX-Redirect": url}))
    return _vary(Response(status=303, headers={"Location": url}))
