"""The embedded OpenID Connect provider at `/auth`: discovery, JWKS, authorization code + PKCE,
refresh token rotation, userinfo, RP-initiated logout and the sign-in page.

`init_app` mounts it when the app signs its own tokens; with `jwks_url` set, sign-in belongs to
the external provider and nothing is mounted. May use `app.api`'s database and people; must never
import `app.web`.
"""

from __future__ import annotations

import logging

from flask import Flask

from app.api import ApiState

log = logging.getLogger(__name__)


def init_app(app: Flask, state: ApiState) -> None:
    """Attach the IdP to `app`, sharing the API's settings, database and signing key."""
    from app.idp.cookies import SessionCookies
    from app.idp.server import IdpServer
    from app.idp.views import IdpState, bp

    if state.signing_key is None:
        log.info("tokens come from an external provider (jwks_url); /auth is not mounted")
        return
    app.extensions["shiftdesk_idp"] = IdpState(
        settings=state.settings,
        db=state.db,
        verifier=state.verifier,
        server=IdpServer(state.settings, state.signing_key),
        cookies=SessionCookies(state.settings),
    )
    if "idp" not in app.blueprints:
        app.register_blueprint(bp)
