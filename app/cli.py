"""The `shiftdesk` command: init, serve, token, worker, maintenance, accrue. Options are a stable
interface.

Reads settings once (`Settings.from_env`) and hands them down; prints only what each command
promises (`token` prints the token alone on stdout).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from app.config import Settings


@click.group()
def main() -> None:
    """Shiftdesk: staff scheduling and timekeeping."""


@main.command()
@click.option("--demo", is_flag=True, help="Load the demo organisation (idempotent).")
@click.option("--scale", type=click.IntRange(min=1), default=None,
              help="Make the demo organisation N providers big (for benchmarks).")
def init(demo: bool, scale: int | None) -> None:
    """Create the signing key if missing, migrate the database to head, load demo data."""
    from app.api.db import Database
    from app.api.migrate import upgrade
    from app.api.signing_keys import signing_key

    settings = Settings.from_env()
    _ensure_sqlite_folder(settings)
    upgrade(settings.database_url)
    click.echo(f"Database at head: {_safe_url(settings.database_url)}", err=True)
    database = Database(settings.database_url)
    try:
        if not settings.jwks_url:  # the key lives in the database once it is migrated
            signing_key(settings, database, create=True)
        if demo or scale:
            from app.api.demo import load_demo

            click.echo(load_demo(database, settings, providers=scale), err=True)
    finally:
        database.dispose()


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option("--workers", type=click.IntRange(1, 64), default=1, show_default=True,
              envvar="WEB_CONCURRENCY", show_envvar=True,
              help="Worker processes (gunicorn's WEB_CONCURRENCY convention).")
@click.option("--threads", type=click.IntRange(1, 64), default=8, show_default=True,
              help="Threads per worker process.")
def serve(host: str, port: int, workers: int, threads: int) -> None:
    """Serve the UI at /, the API at /v1 and sign-in at /auth (gunicorn)."""
    from gunicorn.app.base import BaseApplication

    from app import serving_app
    from app.idp.views import DEMO_ACCOUNTS

    settings = Settings.from_env()
    flask_app = serving_app(settings)

    class _Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            options: dict[str, Any] = {
                "bind": f"{host}:{port}", "workers": workers, "threads": threads,
                # No gunicorn access log: the app writes one line per request, with its id.
                "worker_class": "gthread", "timeout": 60,
            }
            if settings.prometheus_multiproc_dir:
                # Each worker writes its metrics to files; a dead worker's live gauges go.
                from prometheus_client import multiprocess

                options["child_exit"] = lambda _server, w: multiprocess.mark_process_dead(w.pid)
            for key, value in options.items():
                self.cfg.set(key, value)

        def load(self) -> Any:
            return flask_app

    click.echo(f"Shiftdesk is running at http://{host}:{port}/", err=True)
    if settings.demo:
        click.echo("Demo accounts (password: demo):", err=True)
        for email, what in DEMO_ACCOUNTS:
            click.echo(f"  {email:<24} {what}", err=True)
    _Server().run()


@main.command()
@click.argument("email")
@click.option("--ttl", type=click.IntRange(min=1), default=None,
              help="Lifetime in seconds (default: the access-token lifetime).")
def token(email: str, ttl: int | None) -> None:
    """Print a bearer access token for the user with EMAIL (nothing else on stdout)."""
    from sqlalchemy import func, select

    from app.api.db import Database
    from app.api.models import User
    from app.api.signing_keys import NoSigningKey, signing_key
    from app.api.tokens import mint_access_token

    settings = Settings.from_env()
    database = Database(settings.database_url)
    try:
        with database.unit_of_work() as session:
            user = session.scalar(select(User).where(func.lower(User.email) == email.lower()))
            if user is None:
                click.echo(f"No user with email {email}.", err=True)
                sys.exit(1)
            user_id = str(user.id)
        key = signing_key(settings, database)
    except NoSigningKey as exc:
        click.echo(str(exc), err=True)
        sys.exit(1)
    finally:
        database.dispose()
    click.echo(mint_access_token(key, subject=user_id, issuer=settings.issuer,
                                 audience=settings.audience,
                                 ttl=ttl or settings.access_token_ttl))


@main.command()
@click.option("--burst", is_flag=True, help="Exit once the queue is empty.")
def worker(burst: bool) -> None:
    """Execute report runs and notification emails from the Redis queue (needs
    SHIFTDESK_REDIS_URL)."""
    from redis import Redis
    from rq import Queue, Worker

    from app import logs, settle_collector
    from app.api.db import Database
    from app.api.jobs.context import JobContext
    from app.api.jobs.queue import (
        WORKER_MAINTENANCE,
        bind_worker,
        queue_name,
        report_horse_killed,
    )

    settings = Settings.from_env()
    if not settings.redis_url:
        click.echo("Set SHIFTDESK_REDIS_URL: without Redis, report runs execute inside the "
                   "server process.", err=True)
        sys.exit(2)
    logs.configure(settings)
    database = Database(settings.database_url)
    bind_worker(JobContext(database, settings))
    settle_collector()  # report runs build timesheets as a server does
    connection = Redis.from_url(settings.redis_url)
    queue = Queue(queue_name(settings.database_url), connection=connection)
    click.echo(f"Worker on queue {queue.name} for {_safe_url(settings.database_url)}", err=True)
    try:
        # A killed work horse fails its run; every WORKER_MAINTENANCE seconds the worker looks
        # for jobs that a dead worker abandoned, whose runs rq's failure callback then fails.
        Worker([queue], connection=connection, maintenance_interval=WORKER_MAINTENANCE,
               work_horse_killed_handler=report_horse_killed,
               ).work(burst=burst, with_scheduler=True)  # the scheduler runs emails' retries
    finally:
        database.dispose()


@main.command()
@click.argument("state", type=click.Choice(["on", "off", "status"]))
def maintenance(state: str) -> None:
    """Turn maintenance mode (writes answer 503) on or off, or print whether it is on."""
    from app.api.db import Database
    from app.api.models import AppSetting

    settings = Settings.from_env()
    database = Database(settings.database_url)
    try:
        with database.unit_of_work(write=state != "status") as session:
            row = session.get(AppSetting, "maintenance_mode")
            if state != "status":
                if row is None:
                    row = AppSetting(key="maintenance_mode", value=state == "on")
                    session.add(row)
                row.value = state == "on"
            stored = bool(row is not None and row.value is True)
    finally:
        database.dispose()
    forced = " (forced by SHIFTDESK_MAINTENANCE_MODE)" if settings.maintenance_mode else ""
    click.echo("on" + forced if stored or settings.maintenance_mode else "off")


@main.command()
@click.option("--through", type=click.DateTime(formats=["%Y-%m-%d"]), default=None,
              help="Post what is due up to this day (YYYY-MM-DD; default: today, site zone).")
@click.option("--policy", "policy_id", type=click.UUID, default=None,
              help="Only this policy (default: every policy with accrual settings).")
def accrue(through: Any, policy_id: Any) -> None:
    """Post the time-off accruals due (idempotent, as POST /v1/time-off/accruals); print them."""
    from datetime import UTC, datetime

    from app.api.db import Database
    from app.api.problems import ProblemError
    from app.api.services.balances import run_accruals

    settings = Settings.from_env()
    now = datetime.now(UTC)
    day = through.date() if through is not None else now.astimezone(settings.zone).date()
    database = Database(settings.database_url)
    try:
        with database.unit_of_work(write=True) as session:
            result = run_accruals(session, actor_id=None, through=day, policy_id=policy_id,
                                  zone=settings.zone, now=now,
                                  grace_minutes=settings.grace_minutes)
    except ProblemError as problem:
        click.echo(problem.detail, err=True)
        sys.exit(1)
    finally:
        database.dispose()
    click.echo(f"Accrued through {result.through.isoformat()}: {result.entries} entries for "
               f"{result.providers} providers in {result.policies} policies.")


def _ensure_sqlite_folder(settings: Settings) -> None:
    url = settings.database_url
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        from pathlib import Path

        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)
