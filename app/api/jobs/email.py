"""The notification email job: one notice, mailed to its recipient by the worker.

The job reads the committed notice and its recipient's address in a short transaction, talks
to the SMTP server outside any transaction, then records `emailed_at`. A notice already mailed
(a retry after a lost acknowledgement) is not sent again; a notice or recipient gone since is
skipped. Failures raise, for the queue to retry with backoff (`RETRY_DELAYS`). Must not know
about Flask requests, and never runs inside one.
"""

from __future__ import annotations

import logging
import smtplib
import ssl
import uuid
from datetime import UTC, datetime
from email.message import EmailMessage
from urllib.parse import urlsplit

from sqlalchemy import select, update

from app.api import models as m
from app.api.jobs.context import JobContext
from app.config import Settings

log = logging.getLogger(__name__)

RETRY_DELAYS = (10, 60, 300, 1800)
"""Seconds before each retry of a failed send: four retries over about 40 minutes."""

SMTP_TIMEOUT = 30
"""Seconds the job waits on the SMTP server at each step."""


def _inbox_url(settings: Settings) -> str | None:
    """The notifications page on the server named by the issuer (the embedded sign-in's)."""
    parts = urlsplit(settings.issuer)
    if not parts.scheme or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}/notifications"


def build_message(settings: Settings, *, to: str, name: str, title: str, body: str,
                  ) -> EmailMessage:
    """The email of one notice: its title as the subject, its body, and a link to the app."""
    message = EmailMessage()
    message["From"] = settings.smtp_from
    message["To"] = f"{name} <{to}>" if name else to
    message["Subject"] = title
    link = _inbox_url(settings)
    message.set_content(body + (f"\n\nSee your notifications: {link}\n" if link else "\n"))
    return message


def send(settings: Settings, message: EmailMessage) -> None:
    """Hand the message to the configured SMTP server (STARTTLS and login when set)."""
    assert settings.smtp_host is not None
    with smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=SMTP_TIMEOUT) as smtp:
        if settings.smtp_starttls:
            smtp.starttls(context=ssl.create_default_context())
        if settings.smtp_user:
            smtp.login(settings.smtp_user, settings.smtp_password or "")
        smtp.send_message(message)


def send_notification_email(context: JobContext, notification_id: uuid.UUID) -> bool:
    """Mail one notice to its recipient; whether a mail was sent. Raises on SMTP failures."""
    settings = context.settings
    if not settings.smtp_host:
        return False
    with context.database.unit_of_work() as session:
        found = session.execute(
            select(m.Notification.title, m.Notification.body, m.Notification.emailed_at,
                   m.User.email, m.User.name, m.User.status)
            .join(m.User, m.User.id == m.Notification.user_id)
            .where(m.Notification.id == notification_id)).first()
    if found is None or found.emailed_at is not None or found.status == "dismissed" \
            or not found.email:
        return False
    send(settings, build_message(settings, to=found.email, name=found.name, title=found.title,
                                 body=found.body))
    with context.database.unit_of_work(write=True) as session:
        # Core UPDATE: delivery is bookkeeping, not a change the recipient's version tracks.
        session.execute(update(m.Notification)
                        .where(m.Notification.id == notification_id,
                               m.Notification.emailed_at.is_(None))
                        .values(emailed_at=datetime.now(UTC),
                                updated_at=m.Notification.updated_at))
    log.info("notification %s emailed", notification_id)
    return True
