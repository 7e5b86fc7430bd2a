"""The staff UI. Until the web shell lands this serves a landing page that points at the API.

Must never import `app.api` or `app.idp`: the UI speaks to the API over HTTP only.
"""

from __future__ import annotations

from flask import Blueprint, Flask, render_template

bp = Blueprint("web", __name__)


@bp.get("/")
def home() -> str:
    """The landing page."""
    return render_template("home.html")


def init_app(app: Flask) -> None:
    """Attach the staff UI to `app`."""
    app.register_blueprint(bp)
