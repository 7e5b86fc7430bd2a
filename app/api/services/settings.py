"""Reading settings kept in the database: labels and pay codes.

Every signed-in user may read them (shift segments and timesheets show them), so nothing here
filters by permission. Must not commit, read the request or know Flask.
"""

from __future__ import annotations

import uuid

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.api.models import Label, PayCode
from app.api.pagination import Paginator, SortKey
from app.api.problems import not_found
from app.contract.labels import LabelListQuery
from app.contract.pay_codes import PayCodeListQuery


def list_labels(
    session: Session, *, query: LabelListQuery, pages: Paginator
) -> tuple[list[Label], str | None]:
    """Return one page of labels by name. Raises `validation` (cursor)."""
    return pages.page(session, select(Label), scope="labels", query=query,
                      order=[SortKey(Label.name), SortKey(Label.id)])


def get_label(session: Session, *, label_id: uuid.UUID) -> Label:
    """Return one label. Raises `label-not-found`."""
    label = session.get(Label, label_id)
    if label is None:
        raise not_found("label", label_id)
    return label


def list_pay_codes(
    session: Session, *, query: PayCodeListQuery, pages: Paginator
) -> tuple[list[PayCode], str | None]:
    """Return one page of pay codes by name. Raises `validation` (cursor)."""
    return pages.page(session, select(PayCode), scope="pay-codes", query=query,
                      order=[SortKey(PayCode.name), SortKey(PayCode.id)])


def get_pay_code(session: Session, *, pay_code_id: uuid.UUID) -> PayCode:
    """Return one pay code. Raises `pay-code-not-found`."""
    pay_code = session.get(PayCode, pay_code_id)
    if pay_code is None:
        raise not_found("pay-code", pay_code_id)
    return pay_code
