"""The demo's schedule: six weeks of shifts around the load date (12-hour days and nights,
clinic days, physicians' on-call, paid breaks, labels, pay codes), sick-call callouts and open
shifts, and the segments each shift is made of.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from app.api import models as m
from app.api.demo.state import FIRST_DAY, LAST_DAY, Demo, Person, Plan, demo_id

# Segment templates in minutes after local midnight of the start day (past 1440: next day).
SEGMENTS: dict[str, list[tuple[int, int, str]]] = {
    "day": [(420, 780, "working"), (780, 810, "unpaid_break"), (810, 1140, "working")],
    "night": [(1140, 1500, "working"), (1500, 1530, "unpaid_break"), (1530, 1860, "working")],
    "clinic": [(480, 720, "working"), (720, 750, "unpaid_break"), (750, 990, "working")],
    "on_call": [(1140, 1860, "on_call")],
}
PAID_BREAK_AT = {"day": 600, "night": 1320}
ON_CALL_TAIL = (990, 1230)
TEAM_LABELS = {
    "ed": ["trauma", "preceptor", "float", "isolation", "charge"],
    "icu": ["preceptor", "isolation", "float", "charge"],
    "ward": ["preceptor", "float", "isolation", "sitter", "charge"],
    "clinic": ["telehealth", "preceptor"],
}
"""The shift labels each kind of team uses (keys of `organisation.LABELS`)."""


def plan_shifts(demo: Demo) -> None:
    """Each provider's shifts: 12-hour days or nights, clinic days, physicians' on-call."""
    rng = demo.rng
    for p in demo.people:
        if p.is_demo:
            for day in range(FIRST_DAY, LAST_DAY + 1):
                if day % 7 in (0, 2, 4):
                    _work(demo, p, day, "day")
            continue
        for block in range(6):
            days = list(range(FIRST_DAY + 7 * block, FIRST_DAY + 7 * block + 7))
            if p.pattern == "clinic":
                days = [d for d in days if demo.weekday(d) < 5]
            per_week = {"ft": 3, "pt": 2, "prn": rng.randint(1, 2), "travel": 3,
                        "salaried": 3}[p.employment]
            if p.pattern == "clinic":
                per_week += 1
            work = sorted(rng.sample(days, min(per_week, len(days))))
            for day in work:
                if p.first_day <= day <= p.last_day:
                    plan = _work(demo, p, day, p.pattern)
                    if (p.pattern == "clinic" and p.role in ("md", "np")
                            and rng.random() < 0.15):
                        plan.on_call_tail, plan.pay_code = True, "ONC"
            free = [d for d in days if d not in work and p.first_day <= d <= p.last_day]
            if p.role == "md" and p.pattern != "clinic" and free and rng.random() < 0.6:
                day = rng.choice(free)
                demo.add_plan(Plan(key=f"shift:{p.email}:{day}", team=p.team,
                                   role_id=p.role_id, day=day, kind="on_call", person=p,
                                   pay_code="ONC", note="Home call: answer within 15 min"))


def _work(demo: Demo, p: Person, day: int, kind: str) -> Plan:
    rng = demo.rng
    plan = Plan(key=f"shift:{p.email}:{day}", team=p.team, role_id=p.role_id, day=day,
                kind=kind, person=p, paid_break=kind != "clinic" and rng.random() < 0.3)
    if p.status == "onboarding":
        plan.label, plan.label_all = "orientation", True
    elif rng.random() < 0.12:
        choices = [k for k in TEAM_LABELS[p.team.kind]
                   if (k != "sitter" or p.role == "cna")
                   and (k != "charge" or p.role == "rn")]
        plan.label = rng.choice(choices)
    draw = rng.random()
    if kind == "night" and draw < 0.4:
        plan.pay_code = "NDIF"
    elif draw < 0.5:
        plan.pay_code = "REG"
    elif draw < 0.54:
        plan.pay_code = "OT"
    if p.is_demo and day == 0:
        plan.note, plan.label = "Charge on pod B after 15:00", "charge"
    return demo.add_plan(plan)


def open_copy(demo: Demo, plan: Plan, note: str) -> None:
    """Plan an open copy of `plan` (once per shift) for someone else to claim."""
    if f"open:{plan.key}" in demo.copied:
        return
    demo.copied.add(f"open:{plan.key}")
    demo.add_plan(Plan(key=f"open:{plan.key}", team=plan.team, role_id=plan.role_id,
                       day=plan.day, kind=plan.kind, person=None,
                       paid_break=plan.paid_break, skill=plan.skill, note=note,
                       pay_code="OT" if plan.kind != "on_call" else "ONC"))


def plan_callouts(demo: Demo) -> None:
    """Sick calls: a few shifts become callouts, the future ones with an open copy."""
    for plan in list(demo.plans):
        if (plan.person is None or plan.person.is_demo or plan.callout or plan.deleted
                or plan.kind == "on_call"):
            continue
        if demo.rng.random() < 0.02:
            plan.callout, plan.note = True, "Called out sick"
            if plan.day >= 0:
                open_copy(demo, plan, "Cover needed: callout")


def plan_open_shifts(demo: Demo) -> None:
    """Unfilled shifts in every team, and two the demo provider can claim."""
    rng = demo.rng
    ed = demo.teams[0]
    rn = ed.roles["rn"]
    acls = {"type": "equal", "skill": "certification", "value": "ACLS"}
    demo.add_plan(Plan(key="open:demo:1", team=ed, role_id=rn, day=1, kind="day",
                       person=None, skill=acls, note="Extra RN for the surge; ACLS needed",
                       pay_code="OT"))
    demo.add_plan(Plan(key="open:demo:3", team=ed, role_id=rn, day=3, kind="day",
                       person=None, note="Day RN needed"))
    for team in demo.teams:
        chance = min(0.9, max(0.1, team.size / 40))
        kinds = [k for k in ("rn", "cna", "rt", "ma", "np") if k in team.roles]
        for day in range(1, LAST_DAY + 1):
            if team.kind == "clinic" and demo.weekday(day) >= 5:
                continue
            if rng.random() >= chance * (0.3 if team.kind == "clinic" else 0.6):
                continue
            role = rng.choices(kinds, [6, 3, 1, 1, 1][: len(kinds)])[0]
            kind = "clinic" if team.kind == "clinic" else rng.choice(["day", "night"])
            skill = None
            if role in ("rn", "np") and team.kind in ("ed", "icu") and rng.random() < 0.5:
                value = "CCRN" if team.kind == "icu" and rng.random() < 0.5 else "ACLS"
                skill = {"type": "equal", "skill": "certification", "value": value}
            demo.add_plan(Plan(key=f"open:{team.key}:{day}", team=team,
                               role_id=team.roles[role], day=day, kind=kind, person=None,
                               skill=skill, note=rng.choice([None, "Open shift: bonus $150",
                                                             "Float pool welcome"]),
                               pay_code=rng.choice([None, "OT", "REG"])))


def segments_of(demo: Demo, plan: Plan) -> list[tuple[datetime, datetime, str]]:
    """The plan's segments as UTC instants, from local wall-clock templates."""
    template = list(SEGMENTS[plan.kind])
    if plan.paid_break and plan.kind in PAID_BREAK_AT:
        at = PAID_BREAK_AT[plan.kind]
        first_start, first_end, kind = template[0]
        template[0:1] = [(first_start, at, kind), (at, at + 15, "paid_break"),
                         (at + 15, first_end, kind)]
    if plan.on_call_tail:
        template.append((*ON_CALL_TAIL, "on_call"))
    return [(demo.at(plan.day, a), demo.at(plan.day, b), kind) for a, b, kind in template]


def write_shifts(demo: Demo) -> None:
    """Shifts, segments, segment labels and pay codes."""
    shifts, segments, labels, codes = [], [], [], []
    for plan in demo.plans:
        if plan.deleted:
            continue
        shift_id = demo_id(plan.key)
        parts = segments_of(demo, plan)
        start, end = parts[0][0], parts[-1][1]
        created = min(start - timedelta(days=14), demo.midnight)
        shifts.append({
            "id": shift_id, "created_at": created, "updated_at": created, "version": 1,
            "provider_id": plan.person.id if plan.person else None, "team_id": plan.team.id,
            "start_date": start, "end_date": end, "note": plan.note,
            "is_callout": plan.callout, "work_rule_override": None, "claimed_at": None,
            "minimum_notice_minutes": None,
        })
        first_working = True
        for number, (begin, finish, kind) in enumerate(parts):
            segment_id = demo_id(f"{plan.key}/{number}")
            segments.append({
                "id": segment_id, "shift_id": shift_id, "imported_id": None,
                "created_at": created, "role_id": plan.role_id, "role_imported_id": None,
                "additional_info": None, "is_break": kind.endswith("break"),
                "is_on_call": kind == "on_call", "type": kind, "start_date": begin,
                "end_date": finish,
                "skill_requirement": None if kind.endswith("break") else plan.skill,
            })
            if plan.label and kind == "working" and (first_working or plan.label_all):
                labels.append({"segment_id": segment_id,
                               "label_id": demo_id(f"label:{plan.label}")})
            first_working = first_working and kind != "working"
        if plan.pay_code:
            codes.append({"shift_id": shift_id, "pay_code_id": demo_id(f"pay:{plan.pay_code}"),
                          "value": None})
        demo.counts["open" if plan.person is None else "assigned"] += 1
        demo.counts["callouts"] += plan.callout
    demo.insert(m.Shift, shifts, "shifts")
    demo.insert(m.ShiftSegment, segments, "segments")
    demo.insert(m.segment_labels, labels)
    demo.insert(m.ShiftPayCode, codes)
