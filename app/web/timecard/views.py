"""My timecard (blueprint `timecard`):
the provider's punches this pay period, their review, warnings, and withdrawing a pending punch.

`GET /timecard` groups the pay period's punches by day (site time zone) with the worked and
break minutes the timesheet counts, each punch's review state and admin note, and the period's
timesheet warnings. `GET|POST /timecard/punches/<id>/delete` withdraws a pending punch.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from flask import Blueprint, Response, abort, current_app, flash, url_for

from app.client import ApiClient
from app.contract.shifts import ShiftListQuery, ShiftRead
from app.contract.timekeeping import TimecardPunchRead, TimesheetQuery, TimesheetRead
from app.web.auth import api, current_user
from app.web.htmx import render, see_other
from app.web.worked_days import punch_days, shift_days

bp = Blueprint("timecard", __name__)

ACTION_WORDS = {"clock_in": "Clocked in", "clock_out": "Clocked out",
                "break_start": "Break started", "break_end": "Break ended"}
WARNING_WORDS = {
    "clock_in_early": "Clocked in early (before the grace window of the shift's start)",
    "clock_in_late": "Clocked in late (after the grace window of the shift's start)",
    "clock_out_early": "Clocked out early (before the grace window of the shift's end)",
    "clock_out_late": "Clocked out late (after the grace window of the shift's end)",
    "missing_shift": "No shift matches this clock-in",
}
ERROR_WORDS = {
    "no_clock_out": "A clock-in has no clock-out. Tell your manager what time you left.",
    "invalid_shift": "One of your shifts is set up wrongly; your manager has to fix it.",
    "missing_timecard": "A shift has no timecard yet.",
    "missing_pay_period_template": "You have no pay period set up; ask an administrator.",
}
# The timesheet is read over a window that surely holds the current pay period (a month at
# most) and is then narrowed to this timecard's punches and pay segments.
LOOKBACK = timedelta(days=32)


@dataclass
class Day:
    """One calendar day of the timecard."""

    day: date
    punches: list[TimecardPunchRead] = field(default_factory=list)
    worked: int = 0
    breaks: int = 0


def _zone() -> Any:
    return current_app.extensions["shiftdesk_web"].settings.zone


def _minutes(start: datetime, end: datetime | None, now: datetime) -> int:
    return max(0, int(((end or now) - start).total_seconds() // 60))


def build_days(punches: list[TimecardPunchRead], sheet: TimesheetRead | None,
               now: datetime, shifts: list[ShiftRead] | None = None) -> list[Day]:
    """Punches grouped by day, newest day first, with worked and break minutes. A punch and the
    time worked go under the day the shift they were worked for started (the timesheet names
    the shift), so a night shift's hours after midnight stay with the evening it began; time of
    no shift under the day of its clock-in."""
    zone = _zone()
    starts = shift_days(shifts or [], zone)
    placed = punch_days(sheet.punches if sheet else [], starts, zone)
    days: dict[date, Day] = {}
    for punch in punches:
        local = placed.get(punch.id) or punch.time.astimezone(zone).date()
        days.setdefault(local, Day(local)).punches.append(punch)
    card_ids = {str(p.timecard_id) for p in punches}
    seconds: dict[date, dict[str, int]] = defaultdict(lambda: {"worked": 0, "breaks": 0})
    for segment in sheet.pay_segments if sheet else []:
        if segment.timecard_id not in card_ids:
            continue
        if segment.type == "time_off":
            continue
        local = (starts.get(segment.shift_id) if segment.shift_id else None) or \
            segment.start_date.astimezone(zone).date()
        key = "breaks" if segment.type in ("paid_break", "unpaid_break") else "worked"
        seconds[local][key] += int(((segment.end_date or now) - segment.start_date)
                                   .total_seconds())
    for local, totals in seconds.items():
        entry = days.setdefault(local, Day(local))
        entry.worked, entry.breaks = totals["worked"] // 60, totals["breaks"] // 60
    return sorted(days.values(), key=lambda d: d.day, reverse=True)


def fetch(client: ApiClient, provider_id: Any, now: datetime) -> list[Any]:
    """The page's API calls after the user: the timecard, the timesheet around it and the
    provider's shifts of that window (the days punches are shown under), concurrently (the page
    benchmark makes the same calls)."""
    if provider_id is None:  # not a provider: the API's answer (no timecard) is the page
        return [client.my_timecard(), None, []]
    start, end = now - LOOKBACK, now + timedelta(days=1)
    query = TimesheetQuery(provider=provider_id, start_date=start, end_date=end)
    shifts = ShiftListQuery(provider_id=provider_id, start_date=start, end_date=end,
                            page_size=200)
    return client.concurrently(client.my_timecard, lambda: client.timesheet(query),
                               lambda: list(client.iterate(client.list_shifts, shifts)))


def _load() -> tuple[list[TimecardPunchRead], TimesheetRead | None, datetime, list[ShiftRead]]:
    now = datetime.now(UTC)
    card, sheet, shifts = fetch(api(), current_user().provider_id, now)
    return card.punches, sheet, now, shifts


def _warnings(sheet: TimesheetRead | None, punch_ids: set[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = defaultdict(list)
    for warning in sheet.warnings if sheet else []:
        if str(warning.punch_id) in punch_ids:
            found[str(warning.punch_id)].append(WARNING_WORDS.get(warning.type, warning.type))
    return found


def _errors(sheet: TimesheetRead | None, card_ids: set[str]) -> list[str]:
    texts: list[str] = []
    for error in sheet.errors if sheet else []:
        if error.type == "missing_pay_period_template" or str(error.timecard_id) in card_ids:
            text = ERROR_WORDS.get(error.type, error.type)
            if text not in texts:
                texts.append(text)
    return texts


@bp.get("/timecard")
def index() -> Response:
    """This pay period's punches by day, minutes, review states and warnings."""
    punches, sheet, now, shifts = _load()
    days = build_days(punches, sheet, now, shifts)
    warnings = _warnings(sheet, {str(p.id) for p in punches})
    errors = _errors(sheet, {str(p.timecard_id) for p in punches})
    return render("timecard/index.html", fragment="timecard_days", days=days, warnings=warnings,
                  errors=errors, words=ACTION_WORDS, punches=punches,
                  worked=sum(d.worked for d in days), breaks=sum(d.breaks for d in days))


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
