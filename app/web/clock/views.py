"""The clock page (blueprint `clock`):
the provider's home for clocking in and out and taking breaks.

`GET /clock` shows the time, the current or next shift, one button per allowed next action (from
`GET /v1/timekeeping/timecard/me`), a note field and today's punches. `POST /clock/punches` posts
the punch and answers with the refreshed panel (htmx) or a redirect (no JavaScript). A clock-in
far from a shift first shows the warning the timesheet would give and asks to confirm; an
`invalid-punch-action` (a second press, another tab) shows inline with the actions allowed now.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint, Response, current_app, flash, g, url_for
from wtforms import HiddenField, StringField
from wtforms.validators import AnyOf, InputRequired, Length, Optional

from app.client import ApiClient, ApiProblem
from app.contract.labels import LabelListQuery
from app.contract.shifts import ShiftListQuery
from app.contract.teams import TeamListQuery
from app.contract.timekeeping import PunchCreate, TimecardMe, TimecardPunchRead, TimecardShift
from app.web.auth import api, current_user, my_provider_id
from app.web.filters import format_minutes, format_time
from app.web.forms import BaseForm
from app.web.htmx import is_partial, render, see_other
from app.web.shifts.summary import ShiftView, label_views, minutes_words, shift_view, team_names

bp = Blueprint("clock", __name__)

ACTIONS = ("clock_in", "break_start", "break_end", "clock_out")
BUTTONS = {"clock_in": "Clock in", "break_start": "Start break", "break_end": "End break",
           "clock_out": "Clock out"}
DONE = {"clock_in": "Clocked in", "break_start": "Break started", "break_end": "Break ended",
        "clock_out": "Clocked out"}
# The timesheet matches a clock-in to a shift starting at most this long after it (the API's
# `missing_shift_tolerance`, DESIGN.md "Timesheets"); the grace window is the shared setting.
MISSING_SHIFT_TOLERANCE = timedelta(hours=2)
SHIFT_WINDOW = timedelta(days=8)


hours_minutes = format_minutes  # the `hours_minutes` filter now lives in app/web/filters.py


class PunchForm(BaseForm):
    """One press of a clock button."""

    action = HiddenField("Action", validators=[InputRequired(), AnyOf(ACTIONS)])
    provider_note = StringField("Note (optional)", validators=[Optional(), Length(max=500)])
    confirm = HiddenField("Confirm")


@dataclass(frozen=True)
class ClockState:
    """What the clock panel shows."""

    now: datetime
    card: TimecardMe
    current: ShiftView | None
    upcoming: ShiftView | None
    today: list[TimecardPunchRead]

    @property
    def actions(self) -> list[str]:
        """Allowed next actions in a stable, natural order."""
        return [a for a in ACTIONS if a in self.card.next_action]

    @property
    def status(self) -> str:
        """Where the provider stands, in words."""
        counted = [p for p in self.card.punches if p.state != "rejected"]
        last = counted[-1] if counted else None
        if last is None or last.action == "clock_out":
            return "You are clocked out."
        if last.action == "break_start":
            return "You are on a break."
        return "You are clocked in."

    @property
    def totals(self) -> tuple[int, int]:
        """Minutes worked and on break today, from today's punches (a running one until now).

        A quick look for the provider; the timesheet on My timecard is what pay uses.
        """
        worked = breaks = 0.0
        clocked: datetime | None = None
        paused: datetime | None = None
        for punch in (p for p in self.today if p.state != "rejected"):
            if punch.action == "clock_in":
                clocked, paused = punch.time, None
            elif punch.action == "break_start" and clocked is not None:
                worked += (punch.time - clocked).total_seconds()
                clocked, paused = None, punch.time
            elif punch.action == "break_end" and paused is not None:
                breaks += (punch.time - paused).total_seconds()
                clocked, paused = punch.time, None
            elif punch.action == "clock_out" and clocked is not None:
                worked += (punch.time - clocked).total_seconds()
                clocked = None
        if clocked is not None:
            worked += max(0.0, (self.now - clocked).total_seconds())
        if paused is not None:
            breaks += max(0.0, (self.now - paused).total_seconds())
        return int(worked // 60), int(breaks // 60)

    @property
    def last_punch(self) -> TimecardPunchRead | None:
        """The latest punch that counts."""
        counted = [p for p in self.card.punches if p.state != "rejected"]
        return counted[-1] if counted else None


def _settings() -> Any:
    return current_app.extensions["shiftdesk_web"].settings


def _clock(at: datetime) -> str:
    """`7:05 AM` on the site's clock."""
    return format_time(at, _settings().zone)


def _brief_view(brief: TimecardShift | None, shifts: dict[str, ShiftView]) -> ShiftView | None:
    if brief is None:
        return None
    found = shifts.get(str(brief.id))
    if found is not None:
        return found
    return ShiftView(id=str(brief.id), start=brief.start_date, end=brief.end_date, roles=(),
                     team=None, note=None, on_call=brief.on_call, segments=())


def fetch(client: ApiClient, now: datetime, provider_id: uuid.UUID | None) -> list[Any]:
    """The page's one concurrent round: the user, the timecard, the provider's coming shifts,
    team names and labels. The page benchmark makes the same calls."""
    shift_query = ShiftListQuery(start_date=now - timedelta(hours=1), end_date=now + SHIFT_WINDOW,
                                 provider_id=provider_id, include_display_names=True,
                                 page_size=100)
    return client.concurrently(
        client.me, client.my_timecard, lambda: client.list_shifts(shift_query),
        lambda: client.list_teams(TeamListQuery(page_size=200)),
        lambda: client.list_labels(LabelListQuery(page_size=200)),
    )


def load_state() -> ClockState:
    """Everything the clock panel shows, from one concurrent round of API calls."""
    now = datetime.now(UTC)
    me, card, shifts, teams, labels = fetch(api(), now, my_provider_id())
    g.shiftdesk_me = me  # the menu reads it; no second call
    names, tags = team_names(teams.items), label_views(labels.items)
    mine = {str(s.id): shift_view(s, names, tags) for s in shifts.items
            if s.provider is not None and s.provider == me.provider_id}
    zone = _settings().zone
    today = now.astimezone(zone).date()
    return ClockState(
        now=now, card=card, current=_brief_view(card.current_shift, mine),
        upcoming=_brief_view(card.next_shift, mine),
        today=[p for p in card.punches if p.time.astimezone(zone).date() == today])


def clock_in_warning(now: datetime, current: TimecardShift | ShiftView | None,
                     upcoming: TimecardShift | ShiftView | None, grace_minutes: int,
                     ) -> str | None:
    """The timesheet warning a clock-in at `now` would get, in words, or None.

    Same rule as the timesheet: the clock-in belongs to the shift whose start is nearest, among
    those starting at most two hours later and not yet over; none is `missing_shift`; beyond the
    grace window it is `clock_in_early` or `clock_in_late`.
    """
    def span(s: Any) -> tuple[datetime, datetime]:
        return (s.start_date, s.end_date) if isinstance(s, TimecardShift) else (s.start, s.end)

    candidates = [span(s) for s in (current, upcoming) if s is not None]
    candidates = [c for c in candidates if c[0] - MISSING_SHIFT_TOLERANCE <= now < c[1]]
    if not candidates:
        return ("You have no shift now or starting in the next 2 hours. If you clock in, your "
                "timesheet will show this clock-in without a shift for your manager to review.")
    start, _end = min(candidates, key=lambda c: abs(now - c[0]))
    grace = timedelta(minutes=grace_minutes)
    at = _clock(start)
    if now < start - grace:
        early = minutes_words(int((start - now).total_seconds() // 60))
        return (f"Your shift starts at {at}, {early} from now. Clocking in now will be marked "
                f"early on your timesheet (more than {grace_minutes} minutes before the start).")
    if now > start + grace:
        late = minutes_words(int((now - start).total_seconds() // 60))
        return (f"Your shift started at {at}, {late} ago. Clocking in now will be marked late on "
                f"your timesheet (more than {grace_minutes} minutes after the start).")
    return None


def _page(state: ClockState, form: PunchForm, *, status: int = 200,
          problem: str | None = None, warning: str | None = None) -> Response:
    return render("clock/index.html", fragment="clock_panel", status=status, state=state,
                  now=state.now, form=form, problem=problem, warning=warning, buttons=BUTTONS,
                  done=DONE)


@bp.get("/clock")
def index() -> Response:
    """The clock: current time, shift, the allowed punch buttons and today's punches."""
    return _page(load_state(), PunchForm(formdata=None))


@bp.get("/clock/now")
def now() -> Response:
    """The current time alone (polled by the page); a full request gets the clock page."""
    if not is_partial():
        return see_other(url_for("clock.index"))
    return render("clock/index.html", fragment="clock_now", now=datetime.now(UTC))


def _invalid(action: str, state: ClockState) -> str:
    """Why a punch was refused, in words, now that the timecard is fresh."""
    last = state.last_punch
    if last is not None:
        at = _clock(last.time)
        if last.action == action:
            return (f"Already done: {DONE[action].lower()} at {at} (a second press, or another "
                    "tab or device). Nothing more was recorded.")
        return (f"Your timecard changed since this page was loaded: {DONE[last.action].lower()} "
                f"at {at}, maybe in another tab or device. {BUTTONS[action]} is not possible "
                "now; choose again below.")
    return (f"{BUTTONS[action]} is not possible now: you are not clocked in. Choose again "
            "below.")


@bp.post("/clock/punches")
def punch() -> Response:
    """Record one punch; a far-from-shift clock-in asks to confirm first."""
    form = PunchForm()
    if not form.validate():
        return _page(load_state(), form, status=422,
                     problem="Choose one of the buttons below.")
    action = form.action.data
    if action == "clock_in" and form.confirm.data != "yes":
        state = load_state()
        if "clock_in" in state.card.next_action:
            warning = clock_in_warning(state.now, state.card.current_shift,
                                       state.card.next_shift, _settings().grace_minutes)
            if warning is not None:
                return _page(state, form, warning=warning)
    me = current_user()
    note = (form.provider_note.data or "").strip() or None
    try:
        api().create_punch(PunchCreate(provider=me.provider_id, action=action, provider_note=note))
    except ApiProblem as problem:
        if problem.code != "invalid-punch-action":
            raise
        state = load_state()
        # A full page says 409; the htmx panel is the current state with the note inline, an
        # in-place update like any other (STYLE §6), so the browser logs no failed request.
        return _page(state, PunchForm(formdata=None), status=200 if is_partial() else 409,
                     problem=_invalid(action, state))
    flash(f"{DONE[action]} at {_clock(datetime.now(UTC))}.", "success")
    if is_partial():
        return _page(load_state(), PunchForm(formdata=None))
    return see_other(url_for("clock.index"))
