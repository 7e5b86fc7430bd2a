"""The home page (blueprint `home`): `/` sends visitors to sign in and shows each signed-in user
the kinds of work they do, linking into every area that exists for them (and, for administrators,
the /v1 API's documents). Reads `GET /v1/users/me` only; links only to pages that exist.
"""

from __future__ import annotations

from flask import Blueprint, Response, current_app, redirect, send_from_directory, url_for

from app.web import nav
from app.web.auth import access_token, current_user, signed_in
from app.web.htmx import render
from app.web.security import public

bp = Blueprint("home", __name__)


@bp.get("/")
@public
def index() -> Response:
    """The signed-in user's home; a visitor who has not signed in goes straight to sign-in."""
    if not signed_in():
        return redirect(url_for("signin.start"), 303)
    access_token()  # an expired session goes to sign in and comes back here
    me = current_user()
    return render("home/index.html", fragment="home_areas", me=me,
                  groups=nav.groups(me, current_app.view_functions), href=_href)


def _href(item: nav.NavItem) -> str:
    """Where a home-page link goes: the area's page, or an API document at the API's address."""
    api_url = current_app.extensions["shiftdesk_web"].settings.api_url
    if api_url and item in nav.API_DOCS:
        return api_url.rstrip("/") + item.path
    return url_for(item.endpoint)


@bp.get("/favicon.ico")
@public
def favicon() -> Response:
    """The site icon, for browsers that ask for it at the conventional address."""
    static = current_app.static_folder
    assert static is not None
    response = send_from_directory(static, "favicon.svg", mimetype="image/svg+xml")
    response.cache_control.max_age = 86400
    return response
