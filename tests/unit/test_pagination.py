"""Signed keyset cursors: round trip, and `validation` on `cursor` for tampered, foreign,
re-filtered and malformed cursors; pages of a small in-memory table walk every row once."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from itsdangerous import URLSafeSerializer
from sqlalchemy import select
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

from app.api.db import UtcDateTime, make_engine
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError
from app.contract.common import ListQuery
from app.contract.users import UserListQuery

SECRET = "unit-secret"
WHEN = datetime(2026, 3, 2, 12, 0, 0, tzinfo=UTC)
ID = uuid.UUID("abcdef01-2345-4678-9abc-def012345678")


@pytest.fixture
def pages() -> Paginator:
    return Paginator(SECRET)


def _refused(call) -> ProblemError:
    with pytest.raises(ProblemError) as caught:
        call()
    problem = caught.value
    assert problem.code == "validation"
    assert problem.status == 400
    assert problem.members["path"] == "cursor"
    assert [e.path for e in problem.errors] == ["cursor"]
    return problem


def test_read_cursor_returns_the_key_it_was_made_from(pages):
    query = UserListQuery(name="pat")
    key = [WHEN, ID, 7, "Pat", None, 1.5]
    cursor = pages.cursor_for("users", query, key)
    assert pages.read_cursor("users", query, cursor, len(key)) == key


def test_read_cursor_keeps_the_instant_across_time_zones(pages):
    local = WHEN.astimezone(UTC).replace(tzinfo=None).replace(tzinfo=UTC)
    cursor = pages.cursor_for("shifts", None, [local.astimezone()])
    (value,) = pages.read_cursor("shifts", None, cursor, 1)
    assert value == WHEN
    assert value.tzinfo is not None


def test_cursor_is_url_safe_and_opaque(pages):
    cursor = pages.cursor_for("users", UserListQuery(name="Pat Provider"), [ID])
    assert all(c.isalnum() or c in "-_." for c in cursor)
    assert "Pat" not in cursor


def test_read_cursor_accepts_another_page_size(pages):
    cursor = pages.cursor_for("users", UserListQuery(page_size=5), [ID])
    assert pages.read_cursor("users", UserListQuery(page_size=50, cursor=cursor), cursor, 1) == [ID]


def test_read_cursor_refuses_a_tampered_signature(pages):
    cursor = pages.cursor_for("users", None, [ID])
    head, _, signature = cursor.rpartition(".")
    flipped = ("A" if signature[0] != "A" else "B") + signature[1:]
    problem = _refused(lambda: pages.read_cursor("users", None, f"{head}.{flipped}", 1))
    assert "start again" in problem.detail


def test_read_cursor_refuses_a_tampered_payload(pages):
    cursor = pages.cursor_for("users", None, [ID])
    forged = URLSafeSerializer("another-secret", salt="shiftdesk.cursor").dumps(
        {"s": "users", "f": "", "k": [{"u": str(uuid.uuid4())}]}
    )
    payload = forged.rpartition(".")[0]
    _refused(lambda: pages.read_cursor("users", None,
                                       payload + "." + cursor.rpartition(".")[2], 1))


def test_read_cursor_refuses_a_cursor_signed_with_another_secret(pages):
    cursor = Paginator("another-secret").cursor_for("users", None, [ID])
    _refused(lambda: pages.read_cursor("users", None, cursor, 1))


@pytest.mark.parametrize("garbage", ["", "abc", "....", "eyJzIjoidXNlcnMifQ", "é"])
def test_read_cursor_refuses_garbage(pages, garbage):
    _refused(lambda: pages.read_cursor("users", None, garbage, 1))


def test_read_cursor_refuses_a_cursor_of_another_list(pages):
    cursor = pages.cursor_for("teams", None, [ID])
    problem = _refused(lambda: pages.read_cursor("users", None, cursor, 1))
    assert problem.members["message"] == "the cursor belongs to another list"


def test_read_cursor_refuses_a_cursor_made_with_other_filters(pages):
    cursor = pages.cursor_for("users", UserListQuery(name="pat"), [ID])
    problem = _refused(lambda: pages.read_cursor("users", UserListQuery(name="dana"), cursor, 1))
    assert "other filters" in problem.members["message"]
    _refused(lambda: pages.read_cursor("users", UserListQuery(status=["dismissed"]), cursor, 1))
    _refused(lambda: pages.read_cursor("users", None, cursor, 1))


@pytest.mark.parametrize("width", [1, 3])
def test_read_cursor_refuses_a_key_of_another_width(pages, width):
    cursor = pages.cursor_for("users", None, [WHEN, ID])
    _refused(lambda: pages.read_cursor("users", None, cursor, width))


@pytest.mark.parametrize("payload", [
    ["users"],
    {"s": "users", "f": "", "k": "not a list"},
    {"s": "users", "f": "", "k": [{"t": "yesterday"}]},
    {"s": "users", "f": "", "k": [{"u": "not-a-uuid"}]},
])
def test_read_cursor_refuses_a_signed_but_malformed_payload(pages, payload):
    cursor = URLSafeSerializer(SECRET, salt="shiftdesk.cursor").dumps(payload)
    _refused(lambda: pages.read_cursor("users", None, cursor, 1))


# --- pages over a real (in-memory) table ------------------------------------------------------

class _Base(DeclarativeBase):
    pass


class Item(_Base):
    __tablename__ = "items"

    id: Mapped[uuid.UUID] = mapped_column(primary_key=True)
    starts: Mapped[datetime] = mapped_column(UtcDateTime)
    rank: Mapped[int]
    label: Mapped[str | None]


@pytest.fixture
def session() -> Iterator[Session]:
    engine = make_engine("sqlite://")
    _Base.metadata.create_all(engine)
    with Session(engine) as s:
        s.add_all(
            Item(id=uuid.UUID(int=i), starts=WHEN + timedelta(hours=i % 3), rank=i % 2,
                 label=None if i % 4 == 0 else f"l{i % 5}")
            for i in range(1, 24)
        )
        s.commit()
        yield s
    engine.dispose()


def _walk(pages: Paginator, session: Session, order: list[SortKey], size: int) -> list[Item]:
    seen: list[Item] = []
    cursor: str | None = None
    for _ in range(100):
        rows, cursor = pages.page(session, select(Item), scope="items",
                                  query=ListQuery(page_size=size, cursor=cursor), order=order)
        assert len(rows) <= size
        seen.extend(rows)
        if cursor is None:
            return seen
    raise AssertionError("pagination does not end")


def _sorted(session: Session, order: list[SortKey]) -> list[Item]:
    """Every row in the key order, NULL sorting as the largest value."""
    rows = list(session.scalars(select(Item)))
    for key in reversed(order):
        name = key.column.key
        rows.sort(key=lambda r, n=name: (getattr(r, n) is None, getattr(r, n)),
                  reverse=key.descending)
    return rows


@pytest.mark.parametrize("size", [1, 4, 23, 200])
@pytest.mark.parametrize("order", [
    [SortKey(Item.id)],
    [SortKey(Item.starts), SortKey(Item.id)],
    [SortKey(Item.starts, descending=True), SortKey(Item.rank), SortKey(Item.id)],
    [SortKey(Item.rank), SortKey(Item.starts, descending=True), SortKey(Item.id, descending=True)],
    [SortKey(Item.label), SortKey(Item.id)],
    [SortKey(Item.label, descending=True), SortKey(Item.id)],
], ids=["id", "starts-id", "starts-desc-rank-id", "rank-starts-desc-id-desc", "nullable-id",
        "nullable-desc-id"])
def test_page_walks_every_row_once_in_order(pages, session, order, size):
    assert _walk(pages, session, order, size) == _sorted(session, order)


def test_page_returns_no_cursor_on_the_last_page(pages, session):
    rows, cursor = pages.page(session, select(Item), scope="items",
                              query=ListQuery(page_size=23), order=[SortKey(Item.id)])
    assert len(rows) == 23
    assert cursor is None
    rows, cursor = pages.page(session, select(Item), scope="items",
                              query=ListQuery(page_size=22), order=[SortKey(Item.id)])
    assert cursor is not None


def test_page_refuses_a_cursor_of_another_scope(pages, session):
    _, cursor = pages.page(session, select(Item), scope="items",
                           query=ListQuery(page_size=2), order=[SortKey(Item.id)])
    _refused(lambda: pages.page(session, select(Item), scope="other",
                                query=ListQuery(page_size=2, cursor=cursor),
                                order=[SortKey(Item.id)]))
