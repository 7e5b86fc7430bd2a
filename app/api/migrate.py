"""Run the Alembic migrations from code: `upgrade(url)` brings a database to the newest schema.

There is no `alembic.ini`; `alembic_config(url)` builds the configuration, and the migration
environment (`app/api/migrations/env.py`) never configures logging, so the app keeps its own.
Must not import Flask or read the environment.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from alembic import command
from alembic.autogenerate.api import AutogenContext
from alembic.config import Config
from sqlalchemy import JSON

from app.api.db import UtcDateTime
from app.api.models.appointments import NO_OVERLAP_CONSTRAINT


def alembic_config(url: str) -> Config:
    """Return the Alembic configuration for the database at `url`."""
    config = Config()
    config.set_main_option("script_location", str(resources.files("app.api") / "migrations"))
    config.set_main_option("path_separator", "os")
    # The ini-style options interpolate '%'; an encoded password must survive that.
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["url"] = url
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Migrate the database at `url` up to `revision` (the newest by default)."""
    command.upgrade(alembic_config(url), revision)


def include_name(name: str | None, type_: str, _parents: dict[str, str | None]) -> bool:
    """Tell autogenerate to leave alone what the models deliberately do not declare.

    SQLAlchemy's PostgreSQL reflection skips the exclusion constraint's index today; this keeps
    a future autogenerate from proposing to drop it if that ever changes.
    """
    return not (type_ in ("index", "unique_constraint") and name == NO_OVERLAP_CONSTRAINT)


def render_item(type_: str, obj: Any, context: AutogenContext) -> str | bool:
    """Render our column types as plain SQLAlchemy ones, so migrations never import app code."""
    if type_ != "type":
        return False
    if isinstance(obj, UtcDateTime):
        return "sa.DateTime(timezone=True)"
    if isinstance(obj, JSON) and "postgresql" in obj._variant_mapping:
        # Alembic's own rendering of this variant names `Text()` without importing it.
        context.imports.add("from sqlalchemy.dialects import postgresql")
        return "sa.JSON().with_variant(postgresql.JSONB(), 'postgresql')"
    return False


def comparison_options() -> dict[str, Any]:
    """Return the options autogenerate compares with, shared by `env.py` and the schema tests."""
    return {
        "compare_type": True,
        "include_name": include_name,
        "render_item": render_item,
    }
