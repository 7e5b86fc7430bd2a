"""Appointment rules: status moves, cancellation, createdAt and overlaps, with property tests."""

from __future__ import annotations

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.api.domain import appointments as rules
from app.api.domain.appointments import AppointmentState, Booking, Refusal
from app.contract.problems import ProblemCode

NOW = datetime(2026, 3, 2, 12, tzinfo=UTC)
T0 = datetime(2026, 3, 10, 9, tzinfo=UTC)
PROVIDER = uuid.UUID(int=1)


def state(status: str = "upcoming", **kw: object) -> AppointmentState:
    values: dict[str, object] = {"type": "Follow-up", "provider_id": PROVIDER, "status": status,
                                 "start": T0, "end": T0 + timedelta(minutes=30)}
    if status == "cancelled":
        values.update(cancellation_date=NOW - timedelta(days=1), cancellation_reason="Ill")
    values.update(kw)
    return AppointmentState(**values)  # type: ignore[arg-type]


def booking(start: int, end: int, status: str = "upcoming", ident: int | None = None) -> Booking:
    return Booking(uuid.UUID(int=ident if ident is not None else 1000 + start),
                   T0 + timedelta(minutes=start), T0 + timedelta(minutes=end), status)


# Create -----------------------------------------------------------------------------------------


def test_decide_create_accepts_a_plain_upcoming_appointment():
    assert rules.decide_create(state(), now=NOW) == state()


def test_decide_create_fills_the_cancellation_date_of_a_cancelled_appointment():
    decided = rules.decide_create(state("cancelled", cancellation_date=None), now=NOW)
    assert isinstance(decided, AppointmentState)
    assert decided.cancellation_date == NOW
    assert decided.cancellation_reason == "Ill"


def test_decide_create_keeps_a_given_cancellation_date():
    given_date = NOW - timedelta(hours=3)
    decided = rules.decide_create(state("cancelled", cancellation_date=given_date), now=NOW)
    assert isinstance(decided, AppointmentState)
    assert decided.cancellation_date == given_date


@pytest.mark.parametrize(("member", "value", "path"), [
    ("cancellation_date", NOW, "/cancellationDate"),
    ("cancellation_reason", "Ill", "/cancellationReason"),
])
def test_decide_create_refuses_cancellation_members_unless_cancelled(member, value, path):
    refusal = rules.decide_create(state("upcoming", **{member: value}), now=NOW)
    assert isinstance(refusal, Refusal)
    assert (refusal.code, refusal.path) == (ProblemCode.VALIDATION, path)


def test_decide_create_refuses_an_end_not_after_the_start():
    refusal = rules.decide_create(state(end=T0), now=NOW)
    assert isinstance(refusal, Refusal)
    assert (refusal.code, refusal.path) == (ProblemCode.NEGATIVE_RANGE, "/endDate")


def test_decide_create_refuses_an_actual_end_before_the_actual_start():
    refusal = rules.decide_create(
        state("occurred", actual_start=T0, actual_end=T0 - timedelta(minutes=1)), now=NOW)
    assert isinstance(refusal, Refusal)
    assert (refusal.code, refusal.path) == (ProblemCode.NEGATIVE_RANGE, "/actualEndDate")


# Update -----------------------------------------------------------------------------------------


def test_decide_update_cancels_with_now_and_the_reason():
    decided = rules.decide_update(state(), {"status": "cancelled",
                                            "cancellation_reason": "Patient asked"}, now=NOW)
    assert isinstance(decided, AppointmentState)
    assert (decided.status, decided.cancellation_date, decided.cancellation_reason) == (
        "cancelled", NOW, "Patient asked")


def test_decide_update_reopening_clears_the_cancellation():
    decided = rules.decide_update(state("cancelled"), {"status": "upcoming"}, now=NOW)
    assert isinstance(decided, AppointmentState)
    assert (decided.cancellation_date, decided.cancellation_reason) == (None, None)


def test_decide_update_reopening_may_move_the_appointment():
    later = T0 + timedelta(days=1)
    decided = rules.decide_update(
        state("cancelled"), {"status": "upcoming", "start": later,
                             "end": later + timedelta(hours=1)}, now=NOW)
    assert isinstance(decided, AppointmentState)
    assert decided.start == later


def test_decide_update_lets_a_cancelled_appointment_change_its_reason_only():
    current = state("cancelled")
    decided = rules.decide_update(current, {"cancellation_reason": "Doctor ill"}, now=NOW)
    assert isinstance(decided, AppointmentState)
    assert decided.cancellation_reason == "Doctor ill"
    assert decided.cancellation_date == current.cancellation_date
    refusal = rules.decide_update(current, {"location": "Room 9"}, now=NOW)
    assert isinstance(refusal, Refusal)
    assert refusal.code == ProblemCode.INVALID_STATE_TRANSITION
    assert (refusal.path, refusal.current_state) == ("/location", "cancelled")


def test_decide_update_accepts_unchanged_members_on_a_cancelled_appointment():
    current = state("cancelled", location="Room 4")
    decided = rules.decide_update(current, {"location": "Room 4", "start": T0}, now=NOW)
    assert decided == current


@pytest.mark.parametrize(("current", "target"), [
    ("cancelled", "occurred"), ("cancelled", "no-show"), ("cancelled", "re-scheduled"),
    ("occurred", "cancelled"), ("no-show", "re-scheduled"), ("re-scheduled", "occurred"),
])
def test_decide_update_refuses_moves_the_rules_lack(current, target):
    refusal = rules.decide_update(state(current), {"status": target}, now=NOW)
    assert isinstance(refusal, Refusal)
    assert refusal.code == ProblemCode.INVALID_STATE_TRANSITION
    assert refusal.current_state == current


def test_decide_update_refuses_cancellation_members_when_not_cancelled():
    refusal = rules.decide_update(state(), {"cancellation_reason": "why"}, now=NOW)
    assert isinstance(refusal, Refusal)
    assert (refusal.code, refusal.path) == (ProblemCode.VALIDATION, "/cancellationReason")


def test_decide_update_ignores_null_cancellation_members_when_not_cancelled():
    decided = rules.decide_update(state(), {"cancellation_reason": None,
                                            "cancellation_date": None}, now=NOW)
    assert decided == state()


def test_decide_update_refuses_an_end_moved_before_the_start():
    refusal = rules.decide_update(state(), {"end": T0 - timedelta(minutes=5)}, now=NOW)
    assert isinstance(refusal, Refusal)
    assert (refusal.code, refusal.path) == (ProblemCode.NEGATIVE_RANGE, "/endDate")


def test_decide_update_refuses_unknown_members():
    with pytest.raises(ValueError, match="not appointment members"):
        rules.decide_update(state(), {"colour": "red"}, now=NOW)


def test_created_at_changed_compares_to_the_second():
    stored = NOW.replace(microsecond=123456)
    assert not rules.created_at_changed(stored, NOW)
    assert rules.created_at_changed(stored, NOW + timedelta(seconds=1))


@given(st.sampled_from(rules.STATUSES), st.sampled_from(rules.STATUSES))
def test_decide_update_moves_exactly_when_the_table_allows(current, target):
    decided = rules.decide_update(state(current), {"status": target}, now=NOW)
    allowed = current == target or target in rules.TRANSITIONS[current]
    assert isinstance(decided, AppointmentState) == allowed
    if allowed:
        assert isinstance(decided, AppointmentState)
        assert decided.status == target
        # Only a cancelled appointment carries cancellation members.
        assert (decided.cancellation_date is not None) == (target == "cancelled")
        if target != "cancelled":
            assert decided.cancellation_reason is None


@given(st.sampled_from(rules.STATUSES))
def test_every_status_can_be_reopened(status):
    decided = rules.decide_update(state(status), {"status": "upcoming"}, now=NOW)
    assert isinstance(decided, AppointmentState)
    assert decided.status == "upcoming"


# Overlaps ---------------------------------------------------------------------------------------


def test_conflicts_allows_back_to_back():
    assert rules.conflicts(booking(30, 60), [booking(0, 30), booking(60, 90)]) == []


def test_conflicts_lists_overlaps_by_start():
    late, early = booking(45, 75), booking(0, 40)
    assert rules.conflicts(booking(30, 60), [late, early]) == [early, late]


def test_conflicts_ignores_non_blocking_statuses_and_itself():
    candidate = booking(0, 60, ident=1)
    others = [booking(10, 20, "cancelled"), booking(20, 30, "occurred"), replace(candidate)]
    assert rules.conflicts(candidate, others) == []


def test_conflicts_is_empty_for_a_candidate_that_does_not_block():
    assert rules.conflicts(booking(0, 60, "cancelled"), [booking(10, 20)]) == []


spans = st.tuples(st.integers(0, 200), st.integers(1, 60)).map(lambda t: (t[0], t[0] + t[1]))


@given(spans, st.lists(spans, max_size=8))
def test_conflicts_are_exactly_the_blocking_bookings_sharing_a_minute(candidate, others):
    mine = booking(*candidate, ident=0)
    theirs = [booking(a, b, ident=i + 1) for i, (a, b) in enumerate(others)]
    found = rules.conflicts(mine, theirs)
    minutes = set(range(*candidate))
    expected = [b for b, (a, e) in zip(theirs, others, strict=True)
                if minutes & set(range(a, e))]
    assert sorted(found, key=lambda b: b.id.int) == sorted(expected, key=lambda b: b.id.int)
    assert [b.start for b in found] == sorted(b.start for b in found)
