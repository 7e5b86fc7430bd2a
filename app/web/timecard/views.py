"""My timecard (blueprint `timecard`): the provider's pay period shift by shift, and withdrawing a
pending punch.

`GET /timecard` says which dates the pay period covers and shows one row per shift worked (the
same rows as the team timesheet, newest first): in and out, breaks, worked against scheduled
minutes, warnings and errors in words, and the review state, with totals (worked, scheduled to
date, the whole period). `GET|POST /timecard/punches/<id>/delete` withdraws a pending punch.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from flask import Blueprint, Response, abort, current_app, flash, url_for

from app.client import ApiClient
from app.contract.providers import ProviderListQuery, ProviderWithRelations
from app.contract.shifts import ShiftListQuery, ShiftRead
from app.contract.timekeeping import TimecardPunchRead, TimesheetQuery, TimesheetRead
from app.web.auth import api, current_user
from app.web.htmx import render, see_other
from app.web.manage_timesheets.views import period_of
from app.web.worked_days import STATES, ShiftRow, scheduled_minutes, shift_rows

bp = Blueprint("timecard", __name__)

ACTION_WORDS = {"clock_in": "Clocked in", "clock_out": "Clocked out",
                "break_start": "Break started", "break_end": "Break ended"}
ERROR_WORDS = {
    "no_clock_out": "A clock-in has no clock-out. Tell your manager what time you left.",
    "invalid_shift": "One of your shifts is set up wrongly; your manager has to fix it.",
    "missing_timecard": "A shift has no timecard yet.",
    "missing_pay_period_template": "You have no pay period set up; ask an administrator.",
}
# The timesheet is read over a window that surely holds the current pay period (a month at
# most) and is then narrowed to this timecard's punches and pay segments; shifts a fortnight
# ahead too, for the period's scheduled total.
LOOKBACK = timedelta(days=32)
AHEAD = timedelta(days=15)


@dataclass
class Card:
    """The provider's pay period as the page shows it."""

    start: date
    length: int
    rows: list[ShiftRow]
    shifts: list[ShiftRead]
    now: datetime
    errors: list[str] = field(default_factory=list)

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


def fetch(client: ApiClient, provider_id: Any, now: datetime) -> list[Any]:
    """The page's API calls after the user: the timecard, the timesheet around it, the
    provider's shifts of that window and a fortnight ahead, and the provider (their pay-period
    template), concurrently (the page benchmark makes the same calls)."""
    if provider_id is None:  # not a provider: the API's answer (no timecard) is the page
        return [client.my_timecard(), None, [], None]
    start, end = now - LOOKBACK, now + timedelta(days=1)
    query = TimesheetQuery(provider=provider_id, start_date=start, end_date=end)
    shifts = ShiftListQuery(provider_id=provider_id, start_date=start, end_date=now + AHEAD,
                            page_size=200)
    return client.concurrently(
        client.my_timecard, lambda: client.timesheet(query),
        lambda: list(client.iterate(client.list_shifts, shifts)),
        lambda: client.list_providers(ProviderListQuery(page_size=200)))


def build_card(punches: list[TimecardPunchRead], sheet: TimesheetRead | None,
               shifts: list[ShiftRead], person: ProviderWithRelations | None,
               now: datetime) -> Card:
    """The rows of this timecard's punches, newest first, and the period's totals."""
    zone = _zone()
    start, length = period_of(person, now.astimezone(zone).date())
    begin = datetime.combine(start, datetime.min.time(), tzinfo=zone).astimezone(UTC)
    end = datetime.combine(start + timedelta(days=length), datetime.min.time(),
                           tzinfo=zone).astimezone(UTC)
    cards = {str(p.timecard_id) for p in punches}
    rows = shift_rows(sheet, shifts, zone, now, first=start, since=begin, timecards=cards)
    rows = [r for r in rows if r.punches or r.shift is not None]
    rows.reverse()
    texts: list[str] = []
    for error in sheet.errors if sheet else []:
        if error.type == "missing_pay_period_template" or str(error.timecard_id) in cards:
            text = ERROR_WORDS.get(error.type, "Something needs fixing; ask your manager.")
            if text not in texts:
                texts.append(text)
    mine = [s for s in shifts if begin <= s.start_date < end]
    return Card(start=start, length=length, rows=rows, shifts=mine, now=now, errors=texts)


@bp.context_processor
def _helpers() -> dict[str, Any]:
    return {"action_words": ACTION_WORDS.get, "state_words": STATES}


@bp.get("/timecard")
def index() -> Response:
    """This pay period by shift: times, minutes, review states, warnings and totals."""
    now = datetime.now(UTC)
    me = current_user()
    timecard, sheet, shifts, people = fetch(api(), me.provider_id, now)
    person = next((p for p in people.items if p.id == me.provider_id), None) if people else None
    card = build_card(timecard.punches, sheet, shifts, person, now)
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
