"""The demo organisation: a believable hospital that `shiftdesk init --demo` (or `--scale N`) loads,
so that every screen and endpoint has realistic data to show.

Four teams (more at scale), colour-coded job roles, ~60 providers with skills, six weeks of
shifts around the load date (breaks, on-call, open shifts, callouts, pay codes, labels), time off
in every state, appointments, punches with anomalies, report runs, a demand forecast, the
standard RBAC roles and the four demo accounts (password `demo`).

- Deterministic: ids are uuid5 of stable names and every choice comes from one seeded
  `random.Random`, so the same size loaded on the same local date gives the same content. Shift
  times are local wall-clock times in the site's zone (DST-aware), stored in UTC.
- Idempotent: the `demo_loaded` app setting marks a loaded database; loading again changes
  nothing and answers the first load's summary.
- Fast at scale: rows are planned in memory and written with multi-row INSERTs, not the ORM
  unit of work; only the four demo accounts get a (deliberately slow) password hash.

Must not be imported by request handling, and must not change a database that already holds
other data under the demo accounts' addresses.
"""

from __future__ import annotations

import random
import re
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from operator import itemgetter
from typing import Any

from sqlalchemy import Table, TypeDecorator, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from werkzeug.security import generate_password_hash

from app.api import models as m
from app.api.db import Base, Database
from app.api.seed import install_roles
from app.api.services.people import grant_worked_roles
from app.config import Settings

NAMESPACE = uuid.UUID("7d0c4a52-3f61-4d3e-9a0b-6c2f1e8d5b47")
SEED = 20240501
MARKER = "demo_loaded"
"""Key of the `AppSetting` that marks a database holding the demo organisation."""
DEMO_PASSWORD = "demo"
DEMO_EMAILS = (
    "admin@example.com", "manager@example.com", "scheduler@example.com", "provider@example.com",
)
DEFAULT_PROVIDERS = 60
PROVIDERS_PER_TEAM = 40
FIRST_DAY, LAST_DAY = -21, 20
"""Shifts run from three weeks before the load date to three weeks after (day offsets)."""
PAY_PERIOD_ANCHOR = date(2024, 1, 1)
"""A Monday: every pay-period template starts its periods from local midnight of this day."""
BATCH = 5000
TIMESTAMP = "%Y-%m-%dT%H:%M:%S+0000"

Row = dict[str, Any]

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
PHYSICIAN_TITLES = {
    "ed": "Emergency Physician", "icu": "Intensivist", "clinic": "Primary Care Physician",
    "ward": "Hospitalist",
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
TEAM_LABELS = {
    "ed": ["trauma", "preceptor", "float", "isolation", "charge"],
    "icu": ["preceptor", "isolation", "float", "charge"],
    "ward": ["preceptor", "float", "isolation", "sitter", "charge"],
    "clinic": ["telehealth", "preceptor"],
}
# key, type, name, description, accrual unit, pay code, who belongs, weight of requests
POLICIES: list[tuple[str, str, str, str | None, str, str | None, str, int]] = [
    ("pto", "paid-time-off", "Paid time off", "Accrues 4.6 hours per pay period.", "hours",
     "PTO", "employees", 55),
    ("sick", "sick", "Sick leave", "For illness or a medical appointment.", "hours", "SICK",
     "employees", 20),
    ("bereavement", "bereavement", "Bereavement", "Up to three days for a close relative.",
     "days", "BRV", "everyone", 5),
    ("jury", "jury-duty", "Jury duty", None, "days", "JURY", "employees", 5),
    ("parental", "parental-leave", "Parental leave", "Twelve weeks after a birth or adoption.",
     "days", "PTO", "employees", 3),
    ("unpaid", "unpaid-day", "Unpaid leave", None, "days", None, "everyone", 7),
    ("education", "learning-and-development", "Continuing education",
     "Conferences and certification courses.", "hours", "REG", "clinicians", 5),
]
REQUEST_STATUSES = [
    "pending_sync", "sync_failed", "approved", "pending", "rejected", "approved", "cancelled",
    "pending", "approved", "rejected", "approved", "pending",
]
RESOLUTIONS = ["callout", "keep", "calloutWithOpen", "delete", "deleteWithOpen", "keepWithOpen"]
REJECTIONS = [
    "Two nurses are already off that weekend; please pick other dates.",
    "Census is high that week and the unit is short-staffed.",
    "Requested inside the holiday blackout period.",
    "Not enough PTO balance to cover the request.",
]
REQUEST_NOTES = {
    "pto": ["Family vacation", "Brother's wedding", "Moving house", None],
    "sick": ["Flu", "Migraine", None],
    "bereavement": ["Funeral of my grandmother"],
    "jury": ["Summoned to county court"],
    "parental": ["Baby due this month"],
    "unpaid": ["Personal matters", None],
    "education": ["ACLS renewal course", "Nursing conference"],
}
SKILL_LANGUAGES = ["French", "Haitian Creole", "Mandarin", "Russian", "Arabic", "Vietnamese",
                   "Tagalog", "Portuguese"]
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
# Segment templates in minutes after local midnight of the start day (past 1440: next day).
SEGMENTS: dict[str, list[tuple[int, int, str]]] = {
    "day": [(420, 780, "working"), (780, 810, "unpaid_break"), (810, 1140, "working")],
    "night": [(1140, 1500, "working"), (1500, 1530, "unpaid_break"), (1530, 1860, "working")],
    "clinic": [(480, 720, "working"), (720, 750, "unpaid_break"), (750, 990, "working")],
    "on_call": [(1140, 1860, "on_call")],
}
PAID_BREAK_AT = {"day": 600, "night": 1320}
ON_CALL_TAIL = (990, 1230)
# name, minutes, role kinds allowed (None: any), skill requirement, relative frequency
APPOINTMENT_TYPES: list[tuple[str, str, int, tuple[str, ...] | None, dict[str, Any] | None,
                              int]] = [
    ("new", "New patient visit", 30, ("md", "np"), None, 3),
    ("follow", "Follow-up visit", 15, None, None, 5),
    ("physical", "Annual physical", 45, ("md",), None, 2),
    ("telehealth", "Telehealth check-in", 15, None, None, 2),
    ("spanish", "Spanish-language consult", 30, None,
     {"type": "equal", "skill": "language", "value": "Spanish"}, 2),
    ("pediatric", "Pediatric sick visit", 30, ("md", "np"),
     {"type": "or", "entries": [
         {"type": "equal", "skill": "specialty", "value": "Pediatrics"},
         {"type": "and", "entries": [
             {"type": "equal", "skill": "certification", "value": "PALS"},
             {"type": "equal", "skill": "specialty", "value": "Family medicine"},
         ]},
     ]}, 2),
    ("diabetes", "Diabetes education", 45, ("rn",),
     {"type": "equal", "skill": "certification", "value": "CDCES"}, 2),
]
CANCELLATIONS = ["Patient asked to cancel", "Provider called out", "Patient admitted elsewhere",
                 "Insurance not verified", "Weather"]


def load_demo(database: Database, settings: Settings, providers: int | None = None, *,
              now: datetime | None = None) -> str:
    """Load the demo organisation unless already loaded; return a one-paragraph summary.

    `providers` sizes the organisation (default 60); `now` (default: the clock) fixes the load
    date, which every date of the demo hangs off. A new load ends by refreshing the planner's
    statistics (`Database.refresh_statistics`).
    """
    size = max(1, providers or DEFAULT_PROVIDERS)
    loaded_at = (now or datetime.now(UTC)).astimezone(UTC)
    try:
        with database.unit_of_work(write=True) as session:
            previous = _previous_load(session, size)
            if previous is not None:
                return previous
            # The marker goes in first: a concurrent loader blocks on its key, then fails.
            marker = m.AppSetting(key=MARKER, value={"state": "loading"})
            session.add(marker)
            session.flush()
            builder = _Builder(session, settings, size, loaded_at)
            summary = builder.build()
            grant_worked_roles(session)  # each person holds the roles their shifts use
            marker.value = {
                "loadedOn": builder.today.isoformat(), "providers": size, "summary": summary,
            }
    except IntegrityError:
        with database.unit_of_work() as session:
            previous = _previous_load(session, size)
        if previous is None:
            raise
        return previous
    database.refresh_statistics()
    return summary


def _previous_load(session: Session, size: int) -> str | None:
    """The answer for a database that already holds the demo (or its accounts), else None."""
    marker = session.get(m.AppSetting, MARKER)
    if marker is not None:
        value = marker.value if isinstance(marker.value, dict) else {}
        loaded = value.get("providers")
        other_size = (f" It has {loaded} providers, not {size}: load another size into an "
                      "empty database." if loaded not in (None, size) else "")
        return (f"The demo organisation is already loaded (on {value.get('loadedOn', '?')}); "
                f"nothing changed.{other_size} {value.get('summary', '')}").strip()
    taken = session.scalars(select(m.User.email).where(m.User.email.in_(DEMO_EMAILS))).all()
    if taken:
        return (f"Demo data not loaded: this database already has users {', '.join(sorted(taken))}"
                " that the demo would create; use an empty database.")
    return None


def _id(name: str) -> uuid.UUID:
    return uuid.uuid5(NAMESPACE, name)


def _stamp(value: datetime) -> str:
    return value.astimezone(UTC).strftime(TIMESTAMP)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _largest_remainder(total: int, weights: list[float]) -> list[int]:
    """Split `total` in proportion to `weights` (whole numbers summing to `total`)."""
    whole = sum(weights)
    shares = [total * w / whole for w in weights]
    counts = [int(s) for s in shares]
    order = sorted(range(len(weights)), key=lambda i: (counts[i] - shares[i], i))
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


@dataclass
class _Team:
    """A team being planned: its kind decides the role mix and the shift pattern."""

    key: str
    name: str
    short: str
    kind: str
    specialty: str
    id: uuid.UUID
    roles: dict[str, uuid.UUID] = field(default_factory=dict)
    manager_email: str = "manager@example.com"
    manager_name: str = ""
    size: int = 0

    @property
    def manager_id(self) -> uuid.UUID:
        return _id(f"user:{self.manager_email}")


@dataclass
class _Person:
    """A provider being planned; `first_day`/`last_day` bound their shifts (hire, dismissal)."""

    index: int
    id: uuid.UUID
    email: str
    name: str
    first: str
    team: _Team
    role: str
    employment: str
    status: str = "active"
    pattern: str = "day"
    weekly: bool = False
    skills: dict[str, list[str]] = field(default_factory=dict)
    first_day: int = FIRST_DAY
    last_day: int = LAST_DAY
    is_demo: bool = False

    @property
    def role_id(self) -> uuid.UUID:
        return self.team.roles[self.role]

    @property
    def hours(self) -> float:
        return 8.0 if self.team.kind == "clinic" else 12.0


@dataclass
class _Plan:
    """A shift being planned (open when `person` is None); `key` names its id."""

    key: str
    team: _Team
    role_id: uuid.UUID
    day: int
    kind: str
    person: _Person | None
    paid_break: bool = False
    on_call_tail: bool = False
    label: str | None = None
    label_all: bool = False
    skill: dict[str, Any] | None = None
    note: str | None = None
    pay_code: str | None = None
    callout: bool = False
    deleted: bool = False
    anomaly: str | None = None


class _Builder:
    """Plans the whole organisation in memory, then writes it table by table."""

    def __init__(self, session: Session, settings: Settings, size: int, now: datetime) -> None:
        self.session = session
        self.zone = settings.zone
        self.size = size
        self.rng = random.Random(SEED)
        self.today = now.astimezone(self.zone).date()
        self._times: dict[tuple[int, int], datetime] = {}
        self.midnight = self.at(0, 0)
        self.founded = self.midnight - timedelta(days=730)
        self.teams: list[_Team] = []
        self.people: list[_Person] = []
        self.plans: list[_Plan] = []
        self.by_day: dict[uuid.UUID, dict[int, _Plan]] = defaultdict(dict)
        self.counts: Counter[str] = Counter()
        self.copied: set[str] = set()
        self.staff: dict[str, uuid.UUID] = {email: _id(f"user:{email}") for email in DEMO_EMAILS}

    # -- time -------------------------------------------------------------------------------

    def at(self, day: int, minutes: int) -> datetime:
        """The UTC instant of local wall time `minutes` after midnight of load date + `day`."""
        key = (day, minutes)
        if key not in self._times:
            local = datetime.combine(self.today + timedelta(days=day + minutes // 1440),
                                     time(minutes % 1440 // 60, minutes % 60), tzinfo=self.zone)
            self._times[key] = local.astimezone(UTC)
        return self._times[key]

    def local_midnight(self, day: date) -> datetime:
        """The UTC instant of local midnight starting `day`."""
        return datetime.combine(day, time(0), tzinfo=self.zone).astimezone(UTC)

    def weekday(self, day: int) -> int:
        return (self.today + timedelta(days=day)).weekday()

    # -- the whole load ---------------------------------------------------------------------

    def build(self) -> str:
        """Plan and write everything; return the summary."""
        connection = self.session.connection()
        if connection.dialect.name != "sqlite":
            return self._build()
        # A bigger page cache for this load only: random-uuid keys touch pages all over the
        # indexes, and the default 2 MB cache makes SQLite spill and re-read them.
        cache = connection.exec_driver_sql("PRAGMA cache_size").scalar()
        connection.exec_driver_sql("PRAGMA cache_size=-131072")
        try:
            return self._build()
        finally:
            connection.exec_driver_sql(f"PRAGMA cache_size={int(cache or -2000)}")

    def _build(self) -> str:
        self.plan_organisation()
        self.plan_people()
        self.plan_shifts()
        requests = self.plan_time_off()
        self.plan_callouts()
        self.plan_open_shifts()
        self.write_organisation()
        self.write_people()
        self.write_policies()
        self.write_shifts()
        self.write_time_off(requests)
        self.write_punches()
        self.write_appointments()
        self.write_reports_and_forecast()
        return self.summary()

    def insert(self, target: type[Base] | Table, rows: list[Row], counter: str | None = None
               ) -> None:
        """Write `rows` (dicts with the same keys, every column with a default included) with
        the driver's executemany, in batches.

        Values go through each column type's own bind processor, exactly as SQLAlchemy would
        convert them, but memoised: the statement-level path costs several times more per row,
        which the `--scale` load cannot afford.
        """
        if counter:
            self.counts[counter] += len(rows)
        if not rows:
            return
        table: Table = target if isinstance(target, Table) else target.__table__  # type: ignore[assignment]
        keys = list(rows[0])
        connection = self.session.connection()
        dialect = connection.dialect
        compiled = insert(table).compile(dialect=dialect, column_keys=keys)
        names = list(compiled.positiontup or []) if dialect.positional else keys
        if compiled.insert_prefetch or sorted(names) != sorted(keys):
            raise ValueError(f"demo rows for {table.name} miss a column with a default")
        converters = [self._converter(table.c[key].type, dialect) for key in names]
        for start in range(0, len(rows), BATCH):
            batch = rows[start:start + BATCH]
            # Column by column with map(): several times cheaper than a loop per value.
            columns = [list(map(convert, map(itemgetter(key), batch))) if convert
                       else list(map(itemgetter(key), batch))
                       for key, convert in zip(names, converters, strict=True)]
            params: list[Any] = (list(zip(*columns, strict=True)) if dialect.positional
                                 else [dict(zip(names, values, strict=True))
                                       for values in zip(*columns, strict=True)])
            connection.exec_driver_sql(compiled.string, params)

    @staticmethod
    def _converter(column_type: Any, dialect: Any) -> Callable[[Any], Any] | None:
        """The column's bind processor; memoised for our own types (timestamps repeat a lot)."""
        process = column_type.dialect_impl(dialect).bind_processor(dialect)
        if process is None or not isinstance(column_type, TypeDecorator):
            return process  # type: ignore[no-any-return]

        class Memo(dict[Any, Any]):
            def __missing__(self, value: Any) -> Any:
                self[value] = converted = process(value)
                return converted

        return Memo().__getitem__

    # -- organisation -----------------------------------------------------------------------

    def plan_organisation(self) -> None:
        """Decide the teams and their sizes."""
        count = max(len(BASE_TEAMS), round(self.size / PROVIDERS_PER_TEAM))
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
        sizes = _largest_remainder(self.size, [spec[4] for spec in specs])
        if sizes[0] == 0:  # provider@example.com works in Emergency, whatever the size
            sizes[sizes.index(max(sizes))] -= 1
            sizes[0] = 1
        for (name, short, kind, specialty, _), size in zip(specs, sizes, strict=True):
            key = _slug(short)
            team = _Team(key=key, name=name, short=short, kind=kind, specialty=specialty,
                         id=_id(f"team:{key}"), size=size)
            team.roles = {role: _id(f"role:{key}:{role}") for role, _ in TEAM_MIX[kind]}
            if short not in ("ED", "ICU"):  # manager@example.com runs those two
                team.manager_email = f"manager.{key}@example.com"
                team.manager_name = f"{self.rng.choice(FIRST_NAMES)} {self.rng.choice(LAST_NAMES)}"
            self.teams.append(team)

    def write_organisation(self) -> None:
        """Teams, roles, employment types, pay codes, labels, enrollments."""
        created = self.founded
        self.insert(m.Team, [{"id": t.id, "created_at": created, "name": t.name,
                              "shorthand_name": t.short} for t in self.teams], "teams")
        self.insert(m.Role, [
            {"id": role_id, "created_at": created, "name": ROLE_KINDS[kind][0],
             "team_id": team.id, "hex_color": ROLE_KINDS[kind][1]}
            for team in self.teams for kind, role_id in team.roles.items()
        ], "roles")
        self.insert(m.EmploymentType, [
            {"id": _id(f"employment:{key}"), "name": name, "type": kind,
             "compensation_time_period": period, "amount_worked": amount,
             "created_at": created, "updated_at": created}
            for key, name, kind, period, amount in EMPLOYMENT_TYPES
        ])
        self.insert(m.PayCode, [
            {"id": _id(f"pay:{code}"), "name": name, "shorthand_name": code, "hex_color": color,
             "type": kind, "value": value}
            for code, name, color, kind, value in PAY_CODES
        ])
        self.insert(m.Label, [
            {"id": _id(f"label:{key}"), "created_at": created, "updated_at": created,
             "name": name, "description": description, "color": color}
            for key, name, color, description in LABELS
        ])
        self.insert(m.Enrollment, [{"id": _id(f"enrollment:{name}"), "name": name}
                                   for name in ENROLLMENTS])

    # -- people -----------------------------------------------------------------------------

    def plan_people(self) -> None:
        """Decide every provider: team, role, employment, schedule pattern, skills."""
        taken: set[str] = set(DEMO_EMAILS)
        index = 0
        for team in self.teams:
            kinds = [kind for kind, _ in TEAM_MIX[team.kind]]
            counts = _largest_remainder(team.size, [w for _, w in TEAM_MIX[team.kind]])
            roles = [kind for kind, n in zip(kinds, counts, strict=True) for _ in range(n)]
            self.rng.shuffle(roles)
            if index == 0:  # the demo provider: a registered nurse in Emergency
                roles.pop(roles.index("rn") if "rn" in roles else -1)
                roles.insert(0, "rn")
            for role in roles:
                self.people.append(self._person(index, team, role, taken))
                index += 1
        for team in self.teams:
            if team.kind == "clinic":  # someone has to teach diabetes education
                nurses = [p for p in self.people if p.team is team and p.role == "rn"]
                if nurses and "CDCES" not in nurses[0].skills["certification"]:
                    nurses[0].skills["certification"].append("CDCES")

    def _person(self, index: int, team: _Team, role: str, taken: set[str]) -> _Person:
        rng = self.rng
        if index == 0:
            person = _Person(index=0, id=self.staff["provider@example.com"],
                             email="provider@example.com", name="Pat Rivera", first="Pat",
                             team=team, role="rn", employment="ft", is_demo=True,
                             skills={"language": ["English", "Spanish"],
                                     "certification": ["BLS", "ACLS", "PALS", "TNCC"],
                                     "specialty": ["Emergency medicine"]})
            return person
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        email = f"{_slug(first)}.{_slug(last)}@example.com"
        number = 2
        while email in taken:
            email = f"{_slug(first)}.{_slug(last)}{number}@example.com"
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
        person = _Person(index=index, id=_id(f"user:{email}"), email=email,
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
        person.skills = self._skills(team, role)
        return person

    def _skills(self, team: _Team, role: str) -> dict[str, list[str]]:
        rng = self.rng
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

    def write_people(self) -> None:
        """Staff users, managers, providers, skills, enrollments, RBAC roles."""
        rng = self.rng
        created = self.founded
        rbac = install_roles(self.session)
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

        user(self.staff["admin@example.com"], "admin@example.com", "Adrienne Park", admin=True,
             password=True, role="Admin")
        user(self.staff["manager@example.com"], "manager@example.com", "Morgan Ellis",
             password=True, role="Manager")
        user(self.staff["scheduler@example.com"], "scheduler@example.com", "Sam Okafor",
             password=True, role="Scheduler")
        for team in self.teams:
            if team.manager_email != "manager@example.com":
                user(team.manager_id, team.manager_email, team.manager_name, role="Manager")
            managed.append({"user_id": team.manager_id, "team_id": team.id})

        providers: list[Row] = []
        skills: list[Row] = []
        enrollments: list[Row] = []
        for p in self.people:
            user(p.id, p.email, p.name, status=p.status, password=p.is_demo, role="Provider")
            providers.append(self._provider_row(p))
            skills.extend({"provider_id": p.id, "skill_name": name, "value": value}
                          for name, values in p.skills.items() for value in values)
            if p.role in ("md", "np"):
                held = sorted(rng.sample(ENROLLMENTS, rng.randint(2, 4)))
                enrollments.extend({"provider_id": p.id, "enrollment_id": _id(f"enrollment:{n}")}
                                   for n in held)
        self.insert(m.User, users, "users")
        self.insert(m.team_managers, managed)
        self.insert(m.Provider, providers, "providers")
        self.insert(m.ProviderSkill, skills)
        self.insert(m.provider_enrollments, enrollments)
        self.insert(m.user_rbac_roles, links)

    def _provider_row(self, p: _Person) -> Row:
        rng = self.rng
        if p.status == "onboarding":
            hired = self.today + timedelta(days=p.first_day)
        else:
            hired = self.today - timedelta(days=rng.randint(120, 5500))
        regions = ["NY"] + [r for r, chance in (("NJ", 0.35), ("CT", 0.2), ("PA", 0.1))
                            if rng.random() < chance]
        if p.employment == "travel":
            regions += rng.sample(["FL", "TX", "CA", "MA"], rng.randint(1, 2))
        weekly_hours = {"ft": (36, 48), "pt": (16, 30), "prn": (0, 36), "travel": (36, 48),
                        "salaried": (40, 60)}[p.employment]
        title = PHYSICIAN_TITLES[p.team.kind] if p.role == "md" else ROLE_KINDS[p.role][0]
        return {
            "id": p.id, "name": p.name, "email": p.email,
            "hire_date": self.local_midnight(hired), "job_title": title, "status": p.status,
            "team_id": p.team.id, "employment_type_id": _id(f"employment:{p.employment}"),
            "manager_id": p.team.manager_id, "default_role_id": p.role_id,
            "licensed_regions": regions,
            "pay_period_template": {"type": "weekly" if p.weekly else "biweekly",
                                    "startDate": _stamp(self.local_midnight(PAY_PERIOD_ANCHOR))},
            "imported_id": f"HR-{100000 + p.index}",
            "last_synced_at": self.midnight - timedelta(hours=3),
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
            "created_at": self.founded, "updated_at": self.founded,
        }

    def write_policies(self) -> None:
        """Time-off policies and who belongs to each."""
        rows, members = [], []
        for key, kind, name, description, unit, code, who, _ in POLICIES:
            policy_id = _id(f"policy:{key}")
            rows.append({
                "id": policy_id, "created_at": self.founded, "type": kind, "name": name,
                "description": description, "accrual_unit": unit,
                "pay_code_id": _id(f"pay:{code}") if code else None,
                "properties": {"requiresApproval": True,
                               "maxBalance": 200 if unit == "hours" else 30},
            })
            members.extend({"policy_id": policy_id, "provider_id": p.id}
                           for p in self.people if self._member(p, who))
        self.insert(m.TimeOffPolicy, rows)
        self.insert(m.time_off_policy_members, members)

    @staticmethod
    def _member(person: _Person, who: str) -> bool:
        if who == "employees":
            return person.employment not in ("prn", "travel")
        if who == "clinicians":
            return person.role in ("rn", "charge", "md", "np", "rt")
        return True

    # -- shifts -----------------------------------------------------------------------------

    def add_plan(self, plan: _Plan) -> _Plan:
        self.plans.append(plan)
        if plan.person is not None:
            self.by_day[plan.person.id][plan.day] = plan
        return plan

    def plan_shifts(self) -> None:
        """Each provider's shifts: 12-hour days or nights, clinic days, physicians' on-call."""
        rng = self.rng
        for p in self.people:
            if p.is_demo:
                for day in range(FIRST_DAY, LAST_DAY + 1):
                    if day % 7 in (0, 2, 4):
                        self._work(p, day, "day")
                continue
            for block in range(6):
                days = list(range(FIRST_DAY + 7 * block, FIRST_DAY + 7 * block + 7))
                if p.pattern == "clinic":
                    days = [d for d in days if self.weekday(d) < 5]
                per_week = {"ft": 3, "pt": 2, "prn": rng.randint(1, 2), "travel": 3,
                            "salaried": 3}[p.employment]
                if p.pattern == "clinic":
                    per_week += 1
                work = sorted(rng.sample(days, min(per_week, len(days))))
                for day in work:
                    if p.first_day <= day <= p.last_day:
                        plan = self._work(p, day, p.pattern)
                        if (p.pattern == "clinic" and p.role in ("md", "np")
                                and rng.random() < 0.15):
                            plan.on_call_tail, plan.pay_code = True, "ONC"
                free = [d for d in days if d not in work and p.first_day <= d <= p.last_day]
                if p.role == "md" and p.pattern != "clinic" and free and rng.random() < 0.6:
                    day = rng.choice(free)
                    self.add_plan(_Plan(key=f"shift:{p.email}:{day}", team=p.team,
                                        role_id=p.role_id, day=day, kind="on_call", person=p,
                                        pay_code="ONC", note="Home call: answer within 15 min"))

    def _work(self, p: _Person, day: int, kind: str) -> _Plan:
        rng = self.rng
        plan = _Plan(key=f"shift:{p.email}:{day}", team=p.team, role_id=p.role_id, day=day,
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
        return self.add_plan(plan)

    def _open_copy(self, plan: _Plan, note: str) -> None:
        if f"open:{plan.key}" in self.copied:
            return
        self.copied.add(f"open:{plan.key}")
        self.add_plan(_Plan(key=f"open:{plan.key}", team=plan.team, role_id=plan.role_id,
                            day=plan.day, kind=plan.kind, person=None,
                            paid_break=plan.paid_break, skill=plan.skill, note=note,
                            pay_code="OT" if plan.kind != "on_call" else "ONC"))

    def plan_callouts(self) -> None:
        """Sick calls: a few shifts become callouts, the future ones with an open copy."""
        for plan in list(self.plans):
            if (plan.person is None or plan.person.is_demo or plan.callout or plan.deleted
                    or plan.kind == "on_call"):
                continue
            if self.rng.random() < 0.02:
                plan.callout, plan.note = True, "Called out sick"
                if plan.day >= 0:
                    self._open_copy(plan, "Cover needed: callout")

    def plan_open_shifts(self) -> None:
        """Unfilled shifts in every team, and two the demo provider can claim."""
        rng = self.rng
        ed = self.teams[0]
        rn = ed.roles["rn"]
        acls = {"type": "equal", "skill": "certification", "value": "ACLS"}
        self.add_plan(_Plan(key="open:demo:1", team=ed, role_id=rn, day=1, kind="day",
                            person=None, skill=acls, note="Extra RN for the surge; ACLS needed",
                            pay_code="OT"))
        self.add_plan(_Plan(key="open:demo:3", team=ed, role_id=rn, day=3, kind="day",
                            person=None, note="Day RN needed"))
        for team in self.teams:
            chance = min(0.9, max(0.1, team.size / 40))
            kinds = [k for k in ("rn", "cna", "rt", "ma", "np") if k in team.roles]
            for day in range(1, LAST_DAY + 1):
                if team.kind == "clinic" and self.weekday(day) >= 5:
                    continue
                if rng.random() >= chance * (0.3 if team.kind == "clinic" else 0.6):
                    continue
                role = rng.choices(kinds, [6, 3, 1, 1, 1][: len(kinds)])[0]
                kind = "clinic" if team.kind == "clinic" else rng.choice(["day", "night"])
                skill = None
                if role in ("rn", "np") and team.kind in ("ed", "icu") and rng.random() < 0.5:
                    value = "CCRN" if team.kind == "icu" and rng.random() < 0.5 else "ACLS"
                    skill = {"type": "equal", "skill": "certification", "value": value}
                self.add_plan(_Plan(key=f"open:{team.key}:{day}", team=team,
                                    role_id=team.roles[role], day=day, kind=kind, person=None,
                                    skill=skill, note=rng.choice([None, "Open shift: bonus $150",
                                                                  "Float pool welcome"]),
                                    pay_code=rng.choice([None, "OT", "REG"])))

    def write_shifts(self) -> None:
        """Shifts, segments, segment labels and pay codes."""
        shifts, segments, labels, codes = [], [], [], []
        for plan in self.plans:
            if plan.deleted:
                continue
            shift_id = _id(plan.key)
            parts = self.segments_of(plan)
            start, end = parts[0][0], parts[-1][1]
            created = min(start - timedelta(days=14), self.midnight)
            shifts.append({
                "id": shift_id, "created_at": created, "updated_at": created, "version": 1,
                "provider_id": plan.person.id if plan.person else None, "team_id": plan.team.id,
                "start_date": start, "end_date": end, "note": plan.note,
                "is_callout": plan.callout, "work_rule_override": None, "claimed_at": None,
                "minimum_notice_minutes": None,
            })
            first_working = True
            for number, (begin, finish, kind) in enumerate(parts):
                segment_id = _id(f"{plan.key}/{number}")
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
                                   "label_id": _id(f"label:{plan.label}")})
                first_working = first_working and kind != "working"
            if plan.pay_code:
                codes.append({"shift_id": shift_id, "pay_code_id": _id(f"pay:{plan.pay_code}"),
                              "value": None})
            self.counts["open" if plan.person is None else "assigned"] += 1
            self.counts["callouts"] += plan.callout
        self.insert(m.Shift, shifts, "shifts")
        self.insert(m.ShiftSegment, segments, "segments")
        self.insert(m.segment_labels, labels)
        self.insert(m.ShiftPayCode, codes)

    def segments_of(self, plan: _Plan) -> list[tuple[datetime, datetime, str]]:
        """The plan's segments as UTC instants, from local wall-clock templates."""
        template = list(SEGMENTS[plan.kind])
        if plan.paid_break and plan.kind in PAID_BREAK_AT:
            at = PAID_BREAK_AT[plan.kind]
            first_start, first_end, kind = template[0]
            template[0:1] = [(first_start, at, kind), (at, at + 15, "paid_break"),
                             (at + 15, first_end, kind)]
        if plan.on_call_tail:
            template.append((*ON_CALL_TAIL, "on_call"))
        return [(self.at(plan.day, a), self.at(plan.day, b), kind) for a, b, kind in template]

    # -- time off ---------------------------------------------------------------------------

    def plan_time_off(self) -> list[Row]:
        """Requests in every state; approvals apply their conflict resolution to the shifts."""
        requests: list[Row] = []
        used: dict[uuid.UUID, set[int]] = defaultdict(set)
        demo = self.people[0]
        demo_requests = [("pending", "pto", 10, 2), ("approved", "pto", -10, 1),
                         ("rejected", "pto", 16, 2), ("cancelled", "unpaid", 6, 1)]
        for number, (status, policy, day, length) in enumerate(demo_requests):
            requests.append(self._request(f"tor:demo:{number}", demo, status, policy, day,
                                          length, resolution="calloutWithOpen"))
        others = [p for p in self.people if not p.is_demo and p.status == "active"]
        total = max(len(REQUEST_STATUSES) // 2, round(self.size * 0.4))
        for number in range(total if others else 0):
            status = REQUEST_STATUSES[number % len(REQUEST_STATUSES)]
            for _attempt in range(20):  # a provider never has two requests on one day
                person, policy, day, length = self._request_dates(others, status)
                span = set(range(day, day + length))
                if not span & used[person.id]:
                    used[person.id] |= span
                    requests.append(self._request(
                        f"tor:{number}", person, status, policy, day, length,
                        resolution=RESOLUTIONS[number % len(RESOLUTIONS)]))
                    break
        return requests

    def _request_dates(self, others: list[_Person], status: str
                       ) -> tuple[_Person, str, int, int]:
        """Who asks, under which policy, from which day, for how many days."""
        rng = self.rng
        person = rng.choice(others)
        allowed = [spec for spec in POLICIES if self._member(person, spec[6])]
        policy = rng.choices([s[0] for s in allowed], [s[7] for s in allowed])[0]
        lengths = {"pto": (1, 4), "sick": (1, 2), "bereavement": (3, 3), "jury": (1, 2),
                   "parental": (10, 15), "unpaid": (1, 2), "education": (1, 1)}
        length = rng.randint(*lengths[policy])
        if policy == "sick":  # sick leave is asked for after the fact
            day = rng.randint(FIRST_DAY + 1, -length)
        elif status in ("pending", "pending_sync", "sync_failed"):
            day = rng.randint(2, LAST_DAY - 2)
        else:
            day = rng.randint(FIRST_DAY + 1, LAST_DAY - 2)
        return person, policy, day, length

    def _request(self, key: str, person: _Person, status: str, policy: str, day: int,
                 length: int, *, resolution: str) -> Row:
        rng = self.rng
        spec = next(p for p in POLICIES if p[0] == policy)
        unit, code = spec[4], spec[5]
        partial = policy == "education"
        start = self.at(day, 0)
        end = self.at(day + length, 0)
        if partial:
            start, end = self.at(day, 8 * 60), self.at(day, 12 * 60)
        created = min(start - timedelta(days=rng.randint(5, 30)),
                      self.midnight - timedelta(hours=rng.randint(2, 72)))
        decided = None
        if status not in ("pending",):
            decided = created + (min(start, self.midnight) - created) / 2
        hours = 4.0 if partial else person.hours
        days = [
            {"id": _id(f"{key}/day/{n}"), "date": datetime.combine(
                self.today + timedelta(days=day + n), time(0), tzinfo=UTC), "duration": hours}
            for n in range(length)
        ]
        row: Row = {
            "id": _id(key), "created_at": created, "updated_at": decided or created,
            "status": status, "start_date": start, "end_date": end,
            "policy_id": _id(f"policy:{policy}"), "provider_id": person.id,
            "note": rng.choice(REQUEST_NOTES[policy]),
            "paid_hours": hours * length if code else 0.0,
            "rejected_by_id": person.team.manager_id if status == "rejected" else None,
            "rejection_reason": rng.choice(REJECTIONS) if status == "rejected" else None,
            "sync_error": None, "conflict_resolution": None,
            "is_full_day": not partial if unit == "hours" else True, "decided_at": decided,
            "_days": days,
        }
        if status == "approved":
            row["conflict_resolution"] = resolution
            self._resolve(person, range(day, day + length), resolution)
        elif status == "pending_sync":
            row["sync_error"] = {"status": "failed", "createdAt": _stamp(decided or created),
                                 "message": "Payroll system did not answer; retrying."}
        elif status == "sync_failed":
            row["sync_error"] = {"status": "failed", "createdAt": _stamp(decided or created),
                                 "message": "Rejected by payroll: balance would go negative."}
        return row

    def _resolve(self, person: _Person, days: range, resolution: str) -> None:
        """Apply an approval's conflict strategy to the provider's shifts on those days."""
        for day in days:
            plan = self.by_day[person.id].get(day)
            if plan is None or plan.deleted:
                continue
            if resolution.startswith("delete"):
                plan.deleted = True
            elif resolution.startswith("callout"):
                plan.callout, plan.note = True, "Time off approved"
            if resolution.endswith("WithOpen"):
                self._open_copy(plan, "Open: colleague on approved time off")

    def write_time_off(self, requests: list[Row]) -> None:
        """The requests and their hours per day."""
        days = [dict(d, request_id=r["id"]) for r in requests for d in r.pop("_days")]
        self.insert(m.TimeOffRequest, requests, "requests")
        self.insert(m.TimeOffDay, days)
        self.counts.update(f"request:{r['status']}" for r in requests)

    # -- punches ----------------------------------------------------------------------------

    def period(self, person: _Person, day: date) -> tuple[date, date]:
        """The pay period (local start day, next period's start day) holding `day`."""
        length = 7 if person.weekly else 14
        first = PAY_PERIOD_ANCHOR + timedelta(days=(day - PAY_PERIOD_ANCHOR).days // length
                                              * length)
        return first, first + timedelta(days=length)

    def write_punches(self) -> None:
        """Timecards per pay period and punches on past shifts, with a few anomalies."""
        rng = self.rng
        worked = [p for p in self.plans
                  if p.person is not None and not p.deleted and not p.callout
                  and p.kind != "on_call" and self.segments_of(p)[-1][1] <= self.midnight]
        candidates = [p for p in worked if p.person is not None and not p.person.is_demo]
        count = max(1, len(candidates) // 50)
        for anomaly in ("late", "early", "missing"):
            pool = [p for p in candidates if p.anomaly is None]
            for plan in rng.sample(pool, min(count, len(pool))):
                plan.anomaly = anomaly
        cards: dict[tuple[uuid.UUID, date], Row] = {}
        punches: list[Row] = []

        def punch(person: _Person, when: datetime, action: str, *, ok: bool = True,
                  note: str | None = None) -> None:
            first, following = self.period(person, when.astimezone(self.zone).date())
            card = cards.get((person.id, first))
            if card is None:
                card = cards[(person.id, first)] = {
                    "id": _id(f"timecard:{person.email}:{first.isoformat()}"),
                    "provider_id": person.id, "period_start": self.local_midnight(first),
                    "period_end": self.local_midnight(following), "created_at":
                        self.local_midnight(first),
                }
            # Managers approve closed periods, and the current one as it goes, a few days behind.
            reviewed = following <= self.today or when < self.at(-3, 0)
            state = "approved" if ok and reviewed and rng.random() < 0.97 else "pending"
            punches.append({
                "id": _id(f"punch:{person.email}:{_stamp(when)}:{action}"),
                "timecard_id": card["id"], "provider_id": person.id, "generated": False,
                "created_at": when, "updated_at": when, "action": action, "state": state,
                "time": when, "provider_note": note, "admin_note": None,
            })

        for plan in worked:
            person = plan.person
            assert person is not None
            parts = self.segments_of(plan)
            seconds = timedelta(seconds=rng.randint(0, 59))
            start, end = parts[0][0], max(b for _, b, k in parts if k == "working")
            if plan.anomaly == "late":
                punch(person, start + timedelta(minutes=rng.randint(15, 45)) + seconds,
                      "clock_in", ok=False, note=rng.choice(["Traffic on the bridge",
                                                             "Car would not start", None]))
            else:
                punch(person, start + timedelta(minutes=rng.randint(-6, 3)) + seconds, "clock_in")
            for begin, finish, kind in parts:
                if kind == "unpaid_break":
                    punch(person, begin + timedelta(minutes=rng.randint(-5, 10)), "break_start")
                    punch(person, finish + timedelta(minutes=rng.randint(-3, 5), seconds=30),
                          "break_end")
            if plan.anomaly == "early":
                punch(person, end - timedelta(minutes=rng.randint(40, 120)) + seconds,
                      "clock_out", ok=False, note="Left early: sick child")
            elif plan.anomaly != "missing":
                punch(person, end + timedelta(minutes=rng.randint(-3, 8)) + seconds, "clock_out")
        # Clock-ins with no shift: people who came in for training on a day off.
        pool = [p for p in self.people if not p.is_demo and p.status == "active"]
        for person in rng.sample(pool, min(len(pool), max(1, self.size // 40))):
            days = [d for d in range(FIRST_DAY, -1) if d not in self.by_day[person.id]
                    and d - 1 not in self.by_day[person.id]]
            if days:
                day = rng.choice(days)
                punch(person, self.at(day, 9 * 60 + rng.randint(-5, 5)), "clock_in", ok=False,
                      note="Mandatory skills day")
                punch(person, self.at(day, 13 * 60 + rng.randint(-5, 5)), "clock_out",
                      ok=False)
                self.counts["unscheduled"] += 1
        self.insert(m.Timecard, list(cards.values()), "timecards")
        self.insert(m.TimecardPunch, punches, "punches")
        self.counts.update(f"anomaly:{p.anomaly}" for p in worked if p.anomaly)

    # -- appointments -----------------------------------------------------------------------

    def write_appointments(self) -> None:
        """Appointment types and, in clinic teams, appointments that never overlap."""
        rng = self.rng
        clinics = [t for t in self.teams if t.kind == "clinic"]
        types = []
        for key, name, length, kinds, requirement, _ in APPOINTMENT_TYPES:
            allowed = None if kinds is None else [str(t.roles[k]) for t in clinics for k in kinds
                                                  if k in t.roles]
            types.append({
                "id": _id(f"atype:{key}"), "created_at": self.founded, "name": name,
                "length": length, "allowed_roles": allowed, "skill_requirement": requirement,
                "archived_at": None, "extra": {"modality": "video"} if key == "telehealth" else {},
            })
        types.append({
            "id": _id("atype:walkin"), "created_at": self.founded, "name": "Walk-in triage",
            "length": 20, "allowed_roles": None, "skill_requirement": None,
            "archived_at": self.midnight - timedelta(days=30), "extra": {},
        })
        self.insert(m.AppointmentType, types)

        rows: list[Row] = []
        members = max(50, self.size * 20)
        for plan in self.plans:
            person = plan.person
            if (person is None or plan.kind != "clinic" or plan.deleted or plan.callout
                    or person.role not in ("md", "np", "rn")):
                continue
            offered = [spec for spec in APPOINTMENT_TYPES if self._offers(person, spec)]
            if not offered:
                continue
            weights = [spec[5] for spec in offered]
            for begin, finish, kind in self.segments_of(plan):
                if kind != "working":
                    continue
                cursor = begin + timedelta(minutes=rng.choice([0, 15, 30]))
                while True:
                    key, name, length = rng.choices(offered, weights)[0][:3]
                    stop = cursor + timedelta(minutes=length)
                    if stop > finish:
                        break
                    rows.append(self._appointment(len(rows), person, key, name, length, cursor,
                                                  stop, members))
                    cursor = stop + timedelta(minutes=rng.choice([0, 15, 15, 30, 45, 60]))
        self.insert(m.Appointment, rows, "appointments")
        self.counts.update(f"appointment:{r['status']}" for r in rows)

    @staticmethod
    def _offers(person: _Person, spec: tuple[Any, ...]) -> bool:
        _key, _name, _length, kinds, requirement, _weight = spec
        if kinds is None and person.role == "rn":
            return False  # clinic nurses see patients only for what they are certified in
        if kinds is not None and person.role not in kinds:
            return False
        return requirement is None or _meets(person.skills, requirement)

    def _appointment(self, number: int, person: _Person, key: str, name: str, length: int,
                     start: datetime, end: datetime, members: int) -> Row:
        rng = self.rng
        draw = rng.random()
        past = start < self.midnight
        created = min(start - timedelta(days=rng.randint(2, 30)),
                      self.midnight - timedelta(hours=rng.randint(1, 72)))
        row: Row = {
            "id": _id(f"appt:{number}"), "created_at": created, "updated_at": created,
            "version": 1, "type": name, "appointment_type_id": _id(f"atype:{key}"),
            "status": "upcoming", "provider_id": person.id,
            "member_id": f"member-{rng.randrange(members):05d}", "start_date": start,
            "end_date": end, "actual_start_date": None, "actual_end_date": None,
            "location": "Telehealth" if key == "telehealth"
            else f"{person.team.short} room {rng.randint(1, 12)}",
            "cancellation_date": None, "cancellation_reason": None,
        }
        if past:
            status = ("occurred" if draw < 0.82 else "no-show" if draw < 0.89
                      else "cancelled" if draw < 0.96 else "re-scheduled")
        else:
            status = "upcoming" if draw < 0.84 else "re-scheduled" if draw < 0.88 else "cancelled"
        row["status"] = status
        if status == "occurred":
            actual = start + timedelta(minutes=rng.randint(-5, 10))
            finished = actual + timedelta(minutes=length + rng.randint(-5, 10))
            row.update(actual_start_date=actual, actual_end_date=finished, updated_at=finished)
        elif status == "no-show":
            row["updated_at"] = end
        elif status == "cancelled":
            cancelled = created + (min(start, self.midnight) - created) * rng.uniform(0.3, 0.95)
            row.update(cancellation_date=cancelled, updated_at=cancelled,
                       cancellation_reason=rng.choice(CANCELLATIONS))
        return row

    # -- reports and forecast ---------------------------------------------------------------

    def write_reports_and_forecast(self) -> None:
        """A few report runs (with their CSV files) and demand rows for six weeks."""
        admin, manager = self.staff["admin@example.com"], self.staff["manager@example.com"]
        ed = self.teams[0]
        week = [p for p in self.plans if p.person is not None and p.team is ed
                and -7 <= p.day < 0 and not p.deleted]
        hours: Counter[str] = Counter()
        for plan in week:
            assert plan.person is not None
            hours[plan.person.name] += sum((b - a).total_seconds() / 3600
                                           for a, b, k in self.segments_of(plan) if k == "working")
        timesheet = "provider,team,scheduled_hours\n" + "".join(
            f"{name},{ed.name},{value}\n" for name, value in sorted(hours.items()))
        statuses = Counter(k.split(":", 1)[1] for k in self.counts if k.startswith("request:"))
        time_off = "status,requests\n" + "".join(
            f"{s},{self.counts['request:' + s]}\n" for s in sorted(statuses))
        coverage = "team,open_shifts\n" + "".join(
            f"{t.name},{sum(1 for p in self.plans if p.person is None and p.team is t)}\n"
            for t in self.teams)
        runs = [
            ("timesheet-summary", manager, -6, "completed", timesheet,
             {"teamId": str(ed.id), "startDate": _stamp(self.at(-7, 0)),
              "endDate": _stamp(self.at(0, 0))}),
            ("time-off-summary", admin, -3, "completed", time_off,
             {"startDate": _stamp(self.at(FIRST_DAY, 0)), "endDate": _stamp(self.at(LAST_DAY, 0))}),
            ("shift-coverage", admin, -1, "completed", coverage,
             {"startDate": _stamp(self.at(0, 0)), "endDate": _stamp(self.at(7, 0))}),
            ("appointments-by-provider", admin, -2, "failed", None,
             {"startDate": _stamp(self.at(-14, 0)), "endDate": _stamp(self.at(0, 0))}),
        ]
        rows = []
        for report, who, day, status, content, parameters in runs:
            created = self.at(day, 10 * 60 + 17)
            data = content.encode() if content is not None else None
            rows.append({
                "id": _id(f"run:{report}"), "report_id": report, "created_at": created,
                "created_by_id": who, "parameters": parameters, "status": status,
                "file_name": f"{report}.csv" if data is not None else None,
                "file_media_type": "text/csv" if data is not None else None,
                "file_size_bytes": len(data) if data is not None else None,
                "file_content": data,
                "error": None if data is not None else "The report worker stopped before the run "
                                                       "finished; start the run again.",
                "completed_at": created + timedelta(minutes=2),
            })
        self.insert(m.ReportRun, rows, "runs")

        scheduled: Counter[tuple[uuid.UUID, int, str]] = Counter()
        for plan in self.plans:
            if plan.person is not None and not plan.deleted and not plan.callout:
                scheduled[(plan.role_id, plan.day, plan.kind)] += 1
        forecast = []
        for team in self.teams:
            kinds = ["md", "np"] if team.kind == "clinic" else ["rn", "cna"]
            blocks = ["clinic"] if team.kind == "clinic" else ["day", "night"]
            for kind in kinds:
                role_id = team.roles[kind]
                for day in range(FIRST_DAY, LAST_DAY + 1):
                    for block in blocks:
                        if block == "clinic" and self.weekday(day) >= 5:
                            continue
                        span = SEGMENTS[block]
                        demand = scheduled[(role_id, day, block)] + self.rng.choice(
                            [-1, 0, 0, 1, 1, 2])
                        forecast.append({
                            "id": _id(f"demand:{team.key}:{kind}:{day}:{block}"),
                            "role_id": role_id, "start_date": self.at(day, span[0][0]),
                            "end_date": self.at(day, span[-1][1]), "demand": float(max(0, demand)),
                            "extra": {"source": "census model", "confidence": 0.8},
                            "created_at": self.at(FIRST_DAY - 1, 9 * 60), "uploaded_by_id": admin,
                        })
        self.insert(m.DemandForecastRow, forecast, "forecast")

    # -- summary ----------------------------------------------------------------------------

    def summary(self) -> str:
        """One paragraph: what exists and how to sign in."""
        c = self.counts
        statuses = ", ".join(f"{c['request:' + s]} {s}" for s in
                             ("pending", "approved", "rejected", "cancelled", "pending_sync",
                              "sync_failed"))
        appointments = ", ".join(f"{c['appointment:' + s]} {s}" for s in
                                 ("upcoming", "occurred", "cancelled", "no-show", "re-scheduled"))
        names = ", ".join(t.name for t in self.teams[:6]) + (
            f" and {len(self.teams) - 6} more" if len(self.teams) > 6 else "")
        first, last = self.today + timedelta(days=FIRST_DAY), self.today + timedelta(days=LAST_DAY)
        return (
            f"Demo organisation loaded for {self.today.isoformat()} ({self.zone.key}): "
            f"{c['teams']} teams ({names}) with {c['roles']} colour-coded roles, "
            f"{c['providers']} providers and {c['users']} users; {c['shifts']:,} shifts from "
            f"{first.isoformat()} to {last.isoformat()} ({c['open']:,} open, "
            f"{c['callouts']:,} callouts) in {c['segments']:,} segments; "
            f"{c['requests']} time-off requests ({statuses}); {c['appointments']:,} appointments "
            f"({appointments}); {c['punches']:,} punches on {c['timecards']:,} timecards "
            f"({c['anomaly:late']} late clock-ins, {c['anomaly:early']} early clock-outs, "
            f"{c['anomaly:missing']} missing clock-outs, {c['unscheduled']} clocked days without "
            f"a shift); {c['runs']} report runs; {c['forecast']:,} demand forecast rows. Sign in "
            f"as admin@example.com, manager@example.com, scheduler@example.com or "
            f"provider@example.com with the password \"{DEMO_PASSWORD}\"."
        )


def _meets(skills: dict[str, list[str]], requirement: dict[str, Any]) -> bool:
    """Whether a provider's skills satisfy a skill requirement (equal / and / or)."""
    if requirement["type"] == "equal":
        return requirement["value"] in skills.get(requirement["skill"], [])
    results = (_meets(skills, entry) for entry in requirement["entries"])
    return all(results) if requirement["type"] == "and" else any(results)
