"""Labels: list, get, create, update (PUT with optional members) and delete, and where one is used.

Any signed-in user may read labels (shift segments carry them); writes need the `Label` subject,
which only admins hold by default. Queries and writes live in `app.api.services.settings`; the
clock is read here, at the edge.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from flask import url_for
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import settings as settings_service
from app.contract.labels import (
    LabelCreate,
    LabelListQuery,
    LabelPage,
    LabelRead,
    LabelUpdate,
    LabelUsage,
)


@endpoint("GET", "/settings/labels", summary="List labels", query=LabelListQuery,
          response=LabelPage, tag="Labels")
def list_labels(session: Session, query: LabelListQuery, pages: Paginator) -> LabelPage:
    """Labels by name."""
    rows, cursor = settings_service.list_labels(session, query=query, pages=pages)
    return LabelPage(items=[LabelRead.model_validate(label) for label in rows], cursor=cursor)


@endpoint("GET", "/settings/labels/<label_id>", summary="Get a label", response=LabelRead,
          codes=["label-not-found"], tag="Labels")
def get_label(session: Session, label_id: uuid.UUID) -> LabelRead:
    """One label."""
    return LabelRead.model_validate(settings_service.get_label(session, label_id=label_id))


@endpoint("POST", "/settings/labels", summary="Create a label", body=LabelCreate,
          response=LabelRead, status=201, codes=["validation", "unauthorized"], tag="Labels",
          permits=[("create", "Label")])
def create_label(session: Session, actor: Actor, body: LabelCreate,
                 ) -> tuple[LabelRead, dict[str, str]]:
    """Create a label; `color` defaults to grey (#6B7280), `description` to null."""
    label = settings_service.create_label(session, actor=actor, body=body, now=datetime.now(UTC))
    return LabelRead.model_validate(label), {"Location": url_for("api.get_label",
                                                                  label_id=label.id)}


@endpoint("PUT", "/settings/labels/<label_id>", summary="Update a label", body=LabelUpdate,
          response=LabelRead, codes=["validation", "unauthorized", "label-not-found"],
          tag="Labels", locate=settings_service.locate_label,
          permits=[("edit", "Label")])
def update_label(session: Session, actor: Actor, body: LabelUpdate,
                 label_id: uuid.UUID) -> LabelRead:
    """Change the members sent (all optional; a null `description` clears it)."""
    label = settings_service.update_label(session, actor=actor, label_id=label_id, body=body,
                                          now=datetime.now(UTC))
    return LabelRead.model_validate(label)


@endpoint("DELETE", "/settings/labels/<label_id>", summary="Delete a label", status=204,
          codes=["unauthorized", "label-not-found"], tag="Labels",
          permits=[("edit", "Label")])
def delete_label(session: Session, actor: Actor, label_id: uuid.UUID) -> None:
    """Delete a label; it disappears from every shift segment that carried it."""
    settings_service.delete_label(session, actor=actor, label_id=label_id)


@endpoint("GET", "/settings/labels/<label_id>/usage", summary="Where a label is in use",
          response=LabelUsage, codes=["unauthorized", "label-not-found"], tag="Labels",
          extension=True, permits=[("edit", "Label")])
def get_label_usage(session: Session, actor: Actor, label_id: uuid.UUID) -> LabelUsage:
    """The shifts whose segments carry the label, counted by team, and how many have not ended.

    Asked before deleting a label (which takes it off all of those shifts).
    """
    return settings_service.label_usage(session, actor=actor, label_id=label_id,
                                        now=datetime.now(UTC))
