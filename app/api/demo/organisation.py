"""The demo's organisation: teams (more at `--scale`), colour-coded job roles, employment types,
pay codes, shift labels and payer enrollments.
"""

from __future__ import annotations

from app.api import models as m
from app.api.demo.state import (
    PAY_PERIOD_ANCHOR,
    Demo,
    Team,
    demo_id,
    largest_remainder,
    slug,
)

PROVIDERS_PER_TEAM = 40
"""At `--scale`, one team per this many providers (never fewer than the four base teams)."""

# Job roles: name, colour; titles depend on the team for physicians.
ROLE_KINDS: dict[str, tuple[str, str]] = {
    "rn": ("Registered Nurse", "#1F77B4"),
    "charge": ("Charge Nurse", "#9467BD"),
    "md": ("Physician", "#D62728"),
    "np": ("Nurse Practitioner", "#FF7F0E"),
    "cna": ("Certified Nursing Assistant", "#2CA02C"),
    "ma": ("Medical Assistant", "#17BECF"),
    "rt": ("Respiratory Therapist", "#8C564B"),
}
TEAM_MIX: dict[str, list[tuple[str, int]]] = {
    "ed": [("rn", 45), ("charge", 8), ("md", 20), ("np", 10), ("cna", 17)],
    "icu": [("rn", 55), ("charge", 8), ("md", 15), ("cna", 10), ("rt", 12)],
    "clinic": [("md", 30), ("np", 20), ("rn", 25), ("ma", 25)],
    "ward": [("rn", 52), ("charge", 8), ("cna", 25), ("np", 8), ("md", 7)],
}
# name, shorthand, kind, specialty, relative size
BASE_TEAMS: list[tuple[str, str, str, str, float]] = [
    ("Emergency", "ED", "ed", "Emergency medicine", 1.2),
    ("Intensive Care", "ICU", "icu", "Critical care", 1.0),
    ("Outpatient Clinic", "OPC", "clinic", "Family medicine", 0.8),
    ("Medical-Surgical", "MS", "ward", "Medical-surgical", 1.0),
]
EXTRA_TEAMS: list[tuple[str, str, str, str]] = [
    ("Telemetry", "TELE", "ward", "Cardiology"),
    ("Pediatrics", "PEDS", "ward", "Pediatrics"),
    ("Labor & Delivery", "L&D", "ward", "Obstetrics"),
    ("Oncology", "ONCO", "ward", "Oncology"),
    ("Cardiology Clinic", "CARD", "clinic", "Cardiology"),
    ("Orthopedics", "ORTHO", "ward", "Orthopedics"),
    ("Neurology", "NEURO", "ward", "Neurology"),
    ("Family Medicine Clinic", "FMC", "clinic", "Family medicine"),
    ("Step-Down Unit", "SDU", "icu", "Critical care"),
    ("Behavioral Health", "BH", "ward", "Psychiatry"),
    ("Women's Health Clinic", "WHC", "clinic", "Obstetrics"),
    ("Neonatal ICU", "NICU", "icu", "Neonatology"),
    ("Urgent Care", "UC", "ed", "Emergency medicine"),
]
EMPLOYMENT_TYPES: list[tuple[str, str, str, str, str]] = [
    ("ft", "Full-time staff", "employee", "hourly", "full_time"),
    ("pt", "Part-time staff", "employee", "hourly", "part_time"),
    ("prn", "Per diem (PRN)", "contractor", "hourly", "temporary"),
    ("travel", "Travel nurse", "contractor", "hourly", "temporary"),
    ("salaried", "Salaried clinician", "employee", "salaried", "full_time"),
]
PAY_CODES: list[tuple[str, str, str, str, float]] = [
    ("REG", "Regular", "#4C78A8", "hours", 1.0),
    ("OT", "Overtime", "#E45756", "hours", 1.5),
    ("DT", "Double time", "#F28E2B", "hours", 2.0),
    ("PTO", "Paid time off", "#72B7B2", "hours", 1.0),
    ("SICK", "Sick pay", "#54A24B", "hours", 1.0),
    ("ONC", "On-call stipend", "#F58518", "money", 50.0),
    ("NDIF", "Night differential", "#B279A2", "money", 4.0),
    ("HOL", "Holiday premium", "#EECA3B", "hours", 1.5),
    ("BRV", "Bereavement pay", "#9D755D", "days", 1.0),
    ("JURY", "Jury duty pay", "#BAB0AC", "days", 1.0),
]
LABELS: list[tuple[str, str, str, str | None]] = [
    ("charge", "Charge", "#9467BD", "Runs the unit for the shift"),
    ("preceptor", "Preceptor", "#17BECF", "Precepting a new colleague"),
    ("orientation", "Orientation", "#BCBD22", "New hire on orientation, not counted in ratios"),
    ("float", "Float pool", "#8C564B", "Floated in from another unit"),
    ("trauma", "Trauma bay", "#D62728", "Assigned to the trauma bay"),
    ("isolation", "Isolation", "#7F7F7F", "Covers the isolation rooms"),
    ("sitter", "1:1 sitter", "#E377C2", "One-to-one patient observation"),
    ("telehealth", "Telehealth", "#1F77B4", None),
]
ENROLLMENTS = ["Medicare", "Medicaid", "Aetna", "BlueCross BlueShield", "UnitedHealthcare",
               "Cigna"]
FIRST_NAMES = [
    "Aisha", "Alejandro", "Amara", "Ana", "Andre", "Benjamin", "Bianca", "Carlos", "Chloe",
    "Daniel", "Deepa", "Elena", "Emeka", "Emily", "Fatima", "Gabriel", "Grace", "Hannah",
    "Hiroshi", "Imani", "Isabel", "Jamal", "Jasmine", "Javier", "Jin", "Julia", "Kenji",
    "Keisha", "Laura", "Leila", "Lucas", "Maya", "Mei", "Miguel", "Nadia", "Nathan", "Noor",
    "Olga", "Omar", "Priya", "Rachel", "Rafael", "Rosa", "Samuel", "Sara", "Sofia", "Tariq",
    "Thomas", "Valentina", "Wei", "Yara", "Yusuf", "Zoe", "Marcus", "Claire", "Devon", "Ines",
    "Kofi", "Lena", "Tomasz",
]
LAST_NAMES = [
    "Adeyemi", "Alvarez", "Anderson", "Baptiste", "Bennett", "Brooks", "Campbell", "Castillo",
    "Chen", "Cohen", "Delgado", "Diaz", "Dubois", "Evans", "Fernandez", "Fischer", "Garcia",
    "Goldberg", "Gupta", "Haddad", "Hernandez", "Ibrahim", "Ivanova", "Jackson", "Johnson",
    "Kim", "Kowalski", "Lee", "Lopez", "Martin", "Mendez", "Murphy", "Nguyen", "Novak",
    "Obi", "O'Connor", "Okafor", "Patel", "Pereira", "Petrov", "Quinn", "Ramirez", "Reyes",
    "Rossi", "Santos", "Schmidt", "Shah", "Singh", "Smith", "Sullivan", "Tanaka", "Thompson",
    "Torres", "Vargas", "Walker", "Wang", "Williams", "Wright", "Yamamoto", "Zhang",
]
"""Names for providers and for the managers of the teams manager@example.com does not run."""


def plan_organisation(demo: Demo) -> None:
    """Decide the teams and their sizes."""
    count = max(len(BASE_TEAMS), round(demo.size / PROVIDERS_PER_TEAM))
    specs = [(name, short, kind, specialty, weight)
             for name, short, kind, specialty, weight in BASE_TEAMS]
    extra = 0
    while len(specs) < count:
        name, short, kind, specialty = EXTRA_TEAMS[extra % len(EXTRA_TEAMS)]
        round_ = extra // len(EXTRA_TEAMS) + 1
        if round_ > 1:
            name, short = f"{name} {round_}", f"{short}{round_}"
        specs.append((name, short, kind, specialty, 1.0))
        extra += 1
    sizes = largest_remainder(demo.size, [spec[4] for spec in specs])
    if sizes[0] == 0:  # provider@example.com works in Emergency, whatever the size
        sizes[sizes.index(max(sizes))] -= 1
        sizes[0] = 1
    for (name, short, kind, specialty, _), size in zip(specs, sizes, strict=True):
        key = slug(short)
        team = Team(key=key, name=name, short=short, kind=kind, specialty=specialty,
                    id=demo_id(f"team:{key}"), size=size)
        team.roles = {role: demo_id(f"role:{key}:{role}") for role, _ in TEAM_MIX[kind]}
        if short not in ("ED", "ICU"):  # manager@example.com runs those two
            team.manager_email = f"manager.{key}@example.com"
            team.manager_name = f"{demo.rng.choice(FIRST_NAMES)} {demo.rng.choice(LAST_NAMES)}"
        demo.teams.append(team)


# Work rules: key, name, overtime rules (key, name, kind, threshold minutes, pay code).
WORK_RULES: list[tuple[str, str, list[tuple[str, str, str, int, str]]]] = [
    ("us-federal", "US federal (FLSA)",
     [("weekly-40", "Weekly overtime over 40 hours", "weekly", 2400, "OT")]),
    ("hospital-8-80", "Hospital 8 and 80",
     [("daily-8", "Daily overtime over 8 hours", "daily", 480, "OT"),
      ("period-80", "Period overtime over 80 hours", "period", 4800, "OT")]),
]
WORK_RULE_OF_KIND = {"icu": "hospital-8-80"}
"""Intensive care works the hospital 8-and-80 system; every other team the federal week."""


def _work_rules(demo: Demo) -> tuple[list[dict[str, object]], list[dict[str, object]],
                                     list[dict[str, object]]]:
    """Rows of overtime rules, work rules and their one version each, in the site's zone, in
    effect from the pay period anchor (a Monday, the demo's workweek start)."""
    created = demo.founded
    value = {code: amount for code, _, _, _, amount in PAY_CODES}
    overtime, rules, versions = [], [], []
    for key, name, parts in WORK_RULES:
        snapshots = []
        for part, title, kind, threshold, code in parts:
            ident = demo_id(f"overtime-rule:{key}:{part}")
            overtime.append({"id": ident, "created_at": created, "updated_at": created,
                             "version": 1, "name": title, "kind": kind,
                             "threshold_minutes": threshold,
                             "pay_code_id": demo_id(f"pay:{code}")})
            snapshots.append({"id": str(ident), "name": title,
                              "kind": "seventhDay" if kind == "seventh_day" else kind,
                              "thresholdMinutes": threshold,
                              "payCodeId": str(demo_id(f"pay:{code}")),
                              "multiplier": str(value[code])})
        rules.append({"id": demo_id(f"work-rule:{key}"), "created_at": created,
                      "updated_at": created, "version": 1, "name": name})
        versions.append({
            "id": demo_id(f"work-rule-version:{key}"), "work_rule_id": demo_id(f"work-rule:{key}"),
            "effective_from": PAY_PERIOD_ANCHOR, "time_zone": demo.zone.key,
            "week_start_day": PAY_PERIOD_ANCHOR.weekday(), "week_start_time": "00:00",
            "day_start_time": "00:00",
            "period_anchor": PAY_PERIOD_ANCHOR if key == "hospital-8-80" else None,
            "rounding": None, "overtime": snapshots, "meal_deduct_minutes": None,
            "meal_after_minutes": None, "min_unpaid_break_minutes": 30,
            "counting_pay_code_ids": []})
    return overtime, rules, versions


def write_organisation(demo: Demo) -> None:
    """Work rules, teams, roles, employment types, pay codes, overtime rules, labels,
    enrollments."""
    created = demo.founded
    overtime, rules, versions = _work_rules(demo)
    demo.insert(m.WorkRule, rules)
    demo.insert(m.WorkRuleVersion, versions)
    demo.insert(m.Team, [{"id": t.id, "created_at": created, "name": t.name,
                          "shorthand_name": t.short,
                          "work_rule_id": demo_id(
                              f"work-rule:{WORK_RULE_OF_KIND.get(t.kind, 'us-federal')}")}
                         for t in demo.teams], "teams")
    demo.insert(m.Role, [
        {"id": role_id, "created_at": created, "name": ROLE_KINDS[kind][0],
         "team_id": team.id, "hex_color": ROLE_KINDS[kind][1]}
        for team in demo.teams for kind, role_id in team.roles.items()
    ], "roles")
    demo.insert(m.EmploymentType, [
        {"id": demo_id(f"employment:{key}"), "name": name, "type": kind,
         "compensation_time_period": period, "amount_worked": amount,
         "created_at": created, "updated_at": created}
        for key, name, kind, period, amount in EMPLOYMENT_TYPES
    ])
    demo.insert(m.PayCode, [
        {"id": demo_id(f"pay:{code}"), "name": name, "shorthand_name": code, "hex_color": color,
         "type": kind, "value": value}
        for code, name, color, kind, value in PAY_CODES
    ])
    demo.insert(m.OvertimeRule, overtime)
    demo.insert(m.Label, [
        {"id": demo_id(f"label:{key}"), "created_at": created, "updated_at": created,
         "name": name, "description": description, "color": color}
        for key, name, color, description in LABELS
    ])
    demo.insert(m.Enrollment, [{"id": demo_id(f"enrollment:{name}"), "name": name}
                               for name in ENROLLMENTS])
