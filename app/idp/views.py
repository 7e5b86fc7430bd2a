"""The `/auth` pages and endpoints: discovery, JWKS, authorize (with the sign-in page), token,
userinfo, RP-initiated logout and the direct sign-in page.

Thin views: authlib's grants (`app.idp.server`) decide about OAuth requests, `app.idp.accounts`
about passwords and lockouts, `app.idp.cookies` keeps the IdP session. Every response gets strict
security headers; pages carry no inline script. Must not import `app.web`.
"""

from __future__ import annotations

import logging
import math
import re
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from authlib.common.urls import add_params_to_uri
from authlib.oauth2.rfc6749 import OAuth2Error
from authlib.oidc.core.errors import LoginRequiredError
from flask import (
    Blueprint,
    Response,
    current_app,
    g,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_limiter.errors import RateLimitExceeded
from werkzeug.datastructures import MultiDict

from app.api.db import Database
from app.api.limits import rate_limited_problem, retry_after
from app.api.models import IdpSignIn
from app.api.problems import problem_response
from app.api.tokens import TokenInvalid, Verifier, public_jwks
from app.config import Settings
from app.idp import password_links
from app.idp.accounts import Refused, active_user, authenticate
from app.idp.cookies import IdpSession, SessionCookies
from app.idp.passwords import MAX_PASSWORD_LENGTH
from app.idp.ratelimit import Lockout
from app.idp.redirects import is_local_path, origin_of
from app.idp.server import IdpRequest, IdpServer, revoke_family, revoke_sign_in

log = logging.getLogger(__name__)

bp = Blueprint("idp", __name__, url_prefix="/auth")

DEMO_PASSWORD = "demo"
DEMO_ACCOUNTS = (
    ("admin@example.com", "administrator: everything"),
    ("manager@example.com", "unit manager: time off, timesheets, team schedule"),
    ("scheduler@example.com", "scheduler: appointments and slot search"),
    ("provider@example.com", "nurse: clock in and out, shifts, time off"),
)
"""The accounts `shiftdesk init --demo` creates, listed on the sign-in page of a demo server."""
MAX_EMAIL_LENGTH = 254
WRONG_CREDENTIALS = "The email address or password is not right."


@dataclass
class IdpState:
    """What the IdP keeps per app."""

    settings: Settings
    db: Database
    verifier: Verifier
    server: IdpServer
    cookies: SessionCookies


def _state() -> IdpState:
    return current_app.extensions["shiftdesk_idp"]


def _browser() -> IdpSession:
    """This browser's IdP session (a new anonymous one, set on the response, if it has none).

    A signed-in cookie counts only while the server's record of that sign-in is live: signing
    out ends the record, so a copy of the cookie kept from before signs nobody in.
    """
    if "idp_session" not in g:
        loaded = _state().cookies.load(request, now=int(time.time()))
        if loaded is None:
            loaded = IdpSession.anonymous()
            g.idp_cookie = "save"
        elif loaded.user_id is not None and not _live(loaded):
            loaded = IdpSession(csrf_seed=loaded.csrf_seed)
            g.idp_cookie = "save"
        g.idp_session = loaded
    return g.idp_session


def _live(browser: IdpSession) -> bool:
    """Whether the server still holds the browser's sign-in: not ended, not expired, its own."""
    with _state().db.unit_of_work() as session:
        row = session.get(IdpSignIn, browser.sign_in_id)
        return (row is not None and row.ended_at is None and row.user_id == browser.user_id
                and row.expires_at > datetime.now(UTC))


def _start_sign_in(user_id: uuid.UUID, now: datetime) -> IdpSession:
    """Hold a new sign-in of `user_id` on the server; answer the browser's session for it."""
    ttl = timedelta(seconds=_state().settings.idp_session_ttl)
    with _state().db.unit_of_work(write=True) as session:
        row = IdpSignIn(user_id=user_id, auth_time=now, expires_at=now + ttl)
        session.add(row)
        session.flush()
        sign_in_id = row.id
    return IdpSession.signed_in(user_id, int(now.timestamp()), sign_in_id)


def _end_browser_sign_in(browser: IdpSession) -> None:
    """End the browser's sign-in on the server and revoke every refresh token issued under it."""
    if browser.sign_in_id is None:
        return
    now = datetime.now(UTC)
    with _state().db.unit_of_work(write=True) as session:
        row = session.get(IdpSignIn, browser.sign_in_id, with_for_update=True)
        if row is not None and row.ended_at is None:
            row.ended_at = now
        revoke_sign_in(session, browser.sign_in_id, now=now)


def _remember(idp_session: IdpSession) -> None:
    g.idp_session = idp_session
    g.idp_cookie = "save"


def _forget() -> None:
    g.idp_session = IdpSession.anonymous()
    g.idp_cookie = "clear"


def _allow_form_target(uri: str | None) -> None:
    """Let this page's forms end in a redirect to `uri` (CSP `form-action` covers redirects)."""
    origin = origin_of(uri) if uri else None
    if origin:
        g.setdefault("idp_form_targets", set()).add(origin)


@bp.after_request
def _finish(response: Response) -> Response:
    state = _state()
    action = g.pop("idp_cookie", None)
    if action == "save":
        state.cookies.save(response, request, g.idp_session)
    elif action == "clear":
        state.cookies.clear(response, request)
    targets = " ".join(sorted(g.get("idp_form_targets", ())))
    response.headers["Content-Security-Policy"] = (
        "default-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; "
        f"form-action 'self'{' ' + targets if targets else ''}"
    )
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers.setdefault("Cache-Control", "no-store")
    return response


def _error_page(status: int, heading: str, detail: str) -> Response:
    return make_response(render_template("idp/error.html", heading=heading, detail=detail), status)


def _csrf_refused() -> Response:
    return _error_page(400, "This form has expired",
                       "The page was open too long or cookies are blocked. Go back, reload the "
                       "page and try again.")


def _csrf_ok() -> bool:
    state = _state()
    return state.cookies.csrf_ok(_browser(), request.form.get("csrf_token"))


# --- the sign-in form ---------------------------------------------------------------------------


def _signin_page(
    action: str,
    *,
    email: str = "",
    errors: dict[str, str] | None = None,
    form_errors: list[str] | None = None,
    status: int = 200,
    headers: dict[str, str] | None = None,
) -> Response:
    state = _state()
    html = render_template(
        "idp/signin.html",
        action=action,
        email=email,
        errors=errors or {},
        form_errors=form_errors or [],
        has_errors=bool(errors or form_errors),
        csrf_token=state.cookies.csrf_token(_browser()),
        demo_accounts=DEMO_ACCOUNTS if state.settings.demo else (),
        demo_password=DEMO_PASSWORD,
    )
    return make_response(html, status, headers or {})


def _read_credentials(form: MultiDict[str, str]) -> tuple[str, str, dict[str, str]]:
    email = (form.get("email") or "").strip()
    password = form.get("password") or ""
    errors: dict[str, str] = {}
    if not email:
        errors["email"] = "Enter your email address."
    elif len(email) > MAX_EMAIL_LENGTH or "@" not in email:
        errors["email"] = "Enter an email address like name@example.org."
    if not password:
        errors["password"] = "Enter your password."
    elif len(password) > MAX_PASSWORD_LENGTH:
        errors["password"] = f"Passwords have at most {MAX_PASSWORD_LENGTH} characters."
    return email, password, errors


def _sign_in(action: str) -> tuple[Response | None, uuid.UUID | None]:
    """Check the posted credentials: the page to re-render, or the id of who signed in."""
    state = _state()
    email, password, errors = _read_credentials(request.form)
    if errors:
        return _signin_page(action, email=email, errors=errors, status=422), None
    now = datetime.now(UTC)
    result = authenticate(state.db, email=email, password=password,
                          client_ip=request.remote_addr or "unknown", settings=state.settings,
                          now=now)
    if isinstance(result, Lockout):
        seconds = max(1, math.ceil((result.retry_at - now).total_seconds()))
        minutes = math.ceil(seconds / 60)
        message = (f"Too many failed sign-in attempts. Try again in {minutes} "
                   f"minute{'s' if minutes != 1 else ''}.")
        log.warning("sign-in locked for %r from %r", email.lower(), request.remote_addr)
        return _signin_page(action, email=email, form_errors=[message], status=429,
                            headers={"Retry-After": str(seconds)}), None
    if isinstance(result, Refused):
        return _signin_page(action, email=email, errors={"password": WRONG_CREDENTIALS},
                            status=422), None
    _remember(_start_sign_in(result.user_id, now))
    return None, result.user_id


# --- discovery and keys -------------------------------------------------------------------------


@bp.get("/.well-known/openid-configuration")
def discovery() -> Response:
    """The OpenID Provider metadata."""
    response = jsonify(_state().server.discovery())
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


@bp.get("/jwks")
def jwks() -> Response:
    """The public keys that verify access and ID tokens."""
    response = jsonify(public_jwks(_state().server.key))
    response.headers["Cache-Control"] = "public, max-age=300"
    return response


# --- authorization endpoint ---------------------------------------------------------------------


def _authorize_action() -> str:
    query = request.query_string.decode("latin-1")
    return f"{url_for('idp.authorize')}?{query}" if query else url_for("idp.authorize")


_URI_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]*")
"""The characters a URI may hold (RFC 3986 §2): a redirect URI with any other is malformed."""


def _consent_grant(oauth_request: IdpRequest, user: Any) -> tuple[Any, Response | None]:
    """authlib's validated grant, or the response refusing the request.

    Errors go back to the client only once its redirect URI is known to be registered; otherwise
    the person sees an error page here (RFC 6749 §4.1.2.1: never redirect to an unchecked URI).
    A redirect URI with characters no URI may hold is refused here first: authlib would quote
    it in an error description that RFC 6749 §5.2 forbids those characters in.
    """
    server = _state().server
    redirect_uri = oauth_request.payload.data.get("redirect_uri") or ""
    if not _URI_CHARACTERS.fullmatch(redirect_uri):
        return None, _error_page(400, "This sign-in link is not valid",
                                 "The address to return to after signing in is malformed; "
                                 "start again from the application.")
    try:
        return server.get_consent_grant(oauth_request, end_user=user), None
    except OAuth2Error as error:
        if error.redirect_uri:
            return None, server.handle_error_response(oauth_request, error)
        return None, _error_page(400, "This sign-in link is not valid",
                                 error.description or error.error)


def _needs_sign_in(oauth_request: IdpRequest, browser: IdpSession, user: Any) -> bool:
    data = oauth_request.payload.data
    if user is None or browser.auth_time is None:
        return True
    if "login" in (data.get("prompt") or "").split():
        return True
    max_age = data.get("max_age") or ""
    return max_age.isdigit() and time.time() - browser.auth_time > int(max_age)


@bp.route("/authorize", methods=["GET", "POST"])
def authorize() -> Response:
    """Start or continue an authorization request: sign in if needed, then send a code back."""
    state = _state()
    browser = _browser()
    action = _authorize_action()
    if request.method == "POST":
        if not _csrf_ok():
            return _csrf_refused()
        with state.db.unit_of_work() as session:
            grant, refused = _consent_grant(IdpRequest(request, session), None)
        if refused is not None:
            return refused
        _allow_form_target(grant.redirect_uri)
        page, user_id = _sign_in(action)
        if page is not None:
            return page
        browser = _browser()
    else:
        user_id = browser.user_id
    with state.db.unit_of_work(write=True) as session:
        user = active_user(session, user_id) if user_id else None
        oauth_request = IdpRequest(request, session, auth_time=browser.auth_time,
                                   sign_in_id=browser.sign_in_id)
        grant, refused = _consent_grant(oauth_request, user)
        if refused is not None:
            return refused
        if request.method == "GET" and _needs_sign_in(oauth_request, browser, user):
            if "none" in (oauth_request.payload.data.get("prompt") or "").split():
                return state.server.handle_error_response(oauth_request, LoginRequiredError(
                    redirect_uri=grant.redirect_uri, state=oauth_request.payload.state))
            _allow_form_target(grant.redirect_uri)
            hint = oauth_request.payload.data.get("login_hint") or ""
            return _signin_page(action, email=hint if "@" in hint else "")
        if user is None:  # signed in a moment ago, dismissed since
            return _signin_page(action, errors={"password": WRONG_CREDENTIALS}, status=422)
        return state.server.create_authorization_response(oauth_request, grant_user=user,
                                                          grant=grant)


# --- token and userinfo endpoints ---------------------------------------------------------------


@bp.post("/token")
def issue_token() -> Response:
    """Exchange a code (with its PKCE verifier) or a refresh token for tokens."""
    state = _state()
    with state.db.unit_of_work(write=True) as session:
        # Committed even when refused: a replayed code or refresh token revokes its family.
        return state.server.create_token_response(IdpRequest(request, session))


def _bearer_refused(error: str | None) -> Response:
    challenge = f'Bearer error="{error}"' if error else "Bearer"
    response = jsonify({"error": error or "invalid_request"})
    response.status_code = 401
    response.headers["WWW-Authenticate"] = challenge
    return response


@bp.route("/userinfo", methods=["GET", "POST"])
def userinfo() -> Response:
    """Who the bearer access token belongs to: `sub`, `email`, `name`."""
    state = _state()
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return _bearer_refused(None)
    try:
        subject = uuid.UUID(str(state.verifier.verify(token.strip())["sub"]))
    except (TokenInvalid, ValueError):
        return _bearer_refused("invalid_token")
    with state.db.unit_of_work() as session:
        user = active_user(session, subject)
        if user is None:
            return _bearer_refused("invalid_token")
        return jsonify({"sub": str(user.id), "email": user.email, "name": user.name})


# --- logout -------------------------------------------------------------------------------------


@bp.route("/logout", methods=["GET", "POST"])
def logout() -> Response:
    """RP-initiated logout: end the IdP session, then return to a registered page (with `state`)."""
    state = _state()
    browser = _browser()
    params = request.values
    hint = params.get("id_token_hint") or None
    # A POST from the application carries the ID token, which proves it asked (and is checked
    # below); a POST without one is the confirmation form of this page, with its CSRF token.
    asked_here = request.method == "POST" and _csrf_ok()
    if request.method == "POST" and not hint and not asked_here:
        return _csrf_refused()
    client_id = params.get("client_id") or None
    target = params.get("post_logout_redirect_uri") or None
    return_state = params.get("state") or None
    claims = None
    if hint:
        claims = state.server.verify_id_token_hint(hint)
        own_client = state.server.client.client_id
        if claims is None or (client_id and client_id != own_client):
            return _error_page(400, "This sign-out link is not valid",
                               "It does not carry an ID token this server issued.")
        client_id = own_client
    if target:
        client = state.server.query_client(client_id) if client_id else None
        if client is None or not client.check_post_logout_redirect_uri(target):
            return _error_page(400, "This sign-out link is not valid",
                               "The page to return to afterwards is not registered for the "
                               "application.")
    confirmed = (
        asked_here
        or browser.user_id is None
        or (claims is not None and claims.get("sub") == str(browser.user_id))
    )
    if not confirmed:
        _allow_form_target(target)
        return make_response(render_template(
            "idp/logout.html", csrf_token=state.cookies.csrf_token(browser),
            hidden={"id_token_hint": hint, "client_id": client_id,
                    "post_logout_redirect_uri": target, "state": return_state},
        ))
    _end_browser_sign_in(browser)
    _forget()
    if claims is not None:
        _end_sign_in(state, claims)
    if target:
        params_back = [("state", return_state)] if return_state else []
        return redirect(add_params_to_uri(target, params_back), 303)
    return make_response(render_template("idp/signed_out.html"))


def _end_sign_in(state: IdpState, claims: dict[str, Any]) -> None:
    """Revoke the refresh tokens of the sign-in the ID token names (its `sid`)."""
    try:
        family_id = uuid.UUID(str(claims.get("sid")))
    except ValueError:
        return
    with state.db.unit_of_work(write=True) as session:
        revoke_family(session, family_id, now=datetime.now(UTC))


# --- direct sign-in -----------------------------------------------------------------------------


@bp.errorhandler(RateLimitExceeded)
def _rate_limited(_exc: RateLimitExceeded) -> Response:
    """Too many sign-in posts or token requests from one client (`app.api.limits`): the token
    endpoint answers a 429 problem; the sign-in form comes back with how long to wait."""
    seconds = retry_after()
    if request.endpoint == "idp.issue_token":
        return problem_response(rate_limited_problem(
            f"Too many token requests; try again in {seconds} seconds."))
    email = (request.form.get("email") or "").strip()
    message = f"Too many attempts, wait {seconds} second{'s' if seconds != 1 else ''}."
    headers = {"Retry-After": str(seconds)}
    if request.endpoint == "idp.authorize":
        with _state().db.unit_of_work() as session:
            grant, refused = _consent_grant(IdpRequest(request, session), None)
        if refused is not None:
            return refused
        _allow_form_target(grant.redirect_uri)
        return _signin_page(_authorize_action(), email=email, form_errors=[message],
                            status=429, headers=headers)
    next_path = request.args.get("next")
    action = (url_for("idp.signin", next=next_path)
              if next_path and is_local_path(next_path) else url_for("idp.signin"))
    return _signin_page(action, email=email, form_errors=[message], status=429, headers=headers)



@bp.route("/signin", methods=["GET", "POST"])
def signin() -> Response:
    """Sign in to the IdP alone, then go to `next` (a path on this server)."""
    next_path = request.args.get("next")
    if next_path is not None and not is_local_path(next_path):
        return _error_page(400, "This sign-in link is not valid",
                           "The page to return to after signing in must be on this site.")
    action = url_for("idp.signin", next=next_path) if next_path else url_for("idp.signin")
    if request.method == "GET":
        return _signin_page(action)
    if not _csrf_ok():
        return _csrf_refused()
    page, _user_id = _sign_in(action)
    if page is not None:
        return page
    return redirect(next_path or "/", 303)


# --- set-password links -------------------------------------------------------------------------

LINK_REFUSALS = {
    "unknown": ("This link does not work",
                "The link is not right, or it no longer applies to anyone who may sign in. Ask "
                "your administrator for a new set-password link."),
    "used": ("This link has been used",
             "A set-password link works once, and this one has been used (or replaced by a newer "
             "link). If you chose your password with it, sign in; otherwise ask your "
             "administrator for a new link."),
    "expired": ("This link has expired",
                "Set-password links are good for 7 days. Ask your administrator for a new one."),
}


def _set_password_page(token: str, person: password_links.Usable, *,
                       errors: dict[str, str] | None = None, status: int = 200) -> Response:
    html = render_template(
        "idp/set_password.html", person=person, errors=errors or {},
        action=url_for("idp.set_password", token=token),
        csrf_token=_state().cookies.csrf_token(_browser()),
        min_length=password_links.MIN_PASSWORD_LENGTH)
    return make_response(html, status)


def _link_refused(reason: str) -> Response:
    heading, detail = LINK_REFUSALS[reason]
    return make_response(render_template("idp/link_refused.html", heading=heading,
                                         detail=detail), 410 if reason != "unknown" else 404)


@bp.route("/set-password/<token>", methods=["GET", "POST"])
def set_password(token: str) -> Response:
    """Choose a password with a one-time link, then sign in as usual."""
    state = _state()
    now = datetime.now(UTC)
    found = password_links.look_up(state.db, token, now=now)
    if isinstance(found, password_links.Unusable):
        return _link_refused(found.reason)
    if request.method == "GET":
        return _set_password_page(token, found)
    if not _csrf_ok():
        return _csrf_refused()
    password = request.form.get("password") or ""
    errors = password_links.password_problems(password, request.form.get("password_again") or "",
                                              found.email)
    if errors:
        return _set_password_page(token, found, errors=errors, status=422)
    done = password_links.set_password(state.db, token, password, now=now)
    if isinstance(done, password_links.Unusable):
        return _link_refused(done.reason)
    log.info("password set through a link for %r", done.email)
    # The staff UI's home: it starts a sign-in, and the form now takes the new password.
    return make_response(render_template("idp/password_set.html", person=done,
                                         signin_url="/"), 200)
