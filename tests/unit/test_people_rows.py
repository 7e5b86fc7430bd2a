"""`app.web.people.rows.read_people`: a people file that cannot be read as a whole is refused
with one sentence saying why, before any row is looked at."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from app.web.people.rows import COLUMNS, MAX_ROWS, Directory, read_people
from app.web.uploads import FileProblem

ZONE = ZoneInfo("America/New_York")
EMPTY = Directory.of([], [], [])
HEADER = ",".join(COLUMNS) + "\n"
USER = "Robin Example,robin@example.org,user,,,,,,HR-{n}\n"


@pytest.mark.parametrize(("content", "message"), [
    (b"", "The file holds no rows. Its first row is the header name,email,"),
    (b"\n \n,,\n", "then one row per person"),
    (HEADER.encode(), "The file has the header but no rows. Add one row per person under it."),
    ((HEADER + "\n\n").encode(), "the header but no rows"),
    ((HEADER + USER.format(n=1)).encode("utf-16"), "not UTF-8"),
    (b'"' + b"x" * 200_000 + b'"\n', "not readable as CSV"),  # beyond csv's field limit
])
def test_a_file_that_cannot_be_read(content: bytes, message: str) -> None:
    with pytest.raises(FileProblem, match=message):
        read_people(content, EMPTY, ZONE, max_bytes=1_000_000)


def test_limits_of_size_and_rows() -> None:
    with pytest.raises(FileProblem, match=r"larger than .* and import each"):
        read_people((HEADER + "x" * 200).encode(), EMPTY, ZONE, max_bytes=100)
    rows = "".join(USER.format(n=n) for n in range(MAX_ROWS + 1))
    with pytest.raises(FileProblem, match=f"more than {MAX_ROWS:,} rows"):
        read_people((HEADER + rows).encode(), EMPTY, ZONE, max_bytes=10_000_000)


def test_good_users_are_read_in_order_and_bad_widths_named() -> None:
    content = HEADER + USER.format(n=1) + "too,few\n" + USER.format(n=2).replace("robin", "kim")
    lines, errors = read_people(content.encode(), EMPTY, ZONE, max_bytes=1_000_000)
    assert [(x.row, x.imported_id) for x in lines] == [(1, "HR-1"), (3, "HR-2")]
    assert [(e.row, e.column) for e in errors] == [(2, "(row)")]
