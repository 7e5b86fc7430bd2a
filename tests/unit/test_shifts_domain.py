"""Shift rules: segment placement, references, skill matching and the claim decision, with
hypothesis properties for the placement and matching laws."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from app.api.domain import shifts as rules
from app.api.domain.intervals import Interval
from app.api.domain.shifts import (
    Claimant,
    ClaimTarget,
    MissingSkill,
    Qualifications,
    SegmentDraft,
)

T0 = datetime(2026, 3, 2, 12, tzinfo=UTC)
TEAM, OTHER_TEAM = uuid.uuid4(), uuid.uuid4()
ROLE, OTHER_ROLE = uuid.uuid4(), uuid.uuid4()
LABEL = uuid.uuid4()


def h(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def seg(start: float, end: float, **kw: Any) -> SegmentDraft:
    return SegmentDraft(start=h(start), end=h(end), **kw)


def paths(errors: list[Any]) -> list[str]:
    return [e.path for e in errors]


def cond(skill: str, value: str) -> dict[str, str]:
    return {"type": "equal", "skill": skill, "value": value}


# Segments ---------------------------------------------------------------------------------------


def test_segment_errors_accepts_ordered_touching_segments_inside_the_shift() -> None:
    assert rules.segment_errors(h(0), h(8), [seg(0, 4), seg(4, 4.5), seg(4.5, 8)]) == []
    assert rules.segment_errors(h(0), h(8), [seg(1, 2)]) == []


def test_segment_errors_reports_segments_outside_the_shift() -> None:
    errors = rules.segment_errors(h(0), h(8), [seg(-1, 4), seg(4, 9)])

    assert paths(errors) == ["/segments/0/startDate", "/segments/1/endDate"]


def test_segment_errors_reports_overlaps_and_disorder() -> None:
    assert paths(rules.segment_errors(h(0), h(8), [seg(0, 5), seg(4, 8)])) == [
        "/segments/1/startDate"]
    assert paths(rules.segment_errors(h(0), h(8), [seg(4, 8), seg(0, 4)])) == [
        "/segments/1/startDate"]


def test_segment_errors_reports_a_segment_ending_before_it_starts() -> None:
    errors = rules.segment_errors(h(0), h(8), [seg(3, 3), seg(3, 8)])

    assert paths(errors) == ["/segments/0/endDate"]
    assert "after the segment's startDate" in errors[0].message


@given(st.lists(st.tuples(st.integers(-10, 30), st.integers(1, 10)), min_size=1, max_size=6))
def test_segment_errors_is_empty_exactly_for_ordered_disjoint_segments_inside(
        spans: list[tuple[int, int]]) -> None:
    segments = [seg(start, start + length) for start, length in spans]
    inside = all(h(0) <= s.start and s.end <= h(20) for s in segments)
    ordered = all(a.end <= b.start for a, b in pairwise(segments))

    assert (rules.segment_errors(h(0), h(20), segments) == []) == (inside and ordered)


# References -------------------------------------------------------------------------------------


def test_reference_errors_reports_unknown_roles_foreign_roles_labels_and_pay_codes() -> None:
    unknown = uuid.uuid4()
    segments = [seg(0, 1, role=ROLE, labels=(LABEL, unknown, LABEL)), seg(1, 2, role=OTHER_ROLE),
                seg(2, 3, role=unknown)]

    errors = rules.reference_errors(
        segments, team=TEAM, role_teams={ROLE: TEAM, OTHER_ROLE: OTHER_TEAM},
        known_labels={LABEL}, pay_codes=[unknown], known_pay_codes=set())

    assert paths(errors) == ["/segments/0/labels/1", "/segments/0/labels/2",
                             "/segments/1/role", "/segments/2/role", "/payCodes/0/payCodeId"]


def test_reference_errors_allows_roles_of_any_team_without_a_team() -> None:
    errors = rules.reference_errors([seg(0, 1, role=OTHER_ROLE)], team=None,
                                    role_teams={OTHER_ROLE: OTHER_TEAM}, known_labels=set())

    assert errors == []


# Skills -----------------------------------------------------------------------------------------


PAT = Qualifications(skills={"language": frozenset({"Spanish"}),
                             "certification": frozenset({"ACLS"})},
                     licensed_regions=frozenset({"NY"}), enrollments=frozenset({"Medicare"}))


def test_skill_type_names_the_kind_of_skill() -> None:
    assert rules.skill_type("language") == "language"
    assert rules.skill_type("licensed_region") == "licensed_region"
    assert rules.skill_type("enrollment") == "enrollment"
    assert rules.skill_type("certification") == "custom"


def test_missing_skills_checks_each_kind_against_its_source() -> None:
    assert rules.missing_skills(None, PAT) == []
    assert rules.missing_skills(cond("licensed_region", "NY"), PAT) == []
    assert rules.missing_skills(cond("enrollment", "Medicare"), PAT) == []
    assert rules.missing_skills(cond("certification", "ACLS"), PAT) == []
    assert rules.missing_skills(cond("licensed_region", "CA"), PAT) == [
        MissingSkill("licensed_region", "CA", "licensed_region")]
    assert rules.missing_skills(cond("language", "NY"), PAT) == [
        MissingSkill("language", "NY", "language")]


def test_missing_skills_reports_failed_and_entries_and_whole_failed_or_groups() -> None:
    both = {"type": "and", "entries": [cond("language", "Spanish"), cond("certification", "PALS")]}
    either = {"type": "or", "entries": [cond("certification", "PALS"), cond("language", "Thai")]}
    met = {"type": "or", "entries": [cond("certification", "PALS"), cond("language", "Spanish")]}

    assert rules.missing_skills(both, PAT) == [MissingSkill("certification", "PALS", "custom")]
    assert rules.missing_skills(either, PAT) == [MissingSkill("certification", "PALS", "custom"),
                                                 MissingSkill("language", "Thai", "language")]
    assert rules.missing_skills(met, PAT) == []
    assert rules.missing_skills({"type": "and", "entries": [met, both]}, PAT) == [
        MissingSkill("certification", "PALS", "custom")]


VALUES = st.sampled_from(["a", "b", "c"])
CONDITIONS = st.builds(cond, st.sampled_from(["language", "certification", "licensed_region"]),
                       VALUES)
REQUIREMENTS = st.recursive(
    CONDITIONS,
    lambda inner: st.builds(lambda kind, entries: {"type": kind, "entries": entries},
                            st.sampled_from(["and", "or"]), st.lists(inner, min_size=1,
                                                                     max_size=3)),
    max_leaves=6,
)
QUALIFICATIONS = st.builds(
    lambda lang, cert, regions: Qualifications(
        skills={"language": frozenset(lang), "certification": frozenset(cert)},
        licensed_regions=frozenset(regions)),
    st.sets(VALUES), st.sets(VALUES), st.sets(VALUES))


def _meets(requirement: dict[str, Any], q: Qualifications) -> bool:
    if requirement["type"] == "equal":
        name, value = requirement["skill"], requirement["value"]
        held = q.licensed_regions if name == "licensed_region" else q.skills.get(name, set())
        return value in held
    results = [_meets(e, q) for e in requirement["entries"]]
    return all(results) if requirement["type"] == "and" else any(results)


@given(REQUIREMENTS, QUALIFICATIONS)
def test_missing_skills_is_empty_exactly_when_the_requirement_is_met(
        requirement: dict[str, Any], qualifications: Qualifications) -> None:
    missing = rules.missing_skills(requirement, qualifications)

    assert (missing == []) == _meets(requirement, qualifications)


@given(REQUIREMENTS, QUALIFICATIONS)
def test_missing_skills_are_never_held(requirement: dict[str, Any],
                                       qualifications: Qualifications) -> None:
    for item in rules.missing_skills(requirement, qualifications):
        assert not _meets(cond(item.name, item.value), qualifications)


# Claims -----------------------------------------------------------------------------------------


SHIFT_ID = uuid.uuid4()
NOW = h(-48)


def target(**kw: Any) -> ClaimTarget:
    values: dict[str, Any] = {"id": SHIFT_ID, "provider": None, "start": h(0), "end": h(8)}
    values.update(kw)
    return ClaimTarget(**values)


RN, CNA = uuid.uuid4(), uuid.uuid4()


def decide(shift: ClaimTarget, *, now: datetime = NOW,
           others: list[Interval[datetime]] | None = None, notice: int = 120,
           qualifications: Qualifications = PAT, roles: frozenset[uuid.UUID] = frozenset({RN}),
           time_off: list[tuple[uuid.UUID, Interval[datetime]]] | None = None) -> Any:
    claimant = Claimant(qualifications=qualifications, roles=roles, other_shifts=others or [],
                        time_off=time_off or [])
    return rules.claim_refusal(shift, claimant, now=now, default_notice_minutes=notice)


def test_claim_refusal_refuses_a_role_the_provider_does_not_hold() -> None:
    shift = target(roles={RN: "Registered Nurse", CNA: "Certified Nursing Assistant"})

    refusal = decide(shift)

    assert refusal.code == "shift-role-not-held"
    assert refusal.members == {"shiftId": str(SHIFT_ID), "roles": [
        {"id": str(CNA), "name": "Certified Nursing Assistant"}]}
    assert decide(shift, roles=frozenset({RN, CNA})) is None


def test_claim_refusal_refuses_a_shift_in_approved_time_off() -> None:
    leave = uuid.uuid4()

    refusal = decide(target(), time_off=[(leave, Interval(h(-12), h(1)))])

    assert refusal.code == "shift-time-off-conflict"
    assert refusal.members["timeOff"] == [{"id": str(leave),
                                           "startDate": "2026-03-02T00:00:00+0000",
                                           "endDate": "2026-03-02T13:00:00+0000"}]
    assert decide(target(), time_off=[(leave, Interval(h(-12), h(0)))]) is None  # touching


def test_claim_refusals_give_every_reason_in_order() -> None:
    shift = target(roles={CNA: "Certified Nursing Assistant"},
                   requirements=(cond("certification", "PALS"),))
    claimant = Claimant(qualifications=PAT, roles=frozenset({RN}),
                        other_shifts=[Interval(h(1), h(2))],
                        time_off=[(uuid.uuid4(), Interval(h(4), h(30)))])

    refusals = rules.claim_refusals(shift, claimant, now=h(-1), default_notice_minutes=120)

    assert [r.code for r in refusals] == [
        "shift-claim-window-closed", "shift-role-not-held", "shift-missing-skills",
        "shift-time-off-conflict", "shift-schedule-conflict"]


def test_claim_refusal_allows_an_open_future_shift_in_reach() -> None:
    assert decide(target()) is None


def test_claim_refusal_refuses_a_claimed_shift_first() -> None:
    refusal = decide(target(provider=uuid.uuid4()), now=h(1))

    assert refusal.code == "shift-already-claimed"
    assert refusal.members == {}


def test_claim_refusal_refuses_a_started_shift() -> None:
    assert decide(target(), now=h(0)).code == "shift-already-started"
    assert decide(target(), now=h(3)).code == "shift-already-started"


def test_claim_refusal_refuses_inside_the_notice_window_with_members() -> None:
    refusal = decide(target(), now=h(-1.5))

    assert refusal.code == "shift-claim-window-closed"
    assert refusal.members == {"shiftId": str(SHIFT_ID), "minimumNoticeMinutes": 120,
                               "startsAt": "2026-03-02T12:00:00+0000"}
    assert decide(target(), now=h(-2)) is None  # exactly the notice is enough


def test_claim_refusal_prefers_the_shifts_own_notice() -> None:
    assert decide(target(minimum_notice_minutes=30), now=h(-1)) is None
    assert decide(target(minimum_notice_minutes=0), now=h(-0.01)) is None
    strict = decide(target(minimum_notice_minutes=72 * 60), now=h(-48))
    assert strict.members["minimumNoticeMinutes"] == 72 * 60


def test_claim_refusal_lists_missing_skills_of_every_segment_once() -> None:
    pals = cond("certification", "PALS")
    refusal = decide(target(requirements=(pals, None, {"type": "and", "entries": [pals]})))

    assert refusal.code == "shift-missing-skills"
    assert refusal.members == {"shiftId": str(SHIFT_ID), "missingSkills": [
        {"name": "certification", "value": "PALS", "type": "custom"}]}


def test_claim_refusal_lists_overlapping_shifts_in_order() -> None:
    others = [Interval(h(6), h(14)), Interval(h(-8), h(0)), Interval(h(-4), h(1))]

    refusal = decide(target(), others=others)

    assert refusal.code == "shift-schedule-conflict"
    assert refusal.members["conflicts"] == [
        {"startDate": "2026-03-02T08:00:00+0000", "endDate": "2026-03-02T13:00:00+0000"},
        {"startDate": "2026-03-02T18:00:00+0000", "endDate": "2026-03-03T02:00:00+0000"},
    ]


@given(st.integers(-20, 20), st.integers(1, 12), st.integers(-60, 600), st.integers(0, 600))
def test_claim_refusal_time_rules_follow_the_clock(other_start: int, other_hours: int,
                                                   minutes_before: int, notice: int) -> None:
    now = h(0) - timedelta(minutes=minutes_before)
    other = Interval(h(other_start), h(other_start + other_hours))

    refusal = decide(target(), now=now, others=[other], notice=notice)

    if minutes_before <= 0:
        assert refusal.code == "shift-already-started"
    elif minutes_before < notice:
        assert refusal.code == "shift-claim-window-closed"
    elif other.overlaps(Interval(h(0), h(8))):
        assert refusal.code == "shift-schedule-conflict"
    else:
        assert refusal is None
