"""Slot search rules: skill matching, the local grid across DST, time off blocks, ranking, and
properties of `find_slots` on generated schedules checked against a brute-force search."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.api.domain import slots as rules
from app.api.domain.intervals import Interval
from app.api.domain.slots import Busy, Preferences, Requirements, Slot, WorkingSegment

NEW_YORK = ZoneInfo("America/New_York")
KOLKATA = ZoneInfo("Asia/Kolkata")
T0 = datetime(2026, 3, 2, 12, tzinfo=UTC)


def minutes(n: int) -> timedelta:
    return timedelta(minutes=n)


def segment(provider: str, start: datetime, end: datetime, role: str | None = "md",
            skills: rules.SkillSet = frozenset()) -> WorkingSegment:
    return WorkingSegment(provider_id=provider, role_id=role, start=start, end=end, skills=skills)


def search(candidates: list[WorkingSegment], busy: list[Busy] | None = None, *, length: int = 30,
           grid: int = 15, window: Interval[datetime] | None = None,
           zone: ZoneInfo = NEW_YORK, requirements: Requirements | None = None,
           preferences: Preferences | None = None, limit: int = 10) -> list[Slot]:
    return rules.find_slots(candidates, busy or [], length, grid,
                            window or Interval(T0, T0 + timedelta(hours=12)), zone,
                            requirements or Requirements(), preferences or Preferences(), limit)


# Skills -----------------------------------------------------------------------------------------

FRENCH = {"type": "equal", "skill": "language", "value": "French"}
ACLS = {"type": "equal", "skill": "certification", "value": "ACLS"}


def test_meets_checks_conditions_and_groups() -> None:
    skills = rules.skill_set([("language", "French")], licensed_regions=["NY"],
                             enrollments=["Medicare"])
    assert rules.meets(None, frozenset())
    assert rules.meets(FRENCH, skills)
    assert not rules.meets(ACLS, skills)
    assert rules.meets({"type": "or", "entries": [ACLS, FRENCH]}, skills)
    assert not rules.meets({"type": "and", "entries": [ACLS, FRENCH]}, skills)
    nested = {"type": "and", "entries": [FRENCH, {"type": "or", "entries": [
        ACLS, {"type": "equal", "skill": "licensed_region", "value": "NY"}]}]}
    assert rules.meets(nested, skills)
    assert rules.meets({"type": "equal", "skill": "enrollment", "value": "Medicare"}, skills)


def test_meets_refuses_an_unknown_shape() -> None:
    assert not rules.meets({"type": "near", "skill": "language"}, frozenset({("language", "")}))


# The grid ---------------------------------------------------------------------------------------


def test_on_grid_aligns_in_local_time_in_a_half_hour_zone() -> None:
    assert rules.on_grid(datetime(2026, 3, 2, 4, 30, tzinfo=UTC), 60, KOLKATA)  # 10:00 IST
    assert not rules.on_grid(datetime(2026, 3, 2, 4, 0, tzinfo=UTC), 60, KOLKATA)
    assert not rules.on_grid(datetime(2026, 3, 2, 4, 30, 1, tzinfo=UTC), 60, KOLKATA)


def test_grid_starts_follow_the_wall_clock_across_the_fall_back() -> None:
    # 2026-11-01 in New York: 01:00-02:00 happens twice (EDT, then EST).
    free = Interval(datetime(2026, 11, 1, 3, 50, tzinfo=UTC), datetime(2026, 11, 1, 9, tzinfo=UTC))
    starts = list(rules.grid_starts(free, minutes(30), 15, NEW_YORK))
    assert starts[0] == datetime(2026, 11, 1, 4, 0, tzinfo=UTC)  # 00:00 EDT
    assert all(b - a == minutes(15) for a, b in pairwise(starts))
    assert starts[-1] + minutes(30) <= free.end
    local = [t.astimezone(NEW_YORK).strftime("%H:%M%z") for t in starts]
    assert local.count("01:00-0400") == 1
    assert local.count("01:00-0500") == 1


def test_grid_starts_realign_after_spring_forward_with_an_odd_grid() -> None:
    # 2026-03-08: 01:30 EST is followed by 03:00 EDT (180 local minutes, a multiple of 45).
    free = Interval(datetime(2026, 3, 8, 6, 30, tzinfo=UTC), datetime(2026, 3, 8, 9, tzinfo=UTC))
    starts = list(rules.grid_starts(free, minutes(15), 45, NEW_YORK))
    local = [t.astimezone(NEW_YORK).strftime("%H:%M") for t in starts]
    assert local[:3] == ["01:30", "03:00", "03:45"]


def _next_on_grid_minute_by_minute(instant: datetime, grid: int, zone: ZoneInfo) -> datetime:
    candidate = instant.replace(second=0, microsecond=0)
    if candidate < instant:
        candidate += minutes(1)
    while not rules.on_grid(candidate, grid, zone):
        candidate += minutes(1)
    return candidate


_OFFSET_CHANGES = [datetime(2026, month, day, hour, tzinfo=UTC) for month, day, hour in (
    (3, 8, 7), (11, 1, 6),  # New York
    (4, 4, 15), (10, 3, 15),  # Lord Howe, by 30 minutes
    (3, 29, 1), (10, 25, 1),  # London
    (4, 4, 14), (9, 26, 14),  # Chatham, :45 offsets
)]


@settings(max_examples=600, deadline=None)
@given(st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2027, 1, 1),
                    timezones=st.just(UTC)),
       st.sampled_from([1, 5, 7, 10, 15, 20, 25, 30, 45, 50, 60, 90, 120, 240, 1440]),
       st.sampled_from(["America/New_York", "Asia/Kolkata", "Australia/Lord_Howe",
                        "America/St_Johns", "Europe/London", "Pacific/Chatham"]),
       st.sampled_from(["anywhere", "near a change of offset", "near local midnight"]),
       st.integers(min_value=-180, max_value=180))
def test_the_next_grid_instant_is_the_first_on_the_wall_clock(
        instant: datetime, grid: int, name: str, place: str, shift: int) -> None:
    # Where the wall clock jumps or repeats, and just before local midnight with a grid that
    # does not divide the day (midnight then comes before the next multiple).
    zone = ZoneInfo(name)
    if place == "near a change of offset":
        instant = _OFFSET_CHANGES[abs(shift) % len(_OFFSET_CHANGES)] + minutes(shift)
    elif place == "near local midnight":
        midnight = datetime.combine(instant.astimezone(zone).date(), datetime.min.time(),
                                    tzinfo=zone)
        instant = midnight.astimezone(UTC) + minutes(shift % 20 - 20) + timedelta(seconds=shift)
    expected = _next_on_grid_minute_by_minute(instant, grid, zone)
    assert rules._next_on_grid(instant, grid, zone) == expected


def test_find_slots_across_an_overnight_fall_back_keeps_exact_lengths() -> None:
    night = Interval(datetime(2026, 10, 31, 23, tzinfo=UTC), datetime(2026, 11, 1, 11, tzinfo=UTC))
    found = search([segment("a", night.start, night.end)], window=night, limit=200)
    assert len(found) == 12 * 4 - 1  # 12 elapsed hours, even though the local night has 13
    assert all(s.end - s.start == minutes(30) for s in found)
    assert all(rules.on_grid(s.start, 15, NEW_YORK) for s in found)


# Time off ---------------------------------------------------------------------------------------


def test_time_off_block_is_the_request_unless_full_day() -> None:
    block = rules.time_off_block(T0, T0 + minutes(90), is_full_day=False, days=[], zone=NEW_YORK)
    assert block == [Interval(T0, T0 + minutes(90))]


def test_time_off_block_covers_listed_local_days() -> None:
    days = [datetime(2026, 3, 2, tzinfo=UTC), datetime(2026, 3, 9, tzinfo=UTC)]
    block = rules.time_off_block(T0, T0 + minutes(60), is_full_day=True, days=days,
                                 zone=NEW_YORK)
    assert Interval(datetime(2026, 3, 2, 5, tzinfo=UTC), datetime(2026, 3, 3, 5, tzinfo=UTC)) \
        in block
    # March 9 is after the spring-forward: EDT midnights.
    assert Interval(datetime(2026, 3, 9, 4, tzinfo=UTC), datetime(2026, 3, 10, 4, tzinfo=UTC)) \
        in block


def test_time_off_block_without_days_covers_every_local_day_of_the_request() -> None:
    start = datetime(2026, 3, 3, 3, tzinfo=UTC)  # March 2, 22:00 EST
    block = rules.time_off_block(start, start + timedelta(hours=5), is_full_day=True, days=[],
                                 zone=NEW_YORK)
    assert block[0].start == datetime(2026, 3, 2, 5, tzinfo=UTC)
    assert max(b.end for b in block) == datetime(2026, 3, 4, 5, tzinfo=UTC)


# Ranking ----------------------------------------------------------------------------------------


def test_find_slots_returns_at_most_limit_best_first() -> None:
    found = search([segment("a", T0, T0 + timedelta(hours=4)),
                    segment("b", T0, T0 + timedelta(hours=4))], limit=5)
    assert [(s.start - T0, s.provider_id) for s in found] == [
        (minutes(0), "a"), (minutes(0), "b"), (minutes(15), "a"), (minutes(15), "b"),
        (minutes(30), "a")]


def test_find_slots_prefers_providers_then_skills_then_lighter_load() -> None:
    french = rules.skill_set([("language", "French")])
    candidates = [segment("a", T0, T0 + timedelta(hours=4)),
                  segment("b", T0, T0 + timedelta(hours=4), skills=french),
                  segment("c", T0, T0 + timedelta(hours=4))]
    busy = [Busy("a", T0 + timedelta(hours=5), T0 + timedelta(hours=6))]
    at_start = [s.provider_id for s in search(candidates, busy, limit=200) if s.start == T0]
    assert at_start == ["b", "c", "a"]  # a has an appointment in the window; b, c by id
    by_skill = search(candidates, busy, limit=1, preferences=Preferences(skill=FRENCH))
    assert by_skill[0].provider_id == "b"
    chosen = Preferences(provider_ids=frozenset({"a"}), skill=FRENCH)
    assert [s.provider_id for s in search(candidates, busy, limit=2, preferences=chosen)] == \
        ["a", "a"]


def test_find_slots_keeps_slots_inside_one_segment() -> None:
    # Two touching segments: no 30-minute slot may straddle 12:45.
    candidates = [segment("a", T0, T0 + minutes(45)),
                  segment("a", T0 + minutes(45), T0 + minutes(60))]
    assert [s.start - T0 for s in search(candidates, limit=10)] == [minutes(0), minutes(15)]


def test_find_slots_refuses_non_positive_parameters() -> None:
    with pytest.raises(ValueError, match="positive"):
        search([], length=0)
    with pytest.raises(ValueError, match="positive"):
        search([], limit=0)


# Properties -------------------------------------------------------------------------------------

ZONES = [ZoneInfo(z) for z in ("UTC", "America/New_York", "Asia/Kolkata", "America/St_Johns",
                               "Australia/Lord_Howe")]
BASES = [datetime(2026, 3, 7, 12, tzinfo=UTC), datetime(2026, 10, 31, 12, tzinfo=UTC),
         datetime(2026, 4, 4, 6, tzinfo=UTC)]  # New York DST both ways; Lord Howe falls back
PROVIDERS = ["p0", "p1", "p2", "p3"]
ROLES = ["r0", "r0", "r1", None]
SKILL_POOL = [("language", "French"), ("language", "Spanish"), ("licensed_region", "NY"),
              ("enrollment", "Medicare")]

conditions = st.sampled_from(SKILL_POOL).map(
    lambda pair: {"type": "equal", "skill": pair[0], "value": pair[1]})
requirement = st.one_of(
    conditions,
    st.builds(lambda op, entries: {"type": op, "entries": entries},
              st.sampled_from(["and", "or"]), st.lists(conditions, min_size=1, max_size=3)),
)


@st.composite
def scenarios(draw: st.DrawFn) -> dict:
    base = draw(st.sampled_from(BASES))
    zone = draw(st.sampled_from(ZONES))

    def at(step: int) -> datetime:
        return base + minutes(5 * step)

    skills = {p: frozenset(draw(st.lists(st.sampled_from(SKILL_POOL), min_size=1, max_size=4)))
              for p in PROVIDERS}
    candidates = []
    for _ in range(draw(st.integers(1, 8))):
        provider = draw(st.sampled_from(PROVIDERS))
        start = draw(st.integers(0, 250))
        candidates.append(WorkingSegment(provider, draw(st.sampled_from(ROLES)), at(start),
                                         at(start + draw(st.integers(1, 80))), skills[provider]))
    busy = []
    for _ in range(draw(st.integers(0, 8))):
        start = draw(st.integers(-20, 280))
        busy.append(Busy(draw(st.sampled_from(PROVIDERS)), at(start),
                         at(start + draw(st.integers(1, 30))),
                         draw(st.sampled_from(["appointment", "time_off"]))))
    first = draw(st.integers(0, 200))
    window = Interval(at(first) + minutes(draw(st.sampled_from([0, 1, 7]))),
                      at(first + draw(st.integers(2, 88))))
    # Mostly permissive filters, so that most scenarios do offer slots.
    roles = draw(st.sampled_from([None, None, frozenset({"r0"}), frozenset({"r0", "r1"})]))
    providers = draw(st.sampled_from([None, None, frozenset({"p0", "p1"}), frozenset({"p2"})]))
    needs = tuple(draw(st.lists(requirement, max_size=1)))
    preferences = Preferences(provider_ids=draw(st.frozensets(st.sampled_from(PROVIDERS))),
                              skill=draw(st.none() | requirement))
    return {
        "candidates": candidates, "busy": busy,
        "type_length": draw(st.sampled_from([5, 15, 30, 50])),
        "grid": draw(st.sampled_from([5, 10, 15, 20, 30, 45, 60])), "window": window,
        "zone": zone, "requirements": Requirements(roles, needs, providers),
        "preferences": preferences, "limit": draw(st.integers(1, 12)),
    }


def brute_force(s: dict) -> list[Slot]:
    """Every valid slot found minute by minute, scored and ordered as the rules say."""
    window, length = s["window"], minutes(s["type_length"])
    load = {p: sum(1 for b in s["busy"] if b.provider_id == p and b.kind == "appointment"
                   and Interval(b.start, b.end).overlaps(window)) for p in PROVIDERS}
    found: set[Slot] = set()
    span = (window.end - window.start).total_seconds()
    for seg in s["candidates"]:
        if not rules.eligible(seg, s["requirements"]):
            continue
        t = window.start.replace(second=0, microsecond=0)
        while t + length <= window.end:
            local = t.astimezone(s["zone"])
            slot = Interval(t, t + length)
            if (window.start <= t and (local.hour * 60 + local.minute) % s["grid"] == 0
                    and seg.start <= t and t + length <= seg.end
                    and not any(b.provider_id == seg.provider_id
                                and slot.overlaps(Interval(b.start, b.end)) for b in s["busy"])):
                p = seg.provider_id
                score = 10 / (1 + load[p]) + 20 * (1 - (t - window.start).total_seconds() / span)
                score += 100 if p in s["preferences"].provider_ids else 0
                if s["preferences"].skill is not None and rules.meets(s["preferences"].skill,
                                                                      seg.skills):
                    score += 50
                found.add(Slot(t, t + length, p, round(score, 6)))
            t += minutes(1)
    return sorted(found, key=lambda x: (-x.score, x.start, x.provider_id))[:s["limit"]]


PROPERTY = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTY
@given(scenarios())
def test_find_slots_yields_only_valid_slots(s: dict) -> None:
    found = rules.find_slots(**s)
    length = minutes(s["type_length"])
    assert len(found) <= s["limit"]
    for slot in found:
        assert slot.end - slot.start == length
        assert s["window"].start <= slot.start
        assert slot.end <= s["window"].end
        assert rules.on_grid(slot.start, s["grid"], s["zone"])
        assert any(seg.provider_id == slot.provider_id and seg.start <= slot.start
                   and slot.end <= seg.end and rules.eligible(seg, s["requirements"])
                   for seg in s["candidates"])
        assert not any(b.provider_id == slot.provider_id and b.start < slot.end
                       and slot.start < b.end for b in s["busy"])
        if s["requirements"].provider_ids is not None:
            assert slot.provider_id in s["requirements"].provider_ids


@PROPERTY
@given(scenarios(), st.randoms(use_true_random=False))
def test_find_slots_is_deterministic_whatever_the_input_order(s: dict, rnd: random.Random) -> None:
    first = rules.find_slots(**s)
    shuffled = dict(s, candidates=rnd.sample(s["candidates"], len(s["candidates"])),
                    busy=rnd.sample(s["busy"], len(s["busy"])))
    assert rules.find_slots(**shuffled) == first == rules.find_slots(**s)


@PROPERTY
@given(scenarios())
def test_find_slots_matches_a_minute_by_minute_search(s: dict) -> None:
    assert rules.find_slots(**s) == brute_force(s)


def streamed(s: dict, possible: frozenset[str] | None, rnd: random.Random,
             skills: dict[str, rules.SkillSet] | None = None) -> list[Slot]:
    """`find_slots_in_order` on the scenario: segments and appointments in start order (ties
    shuffled), time off up front, loads counted as the service counts them."""
    window = s["window"]
    events: list[WorkingSegment | Busy] = [*s["candidates"],
                                           *(b for b in s["busy"] if b.kind == "appointment")]
    rnd.shuffle(events)
    events.sort(key=lambda e: e.start)
    loads: dict[str, int] = {}
    for b in s["busy"]:
        if b.kind == "appointment" and Interval(b.start, b.end).overlaps(window):
            loads[b.provider_id] = loads.get(b.provider_id, 0) + 1
    return rules.find_slots_in_order(
        events, [b for b in s["busy"] if b.kind == "time_off"], loads, possible,
        s["type_length"], s["grid"], window, s["zone"], s["requirements"], s["preferences"],
        s["limit"], skills=skills)


@PROPERTY
@given(scenarios(), st.sampled_from(["unknown", "exact", "more"]), st.booleans(),
       st.randoms(use_true_random=False))
def test_find_slots_in_order_stops_early_with_the_same_result(s: dict, known: str,
                                                              with_skills: bool,
                                                              rnd: random.Random) -> None:
    providers = frozenset(c.provider_id for c in s["candidates"])
    possible = {"unknown": None, "exact": providers, "more": frozenset(PROVIDERS)}[known]
    # Skills as the service knows them: only the pairs a condition or the preference names.
    named = {pair for r in (*s["requirements"].skills, s["preferences"].skill) if r is not None
             for pair in SKILL_POOL if str(r).find(repr(pair[1])) >= 0}
    skills = {c.provider_id: frozenset(c.skills & named) for c in s["candidates"]
              if c.skills & named} if with_skills else None
    assert streamed(s, possible, rnd, skills) == rules.find_slots(**s)


def test_find_slots_in_order_reads_only_what_can_make_the_best() -> None:
    # Forty providers each free all day; the best 3 are at the window's start, so the stream is
    # abandoned long before its end.
    window = Interval(T0, T0 + timedelta(days=14))
    read: list[datetime] = []

    def events():
        for day in range(14):
            for p in range(40):
                start = T0 + timedelta(days=day)
                read.append(start)
                yield WorkingSegment(f"p{p:02}", "md", start, start + timedelta(hours=8))

    found = rules.find_slots_in_order(events(), [], {}, None, 30, 15, window, NEW_YORK,
                                      Requirements(), Preferences(), 3)
    assert [(s.provider_id, s.start) for s in found] == [("p00", T0), ("p01", T0), ("p02", T0)]
    assert len(read) <= 80
