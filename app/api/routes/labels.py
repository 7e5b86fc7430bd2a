"""Labels: `GET /v1/settings/labels` and `GET /v1/settings/labels/{labelId}`.

Any signed-in user may read labels (shift segments carry them). Queries live in
`app.api.services.settings`.
"""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import settings as settings_service
from app.contract.labels import LabelListQuery, LabelPage, LabelRead


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
