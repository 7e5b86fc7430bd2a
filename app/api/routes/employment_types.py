"""Employment types: `GET /v1/employment-types` and `GET /v1/employment-types/{id}`.

Any signed-in user may read them. A missing type answers `employment-type-not-found`, an
extension code (the spec names none). Queries live in `app.api.services.people`.
"""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import people
from app.contract.employment_types import (
    EmploymentTypeListQuery,
    EmploymentTypePage,
    EmploymentTypeRead,
)


@endpoint("GET", "/employment-types", summary="List employment types",
          query=EmploymentTypeListQuery, response=EmploymentTypePage, tag="Employment types")
def list_employment_types(
    session: Session, query: EmploymentTypeListQuery, pages: Paginator
) -> EmploymentTypePage:
    """Employment types by name."""
    rows, cursor = people.list_employment_types(session, query=query, pages=pages)
    return EmploymentTypePage(items=[EmploymentTypeRead.model_validate(e) for e in rows],
                              cursor=cursor)


# The spec names this path parameter `id`, so the view's parameter shadows the builtin.
@endpoint("GET", "/employment-types/<id>", summary="Get an employment type",
          response=EmploymentTypeRead, codes=["employment-type-not-found"],
          tag="Employment types")
def get_employment_type(session: Session, id: uuid.UUID) -> EmploymentTypeRead:
    """One employment type."""
    employment_type = people.get_employment_type(session, employment_type_id=id)
    return EmploymentTypeRead.model_validate(employment_type)
