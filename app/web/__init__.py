"""The staff UI: area blueprints, server-side sessions, sign-in, CSRF, headers and error pages.

`init_app` wires it into the one Flask app. The UI reaches the API only through `ApiClient` —
in-process over httpx's WSGI transport by default, over HTTP when `SHIFTDESK_API_URL` is set.
Must never import `app.api`, `app.idp` or SQLAlchemy (import-linter checks it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import httpx
from flask import Blueprint, Flask, Response, current_app, g, request
from flask import session as flask_session
from flask_compress import Compress

from app.client import build_http
from app.config import Settings
from app.web import assets, auth, errors, filters, htmx, links, nav, security
from app.web import session as sessions
from app.web.appointment_types.views import bp as appointment_types_bp
from app.web.appointments.views import bp as appointments_bp
from app.web.audit.views import bp as audit_bp
from app.web.availability.views import bp as availability_bp
from app.web.balance_resets.views import bp as balance_resets_bp
from app.web.clock.views import bp as clock_bp
from app.web.demand_forecast.views import bp as demand_forecast_bp
from app.web.home.views import bp as home_bp
from app.web.manage_schedule.views import bp as manage_schedule_bp
from app.web.manage_time_off.views import bp as manage_time_off_bp
from app.web.manage_timesheets.views import bp as manage_timesheets_bp
from app.web.notifications.views import bp as notifications_bp
from app.web.notifications.views import unread_count
from app.web.pay_rules.views import bp as pay_rules_bp
from app.web.people.views import bp as people_bp
from app.web.permissions.views import bp as permissions_bp
from app.web.reports.views import bp as reports_bp
from app.web.settings.views import bp as settings_bp
from app.web.shifts.views import bp as shifts_bp
from app.web.signin.views import bp as signin_bp
from app.web.slots.views import bp as slots_bp
from app.web.swaps.views import bp as swaps_bp
from app.web.time_off.views import bp as time_off_bp
from app.web.timecard.views import bp as timecard_bp

# Every area of the UI, in registration order. A new area adds its blueprint here (and its
# entry in `app.web.nav.NAV` makes it appear in the menu).
AREAS: tuple[Blueprint, ...] = (
    home_bp, signin_bp,
    clock_bp, timecard_bp, shifts_bp, time_off_bp,  # providers (issue 5)
    manage_time_off_bp, manage_timesheets_bp, manage_schedule_bp,  # managers (issue 6)
    slots_bp, appointments_bp, appointment_types_bp,  # schedulers (issue 7)
    pay_rules_bp,  # administrators
    balance_resets_bp,  # administrators
    reports_bp,  # administrators and managers (issue 19)
    settings_bp,  # administrators (issue 19)
    audit_bp,  # administrators (issue 19)
    demand_forecast_bp,  # managers and administrators (issue 18)
    people_bp,  # administrators (issue 19)
    permissions_bp,  # administrators (issue 19, beta)
    availability_bp,  # providers (issue 21)
    notifications_bp,  # everyone signed in (issue 21)
    swaps_bp,  # providers and managers (issue 21)
)


@dataclass
class WebState:
    """What the UI keeps per app: settings, the HTTP client to the API, the OIDC client."""

    settings: Settings
    http: httpx.Client
    oidc: auth.Oidc
    blueprints: set[str] = field(default_factory=set)


def _nav_menu() -> list[nav.NavItem]:
    """The signed-in user's menu; on error pages, none rather than another error."""
    if not auth.signed_in():
        return []
    try:
        return nav.menu(auth.current_user(), current_app.view_functions)
    except Exception:
        if g.get("shiftdesk_error"):
            return []
        raise


def _nav_groups() -> list[tuple[nav.Group, list[nav.NavItem]]]:
    """The signed-in user's menu by kind of work; on error pages, none."""
    if not auth.signed_in():
        return []
    try:
        return nav.header(auth.current_user(), current_app.view_functions)
    except Exception:
        if g.get("shiftdesk_error"):
            return []
        raise


def _user_name() -> str | None:
    user = flask_session.get(auth.USER_KEY) if flask_session else None
    if isinstance(user, dict):
        return user.get("name") or user.get("email")
    return None


def _compressor(app: Flask, state: WebState) -> None:
    """Compress UI pages and static files (brotli, zstd or gzip, as the browser accepts).

    /v1 and /auth answer uncompressed: the UI's in-process calls would pay to compress and
    decompress every JSON body, and API clients behind a proxy get compression there.
    """
    app.config.setdefault("COMPRESS_REGISTER", False)
    compress = Compress(app)

    def compressed(response: Response) -> Response:
        if request.endpoint in security.STATIC_ENDPOINTS and response.status_code == 200:
            # A static file is a stream; read it into memory (it closes with the response)
            # so it is compressed whole, with a Content-Length, like a page.
            response.direct_passthrough = False
            response.make_sequence()
        elif request.blueprint not in state.blueprints:
            return response
        return compress.after_request(response)

    app.after_request(compressed)


def register_area(app: Flask, blueprint: Blueprint) -> None:
    """Register a UI area: its views get the sign-in guard, the CSRF check and the HTML errors."""
    app.register_blueprint(blueprint)
    app.extensions["shiftdesk_web"].blueprints.add(blueprint.name)


def _when_sessions_are_down(issuer_path: str) -> Callable[[], Response | None]:
    def answer() -> Response | None:
        """A UI page while the session store (Redis) is unreachable: a clear 503 page (static
        files, the API and the sign-in provider need no UI session and carry on)."""
        if (not sessions.store_down() or request.endpoint in security.STATIC_ENDPOINTS
                or not security.is_ui_path(request.path, issuer_path=issuer_path)):
            return None
        return errors.error_page(
            503, title="Shiftdesk is briefly unavailable",
            detail="Pages are paused while a part of the server restarts. Nothing you saved is "
                   "lost. Wait a moment, then reload the page.",
            headers={"Retry-After": "30"})
    return answer


def init_app(app: Flask, settings: Settings | None = None) -> WebState:
    """Attach the staff UI to `app`."""
    settings = settings or app.config["SHIFTDESK"]
    issuer = (settings.oidc_issuer or settings.issuer).rstrip("/")
    # The embedded provider's pages (mounted at the path of `settings.issuer`) keep their own
    # error handlers and headers, like /v1.
    issuer_path = urlsplit(settings.issuer).path.rstrip("/")
    http = (build_http(base_url=settings.api_url) if settings.api_url
            else build_http(wsgi_app=app))
    state = WebState(settings=settings, http=http, oidc=auth.build_oidc(app, settings))
    app.extensions["shiftdesk_web"] = state

    htmx.install(app)  # request.htmx, for every request of the app
    sessions.install(app, settings)
    # First: without its sessions nothing else of the UI can work.
    app.before_request(_when_sessions_are_down(issuer_path))
    app.before_request(auth.require_sign_in)  # before the CSRF check: expired → sign in
    security.install(app, issuer=issuer, issuer_path=issuer_path)
    errors.install(app, issuer_path=issuer_path)
    filters.install(app, settings.zone)
    assets.install(app)
    links.install(app)
    _compressor(app, state)
    for blueprint in AREAS:
        register_area(app, blueprint)

    globals_: dict[str, Any] = {
        "nav_menu": _nav_menu,
        "nav_groups": _nav_groups,
        "signed_in": auth.signed_in,
        "user_name": _user_name,
        "unread_notifications": unread_count,
        "read_only": errors.read_only,
    }
    app.jinja_env.globals.update(globals_)
    return state
