"""My timecard (blueprint `timecard`): the provider's pay period shift by shift, and withdrawing a
pending punch.

`GET /timecard` says which dates the pay period covers and shows one row per shift worked (the
same rows as the team timesheet, newest first): in and out, breaks, worked against scheduled
minutes, warnings and errors in words, and the review state, with totals (worked, scheduled to
date, the whole period). A punch a manager added or corrected shows with the manager's note
("Added by your manager" for one someone else recorded: the punch's `createdBy`). While an
active sign-off covers the period the page says who signed it off and when, and offers no
withdrawing in it. In the current period a "This week" block gives the hours worked so far
in the workweek of the team's work rule (the timesheet's `weeks`), the overtime so far, and
when overtime would start (or started) given the shifts still scheduled (`overtimeStartsAt`).
`GET|POST /timecard/punches/<id>/delete` withdraws a pending punch.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from flask import Blueprint, Response, abort, current_app, flash, request, url_for

from app.client import ApiClient
from app.contract.providers import ProviderListQuery, ProviderWithRelations
from app.contract.shifts import ShiftListQuery, ShiftRead
from app.contract.sign_offs import TimesheetSignOffQuery, TimesheetSignOffRead
from app.contract.timekeeping import (
    TimecardPunchRead,
    TimesheetQuery,
    TimesheetRead,
    TimesheetWeek,
)
from app.web.auth import api, current_user
from app.web.htmx import render, see_other
from app.web.manage_schedule.calendar import parse_day
from app.web.manage_timesheets.views import period_of
from app.web.overtime import (
    OvertimeLine,
    PayRules,
    overtime_lines,
    read_pay_rules,
    remember,
    rounding_note,
    rule_cache,
    segments_by_row,
    week_holding,
    weekly_totals,
)
from app.web.worked_days import ShiftRow, scheduled_minutes, shift_rows

bp = Blueprint("timecard", __name__)

ACTION_WORDS = {"clock_in": "Clocked in", "clock_out": "Clocked out",
                "break_start": "Break started", "break_end": "Break ended"}
ERROR_WORDS = {
    "no_clock_out": "A clock-in has no clock-out. Tell your manager what time you left.",
    "invalid_shift": "One of your shifts is set up wrongly; your manager has to fix it.",
    "missing_timecard": "A shift has no timecard yet.",
    "missing_pay_period_template": "You have no pay period set up; ask an administrator.",
}
# The timesheet and shifts are read over a window around the day asked about that surely holds
# its pay period (a fortnight at most), in the same round as the provider's pay-period template,
# and then narrowed to the period.
AROUND = timedelta(days=16)


@dataclass
class Card:
    """The provider's pay period as the page shows it."""

    start: date
    length: int
    rows: list[ShiftRow]
    shifts: list[ShiftRead]
    now: datetime
    errors: list[str] = field(default_factory=list)
    sign_offs: list[TimesheetSignOffRead] = field(default_factory=list)
    signers: dict[str, str] = field(default_factory=dict)
    week: TimesheetWeek | None = None
    overtime_starts_at: datetime | None = None
    sheet: TimesheetRead | None = None
    pay: PayRules | None = None

    def overtime_of(self, row: ShiftRow) -> list[OvertimeLine]:
        """The row's overtime stretches in words, each with why it is overtime."""
        segments = segments_by_row(self.sheet, [row]).get(row.key, [])
        return overtime_lines(segments, self.pay, self.now)

    @property
    def week_worked(self) -> int:
        """Minutes worked so far in the workweek holding now (every class of pay)."""
        return weekly_totals([self.week] if self.week else []).worked

    @property
    def overtime_started(self) -> bool:
        """Whether `overtime_starts_at` has passed."""
        return self.overtime_starts_at is not None and self.overtime_starts_at <= self.now

    def signer(self, sign_off: TimesheetSignOffRead) -> str | None:
        """The name of who signed `sign_off` off, when the provider may know it (their own
        manager); None otherwise."""
        return self.signers.get(str(sign_off.signed_by))

    def part(self, sign_off: TimesheetSignOffRead) -> tuple[date, date] | None:
        """The first and last day of `sign_off` when it covers only part of the period."""
        zone = _zone()
        first = max(sign_off.start_date.astimezone(zone).date(), self.start)
        last = min((sign_off.end_date - timedelta(microseconds=1)).astimezone(zone).date(),
                   self.end)
        return None if (first, last) == (self.start, self.end) else (first, last)

    def frozen(self, row: ShiftRow) -> bool:
        """Whether a punch of `row` lies in a sign-off (so it cannot be withdrawn)."""
        return any(s.start_date <= p.time < s.end_date for s in self.sign_offs
                   for p in row.punches)

    @property
    def current(self) -> bool:
        """Whether the period holds today."""
        return self.start <= self.now.astimezone(_zone()).date() <= self.end

    def url(self, periods: int) -> str:
        """The address of the period `periods` away."""
        return url_for("timecard.index",
                       period=(self.start + timedelta(days=self.length * periods)).isoformat())

    @property
    def end(self) -> date:
        """The last day of the period."""
        return self.start + timedelta(days=self.length - 1)

    @property
    def worked(self) -> int:
        """Minutes worked in the period."""
        return sum(r.worked for r in self.rows)

    @property
    def breaks(self) -> int:
        """Minutes of breaks in the period."""
        return sum(r.breaks for r in self.rows)

    @property
    def scheduled_to_date(self) -> int:
        """Scheduled minutes of the period's shifts that have started by now."""
        return sum(scheduled_minutes(s) for s in self.shifts if s.start_date <= self.now)

    @property
    def scheduled_total(self) -> int:
        """Scheduled minutes of the whole period."""
        return sum(scheduled_minutes(s) for s in self.shifts)


def _zone() -> Any:
    return current_app.extensions["shiftdesk_web"].settings.zone


def fetch(client: ApiClient, provider_id: Any, now: datetime, at: datetime | None = None,
          ) -> list[Any]:
    """The page's API calls after the user: the provider's timesheet, shifts and sign-offs
    around `at` (default now) and the provider (their pay-period template and manager),
    concurrently (the page benchmark makes the same calls)."""
    if provider_id is None:  # not a provider: the API's answer (no timecard) is the page
        client.my_timecard()
        return [None, [], None, None]
    at = at or now
    start, end = at - AROUND, at + AROUND
    query = TimesheetQuery(provider=provider_id, start_date=start, end_date=end)
    shifts = ShiftListQuery(provider_id=provider_id, start_date=start, end_date=end,
                            page_size=200)
    return client.concurrently(
        lambda: client.timesheet(query),
        lambda: list(client.iterate(client.list_shifts, shifts)),
        lambda: client.list_providers(ProviderListQuery(page_size=200)),
        lambda: client.list_sign_offs(TimesheetSignOffQuery(
            provider_id=provider_id, start_date=start, end_date=end, page_size=200)))


def build_card(sheet: TimesheetRead | None, shifts: list[ShiftRead],
               person: ProviderWithRelations | None, now: datetime, day: date,
               sign_offs: list[TimesheetSignOffRead] | None = None) -> Card:
    """The rows of the pay period holding `day`, newest first, the period's totals, and the
    active sign-offs of the provider that overlap it."""
    zone = _zone()
    start, length = period_of(person, day)
    begin = datetime.combine(start, time(0), tzinfo=zone).astimezone(UTC)
    end = datetime.combine(start + timedelta(days=length), time(0), tzinfo=zone).astimezone(UTC)
    rows = [r for r in shift_rows(sheet, shifts, zone, now, since=begin)
            if start <= r.day < start + timedelta(days=length)]
    rows.reverse()
    texts: list[str] = []
    for error in sheet.errors if sheet else []:
        if error.type == "missing_pay_period_template":
            texts.append(ERROR_WORDS[error.type])
    if any(r.open and r.errors for r in rows):
        texts.append(ERROR_WORDS["no_clock_out"])
    mine = [s for s in shifts if begin <= s.start_date < end]
    frozen = [s for s in sign_offs or [] if s.reopened_at is None and s.start_date < end
              and s.end_date > begin and (person is None or person.id in s.provider_ids)]
    manager = person.manager if person else None
    signers = {str(manager.id): manager.name} if manager and manager.name else {}
    card = Card(start=start, length=length, rows=rows, shifts=mine, now=now, errors=texts,
                sign_offs=frozen, signers=signers, sheet=sheet)
    if sheet is not None and card.current:
        card.week = week_holding(sheet.weeks, now)
        card.overtime_starts_at = sheet.overtime_starts_at if card.week else None
    return card


def added_by_manager(punch: TimecardPunchRead) -> bool:
    """Whether someone other than the provider recorded the punch (the API's `createdBy`): a
    manager adding a punch the provider missed. Punches recorded before authors were kept name
    nobody and read as the provider's own."""
    return punch.created_by is not None and punch.created_by != current_user().id


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return {"action_words": ACTION_WORDS.get, "added_by_manager": added_by_manager,
            "rounding_note": rounding_note}


@bp.get("/timecard")
def index() -> Response:
    """A pay period by shift (this one, or the one holding `period=`): times, minutes, review
    states, warnings and totals."""
    now = datetime.now(UTC)
    day = parse_day(request.args.get("period")) or now.astimezone(_zone()).date()
    me = current_user()
    at = datetime.combine(day, time(12), tzinfo=_zone()).astimezone(UTC)
    sheet, shifts, people, signed = fetch(api(), me.provider_id, now, at)
    person = next((p for p in people.items if p.id == me.provider_id), None) if people else None
    card = build_card(sheet, shifts, person, now, day, signed.items if signed else [])
    if sheet is not None and any(s.overtime for s in sheet.pay_segments):
        card.pay = remember(read_pay_rules(api(), [sheet], None, _zone(), rule_cache()))
    return render("timecard/index.html", fragment="timecard_days", card=card)


def _own_punch(punch_id: uuid.UUID) -> TimecardPunchRead:
    card = api().my_timecard()
    for punch in card.punches:
        if punch.id == punch_id:
            return punch
    abort(404)


@bp.get("/timecard/punches/<uuid:punch_id>/delete")
def confirm_delete(punch_id: uuid.UUID) -> Response:
    """Ask before withdrawing a pending punch."""
    punch = _own_punch(punch_id)
    return render("timecard/confirm_delete.html", punch=punch, words=ACTION_WORDS)


@bp.post("/timecard/punches/<uuid:punch_id>/delete")
def delete(punch_id: uuid.UUID) -> Response:
    """Withdraw a pending punch made by mistake."""
    api().delete_punch(punch_id)
    flash("The punch was deleted. Your allowed actions follow the remaining punches.", "success")
    return see_other(url_for("timecard.index"))
