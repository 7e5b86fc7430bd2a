"""Pay codes: `GET /v1/settings/pay-codes` and `GET /v1/settings/pay-codes/{payCodeId}`.

Any signed-in user may read pay codes (shifts and timesheets name them). Queries live in
`app.api.services.settings`.
"""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.api.pagination import Paginator
from app.api.routing import endpoint
from app.api.services import settings as settings_service
from app.contract.pay_codes import PayCodeListQuery, PayCodePage, PayCodeRead


@endpoint("GET", "/settings/pay-codes", summary="List pay codes", query=PayCodeListQuery,
          response=PayCodePage, tag="Pay codes")
def list_pay_codes(session: Session, query: PayCodeListQuery, pages: Paginator) -> PayCodePage:
    """Pay codes by name."""
    rows, cursor = settings_service.list_pay_codes(session, query=query, pages=pages)
    return PayCodePage(items=[PayCodeRead.model_validate(p) for p in rows], cursor=cursor)


@endpoint("GET", "/settings/pay-codes/<pay_code_id>", summary="Get a pay code",
          response=PayCodeRead, codes=["pay-code-not-found"], tag="Pay codes")
def get_pay_code(session: Session, pay_code_id: uuid.UUID) -> PayCodeRead:
    """One pay code."""
    pay_code = settings_service.get_pay_code(session, pay_code_id=pay_code_id)
    return PayCodeRead.model_validate(pay_code)
