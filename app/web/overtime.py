"""Overtime and rounding as the timesheet pages explain them (issue 23): the rules a timesheet's
pay segments name, read once per request, and the words for each overtime stretch and rounded
punch ("Overtime x1.5, 2h - hours 8-10 of the day (daily rule “Daily over 8 hours”)",
"rounded to the quarter hour by the work rule").

The API decides what is overtime and where a punch is paid from; this module only names it.
It reaches the API only through `app.client`, never `app.api`.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

from flask import g

from app.client import ApiClient, ApiProblem
from app.contract.pay_codes import PayCodeListQuery, PayCodeRead
from app.contract.timekeeping import (
    OvertimeBasis,
    PaySegment,
    TimesheetPunchRead,
    TimesheetRead,
    TimesheetWeek,
)
from app.contract.work_rules import OvertimeRuleRead, WorkRuleRead, WorkRuleVersionRead
from app.web.filters import format_minutes
from app.web.worked_days import ShiftRow

KIND_WORDS = {"daily": "daily rule", "weekly": "weekly rule", "period": "period rule",
              "seventh_day": "seventh-day rule", "seventhDay": "seventh-day rule"}
"""How a line names the kind of an overtime rule."""
INTERVAL_WORDS = {60: "the hour", 30: "the half hour", 15: "the quarter hour",
                  6: "the tenth of an hour"}
"""Rounding intervals with a name of their own; others read "the nearest 5 minutes"."""


@dataclass
class PayRules:
    """What a page read of the pay rules: overtime rules by id (None: not readable), the pay
    codes by id, and the team's work rule (its rounding by date)."""

    overtime: dict[str, OvertimeRuleRead | None] = field(default_factory=dict)
    pay_codes: dict[str, PayCodeRead] = field(default_factory=dict)
    work_rule: WorkRuleRead | None = None
    zone: tzinfo | None = None

    def version_at(self, instant: datetime) -> WorkRuleVersionRead | None:
        """The work rule version in effect on `instant`'s local day (by its `effectiveFrom`)."""
        if self.work_rule is None:
            return None
        day = instant.astimezone(self.zone).date() if self.zone else instant.date()
        found = [v for v in self.work_rule.versions if v.effective_from <= day]
        return max(found, key=lambda v: v.effective_from, default=None)


@dataclass(frozen=True)
class OvertimeLine:
    """One overtime stretch of a row in words: "Overtime", the multiplier, its minutes and why."""

    label: str
    multiplier: str | None
    minutes: int
    why: str


def overtime_rule_ids(sheets: Iterable[TimesheetRead | None]) -> list[str]:
    """Every overtime rule the sheets' pay segments name, once, in a stable order."""
    ids = {i for s in sheets if s is not None for p in s.pay_segments for i in p.overtime or []}
    return sorted(ids)


def rule_cache() -> dict[str, OvertimeRuleRead | None]:
    """The overtime rules this request has read (call it in the request's own thread)."""
    cache: dict[str, OvertimeRuleRead | None] = g.setdefault("overtime_rules", {})
    return cache


def remember(rules: PayRules) -> PayRules:
    """Keep `rules` for the request's templates (`rounding_note`); the request's thread."""
    g.pay_rules = rules
    return rules


def read_pay_rules(client: ApiClient, sheets: Sequence[TimesheetRead | None],
                   work_rule_id: uuid.UUID | None, zone: tzinfo,
                   cache: dict[str, OvertimeRuleRead | None]) -> PayRules:
    """The rules the sheets need explained, read concurrently: each overtime rule named and
    not in `cache` (one the caller may not read, or one since deleted, is None), the pay codes,
    and the work rule (for its rounding). Nothing is read when nothing needs it. Safe in a
    worker thread (no request globals); `remember` the answer afterwards."""
    wanted = [i for i in overtime_rule_ids(sheets) if i not in cache]
    rounded = any(p.rounded_time for s in sheets if s is not None for p in s.punches)

    def rule(rule_id: str) -> tuple[str, OvertimeRuleRead | None]:
        try:
            return rule_id, client.get_overtime_rule(rule_id)
        except ApiProblem as problem:
            if problem.status >= 500:
                raise
            return rule_id, None

    def codes() -> dict[str, PayCodeRead]:
        try:
            return {str(c.id): c for c in client.iterate(
                client.list_pay_codes, PayCodeListQuery(page_size=200))}
        except ApiProblem as problem:
            if problem.status >= 500:
                raise
            return {}

    def work_rule() -> WorkRuleRead | None:
        if work_rule_id is None or not rounded:
            return None
        try:
            return client.get_work_rule(work_rule_id)
        except ApiProblem as problem:
            if problem.status >= 500:
                raise
            return None

    calls = [lambda i=i: rule(i) for i in wanted]
    if wanted:
        calls.append(codes)
    calls.append(work_rule)
    answers = client.concurrently(*calls)
    cache.update(dict(answers[:len(wanted)]))
    return PayRules(overtime=cache, pay_codes=answers[len(wanted)] if wanted else {},
                    work_rule=answers[-1], zone=zone)


def _number(text: str | float | None) -> str | None:
    """A multiplier as people write it: "1.5", "2"."""
    if text is None:
        return None
    try:
        value = Decimal(str(text)).normalize()
    except InvalidOperation:
        return None
    return format(value, "f")


def _hours(minutes: int) -> str:
    """A point in hours: "8", else "8h 15m"."""
    return str(minutes // 60) if minutes % 60 == 0 else format_minutes(minutes)


def basis_words(basis: OvertimeBasis | None, rule: OvertimeRuleRead | None) -> str:
    """Why a stretch is overtime: "hours 53-57 of the week, after 40 regular hours (weekly
    rule “Weekly overtime over 40 hours”)"; the kind alone when the rule was not read."""
    kind = basis.kind if basis else (rule.kind if rule else None)
    if basis is None:
        where = ""
    elif basis.kind == "seventh_day":
        where = (f"the seventh consecutive day worked in the workweek, its hours "
                 f"{_hours(basis.from_minutes)}\u2013{_hours(basis.to_minutes)}")
    else:
        of = {"daily": "the day", "weekly": "the week", "period": "the 14-day period"}[basis.kind]
        where = f"hours {_hours(basis.from_minutes)}\u2013{_hours(basis.to_minutes)} of {of}"
        if basis.kind in ("weekly", "period") and rule is not None:
            where += f", after {_hours(rule.threshold_minutes)} regular hours"
    named = KIND_WORDS.get(kind or "", "overtime rule")
    if rule is not None:
        named += f" “{rule.name}”"
    return f"{where} ({named})" if where else named


def _same_stretch(a: PaySegment, b: PaySegment) -> bool:
    """Whether `b` continues `a`'s overtime: same rule, its basis going on where `a`'s ends."""
    return (a.overtime == b.overtime and a.end_date == b.start_date
            and a.overtime_basis is not None and b.overtime_basis is not None
            and a.overtime_basis.kind == b.overtime_basis.kind
            and a.overtime_basis.to_minutes == b.overtime_basis.from_minutes)


def overtime_lines(segments: Sequence[PaySegment], rules: PayRules | None, now: datetime,
                   ) -> list[OvertimeLine]:
    """A row's overtime pay segments as lines, adjacent pieces of one stretch joined."""
    stretches: list[list[PaySegment]] = []
    for segment in sorted((s for s in segments if s.overtime), key=lambda s: s.start_date):
        if stretches and _same_stretch(stretches[-1][-1], segment):
            stretches[-1].append(segment)
        else:
            stretches.append([segment])
    lines = []
    for stretch in stretches:
        first, last = stretch[0], stretch[-1]
        rule_id = (first.overtime or [""])[0]
        rule = rules.overtime.get(rule_id) if rules else None
        basis = first.overtime_basis
        if basis is not None and last.overtime_basis is not None:
            basis = basis.model_copy(update={"to_minutes": last.overtime_basis.to_minutes})
        code = rules.pay_codes.get((first.pay_codes or [""])[0]) if rules else None
        multiplier = _number(rule.multiplier if rule else code.value if code else None)
        double = multiplier is not None and Decimal(multiplier) >= 2
        seconds = sum(((s.end_date or now) - s.start_date).total_seconds() for s in stretch)
        lines.append(OvertimeLine("Double time" if double else "Overtime", multiplier,
                                  int(seconds // 60), basis_words(basis, rule)))
    return lines


def segments_by_row(sheet: TimesheetRead | None, rows: Sequence[ShiftRow],
                    ) -> dict[str, list[PaySegment]]:
    """The overtime pay segments of each row: by the shift a segment names, else the session of
    no shift it lies in (as the rows' worked minutes are placed)."""
    by_key = {r.key: r for r in rows}
    loose = sorted((r for r in rows if r.shift is None and r.punches),
                   key=lambda r: r.punches[0].time)
    found: dict[str, list[PaySegment]] = {}
    for segment in sheet.pay_segments if sheet else []:
        if not segment.overtime:
            continue
        row = by_key.get(segment.shift_id) if segment.shift_id else None
        if row is None and not segment.shift_id:
            for candidate in loose:
                if candidate.punches[0].time <= segment.start_date:
                    row = candidate
        if row is not None:
            found.setdefault(row.key, []).append(segment)
    return found


def week_holding(weeks: Sequence[TimesheetWeek], now: datetime) -> TimesheetWeek | None:
    """The workweek holding `now` (the last one started by then)."""
    started = [w for w in weeks if w.start_date <= now]
    return max(started, key=lambda w: w.start_date, default=None)


def rounding_note(punch: TimesheetPunchRead) -> str:
    """Why a punch is paid at another time: "rounded to the quarter hour by the work rule"."""
    rules: PayRules | None = g.get("pay_rules")
    version = rules.version_at(punch.time) if rules else None
    interval = version.rounding.interval_minutes if version and version.rounding else None
    if interval is None:
        return "rounded by the work rule"
    words = INTERVAL_WORDS.get(interval, f"the nearest {interval} minutes")
    return f"rounded to {words} by the work rule"


class HoursByClass(NamedTuple):
    """Minutes of regular, overtime and double time."""

    regular: int
    overtime: int
    double_time: int

    @property
    def worked(self) -> int:
        """Every class together."""
        return self.regular + self.overtime + self.double_time


def weekly_totals(weeks: Sequence[TimesheetWeek]) -> HoursByClass:
    """Regular, overtime and double-time minutes over the weeks."""
    return HoursByClass(sum(w.regular_minutes for w in weeks),
                        sum(w.overtime_minutes for w in weeks),
                        sum(w.double_time_minutes for w in weeks))
