"""The demo's people: providers with skills and enrollments, their users, the team managers,
the three staff accounts, and who holds which RBAC role.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from werkzeug.security import generate_password_hash

from app.api import models as m
from app.api.demo.bulk import Row
from app.api.demo.organisation import ENROLLMENTS, FIRST_NAMES, LAST_NAMES, ROLE_KINDS, TEAM_MIX
from app.api.demo.state import (
    DEMO_EMAILS,
    DEMO_PASSWORD,
    PAY_PERIOD_ANCHOR,
    Demo,
    Person,
    Team,
    demo_id,
    largest_remainder,
    slug,
    stamp,
)
from app.api.seed import install_roles

PHYSICIAN_TITLES = {
    "ed": "Emergency Physician", "icu": "Intensivist", "clinic": "Primary Care Physician",
    "ward": "Hospitalist",
}
SKILL_LANGUAGES = ["French", "Haitian Creole", "Mandarin", "Russian", "Arabic", "Vietnamese",
                   "Tagalog", "Portuguese"]


def plan_people(demo: Demo) -> None:
    """Decide every provider: team, role, employment, schedule pattern, skills."""
    taken: set[str] = set(DEMO_EMAILS)
    index = 0
    for team in demo.teams:
        kinds = [kind for kind, _ in TEAM_MIX[team.kind]]
        counts = largest_remainder(team.size, [w for _, w in TEAM_MIX[team.kind]])
        roles = [kind for kind, n in zip(kinds, counts, strict=True) for _ in range(n)]
        demo.rng.shuffle(roles)
        if index == 0:  # the demo provider: a registered nurse in Emergency
            roles.pop(roles.index("rn") if "rn" in roles else -1)
            roles.insert(0, "rn")
        for role in roles:
            demo.people.append(_person(demo, index, team, role, taken))
            index += 1
    for team in demo.teams:
        if team.kind == "clinic":  # someone has to teach diabetes education
            nurses = [p for p in demo.people if p.team is team and p.role == "rn"]
            if nurses and "CDCES" not in nurses[0].skills["certification"]:
                nurses[0].skills["certification"].append("CDCES")


def _person(demo: Demo, index: int, team: Team, role: str, taken: set[str]) -> Person:
    rng = demo.rng
    if index == 0:
        person = Person(index=0, id=demo.staff["provider@example.com"],
                        email="provider@example.com", name="Pat Rivera", first="Pat",
                        team=team, role="rn", employment="ft", is_demo=True,
                        skills={"language": ["English", "Spanish"],
                                "certification": ["BLS", "ACLS", "PALS", "TNCC"],
                                "specialty": ["Emergency medicine"]})
        return person
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    email = f"{slug(first)}.{slug(last)}@example.com"
    number = 2
    while email in taken:
        email = f"{slug(first)}.{slug(last)}{number}@example.com"
        number += 1
    taken.add(email)
    if role in ("md", "np"):
        employment = "salaried" if rng.random() < 0.85 else "prn"
    elif role in ("rn",):
        employment = rng.choices(["ft", "pt", "prn", "travel"], [60, 20, 10, 10])[0]
    elif role == "charge":
        employment = "ft"
    else:
        employment = rng.choices(["ft", "pt", "prn"], [70, 20, 10])[0]
    person = Person(index=index, id=demo_id(f"user:{email}"), email=email,
                    name=f"{first} {last}", first=first, team=team, role=role,
                    employment=employment)
    if team.kind == "clinic":
        person.pattern = "clinic"
    elif role == "np":
        person.pattern = "day"
    else:
        person.pattern = "day" if rng.random() < (0.7 if role == "md" else 0.6) else "night"
    person.weekly = employment in ("prn", "travel")
    if index % 29 == 13:
        person.status, person.first_day = "onboarding", 7
    elif index % 43 == 21:
        person.status, person.last_day = "dismissed", -9
    person.skills = _skills(demo, team, role)
    return person


def _skills(demo: Demo, team: Team, role: str) -> dict[str, list[str]]:
    rng = demo.rng
    languages = ["English"]
    draw = rng.random()
    if draw < 0.3:
        languages.append("Spanish")
    elif draw < 0.45:
        languages.append(rng.choice(SKILL_LANGUAGES))
    certifications = ["BLS"]
    clinical = role in ("rn", "charge", "md", "np", "rt")
    acute = clinical and team.kind in ("ed", "icu")
    if rng.random() < (0.95 if acute else 0.5 if role in ("md", "np", "charge") else 0.0):
        certifications.append("ACLS")
    peds = team.specialty in ("Pediatrics", "Neonatology")
    if clinical and (peds or (team.kind == "ed" and rng.random() < 0.5)
                     or (team.kind == "clinic" and rng.random() < 0.3)):
        certifications.append("PALS")
    if role in ("rn", "charge") and team.kind == "ed" and rng.random() < 0.4:
        certifications.append("TNCC")
    if role in ("rn", "charge") and team.kind == "icu" and rng.random() < 0.5:
        certifications.append("CCRN")
    if role == "rn" and team.kind == "clinic" and rng.random() < 0.4:
        certifications.append("CDCES")
    if team.specialty == "Neurology" and clinical:
        certifications.append("NIHSS")
    specialty = team.specialty
    if role in ("md", "np") and team.specialty == "Family medicine":
        specialty = rng.choice(["Family medicine", "Family medicine", "Internal medicine",
                                "Pediatrics"])
    return {"language": languages, "certification": certifications,
            "specialty": [specialty]}


def write_people(demo: Demo) -> None:
    """Staff users, managers, providers, skills, enrollments, RBAC roles."""
    rng = demo.rng
    created = demo.founded
    rbac = install_roles(demo.session)
    # One hash (salted, deliberately slow) shared by the four demo accounts: the password
    # is public anyway, and hashing four times would double the load of a small demo.
    secret = generate_password_hash(DEMO_PASSWORD)
    users: list[Row] = []
    links: list[Row] = []
    managed: list[Row] = []

    def user(user_id: uuid.UUID, email: str, name: str, *, status: str = "active",
             admin: bool = False, password: bool = False, role: str | None = None) -> None:
        users.append({
            "id": user_id, "type": "user", "name": name, "email": email, "status": status,
            "is_admin": admin, "created_at": created,
            "password_hash": secret if password else None,
        })
        if role:
            links.append({"user_id": user_id, "rbac_role_id": rbac[role].id})

    user(demo.staff["admin@example.com"], "admin@example.com", "Adrienne Park", admin=True,
         password=True, role="Admin")
    user(demo.staff["manager@example.com"], "manager@example.com", "Morgan Ellis",
         password=True, role="Manager")
    user(demo.staff["scheduler@example.com"], "scheduler@example.com", "Sam Okafor",
         password=True, role="Scheduler")
    for team in demo.teams:
        if team.manager_email != "manager@example.com":
            user(team.manager_id, team.manager_email, team.manager_name, role="Manager")
        managed.append({"user_id": team.manager_id, "team_id": team.id})

    providers: list[Row] = []
    skills: list[Row] = []
    enrollments: list[Row] = []
    for p in demo.people:
        user(p.id, p.email, p.name, status=p.status, password=p.is_demo, role="Provider")
        providers.append(_provider_row(demo, p))
        skills.extend({"provider_id": p.id, "skill_name": name, "value": value}
                      for name, values in p.skills.items() for value in values)
        if p.role in ("md", "np"):
            held = sorted(rng.sample(ENROLLMENTS, rng.randint(2, 4)))
            enrollments.extend({"provider_id": p.id, "enrollment_id": demo_id(f"enrollment:{n}")}
                               for n in held)
    demo.insert(m.User, users, "users")
    demo.insert(m.team_managers, managed)
    demo.insert(m.Provider, providers, "providers")
    demo.insert(m.ProviderSkill, skills)
    demo.insert(m.provider_enrollments, enrollments)
    demo.insert(m.user_rbac_roles, links)


def _provider_row(demo: Demo, p: Person) -> Row:
    rng = demo.rng
    if p.status == "onboarding":
        hired = demo.today + timedelta(days=p.first_day)
    else:
        hired = demo.today - timedelta(days=rng.randint(120, 5500))
    regions = ["NY"] + [r for r, chance in (("NJ", 0.35), ("CT", 0.2), ("PA", 0.1))
                        if rng.random() < chance]
    if p.employment == "travel":
        regions += rng.sample(["FL", "TX", "CA", "MA"], rng.randint(1, 2))
    weekly_hours = {"ft": (36, 48), "pt": (16, 30), "prn": (0, 36), "travel": (36, 48),
                    "salaried": (40, 60)}[p.employment]
    title = PHYSICIAN_TITLES[p.team.kind] if p.role == "md" else ROLE_KINDS[p.role][0]
    return {
        "id": p.id, "name": p.name, "email": p.email,
        "hire_date": demo.local_midnight(hired), "job_title": title, "status": p.status,
        "team_id": p.team.id, "employment_type_id": demo_id(f"employment:{p.employment}"),
        "manager_id": p.team.manager_id, "default_role_id": p.role_id,
        "licensed_regions": regions,
        "pay_period_template": {"type": "weekly" if p.weekly else "biweekly",
                                "startDate": stamp(demo.local_midnight(PAY_PERIOD_ANCHOR))},
        "imported_id": f"HR-{100000 + p.index}",
        "last_synced_at": demo.midnight - timedelta(hours=3),
        "personal_info": {"preferredName": p.first,
                          "pronouns": rng.choice(["she/her", "he/him", "they/them"])},
        "daily_hours": p.hours, "min_weekly_hours": float(weekly_hours[0]),
        "max_weekly_hours": float(weekly_hours[1]), "region": "NY-Metro",
        "national_provider_identifier": (f"1{rng.randrange(10**8, 10**9)}"
                                         if p.role in ("md", "np") else None),
        "additional_info": None,
        "custom_fields": {"badgeNumber": f"B{10000 + p.index}",
                          "unionMember": p.role in ("rn", "charge", "cna")
                          and rng.random() < 0.6},
        "created_at": demo.founded, "updated_at": demo.founded,
    }
