"""Use cases of the `/v1` service: (session, contract input, actor) → ORM objects or answers.

Services never commit (the route's unit of work does) and raise `ProblemError` for every
refusal. Query building and ORM → contract conversion of an area live in its module.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.api.problems import not_found


def locator(model: Any, resource: str) -> Callable[[Session, uuid.UUID], None]:
    """A `locate` for `endpoint`: raise `<resource>-not-found` unless a `model` has the id.

    Reads only the id, leaving nothing in the session: the service then loads (and locks) the
    object itself, seeing it as it is once locked.
    """
    def locate(session: Session, ident: uuid.UUID) -> None:
        if session.scalar(select(model.id).where(model.id == ident)) is None:
            raise not_found(resource, ident)

    locate.__name__ = f"locate_{resource.replace('-', '_')}"
    return locate
