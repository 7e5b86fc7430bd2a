"""Settings: one frozen model read once from `SHIFTDESK_*` variables.

This is the only module that reads `os.environ`; everything else receives a `Settings`.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import Literal, get_origin
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, field_validator

# Local state (the SQLite database, the signing key, UI sessions) lives in `instance/` of the
# folder the command runs in, never inside the installed package, which may be read-only.
INSTANCE = Path.cwd() / "instance"


class Settings(BaseModel):
    """Everything the app can be told from outside. Tests build one directly."""

    model_config = ConfigDict(frozen=True)

    database_url: str = f"sqlite:///{INSTANCE / 'shiftdesk.db'}"
    secret_key: str = "dev-only-not-secret"
    errors_url: str | None = Field(
        default=None, description="Base of problem `type` URLs; default: this server's /v1/errors"
    )
    timezone: str = "America/New_York"
    signing_key_path: Path = INSTANCE / "signing-key.json"
    signing_key_store: Literal["file", "database"] = Field(
        default="file", description="Where the private signing key lives: the file at "
        "`signing_key_path` (one host), or the database, shared by every process and host")
    issuer: str = "http://127.0.0.1:8000/auth"
    audience: str = "shiftdesk-api"
    jwks_url: str | None = Field(
        default=None, description="Verify tokens against this JWKS instead of the local key"
    )
    access_token_ttl: int = 900
    maintenance_mode: bool = False
    max_body_bytes: int = 1_048_576
    max_upload_bytes: int = Field(
        default=5 * 1024 * 1024, description="Largest CSV file the UI's upload pages read")
    slot_grid_minutes: int = 15
    grace_minutes: int = 7
    claim_notice_minutes: int = 120
    max_batch_size: int = 1000
    report_url_ttl: int = Field(default=900, description="Seconds a report download link works")
    redis_url: str | None = None
    smtp_host: str | None = Field(
        default=None, description="SMTP server for notification emails; unset: no email (the "
        "notifications stay in the app)")
    smtp_port: int = Field(default=587, ge=1, le=65535)
    smtp_from: str = Field(default="Shiftdesk <shiftdesk@localhost>",
                           description="The From of notification emails")
    smtp_user: str | None = Field(default=None, description="SMTP login, if the server wants one")
    smtp_password: str | None = Field(default=None, repr=False)
    smtp_starttls: bool = Field(default=True, description="Upgrade the SMTP connection with "
                                "STARTTLS before logging in and sending")
    api_url: str | None = None
    oidc_issuer: str | None = Field(
        default=None, description="The UI's OpenID provider; default: the embedded one at `issuer`"
    )
    session_dir: Path = INSTANCE / "sessions"
    demo: bool = False
    development: bool = False
    oidc_client_id: str = "shiftdesk-web"
    oidc_redirect_uris: tuple[str, ...] = Field(
        default=(), description="Sign-in redirect URIs of the built-in client (comma-separated)"
    )
    oidc_post_logout_redirect_uris: tuple[str, ...] = Field(
        default=(), description="Where the built-in client may be sent after sign-out"
    )
    oidc_loopback_redirects: bool = Field(
        default=True,
        description="Also accept http://127.0.0.1 and http://localhost on any port (RFC 8252 "
        "§7.3): /signin/callback after sign-in; /, /signin or /signed-out after sign-out",
    )
    idp_session_ttl: int = 43_200
    refresh_token_ttl: int = 1_209_600
    login_max_failures: int = 5
    login_window_seconds: int = 900
    log_format: Literal["json", "text"] | None = Field(
        default=None, description="Log lines as JSON or text; default: text for the demo and "
        "development, JSON otherwise")
    log_level: str = "INFO"
    rate_limits: bool = Field(default=True, description="Limit sign-in, token and /v1 "
                              "write requests (counters in Redis when configured)")
    rate_limit_sign_in: str = Field(default="10/minute",
                                    description="Sign-in form posts per address and email")
    rate_limit_token: str = Field(default="30/minute",
                                  description="Token requests per client id and address")
    rate_limit_writes: str = Field(default="300/minute",
                                   description="/v1 writes per bearer token")
    metrics_token: str | None = Field(
        default=None, description="Bearer token a Prometheus scraper sends to /metrics; "
        "without one, /metrics answers only direct loopback requests")
    prometheus_multiproc_dir: str | None = Field(
        default=None, description="prometheus-client's multiprocess folder, from the library's "
        "own PROMETHEUS_MULTIPROC_DIR: /metrics then adds up every worker's values")

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError) as exc:
            raise ValueError(f"unknown time zone {value!r}") from exc
        return value

    @cached_property
    def zone(self) -> ZoneInfo:
        """The site's time zone (asked for hundreds of times a page)."""
        return ZoneInfo(self.timezone)

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        """Read `SHIFTDESK_<FIELD>` for every field; explicit overrides win."""
        values: dict[str, object] = {}
        for name, field in cls.model_fields.items():
            raw = os.environ.get(f"SHIFTDESK_{name.upper()}")
            if raw is not None and raw != "":
                values[name] = (
                    [part.strip() for part in raw.split(",") if part.strip()]
                    if get_origin(field.annotation) in (list, tuple)
                    else raw
                )
        # prometheus-client reads its own variable too; the app must know it to scrape the files.
        if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
            values.setdefault("prometheus_multiproc_dir", os.environ["PROMETHEUS_MULTIPROC_DIR"])
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)
