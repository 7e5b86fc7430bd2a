"""Where the private signing key lives: a file under `instance/` (the default) or the database.

A file suits one host. Several processes on several hosts must sign and verify with one key, so
`SHIFTDESK_SIGNING_KEY_STORE=database` keeps it in the `app_settings` row `signing_key` (the
private JWK as JSON), which every process reads at start-up. Either way `shiftdesk init` makes
the key when there is none, and anyone who can read the store can mint tokens: guard the
database's backups as the key file. Must not know about requests.
"""

from __future__ import annotations

from joserfc.jwk import RSAKey
from sqlalchemy.exc import IntegrityError

from app.api.db import Database
from app.api.models import AppSetting
from app.api.tokens import generate_signing_key, load_signing_key
from app.config import Settings

ROW = "signing_key"
"""Key of the `AppSetting` row that holds the private key in the database store."""


class NoSigningKey(LookupError):
    """The configured store holds no signing key yet (`shiftdesk init` makes it)."""


def signing_key(settings: Settings, database: Database, *, create: bool = False) -> RSAKey:
    """The private key from the store `settings` name; with `create`, made when missing."""
    if settings.signing_key_store == "file":
        try:
            return load_signing_key(settings.signing_key_path, create=create)
        except FileNotFoundError as exc:
            raise NoSigningKey(str(exc)) from exc
    stored = _read(database)
    if stored is not None:
        return stored
    if not create:
        raise NoSigningKey("no signing key in the database (SHIFTDESK_SIGNING_KEY_STORE="
                           "database); run `shiftdesk init` first")
    key = generate_signing_key()
    try:
        with database.unit_of_work(write=True) as session:
            session.add(AppSetting(key=ROW, value=key.as_dict(private=True)))
    except IntegrityError:  # another process made one first: everyone uses that one
        pass
    made = _read(database)
    assert made is not None
    return made


def _read(database: Database) -> RSAKey | None:
    with database.unit_of_work() as session:
        row = session.get(AppSetting, ROW)
        return None if row is None else RSAKey.import_key(dict(row.value))
