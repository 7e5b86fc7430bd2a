"""Properties of the overtime classification (issue 23, "what must be shown"), on random work
over five weeks of March and April 2026 in New York (the spring-forward night included), under
the federal, 8-and-80 and California rule sets: worked time is conserved across classes; weekly
regular time never exceeds the weekly threshold; adding work never lowers overtime; the time
before an instant does not change when the work after it changes; and a month classified in one
pass equals it classified week by week with the earlier work of the period as context (also
through the timesheet computation)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from app.api.domain.pay_rules import ClassifiedPiece, WorkPiece, WorkRule, calendar, classify
from app.api.domain.timecards import Punch
from app.api.domain.timesheets import TimesheetInput, compute_timesheet, context_start
from tests.unit.test_pay_rules_examples import (
    CALIFORNIA,
    EIGHT_AND_80,
    FEDERAL,
    NY,
    SUNDAY,
    local,
)

RULE_SETS = st.sampled_from([FEDERAL, EIGHT_AND_80, CALIFORNIA])
DAYS = 35
PROPERTY_SETTINGS = settings(max_examples=60, deadline=None)


@st.composite
def work(draw: st.DrawFn, max_pieces: int = 24) -> list[WorkPiece]:
    """Non-overlapping pieces: a start minute in the five weeks and a length up to 16 hours,
    some counted (holiday) rather than worked."""
    raw = draw(st.lists(st.tuples(st.integers(0, DAYS * 24 * 60 - 1), st.integers(1, 16 * 60),
                                  st.booleans(), st.integers(0, 59)),
                        max_size=max_pieces))
    base = local(SUNDAY, 0)
    pieces: list[WorkPiece] = []
    cursor = base
    for start, length, counted, seconds in sorted(raw):
        begin = max(base + timedelta(minutes=start, seconds=seconds), cursor)
        end = begin + timedelta(minutes=length)
        pieces.append(WorkPiece(begin, end, "counted" if counted and length < 600 else "worked",
                                key=len(pieces)))
        cursor = end
    return pieces


def seconds(pieces: Sequence[ClassifiedPiece | WorkPiece]) -> int:
    return sum((p.end - p.start) // timedelta(seconds=1) for p in pieces)


def overtime_seconds(pieces: Sequence[ClassifiedPiece]) -> int:
    return seconds([p for p in pieces if p.rule_id is not None])


@PROPERTY_SETTINGS
@given(work(), RULE_SETS)
def test_worked_time_is_conserved_across_classes(pieces: list[WorkPiece], rule: WorkRule) -> None:
    """Issue 23: every worked second is paid exactly once, regular or under one rule: the
    classified pieces tile the input exactly."""
    result = classify(pieces, [rule])
    assert seconds(result) == seconds(pieces)
    for key, piece in enumerate(pieces):
        parts = [p for p in result if p.key == key]
        assert parts[0].start == piece.start
        assert parts[-1].end == piece.end
        assert all(a.end == b.start for a, b in pairwise(parts))
        if piece.counts == "counted":
            assert all(p.rule_id is None for p in parts)


@PROPERTY_SETTINGS
@given(work(), RULE_SETS)
def test_weekly_and_period_regular_time_never_exceeds_the_threshold(
        pieces: list[WorkPiece], rule: WorkRule) -> None:
    """29 CFR 778.110 / 778.601: no workweek (14-day period) holds more regular time than its
    threshold in worked regular time (counted time may only lower it)."""
    result = classify(pieces, [rule])
    cal = calendar([rule], local(SUNDAY, 0), local(SUNDAY, 24 * DAYS + 24))
    for kind, starts in (("weekly", cal.weeks), ("period", cal.periods)):
        for threshold in [r.threshold_minutes * 60 for r in rule.overtime if r.kind == kind]:
            for start, end in pairwise(starts):
                regular = [p for p in result if p.rule_id is None and p.counts == "worked"
                           and start <= p.start < end]
                assert seconds(regular) <= threshold


@PROPERTY_SETTINGS
@given(work(max_pieces=16), work(max_pieces=4), RULE_SETS)
def test_adding_work_never_lowers_overtime(pieces: list[WorkPiece], extra: list[WorkPiece],
                                           rule: WorkRule) -> None:
    """Issue 23: more work never means less overtime (and never less regular plus overtime)."""
    taken = [(p.start, p.end) for p in pieces]
    added = [WorkPiece(p.start, p.end, "worked", key=("extra", i)) for i, p in enumerate(extra)
             if all(p.end <= a or b <= p.start for a, b in taken)]
    before = classify(pieces, [rule])
    after = classify([*pieces, *added], [rule])
    assert overtime_seconds(after) >= overtime_seconds(before)


@PROPERTY_SETTINGS
@given(work(), work(), st.integers(0, DAYS * 24 * 60), RULE_SETS)
def test_time_before_an_instant_does_not_depend_on_work_after_it(
        pieces: list[WorkPiece], other: list[WorkPiece], cut_minute: int, rule: WorkRule) -> None:
    """Issue 23: the classification of the time before an instant is the same whatever is
    worked after it."""
    cut = local(SUNDAY, 0) + timedelta(minutes=cut_minute)
    head = [WorkPiece(p.start, min(p.end, cut), p.counts, key=p.key) for p in pieces
            if p.start < cut]
    tail = [WorkPiece(p.start, p.end, p.counts, key=("other", i)) for i, p in enumerate(other)
            if cut <= p.start]

    def before_cut(result: list[ClassifiedPiece]) -> list[tuple[object, ...]]:
        return [(p.key, p.start, min(p.end, cut), p.rule_id, p.basis_from_seconds)
                for p in result if p.start < cut]

    assert before_cut(classify(pieces, [rule])) == before_cut(classify([*head, *tail], [rule]))


@PROPERTY_SETTINGS
@given(work(max_pieces=30), RULE_SETS)
def test_a_month_in_one_pass_equals_week_by_week_with_context(
        pieces: list[WorkPiece], rule: WorkRule) -> None:
    """Issue 23: computing five weeks at once equals computing each workweek from the pieces
    since `context_start` of its first instant (the week's, or the 14-day period's, start)."""
    whole = classify(pieces, [rule])
    cal = calendar([rule], local(SUNDAY, 0), local(SUNDAY, 24 * DAYS + 24))
    weeks = [w for w in cal.weeks if local(SUNDAY, 0) <= w <= local(SUNDAY, 24 * DAYS)]

    def within(result: list[ClassifiedPiece], start: datetime, end: datetime
               ) -> list[tuple[object, ...]]:
        return [(p.key, max(p.start, start), min(p.end, end), p.rule_id) for p in result
                if p.start < end and start < p.end]

    for start, end in pairwise(weeks):
        since = context_start(start + timedelta(days=1), [rule])
        context = [WorkPiece(max(p.start, since), p.end, p.counts, key=p.key) for p in pieces
                   if since < p.end and p.start < end]
        assert within(classify(context, [rule]), start, end) == within(whole, start, end)


@st.composite
def sessions(draw: st.DrawFn) -> list[Punch]:
    """Clock-in/clock-out pairs on whole minutes over four weeks (some with a break)."""
    raw = draw(st.lists(st.tuples(st.integers(0, 28 * 24 * 60 - 1), st.integers(1, 16 * 60),
                                  st.integers(0, 90)), max_size=30))
    base = local(SUNDAY, 0)
    punches: list[Punch] = []
    cursor = base
    for start, length, pause in sorted(raw):
        begin = max(base + timedelta(minutes=start), cursor + timedelta(minutes=1))
        end = begin + timedelta(minutes=length)
        punches.append(Punch(uuid.uuid4(), "clock_in", begin, "approved"))
        if pause and length > pause + 60:
            middle = begin + timedelta(minutes=length // 2)
            punches.append(Punch(uuid.uuid4(), "break_start", middle, "approved"))
            punches.append(Punch(uuid.uuid4(), "break_end", middle + timedelta(minutes=pause),
                                 "approved"))
        punches.append(Punch(uuid.uuid4(), "clock_out", end, "approved"))
        cursor = end
    return punches


@PROPERTY_SETTINGS
@given(sessions(), RULE_SETS)
def test_a_timesheet_month_equals_its_weeks(punches: list[Punch], rule: WorkRule) -> None:
    """Issue 23 through `compute_timesheet`: four weeks in one sheet pay every local day the
    same minutes under the same pay codes as four one-week sheets (each computed from the
    punches since its `context_start`), overtime included."""
    def sheet(start: datetime, end: datetime) -> list[tuple[object, ...]]:
        since = context_start(start, [rule])
        computed = compute_timesheet(TimesheetInput(
            start=start, end=end, now=local(SUNDAY, 24 * 40), zone=NY,
            punches=[p for p in punches if p.time >= since], default_pay_code_id="pay:regular",
            rules=[rule]))
        return [(d.pay_code_id, d.day, d.actual) for d in computed.pay_code_days if d.actual]

    weeks = [local(SUNDAY + timedelta(days=7 * n), 0) for n in range(5)]
    by_week = [row for start, end in pairwise(weeks) for row in sheet(start, end)]
    assert sorted(by_week, key=str) == sorted(sheet(weeks[0], weeks[-1]), key=str)
