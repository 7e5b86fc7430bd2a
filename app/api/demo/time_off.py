"""The demo's time off: policies and their members, requests in every state, whose
approvals apply their conflict resolution to the planned shifts, and balances: accrual settings
on paid time off and sick leave and a year of ledger (accruals, carry-over, usage of approved
requests) for their members, and one balance reset upload by the administrator a week ago
(three PTO balances rounded down to a multiple of 8 hours), as
`POST /v1/time-off/balance-resets` stores it.
"""

from __future__ import annotations

import hashlib
import math
import uuid
from collections import defaultdict
from datetime import UTC, datetime, time, timedelta
from fractions import Fraction

from app.api import models as m
from app.api.demo.bulk import Row
from app.api.demo.schedule import open_copy
from app.api.demo.state import FIRST_DAY, LAST_DAY, Demo, Person, demo_id, stamp
from app.api.domain import balances as ledger

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
# key, who belongs, accrual settings (columns of time_off_accrual_settings, start date aside)
ACCRUALS: list[tuple[str, str, dict[str, object]]] = [
    ("pto", "employees", {"method": "per_period", "rate": "4.6", "period": "pay_period",
                          "balance_cap": "200", "carry_over_max": "80", "allow_negative": True,
                          "negative_floor": "-16", "annual_use_limit": None}),
    ("sick", "employees", {"method": "up_front", "rate": "40", "period": "yearly",
                           "balance_cap": "80", "carry_over_max": "40", "allow_negative": True,
                           "negative_floor": "-24", "annual_use_limit": "80"}),
]
"""Policies that keep a balance in the demo, accruing from a year before the load."""
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


def is_member(person: Person, who: str) -> bool:
    """Whether the person belongs to a policy open to `who` (employees, clinicians, everyone)."""
    if who == "employees":
        return person.employment not in ("prn", "travel")
    if who == "clinicians":
        return person.role in ("rn", "charge", "md", "np", "rt")
    return True


def plan_time_off(demo: Demo) -> list[Row]:
    """Requests in every state; approvals apply their conflict resolution to the shifts."""
    requests: list[Row] = []
    used: dict[uuid.UUID, set[int]] = defaultdict(set)
    person = demo.people[0]
    demo_requests = [("pending", "pto", 10, 2), ("approved", "pto", -10, 1),
                     ("rejected", "pto", 16, 2), ("cancelled", "unpaid", 6, 1)]
    for number, (status, policy, day, length) in enumerate(demo_requests):
        requests.append(_request(demo, f"tor:demo:{number}", person, status, policy, day,
                                 length, resolution="calloutWithOpen"))
    others = [p for p in demo.people if not p.is_demo and p.status == "active"]
    total = max(len(REQUEST_STATUSES) // 2, round(demo.size * 0.4))
    for number in range(total if others else 0):
        status = REQUEST_STATUSES[number % len(REQUEST_STATUSES)]
        for _attempt in range(20):  # a provider never has two requests on one day
            person, policy, day, length = _request_dates(demo, others, status)
            span = set(range(day, day + length))
            if not span & used[person.id]:
                used[person.id] |= span
                requests.append(_request(
                    demo, f"tor:{number}", person, status, policy, day, length,
                    resolution=RESOLUTIONS[number % len(RESOLUTIONS)]))
                break
    return requests


def _request_dates(demo: Demo, others: list[Person], status: str
                   ) -> tuple[Person, str, int, int]:
    """Who asks, under which policy, from which day, for how many days."""
    rng = demo.rng
    person = rng.choice(others)
    allowed = [spec for spec in POLICIES if is_member(person, spec[6])]
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


def _request(demo: Demo, key: str, person: Person, status: str, policy: str, day: int,
             length: int, *, resolution: str) -> Row:
    rng = demo.rng
    spec = next(p for p in POLICIES if p[0] == policy)
    unit, code = spec[4], spec[5]
    partial = policy == "education"
    start = demo.at(day, 0)
    end = demo.at(day + length, 0)
    if partial:
        start, end = demo.at(day, 8 * 60), demo.at(day, 12 * 60)
    created = min(start - timedelta(days=rng.randint(5, 30)),
                  demo.midnight - timedelta(hours=rng.randint(2, 72)))
    decided = None
    if status not in ("pending",):
        decided = created + (min(start, demo.midnight) - created) / 2
    hours = 4.0 if partial else person.hours
    days = [
        {"id": demo_id(f"{key}/day/{n}"), "date": datetime.combine(
            demo.today + timedelta(days=day + n), time(0), tzinfo=UTC), "duration": hours}
        for n in range(length)
    ]
    row: Row = {
        "id": demo_id(key), "created_at": created, "updated_at": decided or created,
        "status": status, "start_date": start, "end_date": end,
        "policy_id": demo_id(f"policy:{policy}"), "provider_id": person.id,
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
        _resolve(demo, person, range(day, day + length), resolution)
    elif status == "pending_sync":
        row["sync_error"] = {"status": "failed", "createdAt": stamp(decided or created),
                             "message": "Payroll system did not answer; retrying."}
    elif status == "sync_failed":
        row["sync_error"] = {"status": "failed", "createdAt": stamp(decided or created),
                             "message": "Rejected by payroll: balance would go negative."}
    return row


def _resolve(demo: Demo, person: Person, days: range, resolution: str) -> None:
    """Apply an approval's conflict strategy to the provider's shifts on those days."""
    for day in days:
        plan = demo.by_day[person.id].get(day)
        if plan is None or plan.deleted:
            continue
        if resolution.startswith("delete"):
            plan.deleted = True
        elif resolution.startswith("callout"):
            plan.callout, plan.note = True, "Time off approved"
        if resolution.endswith("WithOpen"):
            open_copy(demo, plan, "Open: colleague on approved time off")


def write_policies(demo: Demo) -> None:
    """Time-off policies and who belongs to each."""
    rows, members = [], []
    for key, kind, name, description, unit, code, who, _ in POLICIES:
        policy_id = demo_id(f"policy:{key}")
        rows.append({
            "id": policy_id, "created_at": demo.founded, "type": kind, "name": name,
            "description": description, "accrual_unit": unit,
            "pay_code_id": demo_id(f"pay:{code}") if code else None,
            "properties": {"requiresApproval": True,
                           "maxBalance": 200 if unit == "hours" else 30},
        })
        members.extend({"policy_id": policy_id, "provider_id": p.id}
                       for p in demo.people if is_member(p, who))
    demo.insert(m.TimeOffPolicy, rows)
    demo.insert(m.time_off_policy_members, members)


def write_time_off(demo: Demo, requests: list[Row]) -> None:
    """The requests and their hours per day."""
    days = [dict(d, request_id=r["id"]) for r in requests for d in r.pop("_days")]
    demo.insert(m.TimeOffRequest, requests, "requests")
    demo.insert(m.TimeOffDay, days)
    demo.counts.update(f"request:{r['status']}" for r in requests)
    write_balances(demo, requests)


def write_balances(demo: Demo, requests: list[Row]) -> None:
    """Accrual settings on the demo's PTO and sick leave, a year of accruals (and carry-over)
    for their members, and the usage of their approved requests (debited when decided)."""
    start = demo.today - timedelta(days=364)
    settings_rows: list[Row] = []
    entries: list[Row] = []
    for key, who, columns in ACCRUALS:
        policy_id = demo_id(f"policy:{key}")
        settings_rows.append({
            "policy_id": policy_id, "start_date": start, "period_anchor": None,
            "annual_accrual_cap": None, "carry_over_month": 1, "carry_over_day": 1,
            "waiting_period_days": 0, "debit_on": "approval", "updated_at": demo.founded,
            "updated_by_id": None, **columns})
        config = ledger.AccrualSettings(
            method=columns["method"],  # type: ignore[arg-type]  # a method, as written above
            rate=ledger.parse_amount(str(columns["rate"])), start_date=start,
            period=columns["period"],  # type: ignore[arg-type]  # a period, as written above
            balance_cap=ledger.parse_amount(str(columns["balance_cap"])),
            carry_over_max=ledger.parse_amount(str(columns["carry_over_max"])))
        used: dict[uuid.UUID, list[ledger.Entry]] = defaultdict(list)
        for request in requests:
            if request["policy_id"] == policy_id and request["status"] == "approved":
                day = (request["decided_at"] or request["created_at"]).astimezone(demo.zone).date()
                used[request["provider_id"]].append(ledger.Entry(
                    "usage", day, -Fraction(repr(request["paid_hours"])),
                    f"usage:{request['id']}"))
        for person in demo.people:
            if not is_member(person, who):
                continue
            usage = used.get(person.id, [])
            accrued = ledger.accrue(config, policy=str(policy_id), provider=str(person.id),
                                    hire_date=None, ledger=usage, through=demo.today)
            entries.extend(_entry_row(demo, e, person.id, policy_id) for e in accrued)
            entries.extend(_entry_row(demo, e, person.id, policy_id,
                                      request_id=uuid.UUID(e.source_key.split(":")[1]))
                           for e in usage)
    demo.insert(m.TimeOffAccrualSettings, settings_rows)
    entries.extend(_reset_upload(demo, entries))
    demo.insert(m.TimeOffLedgerEntry, entries, "ledger entries")


def _reset_upload(demo: Demo, entries: list[Row]) -> list[Row]:
    """The administrator's balance reset file of a week ago: three PTO members' balances on
    that day rounded down to a multiple of 8 hours (so no cap or floor is crossed), stored as
    an upload with its rows and a `reset` entry each; returns the entries."""
    pto, day = demo_id("policy:pto"), demo.today - timedelta(days=7)
    people = [p for p in demo.people if is_member(p, "employees")][:3]
    upload_id = demo_id("balance-upload:1")
    lines, rows, resets = ["providerId,policyId,balance,effectiveDate"], [], []
    for number, person in enumerate(people, start=1):
        held = sum((Fraction(e["amount_numerator"], e["amount_denominator"]) for e in entries
                    if e["provider_id"] == person.id and e["policy_id"] == pto
                    and e["effective_date"] <= day), Fraction(0))
        target = Fraction(math.floor(held / 8) * 8)
        lines.append(f"{person.id},{pto},{target},{day.isoformat()}")
        reset = ledger.Entry("reset", day, target - held, f"reset:demo:{number}", target=target)
        row = _entry_row(demo, reset, person.id, pto)
        row.update(upload_id=upload_id, created_by_id=demo.staff["admin@example.com"],
                   created_at=demo.local_midnight(day) + timedelta(hours=9))
        resets.append(row)
        rows.append({"row": number, "providerId": str(person.id), "policyId": str(pto),
                     "balance": ledger.format_amount(target), "effectiveDate": day.isoformat(),
                     "adjustment": ledger.format_amount(target - held)})
    content = ("\n".join(lines) + "\n").encode()
    demo.insert(m.TimeOffBalanceUpload, [{
        "id": upload_id, "file_hash": hashlib.sha256(content).hexdigest(),
        "file_name": "pto-balances-from-payroll.csv", "status": "completed",
        "row_count": len(rows), "rows": rows,
        "created_at": demo.local_midnight(day) + timedelta(hours=9),
        "created_by_id": demo.staff["admin@example.com"]}])
    return resets


def _entry_row(demo: Demo, entry: ledger.Entry, provider: uuid.UUID, policy: uuid.UUID, *,
               request_id: uuid.UUID | None = None) -> Row:
    target = entry.target
    return {
        "id": demo_id(f"ledger:{entry.source_key}"), "provider_id": provider,
        "policy_id": policy, "kind": entry.kind, "effective_date": entry.effective_date,
        "amount_numerator": entry.amount.numerator,
        "amount_denominator": entry.amount.denominator,
        "target_numerator": target.numerator if target is not None else None,
        "target_denominator": target.denominator if target is not None else None,
        "request_id": request_id, "upload_id": None, "source_key": entry.source_key,
        "created_at": demo.local_midnight(entry.effective_date), "created_by_id": None,
    }
