"""Pay rules as data: overtime rules, rounding rules, work rules with dated versions, presets,
each team's rule, and the check a shift's `workRuleOverride` must pass.

A work rule version snapshots the overtime and rounding rules it uses, so editing one of those
rules never rewrites a period computed under an older version; a new version (PATCH with
`effectiveFrom`) takes fresh snapshots. Reads need no permission (providers learn when overtime
starts); writes need the `WorkRule` subject. Must not commit, read the request or the clock
(`now` is a parameter) or know Flask.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from fractions import Fraction
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

from sqlalchemy import or_, select
from sqlalchemy.orm import Session, selectinload
from sqlalchemy.orm.exc import StaleDataError

from app.api.auth import Actor
from app.api.domain.work_rule_presets import PRESETS
from app.api.models import (
    OvertimeRule,
    PayCode,
    Provider,
    RoundingRule,
    Team,
    TimesheetSignOff,
    WorkRule,
    WorkRuleVersion,
    timesheet_sign_off_providers,
)
from app.api.models import Shift as ShiftRow
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, not_found, validation
from app.api.services import locator
from app.api.subjects import OVERTIME_RULE, ROUNDING_RULE, WORK_RULE
from app.contract.common import format_timestamp
from app.contract.problems import FieldError, ProblemCode
from app.contract.work_rules import (
    OvertimeRuleCreate,
    OvertimeRuleListQuery,
    OvertimeRuleRead,
    OvertimeRuleUpdate,
    OvertimeSnapshot,
    PresetOvertime,
    RoundingRuleCreate,
    RoundingRuleListQuery,
    RoundingRuleUpdate,
    RoundingSnapshot,
    RoundingSpec,
    TeamWorkRule,
    WorkRuleCreate,
    WorkRuleListQuery,
    WorkRulePresetRead,
    WorkRuleRead,
    WorkRuleUpdate,
    WorkRuleVersionRead,
)

WIRE_KIND = {"daily": "daily", "weekly": "weekly", "period": "period",
             "seventh_day": "seventhDay"}
DB_KIND = {wire: db for db, wire in WIRE_KIND.items()}
KIND_LIMITS = {"daily": 1440, "seventh_day": 1440, "weekly": 10080, "period": 20160}
"""The largest threshold of each kind: a day, a week, a 14-day period."""
PERIOD_DAYS = 14
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
BASIS_KINDS = frozenset({"weekly", "period"})
"""Overtime kinds a person can have only one of at a time (an override may not change them)."""


# Read models for the timesheet computation ---------------------------------------------------

@dataclass(frozen=True)
class OvertimeData:
    """One overtime rule of a version, as snapshotted; `kind` as the engine spells it."""

    id: uuid.UUID
    name: str
    kind: str
    threshold_minutes: int
    pay_code_id: uuid.UUID
    multiplier: Fraction


@dataclass(frozen=True)
class RoundingData:
    """The rounding rule of a version, as snapshotted."""

    id: uuid.UUID
    interval_minutes: int
    mode: str


@dataclass(frozen=True)
class WorkRuleVersionData:
    """One work rule version as the timesheet computation needs it (no ORM object)."""

    id: uuid.UUID
    work_rule_id: uuid.UUID
    effective_from: date
    time_zone: str
    week_start_day: int
    week_start_time: time
    day_start_time: time
    period_anchor: date | None
    rounding: RoundingData | None
    overtime: tuple[OvertimeData, ...]
    meal_deduct_minutes: int | None
    meal_after_minutes: int | None
    min_unpaid_break_minutes: int
    counting_pay_code_ids: frozenset[uuid.UUID]


def _version_data(row: WorkRuleVersion) -> WorkRuleVersionData:
    rounding = row.rounding
    return WorkRuleVersionData(
        id=row.id, work_rule_id=row.work_rule_id, effective_from=row.effective_from,
        time_zone=row.time_zone, week_start_day=row.week_start_day,
        week_start_time=time.fromisoformat(row.week_start_time),
        day_start_time=time.fromisoformat(row.day_start_time),
        period_anchor=row.period_anchor,
        rounding=None if rounding is None else RoundingData(
            id=uuid.UUID(rounding["id"]), interval_minutes=rounding["intervalMinutes"],
            mode=rounding["mode"]),
        overtime=tuple(OvertimeData(
            id=uuid.UUID(o["id"]), name=o["name"], kind=DB_KIND[o["kind"]],
            threshold_minutes=o["thresholdMinutes"], pay_code_id=uuid.UUID(o["payCodeId"]),
            multiplier=Fraction(o["multiplier"])) for o in row.overtime),
        meal_deduct_minutes=row.meal_deduct_minutes, meal_after_minutes=row.meal_after_minutes,
        min_unpaid_break_minutes=row.min_unpaid_break_minutes,
        counting_pay_code_ids=frozenset(uuid.UUID(i) for i in row.counting_pay_code_ids),
    )


def domain_rules(version: WorkRuleVersionData) -> dict[str, Any]:
    """The keyword arguments of the pay engine's `WorkRule` for one version, as plain values
    (`overtime` a tuple of `OvertimeRule` keyword dicts, `rounding` and `meal` dicts or None)."""
    meal = None if version.meal_deduct_minutes is None else {
        "deduct_minutes": version.meal_deduct_minutes,
        "after_minutes": version.meal_after_minutes}
    return {
        "id": version.work_rule_id,
        "zone": ZoneInfo(version.time_zone),
        "week_start_day": version.week_start_day,
        "week_start_time": version.week_start_time,
        "day_start_time": version.day_start_time,
        "overtime": tuple({"id": o.id, "kind": o.kind, "threshold_minutes": o.threshold_minutes,
                           "pay_code_id": o.pay_code_id, "multiplier": o.multiplier,
                           "name": o.name} for o in version.overtime),
        "rounding": None if version.rounding is None else {
            "interval_minutes": version.rounding.interval_minutes,
            "mode": version.rounding.mode},
        "meal": meal,
        "min_unpaid_break_minutes": version.min_unpaid_break_minutes,
        "counting_pay_codes": version.counting_pay_code_ids,
        "period_anchor": version.period_anchor,
        "effective_from": version.effective_from,
    }


def rule_versions_for_teams(session: Session, team_ids: Iterable[uuid.UUID],
                            ) -> dict[uuid.UUID, list[WorkRuleVersionData]]:
    """Each team's work rule versions by `effectiveFrom` (an empty list: no rule). One query."""
    ids = list(dict.fromkeys(team_ids))
    found: dict[uuid.UUID, list[WorkRuleVersionData]] = {i: [] for i in ids}
    if not ids:
        return found
    rows = session.execute(
        select(Team.id, WorkRuleVersion)
        .join(WorkRuleVersion, WorkRuleVersion.work_rule_id == Team.work_rule_id)
        .where(Team.id.in_(ids))
        .order_by(Team.id, WorkRuleVersion.effective_from)).tuples()
    for team_id, version in rows:
        found[team_id].append(_version_data(version))
    return found


def rule_versions_by_id(session: Session, rule_ids: Iterable[uuid.UUID],
                        ) -> dict[uuid.UUID, list[WorkRuleVersionData]]:
    """The versions of each named work rule by `effectiveFrom` (overrides). One query; unknown
    ids map to an empty list."""
    ids = list(dict.fromkeys(rule_ids))
    found: dict[uuid.UUID, list[WorkRuleVersionData]] = {i: [] for i in ids}
    if not ids:
        return found
    for version in session.scalars(
            select(WorkRuleVersion).where(WorkRuleVersion.work_rule_id.in_(ids))
            .order_by(WorkRuleVersion.work_rule_id, WorkRuleVersion.effective_from)):
        found[version.work_rule_id].append(_version_data(version))
    return found


# Shared helpers ------------------------------------------------------------------------------

@cache
def _zones() -> frozenset[str]:
    return frozenset(available_timezones())


def _multiplier(value: float) -> str:
    """A pay code's value as an exact decimal string (1.5 → "1.5")."""
    return str(Decimal(repr(float(value))))


def _conflict(what: str, current: int) -> ProblemError:
    return ProblemError(
        ProblemCode.VERSION_CONFLICT,
        f"This {what} changed since you read it (it is now at version {current}); reload it "
        "and apply your change again.", currentVersion=current)


def _flush_version(session: Session, model: Any, ident: uuid.UUID, resource: str) -> None:
    """Flush a changed row, turning a lost optimistic-locking race into `version-conflict`."""
    try:
        session.flush()
    except StaleDataError as exc:
        session.rollback()
        current = session.scalar(select(model.version).where(model.id == ident))
        if current is None:
            raise not_found(resource, ident) from exc
        raise _conflict(resource.replace("-", " "), current) from exc


def _lock(session: Session, model: Any, ident: uuid.UUID, resource: str,
          version: int | None) -> Any:
    row = session.get(model, ident, with_for_update=True, populate_existing=True)
    if row is None:
        raise not_found(resource, ident)
    if version is not None and version != row.version:
        raise _conflict(resource.replace("-", " "), row.version)
    return row


def _pay_codes(session: Session, ids: Iterable[uuid.UUID]) -> dict[uuid.UUID, PayCode]:
    wanted = set(ids)
    if not wanted:
        return {}
    return {p.id: p for p in session.scalars(select(PayCode).where(PayCode.id.in_(wanted)))}


def _require_pay_code(session: Session, pay_code_id: uuid.UUID, path: str) -> PayCode:
    found = session.get(PayCode, pay_code_id)
    if found is None:
        raise ProblemError(ProblemCode.PAY_CODE_NOT_FOUND,
                           f"Pay code {pay_code_id} (at {path}) does not exist.")
    return found


def _today(zone: str, now: datetime) -> date:
    return now.astimezone(ZoneInfo(zone)).date()


def _versions_in_use(versions: Sequence[WorkRuleVersion], now: datetime,
                     ) -> list[WorkRuleVersion]:
    """The versions in effect now or later, of rules whose versions are all given."""
    by_rule: dict[uuid.UUID, list[WorkRuleVersion]] = defaultdict(list)
    for v in versions:
        by_rule[v.work_rule_id].append(v)
    kept: list[WorkRuleVersion] = []
    for rows in by_rule.values():
        rows.sort(key=lambda v: v.effective_from)
        for index, v in enumerate(rows):
            following = rows[index + 1] if index + 1 < len(rows) else None
            if following is None or following.effective_from > _today(following.time_zone, now):
                kept.append(v)
    return kept


def _refuse_if_in_use(session: Session, *, rule_id: uuid.UUID, now: datetime, what: str,
                      uses: Any) -> None:
    users = sorted({str(v.work_rule_id) for v in _versions_in_use(
        list(session.scalars(select(WorkRuleVersion))), now) if uses(v, str(rule_id))})
    if users:
        raise ProblemError(
            ProblemCode.RULE_IN_USE,
            f"This {what} is used by the current or a future version of {len(users)} work "
            "rule(s); give them a new version without it first.", workRuleIds=users)


# Overtime rules ------------------------------------------------------------------------------

locate_overtime_rule = locator(OvertimeRule, "overtime-rule")
locate_rounding_rule = locator(RoundingRule, "rounding-rule")
locate_work_rule = locator(WorkRule, "work-rule")
locate_team = locator(Team, "team")


def overtime_read(rule: OvertimeRule, multiplier: str) -> OvertimeRuleRead:
    """The wire form of an overtime rule."""
    return OvertimeRuleRead(
        id=rule.id, created_at=rule.created_at, updated_at=rule.updated_at, version=rule.version,
        name=rule.name, kind=WIRE_KIND[rule.kind],  # type: ignore[arg-type]
        threshold_minutes=rule.threshold_minutes, pay_code_id=rule.pay_code_id,
        multiplier=multiplier)


def overtime_reads(session: Session, rules: Sequence[OvertimeRule]) -> list[OvertimeRuleRead]:
    """Wire forms of overtime rules, their pay codes read in one query."""
    codes = _pay_codes(session, (r.pay_code_id for r in rules))
    return [overtime_read(r, _multiplier(codes[r.pay_code_id].value)) for r in rules]


def list_overtime_rules(session: Session, *, query: OvertimeRuleListQuery, pages: Paginator,
                        ) -> tuple[list[OvertimeRuleRead], str | None]:
    """One page of overtime rules by name. Raises `validation` (cursor)."""
    rows, cursor = pages.page(session, select(OvertimeRule), scope="overtime-rules",
                              query=query, order=[SortKey(OvertimeRule.name),
                                                  SortKey(OvertimeRule.id)])
    return overtime_reads(session, rows), cursor


def get_overtime_rule(session: Session, *, rule_id: uuid.UUID) -> OvertimeRuleRead:
    """One overtime rule. Raises `overtime-rule-not-found`."""
    rule = session.get(OvertimeRule, rule_id)
    if rule is None:
        raise not_found("overtime-rule", rule_id)
    return overtime_reads(session, [rule])[0]


def _threshold_errors(kind: str, threshold: int) -> None:
    limit = KIND_LIMITS[kind]
    if threshold > limit:
        raise validation("/thresholdMinutes",
                         f"a {WIRE_KIND[kind]} threshold is at most {limit} minutes")


def create_overtime_rule(session: Session, *, actor: Actor, body: OvertimeRuleCreate,
                         now: datetime) -> OvertimeRule:
    """Create an overtime rule. Raises `unauthorized` (create WorkRule), `validation`
    (threshold beyond its kind's limit), `pay-code-not-found`."""
    rule = OvertimeRule(id=uuid.uuid4(), created_at=now, updated_at=now, name=body.name,
                        kind=DB_KIND[body.kind], threshold_minutes=body.threshold_minutes,
                        pay_code_id=body.pay_code_id)
    actor.require("create", "WorkRule", OVERTIME_RULE.of(rule))
    _threshold_errors(rule.kind, rule.threshold_minutes)
    _require_pay_code(session, body.pay_code_id, "/payCodeId")
    session.add(rule)
    session.flush()
    return rule


def update_overtime_rule(session: Session, *, actor: Actor, rule_id: uuid.UUID,
                         body: OvertimeRuleUpdate, now: datetime) -> OvertimeRule:
    """Change the members sent. Work rule versions keep their snapshots.

    Raises `overtime-rule-not-found`, `unauthorized` (edit WorkRule), `version-conflict`,
    `validation`, `pay-code-not-found`.
    """
    rule = session.get(OvertimeRule, rule_id)
    if rule is None:
        raise not_found("overtime-rule", rule_id)
    actor.require("edit", "WorkRule", OVERTIME_RULE.of(rule))
    rule = _lock(session, OvertimeRule, rule_id, "overtime-rule", body.version)
    kind = DB_KIND[body.kind] if body.kind is not None else rule.kind
    threshold = body.threshold_minutes if body.threshold_minutes is not None \
        else rule.threshold_minutes
    _threshold_errors(kind, threshold)
    if body.pay_code_id is not None:
        _require_pay_code(session, body.pay_code_id, "/payCodeId")
        rule.pay_code_id = body.pay_code_id
    if body.name is not None:
        rule.name = body.name
    rule.kind, rule.threshold_minutes, rule.updated_at = kind, threshold, now
    _flush_version(session, OvertimeRule, rule_id, "overtime-rule")
    return rule


def delete_overtime_rule(session: Session, *, actor: Actor, rule_id: uuid.UUID,
                         now: datetime) -> None:
    """Delete an overtime rule no current or future work rule version uses (past versions keep
    their snapshot). Raises `overtime-rule-not-found`, `unauthorized`, `rule-in-use`."""
    rule = session.get(OvertimeRule, rule_id, with_for_update=True)
    if rule is None:
        raise not_found("overtime-rule", rule_id)
    actor.require("edit", "WorkRule", OVERTIME_RULE.of(rule))
    _refuse_if_in_use(session, rule_id=rule_id, now=now, what="overtime rule",
                      uses=lambda v, i: any(o["id"] == i for o in v.overtime))
    session.delete(rule)
    session.flush()


# Rounding rules ------------------------------------------------------------------------------

def _interval_errors(interval: int) -> None:
    if 60 % interval:
        raise validation("/intervalMinutes",
                         "must divide 60 evenly (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30 or 60)")


def list_rounding_rules(session: Session, *, query: RoundingRuleListQuery, pages: Paginator,
                        ) -> tuple[list[RoundingRule], str | None]:
    """One page of rounding rules by name. Raises `validation` (cursor)."""
    return pages.page(session, select(RoundingRule), scope="rounding-rules", query=query,
                      order=[SortKey(RoundingRule.name), SortKey(RoundingRule.id)])


def get_rounding_rule(session: Session, *, rule_id: uuid.UUID) -> RoundingRule:
    """One rounding rule. Raises `rounding-rule-not-found`."""
    rule = session.get(RoundingRule, rule_id)
    if rule is None:
        raise not_found("rounding-rule", rule_id)
    return rule


def create_rounding_rule(session: Session, *, actor: Actor, body: RoundingRuleCreate,
                         now: datetime) -> RoundingRule:
    """Create a rounding rule. Raises `unauthorized`, `validation` (interval not dividing 60)."""
    rule = RoundingRule(id=uuid.uuid4(), created_at=now, updated_at=now, name=body.name,
                        interval_minutes=body.interval_minutes, mode=body.mode)
    actor.require("create", "WorkRule", ROUNDING_RULE.of(rule))
    _interval_errors(body.interval_minutes)
    session.add(rule)
    session.flush()
    return rule


def update_rounding_rule(session: Session, *, actor: Actor, rule_id: uuid.UUID,
                         body: RoundingRuleUpdate, now: datetime) -> RoundingRule:
    """Change the members sent. Raises `rounding-rule-not-found`, `unauthorized`,
    `version-conflict`, `validation`."""
    rule = get_rounding_rule(session, rule_id=rule_id)
    actor.require("edit", "WorkRule", ROUNDING_RULE.of(rule))
    rule = _lock(session, RoundingRule, rule_id, "rounding-rule", body.version)
    if body.interval_minutes is not None:
        _interval_errors(body.interval_minutes)
        rule.interval_minutes = body.interval_minutes
    if body.mode is not None:
        rule.mode = body.mode
    if body.name is not None:
        rule.name = body.name
    rule.updated_at = now
    _flush_version(session, RoundingRule, rule_id, "rounding-rule")
    return rule


def delete_rounding_rule(session: Session, *, actor: Actor, rule_id: uuid.UUID,
                         now: datetime) -> None:
    """Delete a rounding rule no current or future work rule version uses.
    Raises `rounding-rule-not-found`, `unauthorized`, `rule-in-use`."""
    rule = session.get(RoundingRule, rule_id, with_for_update=True)
    if rule is None:
        raise not_found("rounding-rule", rule_id)
    actor.require("edit", "WorkRule", ROUNDING_RULE.of(rule))
    _refuse_if_in_use(session, rule_id=rule_id, now=now, what="rounding rule",
                      uses=lambda v, i: v.rounding is not None and v.rounding["id"] == i)
    session.delete(rule)
    session.flush()


# Presets -------------------------------------------------------------------------------------

def list_presets() -> list[WorkRulePresetRead]:
    """Every preset with what it pays and the law it follows."""
    return [WorkRulePresetRead(
        id=p.id, name=p.name, description=p.description,  # type: ignore[arg-type]
        requires_period_anchor=p.requires_period_anchor,
        overtime=[PresetOvertime(name=o.name, kind=WIRE_KIND[o.kind],  # type: ignore[arg-type]
                                 threshold_minutes=o.threshold_minutes,
                                 multiplier=str(Decimal(o.multiplier.numerator)
                                                / Decimal(o.multiplier.denominator)))
                  for o in p.overtime]) for p in PRESETS.values()]


def _preset_pay_code(session: Session, chosen: uuid.UUID | None, multiplier: Fraction,
                     member: str, label: str) -> PayCode:
    if chosen is not None:
        return _require_pay_code(session, chosen, f"/payCodes/{member}")
    for code in session.scalars(select(PayCode).where(PayCode.type == "hours")
                                .order_by(PayCode.name, PayCode.id)):
        if Fraction(repr(float(code.value))) == multiplier:
            return code
    raise ProblemError(
        ProblemCode.PAY_CODE_NOT_FOUND,
        f"No hours pay code worth {float(multiplier)} exists for {label}; create one or name "
        f"it in payCodes.{member}.")


def _preset_rules(session: Session, *, body: WorkRuleCreate, now: datetime,
                  ) -> list[OvertimeRule]:
    preset = PRESETS[str(body.preset)]
    chosen = body.pay_codes
    codes: dict[Fraction, PayCode] = {}
    for o in preset.overtime:
        if o.multiplier not in codes:
            double = o.multiplier == 2
            codes[o.multiplier] = _preset_pay_code(
                session, (chosen.double_time if double else chosen.overtime) if chosen else None,
                o.multiplier, "doubleTime" if double else "overtime",
                "double time" if double else "overtime")
    rules = [OvertimeRule(id=uuid.uuid4(), created_at=now, updated_at=now,
                          name=f"{body.name}: {o.name}", kind=o.kind,
                          threshold_minutes=o.threshold_minutes,
                          pay_code_id=codes[o.multiplier].id) for o in preset.overtime]
    session.add_all(rules)
    return rules


# Work rules ----------------------------------------------------------------------------------

def _version_read(row: WorkRuleVersion) -> WorkRuleVersionRead:
    return WorkRuleVersionRead(
        id=row.id, effective_from=row.effective_from, time_zone=row.time_zone,
        week_start_day=row.week_start_day, week_start_time=row.week_start_time,
        day_start_time=row.day_start_time, period_anchor=row.period_anchor,
        rounding=None if row.rounding is None else RoundingSnapshot.model_validate(row.rounding),
        overtime=[OvertimeSnapshot.model_validate(o) for o in row.overtime],
        meal_deduct_minutes=row.meal_deduct_minutes, meal_after_minutes=row.meal_after_minutes,
        min_unpaid_break_minutes=row.min_unpaid_break_minutes,
        counting_pay_code_ids=[uuid.UUID(i) for i in row.counting_pay_code_ids])


def _in_effect(versions: Sequence[WorkRuleVersion], day: date | None, now: datetime,
               ) -> WorkRuleVersion | None:
    found = None
    for v in sorted(versions, key=lambda v: v.effective_from):
        if v.effective_from <= (day if day is not None else _today(v.time_zone, now)):
            found = v
    return found


def work_rule_read(rule: WorkRule, *, as_of: date | None, now: datetime) -> WorkRuleRead:
    """The wire form of a work rule, `current` being the version in effect on `as_of`."""
    current = _in_effect(rule.versions, as_of, now)
    return WorkRuleRead(
        id=rule.id, created_at=rule.created_at, updated_at=rule.updated_at,
        version=rule.version, name=rule.name,
        current=None if current is None else _version_read(current),
        versions=[_version_read(v) for v in rule.versions])


def list_work_rules(session: Session, *, query: WorkRuleListQuery, pages: Paginator,
                    ) -> tuple[list[WorkRule], str | None]:
    """One page of work rules by name, versions loaded. Raises `validation` (cursor)."""
    rows, cursor = pages.page(session, select(WorkRule), scope="work-rules", query=query,
                              order=[SortKey(WorkRule.name), SortKey(WorkRule.id)])
    if rows:
        list(session.scalars(select(WorkRule).where(WorkRule.id.in_([r.id for r in rows]))
                             .options(selectinload(WorkRule.versions))))
    return rows, cursor


def get_work_rule(session: Session, *, rule_id: uuid.UUID) -> WorkRule:
    """One work rule with its versions. Raises `work-rule-not-found`."""
    rule = session.scalar(select(WorkRule).where(WorkRule.id == rule_id)
                          .options(selectinload(WorkRule.versions)))
    if rule is None:
        raise not_found("work-rule", rule_id)
    return rule


@dataclass
class _Draft:
    """The members of a version being made, before they are checked."""

    effective_from: date
    time_zone: str
    week_start_day: int
    week_start_time: str
    day_start_time: str
    period_anchor: date | None
    rounding: dict[str, Any] | None
    overtime: list[dict[str, Any]]
    meal_deduct_minutes: int | None
    meal_after_minutes: int | None
    min_unpaid_break_minutes: int
    counting_pay_code_ids: list[str]


def _overtime_snapshots(session: Session, ids: Sequence[uuid.UUID],
                        extra: Sequence[OvertimeRule] = ()) -> list[dict[str, Any]]:
    for index, ident in enumerate(ids):
        if ident in ids[:index]:
            raise validation(f"/overtimeRuleIds/{index}", "names the same rule twice")
    found = {r.id: r for r in session.scalars(select(OvertimeRule)
                                               .where(OvertimeRule.id.in_(set(ids))))}
    found.update({r.id: r for r in extra})
    for ident in ids:
        if ident not in found:
            raise not_found("overtime-rule", ident)
    rules = [found[i] for i in [*ids, *(r.id for r in extra)]]
    codes = _pay_codes(session, (r.pay_code_id for r in rules))
    return [{"id": str(r.id), "name": r.name, "kind": WIRE_KIND[r.kind],
             "thresholdMinutes": r.threshold_minutes, "payCodeId": str(r.pay_code_id),
             "multiplier": _multiplier(codes[r.pay_code_id].value)} for r in rules]


_MODE_WORDS = {"nearest": "Nearest", "down": "Down to the previous", "up": "Up to the next"}


def _rounding_of(session: Session, ident: uuid.UUID | None, spec: RoundingSpec | None,
                 now: datetime) -> dict[str, Any] | None:
    """The snapshot of the rounding a body names: by id (`roundingRuleId`), or by interval and
    mode (`rounding`: the first such rule by name, made when there is none)."""
    if spec is None:
        return _rounding_snapshot(session, ident)
    if ident is not None:
        raise validation("/rounding", "send roundingRuleId or rounding, not both")
    if 60 % spec.interval_minutes:
        raise validation("/rounding/intervalMinutes",
                         "must divide 60 evenly (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30 or 60)")
    rule = session.scalars(select(RoundingRule).where(
        RoundingRule.interval_minutes == spec.interval_minutes, RoundingRule.mode == spec.mode)
        .order_by(RoundingRule.name, RoundingRule.id)).first()
    if rule is None:
        unit = "hour" if spec.interval_minutes == 60 else f"{spec.interval_minutes} minutes"
        rule = RoundingRule(id=uuid.uuid4(), created_at=now, updated_at=now,
                            name=f"{_MODE_WORDS[spec.mode]} {unit}",
                            interval_minutes=spec.interval_minutes, mode=spec.mode)
        session.add(rule)
        session.flush()
    return _rounding_snapshot(session, rule.id)


def _rounding_snapshot(session: Session, ident: uuid.UUID | None) -> dict[str, Any] | None:
    if ident is None:
        return None
    rule = session.get(RoundingRule, ident)
    if rule is None:
        raise not_found("rounding-rule", ident)
    return {"id": str(rule.id), "name": rule.name, "intervalMinutes": rule.interval_minutes,
            "mode": rule.mode}


def _check_draft(session: Session, draft: _Draft) -> None:
    """Raise `validation` (first failing member) or `pay-code-not-found`."""
    errors: list[FieldError] = []
    if draft.time_zone not in _zones():
        errors.append(FieldError(path="/timeZone",
                                 message="must be an IANA time zone such as America/New_York"))
    if (draft.meal_deduct_minutes is None) != (draft.meal_after_minutes is None):
        errors.append(FieldError(path="/mealDeductMinutes",
                                 message="give both mealDeductMinutes and mealAfterMinutes, or "
                                         "neither (meals are then punched)"))
    elif draft.meal_deduct_minutes is not None and draft.meal_after_minutes is not None and (
            draft.meal_deduct_minutes == 0
            or draft.meal_deduct_minutes > draft.meal_after_minutes):
        errors.append(FieldError(path="/mealDeductMinutes",
                                 message="must be above 0 and at most mealAfterMinutes"))
    kinds = {o["kind"] for o in draft.overtime}
    if "period" in kinds and draft.period_anchor is None:
        errors.append(FieldError(path="/periodAnchor",
                                 message="a period overtime rule needs the first day of one of "
                                         "its 14-day periods"))
    if "period" in kinds and draft.period_anchor is not None and \
            draft.period_anchor.weekday() != draft.week_start_day:
        errors.append(FieldError(
            path="/periodAnchor",
            message=f"must fall on the workweek's first day (a {WEEKDAYS[draft.week_start_day]}"
                    " under this rule), so that periods hold whole workweeks"))
    if draft.effective_from.weekday() != draft.week_start_day:
        ahead = (draft.week_start_day - draft.effective_from.weekday()) % 7
        errors.append(FieldError(
            path="/effectiveFrom",
            message=f"must be the first day of a workweek (a {WEEKDAYS[draft.week_start_day]} "
                    f"under this rule, e.g. {draft.effective_from + timedelta(days=ahead)}), "
                    "so that each week is computed under one version"))
    elif "period" in kinds and draft.period_anchor is not None and \
            (draft.effective_from - draft.period_anchor).days % PERIOD_DAYS:
        ahead = -(draft.effective_from - draft.period_anchor).days % PERIOD_DAYS
        errors.append(FieldError(
            path="/effectiveFrom",
            message=f"must be the first day of a 14-day period (e.g. "
                    f"{draft.effective_from + timedelta(days=ahead)}), so that each period is "
                    "computed under one version"))
    if errors:
        raise validation(errors[0].path, errors[0].message, errors)
    known = _pay_codes(session, (uuid.UUID(i) for i in draft.counting_pay_code_ids))
    for index, ident in enumerate(draft.counting_pay_code_ids):
        if uuid.UUID(ident) not in known:
            raise ProblemError(ProblemCode.PAY_CODE_NOT_FOUND,
                               f"Pay code {ident} (at /countingPayCodeIds/{index}) does not "
                               "exist.")


def _week_start_on_or_before(day: date, weekday: int) -> date:
    return day - timedelta(days=(day.weekday() - weekday) % 7)


def _starts_at(day: date, clock: str, zone: str) -> datetime:
    """The instant a version takes effect: its date at the workweek's start time, local."""
    return datetime.combine(day, time.fromisoformat(clock), tzinfo=ZoneInfo(zone))


def _version_row(draft: _Draft, rule_id: uuid.UUID) -> WorkRuleVersion:
    return WorkRuleVersion(
        id=uuid.uuid4(), work_rule_id=rule_id, effective_from=draft.effective_from,
        time_zone=draft.time_zone, week_start_day=draft.week_start_day,
        week_start_time=draft.week_start_time, day_start_time=draft.day_start_time,
        period_anchor=draft.period_anchor, rounding=draft.rounding, overtime=draft.overtime,
        meal_deduct_minutes=draft.meal_deduct_minutes,
        meal_after_minutes=draft.meal_after_minutes,
        min_unpaid_break_minutes=draft.min_unpaid_break_minutes,
        counting_pay_code_ids=draft.counting_pay_code_ids)


def create_work_rule(session: Session, *, actor: Actor, body: WorkRuleCreate, now: datetime,
                     ) -> WorkRule:
    """Create a work rule and its first version; with `preset`, its overtime rules too.

    Raises `unauthorized` (create WorkRule), `validation` (zone, meal, effectiveFrom not a
    workweek's first day, period rules without anchor, `overtimeRuleIds` beside a preset),
    `overtime-rule-not-found`, `rounding-rule-not-found`, `pay-code-not-found`.
    """
    rule = WorkRule(id=uuid.uuid4(), created_at=now, updated_at=now, name=body.name)
    actor.require("create", "WorkRule", WORK_RULE.of(rule))
    if body.preset is None and body.pay_codes is not None:
        raise validation("/payCodes", "only a preset takes payCodes")
    if body.preset is not None and body.overtime_rule_ids is not None:
        raise validation("/overtimeRuleIds",
                         "leave out overtimeRuleIds with a preset (its rules are created); "
                         "edit them afterwards")
    if body.preset is not None and PRESETS[body.preset].requires_period_anchor \
            and body.period_anchor is None:
        raise validation("/periodAnchor", "this preset needs the first day of a 14-day period")
    if body.time_zone not in _zones():
        raise validation("/timeZone", "must be an IANA time zone such as America/New_York")
    effective = body.effective_from or _week_start_on_or_before(
        _today(body.time_zone, now), body.week_start_day)
    if body.effective_from is None and body.period_anchor is not None \
            and body.preset is not None and PRESETS[body.preset].requires_period_anchor:
        effective = body.period_anchor + timedelta(
            days=(effective - body.period_anchor).days // PERIOD_DAYS * PERIOD_DAYS)
    extra = _preset_rules(session, body=body, now=now) if body.preset is not None else []
    draft = _Draft(
        effective_from=effective, time_zone=body.time_zone, week_start_day=body.week_start_day,
        week_start_time=body.week_start_time, day_start_time=body.day_start_time,
        period_anchor=body.period_anchor,
        rounding=_rounding_of(session, body.rounding_rule_id, body.rounding, now),
        overtime=[],
        meal_deduct_minutes=body.meal_deduct_minutes, meal_after_minutes=body.meal_after_minutes,
        min_unpaid_break_minutes=body.min_unpaid_break_minutes,
        counting_pay_code_ids=[str(i) for i in dict.fromkeys(body.counting_pay_code_ids)])
    session.flush()
    draft.overtime = _overtime_snapshots(session, body.overtime_rule_ids or [], extra)
    _check_draft(session, draft)
    session.add(rule)
    session.flush()
    session.add(_version_row(draft, rule.id))
    session.flush()
    session.expire(rule, ["versions"])
    return rule


def _signed_off_after(session: Session, *, rule_id: uuid.UUID | None,
                      team_ids: Sequence[uuid.UUID], instant: datetime,
                      ) -> TimesheetSignOff | None:
    """The earliest active sign-off ending after `instant` of these teams or of providers whose
    shifts override to `rule_id`."""
    conditions: list[Any] = []
    if team_ids:
        conditions.append(TimesheetSignOff.team_id.in_(team_ids))
        conditions.append(TimesheetSignOff.id.in_(
            select(timesheet_sign_off_providers.c.sign_off_id)
            .join(Provider, Provider.id == timesheet_sign_off_providers.c.provider_id)
            .where(Provider.team_id.in_(team_ids))))
    if rule_id is not None:
        conditions.append(TimesheetSignOff.id.in_(
            select(timesheet_sign_off_providers.c.sign_off_id).where(
                timesheet_sign_off_providers.c.provider_id.in_(
                    select(ShiftRow.provider_id).where(ShiftRow.work_rule_override == rule_id,
                                                       ShiftRow.end_date > instant)))))
    if not conditions:
        return None
    return session.scalar(
        select(TimesheetSignOff).where(TimesheetSignOff.reopened_at.is_(None),
                                       TimesheetSignOff.end_date > instant, or_(*conditions))
        .order_by(TimesheetSignOff.start_date, TimesheetSignOff.id).limit(1))


def _signed_off_problem(found: TimesheetSignOff, what: str) -> ProblemError:
    return ProblemError(
        ProblemCode.TIMESHEET_SIGNED_OFF,
        f"{what} would change timesheets signed off from {format_timestamp(found.start_date)} "
        f"to {format_timestamp(found.end_date)}; choose a later date, or have sign-off "
        f"{found.id} reopened first.", signOffId=str(found.id))


def update_work_rule(session: Session, *, actor: Actor, rule_id: uuid.UUID,
                     body: WorkRuleUpdate, now: datetime) -> WorkRule:
    """Add a version from `effectiveFrom` (members left out come from the version in effect
    then), or replace the version starting that day if it has not taken effect yet.

    Raises `work-rule-not-found`, `unauthorized` (edit WorkRule), `version-conflict`,
    `validation` (as for create; a version already in effect on that day),
    `overtime-rule-not-found`, `rounding-rule-not-found`, `pay-code-not-found`,
    `timesheet-signed-off` (a team using the rule has signed off time after `effectiveFrom`).
    """
    rule = get_work_rule(session, rule_id=rule_id)
    actor.require("edit", "WorkRule", WORK_RULE.of(rule))
    rule = _lock(session, WorkRule, rule_id, "work-rule", body.version)
    versions = sorted(rule.versions, key=lambda v: v.effective_from)
    base = _in_effect(versions, body.effective_from, now) or versions[0]
    sent = body.model_fields_set
    draft = _Draft(
        effective_from=body.effective_from,
        time_zone=body.time_zone if body.time_zone is not None else base.time_zone,
        week_start_day=body.week_start_day if body.week_start_day is not None
        else base.week_start_day,
        week_start_time=body.week_start_time or base.week_start_time,
        day_start_time=body.day_start_time or base.day_start_time,
        period_anchor=body.period_anchor if "period_anchor" in sent else base.period_anchor,
        rounding=_rounding_of(session, body.rounding_rule_id, body.rounding, now)
        if sent & {"rounding_rule_id", "rounding"} else base.rounding,
        overtime=_overtime_snapshots(session, body.overtime_rule_ids)
        if body.overtime_rule_ids is not None else list(base.overtime),
        meal_deduct_minutes=body.meal_deduct_minutes if "meal_deduct_minutes" in sent
        else base.meal_deduct_minutes,
        meal_after_minutes=body.meal_after_minutes if "meal_after_minutes" in sent
        else base.meal_after_minutes,
        min_unpaid_break_minutes=body.min_unpaid_break_minutes
        if body.min_unpaid_break_minutes is not None else base.min_unpaid_break_minutes,
        counting_pay_code_ids=[str(i) for i in dict.fromkeys(body.counting_pay_code_ids)]
        if body.counting_pay_code_ids is not None else list(base.counting_pay_code_ids))
    _check_draft(session, draft)
    same_day = next((v for v in versions if v.effective_from == draft.effective_from), None)
    if same_day is not None and same_day.effective_from <= _today(same_day.time_zone, now):
        raise validation("/effectiveFrom",
                         f"the version from {same_day.effective_from} is already in effect and "
                         "is kept as it was; start the new version on a later workweek")
    teams = list(session.scalars(select(Team.id).where(Team.work_rule_id == rule_id)))
    instant = min(_starts_at(draft.effective_from, draft.week_start_time, draft.time_zone),
                  _starts_at(draft.effective_from, base.week_start_time, base.time_zone))
    found = _signed_off_after(session, rule_id=rule_id, team_ids=teams, instant=instant)
    if found is not None:
        raise _signed_off_problem(found, f"A version from {draft.effective_from}")
    if same_day is not None:
        session.delete(same_day)
        session.flush()
    session.add(_version_row(draft, rule_id))
    if body.name is not None:
        rule.name = body.name
    rule.updated_at = now  # always UPDATE the rule row, so its version rises
    _flush_version(session, WorkRule, rule_id, "work-rule")
    session.expire(rule, ["versions"])
    return rule


# Teams and shifts ----------------------------------------------------------------------------

def _first_start(session: Session, rule_id: uuid.UUID | None) -> datetime | None:
    if rule_id is None:
        return None
    first = session.scalar(select(WorkRuleVersion).where(WorkRuleVersion.work_rule_id == rule_id)
                           .order_by(WorkRuleVersion.effective_from).limit(1))
    if first is None:
        return None
    return _starts_at(first.effective_from, first.week_start_time, first.time_zone)


def assign_team_rule(session: Session, *, actor: Actor, team_id: uuid.UUID,
                     body: TeamWorkRule) -> Team:
    """Give a team a work rule (or none).

    Raises `team-not-found`, `unauthorized` (edit WorkRule), `work-rule-not-found`,
    `timesheet-signed-off` (the team has signed-off time the change would recompute: after the
    first version of its old or new rule starts).
    """
    team = session.get(Team, team_id, with_for_update=True)
    if team is None:
        raise not_found("team", team_id)
    actor.require("edit", "WorkRule", {"id": body.work_rule_id})
    if body.work_rule_id is not None and session.scalar(
            select(WorkRule.id).where(WorkRule.id == body.work_rule_id)) is None:
        raise not_found("work-rule", body.work_rule_id)
    if body.work_rule_id == team.work_rule_id:
        return team
    starts = [s for s in (_first_start(session, team.work_rule_id),
                          _first_start(session, body.work_rule_id)) if s is not None]
    if starts:
        found = _signed_off_after(session, rule_id=None, team_ids=[team_id],
                                  instant=min(starts))
        if found is not None:
            raise _signed_off_problem(found, "Changing the team's work rule")
    team.work_rule_id = body.work_rule_id
    session.flush()
    return team


def check_override(session: Session, *, override_id: uuid.UUID | None,
                   provider_id: uuid.UUID | None, team_id: uuid.UUID | None,
                   start: datetime) -> None:
    """Refuse a shift's `workRuleOverride` that does not exist (`work-rule-not-found`) or whose
    week start, period anchor or weekly and period overtime differ from the rule of the
    provider's team (of the shift's team for an open shift) on the shift's day
    (`work-rule-override-conflict`): one person cannot have two workweeks or periods."""
    if override_id is None:
        return
    if session.scalar(select(WorkRule.id).where(WorkRule.id == override_id)) is None:
        raise not_found("work-rule", override_id)
    if provider_id is not None:
        team_id = session.scalar(select(Provider.team_id).where(Provider.id == provider_id))
    team_rule = None if team_id is None else session.scalar(
        select(Team.work_rule_id).where(Team.id == team_id))
    if team_rule == override_id:
        return
    versions = rule_versions_by_id(session, [override_id, *([team_rule] if team_rule else [])])
    mine = _data_in_effect(versions[override_id], start)
    theirs = _data_in_effect(versions[team_rule], start) if team_rule else None
    differs = _basis_differences(mine, theirs)
    if differs:
        raise ProblemError(
            ProblemCode.WORK_RULE_OVERRIDE_CONFLICT,
            f"Work rule {override_id} differs from the team's rule in "
            f"{', '.join(differs)} on the shift's day; an override may change daily rules, "
            "rounding and meals, never the workweek, the period or weekly and period overtime.",
            differs=differs)


def _data_in_effect(versions: Sequence[WorkRuleVersionData], at: datetime,
                    ) -> WorkRuleVersionData | None:
    found = None
    for v in versions:
        if v.effective_from <= at.astimezone(ZoneInfo(v.time_zone)).date():
            found = v
    return found


def _basis(v: WorkRuleVersionData | None) -> set[tuple[str, int, uuid.UUID, Fraction]]:
    if v is None:
        return set()
    return {(o.kind, o.threshold_minutes, o.pay_code_id, o.multiplier) for o in v.overtime
            if o.kind in BASIS_KINDS}


def _basis_differences(mine: WorkRuleVersionData | None, theirs: WorkRuleVersionData | None,
                       ) -> list[str]:
    differs: list[str] = []
    if mine is not None and theirs is not None:
        if (mine.time_zone, mine.week_start_day, mine.week_start_time) != \
                (theirs.time_zone, theirs.week_start_day, theirs.week_start_time):
            differs.append("workweek start")
        if mine.period_anchor != theirs.period_anchor and (
                any(o.kind == "period" for o in mine.overtime)
                or any(o.kind == "period" for o in theirs.overtime)):
            differs.append("period anchor")
    if {b for b in _basis(mine) if b[0] == "weekly"} != \
            {b for b in _basis(theirs) if b[0] == "weekly"}:
        differs.append("weekly overtime")
    if {b for b in _basis(mine) if b[0] == "period"} != \
            {b for b in _basis(theirs) if b[0] == "period"}:
        differs.append("period overtime")
    return differs
