"""The demo organisation (`app.api.demo.load_demo`): what `shiftdesk init --demo` puts in an empty
database, that it is the same for the same load date, that loading twice changes nothing, and that
`--scale N` sizes it.

Loads go into fresh SQLite files copied from one migrated template (and, once, into a PostgreSQL
database of its own), at a fixed instant: noon in New York on the day the clocks spring forward,
so DST handling is exercised too.
"""

from __future__ import annotations

import shutil
import uuid
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash

from app.api import models as m
from app.api.db import Base, Database
from app.api.demo import load_demo
from app.api.migrate import upgrade
from app.config import Settings
from tests.conftest import PG_AVAILABLE, _pg_execute, _pg_url

NOW = datetime(2026, 3, 8, 16, 0, tzinfo=UTC)  # 12:00 EDT, the day DST starts in New York
ZONE = ZoneInfo("America/New_York")
TODAY = NOW.astimezone(ZONE).date()
MIDNIGHT = datetime.combine(TODAY, datetime.min.time(), tzinfo=ZONE).astimezone(UTC)
DEMO_ACCOUNTS = {
    "admin@example.com": "Admin",
    "manager@example.com": "Manager",
    "scheduler@example.com": "Scheduler",
    "provider@example.com": "Provider",
}
REQUEST_STATUSES = {"pending", "approved", "rejected", "cancelled", "pending_sync", "sync_failed"}
GRACE = timedelta(minutes=7)


def settings_for(url: str) -> Settings:
    """Settings of a load into `url`, in New York time."""
    return Settings(database_url=url, timezone="America/New_York")


@pytest.fixture(scope="module")
def empty_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A migrated, empty SQLite file that each load copies."""
    path = tmp_path_factory.mktemp("demo-template") / "empty.db"
    upgrade(f"sqlite:///{path}")
    return path


def fresh_database(empty_sqlite: Path, folder: Path) -> Database:
    """A new migrated, empty SQLite database in `folder`."""
    target = folder / f"demo-{uuid.uuid4().hex}.db"
    shutil.copyfile(empty_sqlite, target)
    return Database(f"sqlite:///{target}")


@pytest.fixture(scope="module")
def demo(empty_sqlite: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Database]:
    """A database with the demo loaded at NOW. Tests using it must not write."""
    database = fresh_database(empty_sqlite, tmp_path_factory.mktemp("demo"))
    load_demo(database, settings_for(database.url), now=NOW)
    yield database
    database.dispose()


@pytest.fixture
def session(demo: Database) -> Iterator[Session]:
    """A read session on the loaded demo."""
    with demo.unit_of_work() as s:
        yield s


def user(session: Session, email: str) -> m.User:
    """The user with `email`."""
    found = session.scalar(select(m.User).where(m.User.email == email))
    assert found is not None, email
    return found


def row_counts(database: Database) -> dict[str, int]:
    """How many rows each table holds."""
    with database.unit_of_work() as s:
        return {t.name: s.scalar(select(func.count()).select_from(t)) or 0
                for t in Base.metadata.sorted_tables}


def test_load_demo_creates_the_four_accounts_with_password_demo(session):
    for email, role in DEMO_ACCOUNTS.items():
        account = user(session, email)
        assert account.password_hash is not None, email
        assert check_password_hash(account.password_hash, "demo"), email
        assert [r.name for r in account.rbac_roles] == [role], email
    assert user(session, "admin@example.com").is_admin
    assert not user(session, "manager@example.com").is_admin
    manager = user(session, "manager@example.com")
    assert {t.name for t in manager.managed_teams} == {"Emergency", "Intensive Care"}
    nurse = user(session, "provider@example.com").provider
    assert nurse is not None
    assert (nurse.team.name, nurse.default_role.name) == ("Emergency", "Registered Nurse")
    others = session.scalar(select(func.count()).select_from(m.User).where(
        m.User.email.not_in(DEMO_ACCOUNTS), m.User.password_hash.is_not(None)))
    assert others == 0


def test_load_demo_creates_sixty_providers_with_skills_and_the_provider_role(session):
    providers = session.scalars(select(m.Provider)).all()
    assert len(providers) == 60
    provider_role = session.scalar(select(m.RbacRole).where(m.RbacRole.name == "Provider"))
    assert provider_role is not None
    holders = set(session.scalars(
        select(m.user_rbac_roles.c.user_id).where(
            m.user_rbac_roles.c.rbac_role_id == provider_role.id)))
    assert holders >= {p.id for p in providers}
    teams = {t.name for t in session.scalars(select(m.Team))}
    assert {"Emergency", "Intensive Care", "Outpatient Clinic", "Medical-Surgical"} <= teams
    roles = {r.name: r.hex_color for r in session.scalars(select(m.Role))}
    assert {"Registered Nurse", "Charge Nurse", "Physician", "Nurse Practitioner",
            "Certified Nursing Assistant"} <= set(roles)
    assert all(color.startswith("#") and len(color) == 7 for color in roles.values())
    skills = {s.skill_name for s in session.scalars(select(m.ProviderSkill))}
    assert skills == {"language", "certification", "specialty"}
    assert all(p.licensed_regions and p.employment_type_id and p.pay_period_template
               for p in providers)
    kinds = {e.type for e in session.scalars(select(m.EmploymentType))}
    assert kinds == {"employee", "contractor"}


def local_clock(instant: datetime) -> str:
    """Local wall-clock time of an instant, HH:MM."""
    return instant.astimezone(ZONE).strftime("%H:%M")


def test_load_demo_schedules_six_weeks_of_local_wall_clock_shifts(session):
    shifts = session.scalars(select(m.Shift)).all()
    days = {(s.start_date.astimezone(ZONE).date() - TODAY).days for s in shifts}
    assert (min(days), max(days)) == (-21, 20)
    assert {local_clock(s.start_date) for s in shifts} == {"07:00", "19:00", "08:00"}
    # DST: 07:00 is 12:00 UTC before the change and 11:00 UTC after it.
    day_shifts = [s for s in shifts if local_clock(s.start_date) == "07:00"]
    assert {s.start_date.hour for s in day_shifts} == {11, 12}
    assert any(s.provider_id is None for s in shifts)
    assert any(s.is_callout for s in shifts)
    segments = [seg for s in shifts for seg in s.segments]
    assert all(seg.role_id is not None for seg in segments)
    assert any(seg.type == "on_call" and seg.is_on_call for seg in segments)
    breaks = [seg for seg in segments if seg.type == "unpaid_break"]
    assert breaks
    assert all(seg.end_date - seg.start_date == timedelta(minutes=30) for seg in breaks)
    assert any(seg.labels for seg in segments)
    assert sum(1 for s in shifts if s.pay_codes) > len(shifts) // 3
    clinic = {local_clock(s.start_date) + "-" + local_clock(s.end_date) for s in shifts
              if s.team.name == "Outpatient Clinic" and not any(
                  seg.type == "on_call" for seg in s.segments)}
    assert clinic == {"08:00-16:30"}


def overlaps(a: m.Shift, b: m.Shift) -> bool:
    """Whether two shifts share any time."""
    return a.start_date < b.end_date and b.start_date < a.end_date


def test_load_demo_gives_the_provider_shifts_now_this_week_and_one_to_claim(session):
    nurse = user(session, "provider@example.com").provider
    assert nurse is not None
    own = session.scalars(select(m.Shift).where(m.Shift.provider_id == nurse.id,
                                                m.Shift.is_callout.is_(False))).all()
    assert any(s.start_date <= NOW < s.end_date for s in own)
    monday = TODAY - timedelta(days=TODAY.weekday())
    this_week = [s for s in own if monday <= s.start_date.astimezone(ZONE).date()
                 < monday + timedelta(days=7)]
    assert len(this_week) >= 2
    skills = {(s.skill_name, s.value) for s in nurse.skills}
    claimable = [
        s for s in session.scalars(select(m.Shift).where(
            m.Shift.provider_id.is_(None), m.Shift.team_id == nurse.team_id,
            m.Shift.start_date > NOW + timedelta(hours=2)))
        if not any(overlaps(s, mine) for mine in own)
        and all(seg.skill_requirement is None
                or (seg.skill_requirement["skill"], seg.skill_requirement["value"]) in skills
                for seg in s.segments)
    ]
    assert claimable


def test_load_demo_creates_time_off_requests_in_every_status(session):
    requests = session.scalars(select(m.TimeOffRequest)).all()
    assert {r.status for r in requests} == REQUEST_STATUSES
    for r in requests:
        assert r.daily_hours, r.id
        assert r.provider in r.policy.members, r.id
        if r.status == "approved":
            assert r.conflict_resolution is not None
        if r.status == "rejected":
            assert r.rejection_reason
            assert r.rejected_by_id is not None
        if r.status == "pending_sync":
            assert set(r.sync_error or {}) == {"status", "message", "createdAt"}
    nurse = user(session, "provider@example.com")
    assert {"pending", "approved", "rejected"} <= {
        r.status for r in requests if r.provider_id == nurse.id}
    types = {p.type for p in session.scalars(select(m.TimeOffPolicy))}
    assert {"paid-time-off", "sick"} <= types


def test_load_demo_never_overlaps_appointments_of_one_provider(session):
    appointments = session.scalars(select(m.Appointment).order_by(
        m.Appointment.provider_id, m.Appointment.start_date)).all()
    by_provider: dict[uuid.UUID, list[m.Appointment]] = defaultdict(list)
    for a in appointments:
        by_provider[a.provider_id].append(a)
    for booked in by_provider.values():
        for earlier, later in pairwise(booked):
            assert earlier.end_date <= later.start_date, (earlier.id, later.id)
    assert {a.status for a in appointments} == {
        "upcoming", "occurred", "cancelled", "no-show", "re-scheduled"}
    assert all(a.actual_start_date and a.actual_end_date
               for a in appointments if a.status == "occurred")
    assert all(a.cancellation_reason and a.cancellation_date
               for a in appointments if a.status == "cancelled")
    assert all(a.start_date >= MIDNIGHT for a in appointments if a.status == "upcoming")
    types = session.scalars(select(m.AppointmentType)).all()
    assert sum(1 for t in types if t.archived_at is not None) == 1
    assert any(t.allowed_roles for t in types)
    assert any(t.skill_requirement for t in types)


def test_load_demo_punches_past_shifts_with_anomalies(session):
    punches = session.scalars(select(m.TimecardPunch)).all()
    assert punches
    assert all(p.time < MIDNIGHT for p in punches)
    states = [p.state for p in punches]
    assert states.count("approved") > states.count("pending") > 0
    cards = {c.id: c for c in session.scalars(select(m.Timecard))}
    assert all(cards[p.timecard_id].period_start <= p.time < cards[p.timecard_id].period_end
               for p in punches)
    shifts = session.scalars(select(m.Shift).where(
        m.Shift.provider_id.is_not(None), m.Shift.end_date <= MIDNIGHT)).all()
    by_provider: dict[uuid.UUID, list[m.TimecardPunch]] = defaultdict(list)
    for p in punches:
        by_provider[p.provider_id].append(p)
    late = early = missing = 0
    on_shift: set[uuid.UUID] = set()
    for shift in shifts:
        if all(s.type == "on_call" for s in shift.segments):
            continue  # home call: nobody clocks in
        near = [p for p in by_provider[shift.provider_id]
                if shift.start_date - timedelta(hours=1) <= p.time
                <= shift.end_date + timedelta(hours=1)]
        on_shift.update(p.id for p in near)
        worked_until = max(s.end_date for s in shift.segments if s.type == "working")
        ins = [p for p in near if p.action == "clock_in"]
        outs = [p for p in near if p.action == "clock_out"]
        late += any(p.time > shift.start_date + GRACE for p in ins)
        early += any(p.time < worked_until - GRACE for p in outs)
        missing += bool(ins) and not outs
    assert late > 0
    assert early > 0
    assert missing > 0
    assert any(p.action == "clock_in" and p.id not in on_shift for p in punches)


def test_load_demo_changes_nothing_when_loaded_again(demo):
    before = row_counts(demo)
    summary = load_demo(demo, settings_for(demo.url), providers=150, now=NOW + timedelta(days=3))
    assert "already loaded" in summary
    assert row_counts(demo) == before


def shift_times(database: Database) -> list[tuple[uuid.UUID, datetime, datetime]]:
    """Every shift's id, start and end, by id."""
    with database.unit_of_work() as s:
        return [tuple(r) for r in s.execute(select(m.Shift.id, m.Shift.start_date,
                                                   m.Shift.end_date).order_by(m.Shift.id))]


def test_load_demo_is_the_same_for_the_same_day(demo, empty_sqlite, tmp_path):
    other = fresh_database(empty_sqlite, tmp_path)
    try:
        later_that_day = NOW + timedelta(hours=9)  # 21:00 in New York
        load_demo(other, settings_for(other.url), now=later_that_day)
        assert shift_times(other) == shift_times(demo)
        assert row_counts(other) == row_counts(demo)
        with other.unit_of_work() as a, demo.unit_of_work() as b:
            query = select(m.Appointment.id, m.Appointment.start_date, m.Appointment.status
                           ).order_by(m.Appointment.id)
            assert a.execute(query).all() == b.execute(query).all()
    finally:
        other.dispose()


def test_load_demo_scales_to_the_number_of_providers_asked(empty_sqlite, tmp_path):
    database = fresh_database(empty_sqlite, tmp_path)
    try:
        before = datetime.now(ZONE).date()
        summary = load_demo(database, settings_for(database.url), providers=150)
        after = datetime.now(ZONE).date()
        assert "150 providers" in summary
        with database.unit_of_work() as s:
            assert s.scalar(select(func.count()).select_from(m.Provider)) == 150
            nurse = user(s, "provider@example.com")
            starts = s.scalars(select(m.Shift.start_date).where(
                m.Shift.provider_id == nurse.id)).all()
            assert {d.astimezone(ZONE).date() for d in starts} & {before, after}
    finally:
        database.dispose()


def test_load_demo_keeps_the_emergency_nurse_when_tiny(empty_sqlite, tmp_path):
    database = fresh_database(empty_sqlite, tmp_path)
    try:
        load_demo(database, settings_for(database.url), providers=3, now=NOW)
        with database.unit_of_work() as s:
            assert s.scalar(select(func.count()).select_from(m.Provider)) == 3
            nurse = user(s, "provider@example.com").provider
            assert nurse is not None
            assert nurse.team.name == "Emergency"
    finally:
        database.dispose()


def test_load_demo_declines_a_database_that_has_the_demo_accounts(empty_sqlite, tmp_path):
    database = fresh_database(empty_sqlite, tmp_path)
    try:
        with database.unit_of_work(write=True) as s:
            s.add(m.User(name="Someone", email="admin@example.com"))
        before = row_counts(database)
        summary = load_demo(database, settings_for(database.url), now=NOW)
        assert "not loaded" in summary
        assert "admin@example.com" in summary
        assert row_counts(database) == before
    finally:
        database.dispose()


@pytest.mark.postgres
@pytest.mark.skipif(not PG_AVAILABLE, reason="PostgreSQL is not running at 127.0.0.1:5432")
def test_load_demo_on_postgresql_respects_the_no_overlap_constraint():
    name = f"sd_demo_{uuid.uuid4().hex[:10]}"
    _pg_execute(f'CREATE DATABASE "{name}"')
    database: Database | None = None
    try:
        url = _pg_url(name)
        upgrade(url)
        database = Database(url)
        load_demo(database, settings_for(url), now=NOW)
        before = row_counts(database)
        assert before["providers"] == 60
        with database.unit_of_work() as s:  # the planner's statistics are fresh at once
            analyzed = s.execute(text(
                "SELECT relname FROM pg_stat_user_tables WHERE last_analyze IS NOT NULL "
                "AND last_vacuum IS NOT NULL")).scalars().all()
        assert {"shifts", "shift_segments", "appointments"} <= set(analyzed)
        assert "already loaded" in load_demo(database, settings_for(url), now=NOW)
        assert row_counts(database) == before
        with database.unit_of_work() as s:
            booked = s.scalars(select(m.Appointment).where(
                m.Appointment.status == "upcoming").limit(1)).one()
            provider_id, start, end = booked.provider_id, booked.start_date, booked.end_date
        with pytest.raises(IntegrityError), database.unit_of_work(write=True) as s:
            s.add(m.Appointment(type="Follow-up visit", provider_id=provider_id,
                                start_date=start, end_date=end, status="upcoming"))
    finally:
        if database is not None:
            database.dispose()
        _pg_execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_load_demo_gives_every_team_a_work_rule_with_overtime(session):
    teams = session.scalars(select(m.Team)).all()
    assert all(t.work_rule_id is not None for t in teams)
    rules = {t.name: t.work_rule_id for t in teams}
    assert rules["Intensive Care"] != rules["Emergency"]
    versions = {v.work_rule_id: v for v in session.scalars(select(m.WorkRuleVersion))}
    assert {o["kind"] for o in versions[rules["Intensive Care"]].overtime} == {"daily", "period"}
    assert versions[rules["Intensive Care"]].period_anchor is not None
    assert [o["kind"] for o in versions[rules["Emergency"]].overtime] == ["weekly"]
    assert session.scalar(select(m.PayCode).where(m.PayCode.shorthand_name == "DT")).value == 2.0


def test_load_demo_forecasts_every_role_hourly_with_a_daily_and_weekly_shape(session):
    rows = session.execute(
        select(m.Team.name, m.Role.name, m.DemandForecastRow.start_date,
               m.DemandForecastRow.end_date, m.DemandForecastRow.demand)
        .join(m.Role, m.Role.id == m.DemandForecastRow.role_id)
        .join(m.Team, m.Team.id == m.Role.team_id)).all()
    assert {(r[0], r[1]) for r in rows} == {
        (t.name, role.name) for t in session.scalars(select(m.Team)) for role in t.roles}
    assert all(r.end_date - r.start_date == timedelta(hours=1) for r in rows)
    assert all(r.demand == int(r.demand) and r.demand >= 1 for r in rows)
    nurses: dict[datetime, float] = {r.start_date: r.demand for r in rows
                                     if (r[0], r[1]) == ("Emergency", "Registered Nurse")}
    # Six weeks, every hour (low hours still need a nurse), hour by hour from local midnight:
    # the load day is the one the clocks go forward, 23 hours long.
    first = MIDNIGHT - timedelta(days=21)
    last = datetime.combine(TODAY + timedelta(days=21), datetime.min.time(),
                            tzinfo=ZONE).astimezone(UTC)
    assert sorted(nurses) == [first + timedelta(hours=n)
                              for n in range(int((last - first) / timedelta(hours=1)))]
    assert len([at for at in nurses if at.astimezone(ZONE).date() == TODAY]) == 23

    def mean(hours: range, weekdays: range) -> float:
        found = [d for at, d in nurses.items() if at.astimezone(ZONE).hour in hours
                 and at.astimezone(ZONE).weekday() in weekdays]
        return sum(found) / len(found)

    night, peak, evening = mean(range(5), range(7)), mean(range(10, 14), range(7)), \
        mean(range(20, 24), range(7))
    assert night < evening < peak
    assert mean(range(24), range(1)) > mean(range(24), range(2, 5)) > \
        mean(range(24), range(5, 7))
    # The clinic is open on weekdays only, 8 AM to 5 PM.
    clinic = [r.start_date.astimezone(ZONE) for r in rows if r[0] == "Outpatient Clinic"]
    assert clinic
    assert all(at.weekday() < 5 and 8 <= at.hour < 17 for at in clinic)
