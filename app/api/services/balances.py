"""Time-off balances: accrual settings of a policy, balances and the ledger as of a day, accrual
runs, usage debited on approval (and given back on cancelling), and balance reset uploads.

The arithmetic is `app.api.domain.balances`'; here it meets the database. The ledger is
append-only: entries are inserted with `ON CONFLICT (source_key) DO NOTHING`, so a run or an
upload done twice (or at once) adds nothing the second time. Usage is checked and debited under
a lock of the (provider, policy) row of `time_off_balance_locks` (`SELECT … FOR UPDATE`; SQLite
serialises writers anyway), taken after the request's and the shifts' locks, never before.

Decisions where the issue is silent:
- Only policies with accrual settings keep a balance; approving leave under any other policy
  debits nothing and is never refused for its balance.
- Per-hour-worked accrual reads worked time from the timesheet computation
  (`computed_timesheets`): the seconds of its `working` pay segments per local day.
- A request uses, under a days policy, one day per day with hours off; under an hours policy,
  the hours off per day as stored (`dailyHours`).
- A reversal is dated the day the approved leave is cancelled, or the usage's own day when that
  lies later (a `leave_date` debit of leave not yet begun), so the past is never rewritten.
- Accrual runs take no balance lock: they only add, and an approval racing one checks the floor
  under its lock; the cap is computed from the ledger the run read.

Must not commit or read the request.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, date, datetime, time, timedelta
from fractions import Fraction
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Select, exists, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.domain import balances as rules
from app.api.domain.balances import AccrualSettings, Entry
from app.api.models import (
    Provider,
    TimeOffAccrualSettings,
    TimeOffBalanceLock,
    TimeOffBalanceUpload,
    TimeOffLedgerEntry,
    TimeOffPolicy,
    TimeOffRequest,
    time_off_policy_members,
)
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, not_found, validation
from app.api.services import locator
from app.api.subjects import TIME_OFF_POLICY
from app.contract.balances import (
    AccrualRunResult,
    AccrualSettingsRead,
    AccrualSettingsWrite,
    Amount,
    BalanceRead,
    BalanceResetRow,
    BalanceResetUploadListQuery,
    BalanceResetUploadRead,
    BalanceResetUploadSummary,
    BalancesQuery,
    BalancesRead,
    LedgerEntryRead,
)
from app.contract.problems import FieldError, ProblemCode

ZERO = Fraction(0)
locate_upload = locator(TimeOffBalanceUpload, "balance-reset-upload")
locate_policy = locator(TimeOffPolicy, "time-off-policy")
KIND_ORDER = {"reset": 0, "carry_over": 1, "forfeit": 2, "expiry": 3, "accrual": 4}
"""How entries of one day and one run follow each other."""
RESET_COLUMNS = ("providerId", "importedId", "policyId", "balance", "effectiveDate")


def amount(value: Fraction) -> Amount:
    """The wire form of an exact amount."""
    return Amount(exact=rules.format_amount(value), value=rules.display_value(value))


def _text(value: Fraction | None) -> str | None:
    return None if value is None else rules.format_amount(value)


def _fraction(text: str | None) -> Fraction | None:
    return None if text is None else rules.parse_amount(text)


# Settings ---------------------------------------------------------------------------------------


def settings_of(row: TimeOffAccrualSettings) -> AccrualSettings:
    """The domain's settings of a stored row."""
    return AccrualSettings(
        method=row.method,  # type: ignore[arg-type]  # CHECK constraint keeps it a method
        rate=rules.parse_amount(row.rate),
        start_date=row.start_date,
        period=row.period,  # type: ignore[arg-type]  # CHECK constraint
        period_anchor=row.period_anchor,
        balance_cap=_fraction(row.balance_cap),
        annual_accrual_cap=_fraction(row.annual_accrual_cap),
        annual_use_limit=_fraction(row.annual_use_limit),
        carry_over_max=_fraction(row.carry_over_max),
        carry_over_month=row.carry_over_month,
        carry_over_day=row.carry_over_day,
        waiting_period_days=row.waiting_period_days,
        allow_negative=row.allow_negative,
        negative_floor=rules.parse_amount(row.negative_floor),
        debit_on=row.debit_on,  # type: ignore[arg-type]  # CHECK constraint
    )


def accrual_read(policy: TimeOffPolicy, row: TimeOffAccrualSettings) -> AccrualSettingsRead:
    """The wire form of a policy's accrual settings."""
    return AccrualSettingsRead(
        policy_id=policy.id, unit=_unit(policy), updated_at=row.updated_at,  # type: ignore[arg-type]
        method=row.method,  # type: ignore[arg-type]  # CHECK constraint
        rate=row.rate, start_date=row.start_date,
        period=row.period,  # type: ignore[arg-type]  # CHECK constraint
        period_anchor=row.period_anchor, balance_cap=row.balance_cap,
        annual_accrual_cap=row.annual_accrual_cap, annual_use_limit=row.annual_use_limit,
        carry_over_max=row.carry_over_max,
        carry_over_date=f"{row.carry_over_month:02d}-{row.carry_over_day:02d}",
        waiting_period_days=row.waiting_period_days, allow_negative=row.allow_negative,
        negative_floor=row.negative_floor,
        debit_on=row.debit_on,  # type: ignore[arg-type]  # CHECK constraint
    )


def _unit(policy: TimeOffPolicy) -> str:
    return policy.accrual_unit or "hours"


def _policy(session: Session, actor: Actor, policy_id: uuid.UUID, action: str) -> TimeOffPolicy:
    policy = session.get(TimeOffPolicy, policy_id)
    if policy is None:
        raise not_found("time-off-policy", policy_id)
    actor.require(action, "TimeOffPolicy", TIME_OFF_POLICY.of(policy))
    return policy


def get_accrual(session: Session, *, actor: Actor, policy_id: uuid.UUID
                ) -> tuple[TimeOffPolicy, TimeOffAccrualSettings | None]:
    """Return a policy the actor may view and its accrual settings (None when it has none).

    Raises `time-off-policy-not-found` and `unauthorized`.
    """
    policy = _policy(session, actor, policy_id, "view")
    return policy, session.get(TimeOffAccrualSettings, policy_id)


def _settings_errors(body: AccrualSettingsWrite) -> tuple[list[FieldError], dict[str, Any]]:
    """Check the amounts of a settings body; return the failures and the parsed values."""
    errors: list[FieldError] = []
    parsed: dict[str, Any] = {}
    for name, path, allow_negative in (
            ("rate", "/rate", False), ("balance_cap", "/balanceCap", False),
            ("annual_accrual_cap", "/annualAccrualCap", False),
            ("annual_use_limit", "/annualUseLimit", False),
            ("carry_over_max", "/carryOverMax", False), ("negative_floor", "/negativeFloor", True)):
        text = getattr(body, name)
        if text is None:
            parsed[name] = None
            continue
        try:
            value = rules.parse_amount(text)
        except ValueError as exc:
            errors.append(FieldError(path=path, message=str(exc)))
            continue
        if allow_negative and value > 0:
            errors.append(FieldError(path=path, message="must be zero or below"))
        elif not allow_negative and value < 0:
            errors.append(FieldError(path=path, message="must not be negative"))
        parsed[name] = value
    if body.period_anchor is not None and body.period != "pay_period":
        errors.append(FieldError(path="/periodAnchor",
                                 message="only a pay_period accrual has an anchor"))
    return errors, parsed


def set_accrual(session: Session, *, actor: Actor, policy_id: uuid.UUID,
                body: AccrualSettingsWrite, now: datetime
                ) -> tuple[TimeOffPolicy, TimeOffAccrualSettings]:
    """Replace a policy's accrual settings (entries already posted stay as they are).

    Raises `time-off-policy-not-found`, `unauthorized` (edit TimeOffPolicy) and `validation`
    (every bad amount listed).
    """
    policy = _policy(session, actor, policy_id, "edit")
    errors, parsed = _settings_errors(body)
    if errors:
        raise validation(errors[0].path, errors[0].message, errors)
    month, day = (int(part) for part in body.carry_over_date.split("-"))
    row = session.get(TimeOffAccrualSettings, policy_id, with_for_update=True)
    if row is None:
        row = TimeOffAccrualSettings(policy_id=policy_id)
        session.add(row)
    row.method = body.method
    row.rate = rules.format_amount(parsed["rate"])
    row.start_date = body.start_date
    row.period = body.period
    row.period_anchor = body.period_anchor
    row.balance_cap = _text(parsed["balance_cap"])
    row.annual_accrual_cap = _text(parsed["annual_accrual_cap"])
    row.annual_use_limit = _text(parsed["annual_use_limit"])
    row.carry_over_max = _text(parsed["carry_over_max"])
    row.carry_over_month, row.carry_over_day = month, day
    row.waiting_period_days = body.waiting_period_days
    row.allow_negative = body.allow_negative
    row.negative_floor = rules.format_amount(parsed["negative_floor"])
    row.debit_on = body.debit_on
    row.updated_at = now
    row.updated_by_id = actor.user_id
    session.flush()
    return policy, row


# The ledger -------------------------------------------------------------------------------------


def _entry(row: Any) -> Entry:
    target = (Fraction(row.target_numerator, row.target_denominator)
              if row.target_numerator is not None else None)
    return Entry(row.kind, row.effective_date,
                 Fraction(row.amount_numerator, row.amount_denominator), row.source_key, target)


def _entries(session: Session, provider_ids: Sequence[uuid.UUID], policy_id: uuid.UUID
             ) -> dict[uuid.UUID, list[Entry]]:
    """Every provider's whole ledger in a policy (read fresh, never from the identity map)."""
    ledgers: dict[uuid.UUID, list[Entry]] = defaultdict(list)
    table = TimeOffLedgerEntry.__table__
    # Only what the arithmetic reads: converting every id column costs more than the sums.
    columns = [table.c[name] for name in (
        "provider_id", "kind", "effective_date", "amount_numerator", "amount_denominator",
        "target_numerator", "target_denominator", "source_key")]
    for start in range(0, len(provider_ids), 500):
        chunk = list(provider_ids[start:start + 500])
        for row in session.execute(select(*columns).where(
                table.c.policy_id == policy_id, table.c.provider_id.in_(chunk))):
            ledgers[row.provider_id].append(_entry(row))
    return ledgers


def _posted_keys(session: Session, provider_ids: Sequence[uuid.UUID], policy_id: uuid.UUID
                 ) -> dict[uuid.UUID, set[str]]:
    """The source keys of the accruals and carry-overs already posted, by provider."""
    keys: dict[uuid.UUID, set[str]] = defaultdict(set)
    table = TimeOffLedgerEntry.__table__
    for start in range(0, len(provider_ids), 500):
        chunk = list(provider_ids[start:start + 500])
        for provider_id, key in session.execute(select(table.c.provider_id, table.c.source_key)
                                                .where(table.c.policy_id == policy_id,
                                                       table.c.kind.in_(("accrual",
                                                                         "carry_over")),
                                                       table.c.provider_id.in_(chunk))):
            keys[provider_id].add(key)
    return keys


def _insert_entries(session: Session, rows: list[dict[str, Any]]) -> None:
    """Append entries, skipping any whose source key is already in the ledger."""
    if not rows:
        return
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    table = TimeOffLedgerEntry.__table__
    for start in range(0, len(rows), 1000):
        statement = dialect.insert(table).on_conflict_do_nothing(index_elements=["source_key"])
        session.execute(statement, rows[start:start + 1000])


def _row(entry: Entry, *, provider_id: uuid.UUID, policy_id: uuid.UUID, now: datetime,
         created_by: uuid.UUID | None, request_id: uuid.UUID | None = None,
         upload_id: uuid.UUID | None = None) -> dict[str, Any]:
    return {
        "id": uuid.uuid4(), "provider_id": provider_id, "policy_id": policy_id,
        "kind": entry.kind, "effective_date": entry.effective_date,
        "amount_numerator": entry.amount.numerator,
        "amount_denominator": entry.amount.denominator,
        "target_numerator": entry.target.numerator if entry.target is not None else None,
        "target_denominator": entry.target.denominator if entry.target is not None else None,
        "request_id": request_id, "upload_id": upload_id, "source_key": entry.source_key,
        "created_at": now, "created_by_id": created_by,
    }


def _lock(session: Session, pairs: Iterable[tuple[uuid.UUID, uuid.UUID]]) -> None:
    """Lock the balance rows of these (provider, policy) pairs, creating missing ones, in order."""
    ordered = sorted(set(pairs), key=lambda p: (str(p[0]), str(p[1])))
    if not ordered:
        return
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    table = TimeOffBalanceLock.__table__
    session.execute(dialect.insert(table).on_conflict_do_nothing(), [
        {"provider_id": provider, "policy_id": policy} for provider, policy in ordered])
    for provider, policy in ordered:
        session.execute(select(table.c.provider_id).where(
            table.c.provider_id == provider, table.c.policy_id == policy).with_for_update())


def _local_day(moment: datetime | None, zone: ZoneInfo) -> date | None:
    return moment.astimezone(zone).date() if moment is not None else None


# Reading balances -------------------------------------------------------------------------------


def needed(request: TimeOffRequest, unit: str) -> Fraction:
    """What a request uses: days with hours off (days policy), else its hours off as stored."""
    if unit == "days":
        return Fraction(sum(1 for d in request.daily_hours if d.duration > 0))
    return sum((Fraction(repr(d.duration)) for d in request.daily_hours), ZERO)


def _ledger_read(row: TimeOffLedgerEntry) -> LedgerEntryRead:
    entry = _entry(row)
    return LedgerEntryRead(
        id=row.id, policy_id=row.policy_id, kind=row.kind,  # type: ignore[arg-type]  # CHECK
        effective_date=row.effective_date, amount=amount(entry.amount),
        target=amount(entry.target) if entry.target is not None else None,
        request_id=row.request_id, upload_id=row.upload_id, source_key=row.source_key,
        created_at=row.created_at, created_by_id=row.created_by_id)


def read_balances(session: Session, *, actor: Actor, query: BalancesQuery, today: date
                  ) -> BalancesRead:
    """Return a provider's balance in each policy with accrual settings they belong to (one,
    with `policyId`) and their ledger entries up to `asOf` (default `today`), newest first.

    Raises `validation` (no provider to default to), `provider-not-found`,
    `time-off-policy-not-found` and `unauthorized` (view TimeOffRequest on the provider's
    requests: providers their own, managers their teams').
    """
    provider_id = query.provider_id or actor.provider_id
    if provider_id is None:
        raise validation("providerId", "you are not a provider yourself; name the provider")
    provider = session.get(Provider, provider_id)
    if provider is None:
        raise not_found("provider", provider_id)
    actor.require("view", "TimeOffRequest", {
        "id": None, "providerId": provider.id, "policyId": query.policy_id, "status": None,
        "startDate": None, "endDate": None, "teamId": provider.team_id})
    if query.policy_id is not None and session.get(TimeOffPolicy, query.policy_id) is None:
        raise not_found("time-off-policy", query.policy_id)
    as_of = query.as_of or today
    member = exists().where(time_off_policy_members.c.policy_id == TimeOffPolicy.id,
                            time_off_policy_members.c.provider_id == provider.id)
    statement: Select[Any] = (
        select(TimeOffPolicy, TimeOffAccrualSettings)
        .join(TimeOffAccrualSettings, TimeOffAccrualSettings.policy_id == TimeOffPolicy.id)
        .where(member).order_by(TimeOffPolicy.name, TimeOffPolicy.id))
    if query.policy_id is not None:
        statement = statement.where(TimeOffPolicy.id == query.policy_id)
    policies = list(session.execute(statement).tuples())
    policy_ids = [p.id for p, _ in policies]
    rows = list(session.scalars(
        select(TimeOffLedgerEntry)
        .where(TimeOffLedgerEntry.provider_id == provider.id,
               TimeOffLedgerEntry.policy_id.in_(policy_ids),
               TimeOffLedgerEntry.effective_date <= as_of)
        )) if policy_ids else []
    # Newest first; within a day and a run, in the order the domain applies them.
    rows.sort(key=lambda r: (r.effective_date, r.created_at, KIND_ORDER.get(r.kind, 9),
                             str(r.id)), reverse=True)
    pending = list(session.scalars(select(TimeOffRequest).where(
        TimeOffRequest.provider_id == provider.id, TimeOffRequest.status == "pending",
        TimeOffRequest.policy_id.in_(policy_ids)))) if policy_ids else []
    balances: list[BalanceRead] = []
    for policy, row in policies:
        config = settings_of(row)
        mine = [_entry(r) for r in rows if r.policy_id == policy.id]
        total = rules.balance(mine)
        waiting = sum((needed(r, _unit(policy)) for r in pending if r.policy_id == policy.id),
                      ZERO)
        balances.append(BalanceRead(
            policy_id=policy.id, policy_name=policy.name,
            unit=_unit(policy),  # type: ignore[arg-type]  # CHECK constraint
            balance=amount(total), floor=amount(config.floor),
            available=amount(total - config.floor), pending=amount(waiting),
            cap=amount(config.balance_cap) if config.balance_cap is not None else None,
            used_this_year=amount(rules.used_in_year(config, mine, as_of)),
            annual_use_limit=(amount(config.annual_use_limit)
                              if config.annual_use_limit is not None else None)))
    shown = rows[:query.entry_limit]
    return BalancesRead(provider_id=provider.id, as_of=as_of, balances=balances,
                        entries=[_ledger_read(r) for r in shown],
                        more_entries=len(rows) > len(shown))


# Accrual runs -----------------------------------------------------------------------------------


def _worked_seconds(session: Session, providers: Sequence[Provider], start: date, end: date,
                    *, zone: ZoneInfo, now: datetime, grace_minutes: int
                    ) -> dict[uuid.UUID, dict[date, int]]:
    """Seconds worked per local day of `[start, end)`: the timesheet's working pay segments."""
    from app.api.services.timekeeping import computed_timesheets

    worked: dict[uuid.UUID, dict[date, int]] = {}
    window = (datetime.combine(start, time(0), tzinfo=zone).astimezone(UTC),
              datetime.combine(end, time(0), tzinfo=zone).astimezone(UTC))
    for first in range(0, len(providers), 200):
        chunk = list(providers[first:first + 200])
        sheets = computed_timesheets(session, providers=chunk, start=window[0], end=window[1],
                                     now=now, zone=zone, grace_minutes=grace_minutes)
        for provider, sheet in zip(chunk, sheets, strict=True):
            days: dict[date, int] = defaultdict(int)
            for segment in sheet.pay_segments:
                if segment.type == "working":
                    days[segment.day] += int((segment.end - segment.start).total_seconds())
            worked[provider.id] = dict(days)
    return worked


def _first_unposted(config: AccrualSettings, members: Sequence[Provider],
                    ledgers: dict[uuid.UUID, list[Entry]]) -> date:
    """The first day of the oldest period not yet posted for some member: worked time is read
    from there (a provider's last accrual is dated the end of its period)."""
    firsts: list[date] = []
    for provider in members:
        accruals = [e.effective_date for e in ledgers.get(provider.id, []) if e.kind == "accrual"]
        firsts.append(max(accruals) if accruals else config.start_date)
    return min(firsts)


MAX_DAYS_AHEAD = 366
"""How far past today an accrual run may post: periods are credited once they end, and a year
ahead is as far as a plan needs."""


def run_accruals(session: Session, *, actor_id: uuid.UUID | None, through: date,
                 policy_id: uuid.UUID | None, zone: ZoneInfo, now: datetime,
                 grace_minutes: int) -> AccrualRunResult:
    """Append every entry due up to `through` for the members of each policy with accrual
    settings (or of one policy); idempotent.

    Raises `validation` (`through` more than `MAX_DAYS_AHEAD` days after today; a named policy
    without accrual settings) and `time-off-policy-not-found` (a named policy).
    """
    latest = now.astimezone(zone).date() + timedelta(days=MAX_DAYS_AHEAD)
    if through > latest:
        raise validation("/through", f"accruals may be posted up to {latest.isoformat()} "
                                     f"({MAX_DAYS_AHEAD} days from today) at most")
    statement = select(TimeOffPolicy, TimeOffAccrualSettings).join(
        TimeOffAccrualSettings, TimeOffAccrualSettings.policy_id == TimeOffPolicy.id)
    if policy_id is not None:
        if session.get(TimeOffPolicy, policy_id) is None:
            raise not_found("time-off-policy", policy_id)
        statement = statement.where(TimeOffPolicy.id == policy_id)
    policies = list(session.execute(statement.order_by(TimeOffPolicy.id)).tuples())
    if policy_id is not None and not policies:
        raise validation("/policyId", "this policy has no accrual settings; set them first")
    appended = 0
    providers_seen: set[uuid.UUID] = set()
    for policy, row in policies:
        config = settings_of(row)
        members = list(session.scalars(
            select(Provider).join(time_off_policy_members,
                                  time_off_policy_members.c.provider_id == Provider.id)
            .where(time_off_policy_members.c.policy_id == policy.id).order_by(Provider.id)))
        providers_seen.update(p.id for p in members)
        # Only providers missing an entry due are read whole (a re-run reads keys alone).
        posted = _posted_keys(session, [p.id for p in members], policy.id)
        members = [p for p in members if not rules.due_keys(
            config, policy=str(policy.id), provider=str(p.id), through=through,
        ) <= posted.get(p.id, set())]
        ledgers = _entries(session, [p.id for p in members], policy.id)
        worked: dict[uuid.UUID, dict[date, int]] = {}
        if config.method == "per_hour_worked" and members:
            first = _first_unposted(config, members, ledgers)
            if first < through:
                worked = _worked_seconds(session, members, first, through, zone=zone, now=now,
                                         grace_minutes=grace_minutes)
        rows: list[dict[str, Any]] = []
        for provider in members:
            added = rules.accrue(config, policy=str(policy.id), provider=str(provider.id),
                                 hire_date=_local_day(provider.hire_date, zone),
                                 ledger=ledgers.get(provider.id, []), through=through,
                                 worked_seconds=worked.get(provider.id, {}))
            rows.extend(_row(e, provider_id=provider.id, policy_id=policy.id, now=now,
                             created_by=actor_id) for e in added)
        _insert_entries(session, rows)
        appended += len(rows)
    return AccrualRunResult(through=through, policies=len(policies),
                            providers=len(providers_seen), entries=appended)


# Usage ------------------------------------------------------------------------------------------


def debit_on_approval(session: Session, *, request: TimeOffRequest, actor_id: uuid.UUID,
                      today: date, zone: ZoneInfo, now: datetime) -> None:
    """Debit what an approved request uses from its provider's balance, or refuse.

    Nothing under a policy without accrual settings. Locks the (provider, policy) balance row,
    then checks the waiting period, the annual use limit and the floor against every entry.
    Raises `waiting-period`, `annual-use-limit-reached` and `insufficient-balance`.
    """
    row = session.get(TimeOffAccrualSettings, request.policy_id)
    if row is None:
        return
    policy = session.get(TimeOffPolicy, request.policy_id)
    provider = session.get(Provider, request.provider_id)
    if policy is None or provider is None:  # foreign keys keep both
        return
    _lock(session, [(provider.id, policy.id)])
    config = settings_of(row)
    unit = _unit(policy)
    entries = _entries(session, [provider.id], policy.id).get(provider.id, [])
    cost = needed(request, unit)
    leave_start = request.start_date.astimezone(zone).date()
    usage_date = leave_start if config.debit_on == "leave_date" else today
    hire = _local_day(provider.hire_date, zone)
    refusal = rules.usage_refusal(config, entries=entries, needed=cost, usage_date=usage_date,
                                  leave_start=leave_start, hire_date=hire, unit=unit)
    if refusal is not None:
        who = provider.name or provider.email
        if refusal.code == "waiting-period":
            eligible = (hire or leave_start) + timedelta(days=config.waiting_period_days)
            raise ProblemError(ProblemCode.WAITING_PERIOD, f"{who}: {refusal.detail}",
                               policyId=str(policy.id), eligibleFrom=eligible.isoformat())
        code = (ProblemCode.INSUFFICIENT_BALANCE if refusal.code == "insufficient-balance"
                else ProblemCode.ANNUAL_USE_LIMIT_REACHED)
        raise ProblemError(code, f"{who} {refusal.detail}", policyId=str(policy.id),
                           needed=rules.format_amount(cost),
                           available=rules.format_amount(refusal.available or ZERO), unit=unit)
    entry = Entry("usage", usage_date, -cost, f"usage:{request.id}")
    _insert_entries(session, [_row(entry, provider_id=provider.id, policy_id=policy.id, now=now,
                                   created_by=actor_id, request_id=request.id)])


def reverse_usage(session: Session, *, request: TimeOffRequest, actor_id: uuid.UUID,
                  today: date, now: datetime) -> None:
    """Give back what a cancelled request used (once), dated today or its usage's later day."""
    table = TimeOffLedgerEntry.__table__
    mine = list(session.execute(select(table).where(table.c.request_id == request.id)))
    if not mine:
        return
    _lock(session, [(request.provider_id, request.policy_id)])
    net = sum((_entry(r).amount for r in mine), ZERO)
    if net >= 0:
        return
    day = max([today, *(r.effective_date for r in mine if r.kind == "usage")])
    entry = Entry("reversal", day, -net, f"reversal:{request.id}")
    _insert_entries(session, [_row(entry, provider_id=request.provider_id,
                                   policy_id=request.policy_id, now=now, created_by=actor_id,
                                   request_id=request.id)])


# Balance resets ---------------------------------------------------------------------------------


def _reset_rows(text: str, max_rows: int) -> list[dict[str, str]]:
    """The CSV's rows as dicts by header; raises `validation` or `batch-size-exceeded`."""
    reader = csv.DictReader(io.StringIO(text))
    header = [h.strip() for h in reader.fieldnames or []]
    missing = [c for c in ("policyId", "balance", "effectiveDate") if c not in header]
    if "providerId" not in header and "importedId" not in header:
        missing.insert(0, "providerId or importedId")
    if missing:
        raise validation("file", f"the header lacks {', '.join(missing)} (columns: "
                                 f"{', '.join(RESET_COLUMNS)})")
    reader.fieldnames = header
    rows: list[dict[str, str]] = []
    for row in reader:
        if len(rows) >= max_rows:
            raise ProblemError(
                ProblemCode.BATCH_SIZE_EXCEEDED,
                f"A balance reset file takes at most {max_rows} rows; split it.",
                batchSize=max_rows + 1 + sum(1 for _ in reader), maxBatchSize=max_rows)
        rows.append({k: (v or "").strip() for k, v in row.items() if k is not None})
    if not rows:
        raise validation("file", "the file has a header but no rows")
    return rows


def upload_resets(session: Session, *, actor: Actor, data: bytes, file_name: str | None,
                  max_rows: int, zone: ZoneInfo, now: datetime
                  ) -> tuple[TimeOffBalanceUpload, bool]:
    """Validate a balance reset CSV whole, then set each row's balance from its date; return
    the upload and whether it is new (the same file again changes nothing and returns the
    first upload).

    Raises `unauthorized` (create BalanceReset), `validation` (not UTF-8 CSV, header),
    `batch-size-exceeded` and `invalid-balance-reset-rows` (every bad row in `errors`, path
    `/rows/<row>/<column>`, row 1 the first after the header).
    """
    actor.require("create", "BalanceReset")
    digest = hashlib.sha256(data).hexdigest()
    earlier = session.scalar(select(TimeOffBalanceUpload).where(
        TimeOffBalanceUpload.file_hash == digest))
    if earlier is not None:
        return earlier, False
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise validation("file", "the file is not UTF-8 text") from None
    try:
        raw_rows = _reset_rows(text, max_rows)
    except csv.Error as exc:
        raise validation("file", f"the file is not CSV ({exc})") from None
    parsed, errors = _check_reset_rows(session, raw_rows)
    if errors:
        raise ProblemError(
            ProblemCode.INVALID_BALANCE_RESET_ROWS,
            f"{len({e.path.split('/')[2] for e in errors})} of {len(raw_rows)} rows cannot be "
            "used; nothing was changed. Fix every row listed and upload the file again.",
            errors=errors)
    upload = TimeOffBalanceUpload(id=uuid.uuid4(), file_hash=digest, file_name=file_name,
                                  status="completed", row_count=len(parsed), created_at=now,
                                  created_by_id=actor.user_id)
    session.add(upload)
    session.flush()
    _lock(session, [(p, q) for _, p, q, _, _ in parsed])
    ledgers: dict[tuple[uuid.UUID, uuid.UUID], list[Entry]] = {}
    stored: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    for number, provider_id, policy_id, target, day in sorted(parsed, key=lambda r: (r[4], r[0])):
        key = (provider_id, policy_id)
        if key not in ledgers:
            ledgers[key] = _entries(session, [provider_id], policy_id).get(provider_id, [])
        difference = target - rules.balance(ledgers[key], day)
        entry = Entry("reset", day, difference, f"reset:{digest}:{number}", target=target)
        ledgers[key].append(entry)
        entries.append(_row(entry, provider_id=provider_id, policy_id=policy_id, now=now,
                            created_by=actor.user_id, upload_id=upload.id))
        stored.append({"row": number, "providerId": str(provider_id),
                       "policyId": str(policy_id), "balance": rules.format_amount(target),
                       "effectiveDate": day.isoformat(),
                       "adjustment": rules.format_amount(difference)})
    _insert_entries(session, entries)
    upload.rows = sorted(stored, key=lambda r: r["row"])
    session.flush()
    return upload, True


def _check_reset_rows(session: Session, rows: list[dict[str, str]]
                      ) -> tuple[list[tuple[int, uuid.UUID, uuid.UUID, Fraction, date]],
                                 list[FieldError]]:
    """Read every row; return the good ones and a failure for every bad field of every row."""
    ids: set[uuid.UUID] = set()
    imported: set[str] = set()
    policy_ids: set[uuid.UUID] = set()
    for row in rows:
        with contextlib.suppress(ValueError):
            if row.get("providerId"):
                ids.add(uuid.UUID(row["providerId"]))
        if row.get("importedId"):
            imported.add(row["importedId"])
        with contextlib.suppress(ValueError):
            policy_ids.add(uuid.UUID(row.get("policyId", "")))
    by_id = {p.id: p for p in session.scalars(select(Provider).where(Provider.id.in_(ids)))} \
        if ids else {}
    by_imported = {p.imported_id: p for p in session.scalars(
        select(Provider).where(Provider.imported_id.in_(imported)))} if imported else {}
    policies = {p.id: p for p in session.scalars(
        select(TimeOffPolicy).where(TimeOffPolicy.id.in_(policy_ids)))} if policy_ids else {}
    configs = {r.policy_id: settings_of(r) for r in session.scalars(
        select(TimeOffAccrualSettings).where(TimeOffAccrualSettings.policy_id.in_(policy_ids)))
    } if policy_ids else {}
    members = set(session.execute(select(
        time_off_policy_members.c.provider_id, time_off_policy_members.c.policy_id).where(
        time_off_policy_members.c.policy_id.in_(policy_ids)))) if policy_ids else set()
    good: list[tuple[int, uuid.UUID, uuid.UUID, Fraction, date]] = []
    errors: list[FieldError] = []
    seen: dict[tuple[uuid.UUID, uuid.UUID, date], int] = {}
    for number, row in enumerate(rows, start=1):
        failures: list[FieldError] = []

        def fail(column: str, message: str, number: int = number,
                 failures: list[FieldError] = failures) -> None:
            failures.append(FieldError(path=f"/rows/{number}/{column}", message=message))

        provider: Provider | None = None
        if row.get("providerId"):
            try:
                provider = by_id.get(uuid.UUID(row["providerId"]))
            except ValueError:
                fail("providerId", f"{row['providerId']!r} is not a provider id")
            else:
                if provider is None:
                    fail("providerId", f"unknown person: no provider has the id "
                                       f"{row['providerId']}")
        elif row.get("importedId"):
            provider = by_imported.get(row["importedId"])
            if provider is None:
                fail("importedId", f"unknown person: no provider has the imported id "
                                   f"{row['importedId']!r}")
        else:
            fail("providerId", "give providerId or importedId")
        policy: TimeOffPolicy | None = None
        try:
            policy = policies.get(uuid.UUID(row.get("policyId", "")))
        except ValueError:
            fail("policyId", f"{row.get('policyId', '')!r} is not a policy id")
        else:
            if policy is None:
                fail("policyId", f"no time-off policy has the id {row.get('policyId')}")
            elif policy.id not in configs:
                fail("policyId", f"the policy {policy.name!r} keeps no balance (no accrual "
                                 "settings)")
            elif provider is not None and (provider.id, policy.id) not in members:
                fail("policyId", f"provider-not-in-policy: {provider.name or provider.email} "
                                 f"is not a member of {policy.name!r}")
        target: Fraction | None = None
        try:
            target = rules.parse_amount(row.get("balance", ""))
        except ValueError as exc:
            fail("balance", f"bad number: {exc}")
        else:
            config = configs.get(policy.id) if policy is not None else None
            floor = config.floor if config is not None else ZERO
            if target < floor:
                fail("balance", "negative where the policy does not allow it" if floor == 0
                     else f"below the policy's floor of {rules.format_amount(floor)}")
        day: date | None = None
        text = row.get("effectiveDate", "")
        try:
            day = date.fromisoformat(text) if len(text) == 10 else None
        except ValueError:
            day = None
        if day is None or not date(1900, 1, 1) <= day <= date(2999, 12, 31):
            fail("effectiveDate", f"bad date {text!r}: write YYYY-MM-DD between 1900-01-01 "
                                  "and 2999-12-31")
            day = None
        if not failures and provider is not None and policy is not None and target is not None \
                and day is not None:
            key = (provider.id, policy.id, day)
            if key in seen:
                fail("effectiveDate", f"row {seen[key]} already resets this balance on "
                                      f"{day.isoformat()}")
            else:
                seen[key] = number
                good.append((number, provider.id, policy.id, target, day))
        errors.extend(failures)
    return good, errors


def get_upload(session: Session, *, actor: Actor, upload_id: uuid.UUID) -> TimeOffBalanceUpload:
    """Return a balance reset upload.

    Raises `balance-reset-upload-not-found` and `unauthorized` (view BalanceReset).
    """
    upload = session.get(TimeOffBalanceUpload, upload_id)
    if upload is None:
        raise not_found("balance-reset-upload", upload_id)
    actor.require("view", "BalanceReset")
    return upload


def upload_read(upload: TimeOffBalanceUpload) -> BalanceResetUploadRead:
    """The wire form of an upload and its rows."""
    return BalanceResetUploadRead(
        id=upload.id, status="completed", file_name=upload.file_name,
        row_count=upload.row_count, created_at=upload.created_at,
        created_by_id=upload.created_by_id,
        rows=[BalanceResetRow(
            row=r["row"], provider_id=uuid.UUID(r["providerId"]),
            policy_id=uuid.UUID(r["policyId"]), balance=amount(rules.parse_amount(r["balance"])),
            effective_date=date.fromisoformat(r["effectiveDate"]),
            adjustment=amount(Fraction(r["adjustment"]))) for r in upload.rows or []])


_UPLOAD_LIST_COLUMNS = (TimeOffBalanceUpload.id, TimeOffBalanceUpload.status,
                        TimeOffBalanceUpload.file_name, TimeOffBalanceUpload.row_count,
                        TimeOffBalanceUpload.created_at, TimeOffBalanceUpload.created_by_id)


def list_uploads(session: Session, *, actor: Actor, query: BalanceResetUploadListQuery,
                 pages: Paginator) -> tuple[list[BalanceResetUploadSummary], str | None]:
    """One page of the balance reset uploads, newest first, without their rows (a file holds
    up to a thousand; the list reads none of them).

    Raises `unauthorized` (view BalanceReset) and `validation` (cursor).
    """
    actor.require("view", "BalanceReset")
    rows, cursor = pages.page(
        session, select(*_UPLOAD_LIST_COLUMNS), scope="balance-reset-uploads", query=query,
        rows=True, order=[SortKey(TimeOffBalanceUpload.created_at, descending=True),
                          SortKey(TimeOffBalanceUpload.id, descending=True)])
    return [BalanceResetUploadSummary(
        id=r.id, status="completed", file_name=r.file_name, row_count=r.row_count,
        created_at=r.created_at, created_by_id=r.created_by_id) for r in rows], cursor
