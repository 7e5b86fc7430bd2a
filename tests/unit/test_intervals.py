"""Interval arithmetic: merge, subtract, intersect, clip, split and durations, with their laws."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.api.domain import intervals as iv
from app.api.domain.intervals import Interval

T0 = datetime(2026, 3, 2, 12, tzinfo=UTC)


def I(a: int, b: int) -> Interval[int]:  # noqa: E743 - reads like notation
    return Interval(a, b)


def test_interval_rejects_empty_and_reversed() -> None:
    with pytest.raises(ValueError, match="end after"):
        Interval(3, 3)
    with pytest.raises(ValueError, match="end after"):
        Interval(4, 3)
    assert iv.make(3, 3) is None
    assert iv.make(3, 4) == I(3, 4)


def test_interval_contains_start_but_not_end() -> None:
    assert I(1, 3).contains(1)
    assert not I(1, 3).contains(3)
    assert I(1, 3).overlaps(I(2, 5))
    assert not I(1, 3).overlaps(I(3, 5))
    assert I(1, 5).covers(I(2, 3))
    assert not I(1, 5).covers(I(4, 6))


def test_merge_joins_overlapping_and_touching_keeps_gaps() -> None:
    assert iv.merge([I(5, 7), I(1, 3), I(2, 4), I(4, 5), I(9, 10)]) == [I(1, 7), I(9, 10)]
    assert iv.merge([I(1, 10), I(2, 3)]) == [I(1, 10)]
    assert iv.merge([]) == []


def test_subtract_cuts_holes_and_edges() -> None:
    assert iv.subtract([I(0, 10)], [I(2, 3), I(5, 6)]) == [I(0, 2), I(3, 5), I(6, 10)]
    assert iv.subtract([I(0, 10)], [I(-5, 2), I(8, 20)]) == [I(2, 8)]
    assert iv.subtract([I(0, 10)], [I(0, 10)]) == []
    assert iv.subtract([I(0, 3), I(5, 8)], [I(2, 6)]) == [I(0, 2), I(6, 8)]
    assert iv.subtract([I(0, 3)], []) == [I(0, 3)]


def test_overlap_and_intersect_return_common_parts() -> None:
    assert iv.overlap(I(0, 5), I(3, 8)) == I(3, 5)
    assert iv.overlap(I(0, 3), I(3, 8)) is None
    assert iv.intersect([I(0, 4), I(6, 10)], [I(2, 7), I(9, 12)]) == [I(2, 4), I(6, 7), I(9, 10)]


def test_clip_keeps_the_window_part() -> None:
    assert iv.clip([I(0, 4), I(6, 10), I(12, 14)], I(2, 8)) == [I(2, 4), I(6, 8)]


def test_split_cuts_at_inner_points_only() -> None:
    assert iv.split(I(0, 10), [10, 3, 0, 7, 3, 12]) == [I(0, 3), I(3, 7), I(7, 10)]
    assert iv.split(I(0, 10), []) == [I(0, 10)]


def test_total_seconds_counts_overlaps_once() -> None:
    a = Interval(T0, T0 + timedelta(hours=2))
    b = Interval(T0 + timedelta(hours=1), T0 + timedelta(hours=3))
    assert iv.total_seconds([a, b]) == 3 * 3600
    assert iv.whole_minutes(iv.total_seconds([Interval(T0, T0 + timedelta(seconds=119))])) == 1


# Laws -----------------------------------------------------------------------------------------

_interval = st.tuples(st.integers(0, 40), st.integers(1, 10)).map(lambda t: I(t[0], t[0] + t[1]))
_sets = st.lists(_interval, max_size=8)
POINTS = range(-1, 52)


def _member(x: int, intervals: list[Interval[int]]) -> bool:
    return any(i.contains(x) for i in intervals)


def _canonical(result: list[Interval[int]]) -> bool:
    """Sorted, disjoint and not touching."""
    return all(a.end < b.start for a, b in pairwise(result))


@given(_sets)
def test_merge_keeps_every_point_and_is_canonical(a: list[Interval[int]]) -> None:
    merged = iv.merge(a)
    assert _canonical(merged)
    assert all(_member(x, merged) == _member(x, a) for x in POINTS)
    assert iv.merge(merged) == merged


@given(_sets, _sets)
def test_subtract_keeps_points_of_base_not_in_cut(a: list[Interval[int]],
                                                  b: list[Interval[int]]) -> None:
    result = iv.subtract(a, b)
    assert _canonical(result)
    assert all(_member(x, result) == (_member(x, a) and not _member(x, b)) for x in POINTS)


@given(_sets, _sets)
def test_intersect_keeps_points_in_both(a: list[Interval[int]], b: list[Interval[int]]) -> None:
    result = iv.intersect(a, b)
    assert all(_member(x, result) == (_member(x, a) and _member(x, b)) for x in POINTS)
    assert iv.merge(result) == iv.merge(iv.intersect(b, a))


@given(_sets, _sets)
def test_subtract_and_intersect_partition_the_base(a: list[Interval[int]],
                                                   b: list[Interval[int]]) -> None:
    assert iv.merge([*iv.subtract(a, b), *iv.intersect(a, b)]) == iv.merge(a)
    assert iv.intersect(iv.subtract(a, b), b) == []


@given(_interval, st.lists(st.integers(-5, 60), max_size=6))
def test_split_pieces_cover_the_interval_exactly(whole: Interval[int], points: list[int]) -> None:
    pieces = iv.split(whole, points)
    assert pieces[0].start == whole.start
    assert pieces[-1].end == whole.end
    assert all(a.end == b.start for a, b in pairwise(pieces))
