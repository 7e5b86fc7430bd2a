"""Search windows on the site's calendar (pure code): quick picks, DST days, never the past."""

from __future__ import annotations

from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

from app.web.appointment_types import skills
from app.web.slots import windows

NY = ZoneInfo("America/New_York")


def test_today_starts_now_rounded_up_to_the_minute() -> None:
    now = datetime(2026, 3, 4, 15, 7, 30, tzinfo=UTC)  # 10:07:30 AM in New York
    window = windows.quick("today", now, NY)
    assert window.start == datetime(2026, 3, 4, 15, 8, tzinfo=UTC)
    assert window.end == datetime(2026, 3, 5, 5, 0, tzinfo=UTC)


def test_today_is_over_in_its_last_seconds() -> None:
    window = windows.quick("today", datetime(2026, 3, 5, 4, 59, 30, tzinfo=UTC), NY)
    assert window.start >= window.end


def test_this_week_runs_to_sunday_and_next_week_is_monday_to_sunday() -> None:
    now = datetime(2026, 3, 4, 15, 0, tzinfo=UTC)  # a Wednesday
    week, following = windows.quick("week", now, NY), windows.quick("next-week", now, NY)
    assert week.last_day == date(2026, 3, 8)
    assert (following.first_day, following.last_day) == (date(2026, 3, 9), date(2026, 3, 15))


def test_a_dst_day_is_23_hours_long() -> None:
    window = windows.days(date(2026, 3, 8), date(2026, 3, 8), NY)
    assert (window.end - window.start).total_seconds() == 23 * 3600


def test_skill_rows_round_trip_through_the_spec_shape() -> None:
    rows = [["language=French", "language=Spanish"], ["certification=ACLS"]]
    requirement = skills.from_groups(rows)
    assert skills.describe(requirement) == (
        "(language: French or language: Spanish) and certification: ACLS")
    assert skills.to_groups(requirement) == rows
    assert skills.meets(requirement, {"language": {"Spanish"}, "certification": {"ACLS"}})
    assert not skills.meets(requirement, {"language": {"Spanish"}})


def test_an_or_of_ands_is_kept_as_it_is() -> None:
    from app.contract.skills import SkillCondition, SkillGroup, SkillNestedGroup

    both = SkillNestedGroup(type="and", entries=[
        SkillCondition(type="equal", skill="a", value="1"),
        SkillCondition(type="equal", skill="b", value="2")])
    requirement = SkillGroup(type="or", entries=[both, SkillCondition(type="equal", skill="c",
                                                                      value="3")])
    assert skills.to_groups(requirement) is None
