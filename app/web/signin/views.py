"""Sign-in and sign-out views (blueprint `signin`): `/signin`, `/signin/callback`, `/signout`,
`/signed-out`.

`/signin?next=/path` sends the browser to the OpenID provider and `/signin/callback` brings it
back to `next` — only ever a path on this site. Sign-out forgets the session and ends the
provider's too. Must not show or log a token.
"""

from __future__ import annotations

import logging

from authlib.integrations.base_client import OAuthError
from authlib.jose.errors import JoseError
from flask import Blueprint, Response, current_app, request, session, url_for

from app.web.auth import (
    AUTH_KEY,
    USER_KEY,
    Oidc,
    SignInUnavailable,
    forget_sign_in,
    signed_in,
    store_tokens,
)
from app.web.htmx import leave_to, render
from app.web.security import CSRF_FIELD, public, safe_next

bp = Blueprint("signin", __name__)
log = logging.getLogger(__name__)
NEXT_KEY = "signin_next"


def _oidc() -> Oidc:
    oidc: Oidc = current_app.extensions["shiftdesk_web"].oidc
    return oidc


@bp.get("/signin")
@public
def start() -> Response:
    """Send the browser to the sign-in provider, remembering where to come back to."""
    target = safe_next(request.args.get("next"))
    if "HX-Request" in request.headers:  # a cross-site redirect needs a full page load
        return leave_to(request.full_path)
    if signed_in():
        return leave_to(target)
    session[NEXT_KEY] = target
    response = _oidc().authorize_redirect(url_for("signin.callback", _external=True))
    response.status_code = 303
    return response


@bp.get("/signin/callback")
@public
def callback() -> Response:
    """Take the provider's answer: keep the tokens on the server and go where the user wanted."""
    error = request.args.get("error")
    if error:
        return _failed(request.args.get("error_description") or error)
    try:
        token = _oidc().authorize_access_token()
    except SignInUnavailable:
        raise
    except (OAuthError, JoseError, KeyError) as exc:
        log.info("sign-in callback refused: %s", exc.__class__.__name__)
        return _failed("The sign-in attempt expired or was already used.")
    target = safe_next(session.pop(NEXT_KEY, None))
    # A new session id on sign-in, so an id planted before it is worth nothing (fixation).
    current_app.session_interface.regenerate(session)  # type: ignore[attr-defined]
    session.pop(CSRF_FIELD, None)  # and a new CSRF secret: none from before sign-in carries on
    session.permanent = True
    session[AUTH_KEY] = store_tokens(token)
    info = token.get("userinfo") or {}
    session[USER_KEY] = {"name": info.get("name"), "email": info.get("email")}
    return leave_to(target)


def _failed(reason: str) -> Response:
    return render("signin/failed.html", status=400, reason=reason)


@bp.get("/signout")
@public
def confirm_sign_out() -> Response:
    """Ask before signing out (the header's button posts straight away)."""
    if not signed_in():
        return leave_to(url_for("signin.signed_out"))
    return render("signin/confirm_sign_out.html")


@bp.post("/signout")
@public
def sign_out() -> Response:
    """Forget the session here and end it at the provider too."""
    id_token = (session.get(AUTH_KEY) or {}).get("id_token")
    forget_sign_in()
    session.clear()
    back = url_for("signin.signed_out", _external=True)
    try:
        end_session = _oidc().metadata().get("end_session_endpoint")
    except SignInUnavailable:
        end_session = None
    if not end_session:
        return leave_to(back)
    fields = {"post_logout_redirect_uri": back,
              "client_id": current_app.config["SHIFTDESK"].oidc_client_id}
    if id_token:
        fields["id_token_hint"] = id_token
    # Posted, not put in a URL: an ID token in a query string ends up in logs and history
    # (OpenID Connect RP-Initiated Logout lets the provider take the same fields as a form).
    return render("signin/leaving.html", end_session=end_session, fields=fields)


@bp.get("/signed-out")
@public
def signed_out() -> Response:
    """Say the user has signed out and offer to sign in again."""
    return render("signin/signed_out.html")
