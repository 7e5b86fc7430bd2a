"""Test data: `make_<thing>(session, **overrides)` with sensible defaults, and `build_world`, the
small deterministic organisation the API read tests share.

Identifiers are derived from names (uuid5), so a test can name `world.provider` without a query.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from app.api import models as m
from app.api.auth import hash_api_token
from app.api.seed import install_roles
from app.api.services.people import grant_worked_roles

NAMESPACE = uuid.UUID("5f1d2c1e-9b0a-4c7e-8a44-0d6f3e2b7a10")
BOT_TOKEN = "sdk_test_bot_token_0123456789"
START = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)  # a Monday, 07:00 in New York
DAYS = 10


def uid(name: str) -> uuid.UUID:
    """A stable id for a named test object."""
    return uuid.uuid5(NAMESPACE, name)


def make_team(session: Session, name: str = "Emergency", **kw: Any) -> m.Team:
    """A team."""
    team = m.Team(id=kw.pop("id", uid(f"team:{name}")), name=name, **kw)
    session.add(team)
    return team


def make_role(session: Session, team: m.Team, name: str = "Registered Nurse",
              **kw: Any) -> m.Role:
    """A job role in a team."""
    role = m.Role(id=kw.pop("id", uid(f"role:{team.name}:{name}")), name=name, team_id=team.id,
                  hex_color=kw.pop("hex_color", "#1F77B4"), **kw)
    session.add(role)
    return role


def make_user(session: Session, email: str, name: str | None = None, **kw: Any) -> m.User:
    """A user who is not a provider."""
    user = m.User(id=kw.pop("id", uid(f"user:{email}")), email=email,
                  name=name or email.split("@")[0].replace(".", " ").title(), **kw)
    session.add(user)
    return user


def make_provider(session: Session, email: str, team: m.Team | None, name: str | None = None,
                  *, skills: dict[str, list[str]] | None = None, status: str = "active",
                  **kw: Any) -> m.Provider:
    """A provider and the user with the same id."""
    user = make_user(session, email, name, status=status)
    provider = m.Provider(
        id=user.id, name=user.name, email=email, team_id=team.id if team else None,
        status=status, licensed_regions=kw.pop("licensed_regions", ["NY"]),
        pay_period_template=kw.pop("pay_period_template",
                                   {"type": "biweekly", "startDate": "2026-02-23T05:00:00+0000"}),
        custom_fields=kw.pop("custom_fields", {}), **kw,
    )
    for skill, values in (skills or {}).items():
        for value in values:
            provider.skills.append(m.ProviderSkill(skill_name=skill, value=value))
    session.add(provider)
    return provider


def make_shift(session: Session, *, provider: m.Provider | None, team: m.Team, role: m.Role,
               start: datetime, hours: int = 12, break_at: int | None = 6,
               **kw: Any) -> m.Shift:
    """A shift with a working segment split by a 30-minute unpaid break."""
    end = start + timedelta(hours=hours)
    shift = m.Shift(provider_id=provider.id if provider else None, team_id=team.id,
                    start_date=start, end_date=end, **kw)
    if break_at is None:
        shift.segments = [m.ShiftSegment(role_id=role.id, type="working", start_date=start,
                                         end_date=end)]
    else:
        pause = start + timedelta(hours=break_at)
        resume = pause + timedelta(minutes=30)
        shift.segments = [
            m.ShiftSegment(role_id=role.id, type="working", start_date=start, end_date=pause),
            m.ShiftSegment(role_id=role.id, type="unpaid_break", is_break=True,
                           start_date=pause, end_date=resume),
            m.ShiftSegment(role_id=role.id, type="working", start_date=resume, end_date=end),
        ]
    session.add(shift)
    return shift


@dataclass
class World:
    """Ids of the shared test organisation's notable objects."""

    ed: uuid.UUID = uid("team:Emergency")
    icu: uuid.UUID = uid("team:Intensive Care")
    ed_nurse_role: uuid.UUID = uid("role:Emergency:Registered Nurse")
    ed_doctor_role: uuid.UUID = uid("role:Emergency:Physician")
    icu_nurse_role: uuid.UUID = uid("role:Intensive Care:Registered Nurse")
    provider: uuid.UUID = uid("user:provider@example.com")
    doctor: uuid.UUID = uid("user:doctor@example.com")
    icu_nurse: uuid.UUID = uid("user:icu.nurse@example.com")
    dismissed: uuid.UUID = uid("user:gone@example.com")
    manager: uuid.UUID = uid("user:manager@example.com")
    icu_manager: uuid.UUID = uid("user:icu.manager@example.com")
    scheduler: uuid.UUID = uid("user:scheduler@example.com")
    admin: uuid.UUID = uid("user:admin@example.com")
    bot: uuid.UUID = uid("user:bot@example.com")
    ids: dict[str, uuid.UUID] = field(default_factory=dict)


def build_world(session: Session) -> World:
    """Create the shared organisation: 2 teams, 9 providers, 10 days of shifts and the rest."""
    world = World()
    roles = install_roles(session)
    ed = make_team(session, "Emergency", shorthand_name="ED")
    icu = make_team(session, "Intensive Care", shorthand_name="ICU")
    ed_rn = make_role(session, ed, "Registered Nurse", hex_color="#1F77B4")
    ed_md = make_role(session, ed, "Physician", hex_color="#D62728")
    icu_rn = make_role(session, icu, "Registered Nurse", hex_color="#2CA02C")
    full_time = m.EmploymentType(id=uid("et:ft"), name="Full-time staff", type="employee",
                                 compensation_time_period="hourly", amount_worked="full_time")
    per_diem = m.EmploymentType(id=uid("et:pd"), name="Per diem", type="contractor",
                                compensation_time_period="hourly", amount_worked="temporary")
    session.add_all([full_time, per_diem])
    regular = m.PayCode(id=uid("pay:REG"), name="Regular", shorthand_name="REG",
                        hex_color="#4C78A8", type="hours", value=1.0)
    pto_code = m.PayCode(id=uid("pay:PTO"), name="Paid time off", shorthand_name="PTO",
                         hex_color="#72B7B2", type="hours", value=1.0)
    on_call = m.PayCode(id=uid("pay:ONC"), name="On-call stipend", shorthand_name="ONC",
                        hex_color="#F58518", type="money", value=50.0)
    session.add_all([regular, pto_code, on_call])
    charge = m.Label(id=uid("label:charge"), name="Charge nurse", color="#9467BD",
                     description="Leads the shift")
    session.add_all([charge, m.Label(id=uid("label:float"), name="Float", color="#8C564B",
                                     description=None)])

    provider = make_provider(session, "provider@example.com", ed, "Pat Provider",
                             skills={"language": ["Spanish"], "certification": ["ACLS"]},
                             employment_type_id=full_time.id, default_role_id=ed_rn.id,
                             job_title="Registered Nurse")
    doctor = make_provider(session, "doctor@example.com", ed, "Dana Doctor",
                           skills={"language": ["French"]}, employment_type_id=full_time.id,
                           default_role_id=ed_md.id, job_title="Attending physician")
    ed_more = [make_provider(session, f"ed.nurse{i}@example.com", ed, f"Ed Nurse {i}",
                             employment_type_id=per_diem.id, default_role_id=ed_rn.id)
               for i in range(1, 4)]
    icu_nurse = make_provider(session, "icu.nurse@example.com", icu, "Ivy Icu",
                              employment_type_id=full_time.id, default_role_id=icu_rn.id)
    icu_more = [make_provider(session, f"icu.nurse{i}@example.com", icu, f"Icu Nurse {i}",
                              default_role_id=icu_rn.id) for i in range(1, 3)]
    dismissed = make_provider(session, "gone@example.com", ed, "Gone Away", status="dismissed")
    manager = make_user(session, "manager@example.com", "Morgan Manager")
    icu_manager = make_user(session, "icu.manager@example.com", "Isa Manager")
    scheduler = make_user(session, "scheduler@example.com", "Sam Scheduler")
    admin = make_user(session, "admin@example.com", "Ada Admin", is_admin=True)
    bot = make_user(session, "bot@example.com", "Payroll export", type="bot")
    session.flush()
    manager.managed_teams = [ed]
    icu_manager.managed_teams = [icu]
    for person in [provider, doctor, *ed_more, icu_nurse, *icu_more, dismissed]:
        person.user.rbac_roles = [roles["Provider"]]
        person.manager_id = manager.id if person.team_id == ed.id else icu_manager.id
    manager.rbac_roles = [roles["Manager"]]
    icu_manager.rbac_roles = [roles["Manager"]]
    scheduler.rbac_roles = [roles["Scheduler"]]
    admin.rbac_roles = [roles["Admin"]]
    session.add(m.ApiToken(user_id=bot.id, name="payroll", token_hash=hash_api_token(BOT_TOKEN)))

    for day in range(DAYS):
        start = START + timedelta(days=day)
        for person, role, team in [(provider, ed_rn, ed), (doctor, ed_md, ed),
                                   *((p, ed_rn, ed) for p in ed_more),
                                   (icu_nurse, icu_rn, icu), *((p, icu_rn, icu) for p in icu_more)]:
            shift = make_shift(session, provider=person, team=team, role=role, start=start)
            if person is provider and day == 0:
                shift.segments[0].labels = [charge]
                shift.pay_codes = [m.ShiftPayCode(pay_code_id=regular.id)]
                shift.note = "Charge on pod B"
    open_ed = make_shift(session, provider=None, team=ed, role=ed_rn,
                         start=START + timedelta(days=3, hours=12), break_at=None, hours=8)
    make_shift(session, provider=None, team=icu, role=icu_rn,
               start=START + timedelta(days=4, hours=12), break_at=None, hours=8)
    callout = make_shift(session, provider=provider, team=ed, role=ed_rn,
                         start=START + timedelta(days=DAYS + 1), is_callout=True)
    on_call_shift = make_shift(session, provider=doctor, team=ed, role=ed_md,
                               start=START + timedelta(days=DAYS + 2), break_at=None, hours=12)
    on_call_shift.segments[0].type = "on_call"
    on_call_shift.segments[0].is_on_call = True
    session.flush()  # ids come from the column default, set at flush
    world.ids.update(open_ed=open_ed.id, callout=callout.id)

    pto = m.TimeOffPolicy(id=uid("policy:pto"), type="paid-time-off", name="Paid time off",
                          description="Accrues every pay period", accrual_unit="hours",
                          pay_code_id=pto_code.id)
    sick = m.TimeOffPolicy(id=uid("policy:sick"), type="sick", name="Sick leave",
                           description=None, accrual_unit="days")
    pto.members = [provider, doctor, *ed_more, icu_nurse]
    sick.members = [provider]
    session.add_all([pto, sick])
    for index, status in enumerate(["pending", "approved", "rejected", "cancelled"]):
        day = START + timedelta(days=20 + 3 * index, hours=-12)
        request = m.TimeOffRequest(
            id=uid(f"tor:{status}"), status=status, start_date=day,
            end_date=day + timedelta(days=1), policy_id=pto.id, provider_id=provider.id,
            note=f"{status} request", paid_hours=8.0, is_full_day=True,
            rejected_by_id=manager.id if status == "rejected" else None,
            rejection_reason="Short-staffed that week" if status == "rejected" else None,
            conflict_resolution="keep" if status == "approved" else None,
        )
        request.daily_hours = [m.TimeOffDay(date=day, duration=8.0)]
        session.add(request)
        world.ids[f"request_{status}"] = request.id
    icu_request = m.TimeOffRequest(
        id=uid("tor:icu"), status="pending", start_date=START + timedelta(days=21),
        end_date=START + timedelta(days=22), policy_id=pto.id, provider_id=icu_nurse.id,
        note=None, paid_hours=8.0,
    )
    icu_request.daily_hours = [m.TimeOffDay(date=START + timedelta(days=21), duration=8.0)]
    session.add(icu_request)
    world.ids["request_icu"] = icu_request.id

    card = m.Timecard(id=uid("timecard:provider"), provider_id=provider.id,
                      period_start=datetime(2026, 2, 23, 5, tzinfo=UTC),
                      period_end=datetime(2026, 3, 9, 4, tzinfo=UTC))
    session.add(card)
    for minutes, action, state in [(-4, "clock_in", "approved"), (360, "break_start", "approved"),
                                   (390, "break_end", "approved"), (722, "clock_out", "approved")]:
        session.add(m.TimecardPunch(timecard_id=card.id, provider_id=provider.id, action=action,
                                    state=state, time=START + timedelta(minutes=minutes)))
    late = m.TimecardPunch(timecard_id=card.id, provider_id=provider.id, action="clock_in",
                           state="pending", time=START + timedelta(days=1, minutes=25))
    session.add(late)
    icu_card = m.Timecard(id=uid("timecard:icu"), provider_id=icu_nurse.id,
                          period_start=card.period_start, period_end=card.period_end)
    session.add(icu_card)
    session.add(m.TimecardPunch(timecard_id=icu_card.id, provider_id=icu_nurse.id,
                                action="clock_in", time=START))

    new_patient = m.AppointmentType(id=uid("atype:new"), name="New patient visit", length=30,
                                    allowed_roles=[str(ed_md.id)],
                                    skill_requirement={"type": "equal", "skill": "language",
                                                       "value": "French"})
    follow_up = m.AppointmentType(id=uid("atype:follow"), name="Follow-up", length=15,
                                  allowed_roles=None)
    archived = m.AppointmentType(id=uid("atype:old"), name="Retired visit", length=20,
                                 archived_at=START)
    session.add_all([new_patient, follow_up, archived])
    for index in range(25):
        begin = START + timedelta(days=index % DAYS, hours=1 + index // DAYS)
        status = "cancelled" if index == 7 else "upcoming"
        session.add(m.Appointment(
            id=uid(f"appt:{index}"), type="New patient visit",
            appointment_type_id=new_patient.id, status=status, provider_id=doctor.id,
            member_id=f"member-{index:03d}", start_date=begin,
            end_date=begin + timedelta(minutes=30), location="Room 4",
            cancellation_date=begin - timedelta(days=1) if status == "cancelled" else None,
            cancellation_reason="Patient asked" if status == "cancelled" else None,
        ))
    session.add(m.ReportRun(id=uid("run:1"), report_id="timesheet-summary",
                            created_by_id=admin.id, status="completed",
                            file_name="timesheet-summary.csv", file_media_type="text/csv",
                            file_size_bytes=12, file_content=b"a,b\n1,2\n3,4\n",
                            completed_at=START))
    session.add(m.DemandForecastRow(role_id=ed_rn.id, start_date=START,
                                    end_date=START + timedelta(hours=12), demand=4))
    grant_worked_roles(session)
    # Pay rules, assigned to no team (every minute stays regular): objects for the API's
    # generic checks to address. The world has no overtime pay code; the example pays REG.
    weekly = m.OvertimeRule(id=uid("ot:weekly"), name="Weekly over 40 (example)", kind="weekly",
                            threshold_minutes=2400, pay_code_id=regular.id)
    quarter = m.RoundingRule(id=uid("rounding:quarter"), name="Quarter hour",
                             interval_minutes=15, mode="nearest")
    example = m.WorkRule(id=uid("work-rule:example"), name="Example rule")
    session.add_all([weekly, quarter, example])
    session.flush()
    session.add(m.WorkRuleVersion(
        work_rule_id=example.id, effective_from=date(2026, 3, 1), time_zone="America/New_York",
        week_start_day=6, week_start_time="00:00", day_start_time="00:00", overtime=[],
        rounding=None, counting_pay_code_ids=[]))
    # The doctor's availability: objects for the API's generic checks to address.
    session.add(m.Availability(id=uid("availability:doctor"), provider_id=world.doctor,
                               effective_from=date(2026, 1, 1), rules=[
                                   {"weekday": "sunday", "startTime": "00:00",
                                    "endTime": "24:00", "kind": "unavailable"}]))
    session.add(m.AvailabilityException(id=uid("availability-exception:doctor"),
                                        provider_id=world.doctor, start_date=date(2025, 12, 24),
                                        end_date=date(2025, 12, 26), note="Holidays"))
    # A notification of the doctor's: an object for the API's generic checks to address.
    session.add(m.Notification(id=uid("notification:doctor"), user_id=world.doctor,
                               kind="shift-changed", title="Shift changed",
                               body="Your shift was changed.", subject="Shift",
                               record_id=uid("notification:doctor:shift")))
    # A withdrawn swap listing of the doctor's on-call shift and its closed application:
    # objects for the API's generic checks to address.
    session.add(m.ShiftSwapListing(
        id=uid("swap-listing:doctor"), shift_id=on_call_shift.id, shift_version=1,
        provider_id=doctor.id, team_id=ed.id, kind="giveaway", note=None,
        expires_at=on_call_shift.start_date, status="withdrawn"))
    session.flush()
    session.add(m.ShiftSwapApplication(
        id=uid("swap-application:doctor"), listing_id=uid("swap-listing:doctor"),
        provider_id=ed_more[0].id, status="closed"))
    session.flush()
    return world
