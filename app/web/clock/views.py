"""The clock page (blueprint `clock`):
the provider's home for clocking in and out and taking breaks.

`GET /clock` shows the time, the current or next shift, one button per allowed next action (from
`GET /v1/timekeeping/timecard/me`), running timers of the time worked and the break, a note field
and today's punches. `POST /clock/punches` posts the punch and answers with the refreshed panel
(htmx) or a redirect (no JavaScript). A clock-in far from a shift first shows the warning the
timesheet would give and asks to confirm; an `invalid-punch-action` (a second press, another tab)
shows inline with the actions allowed now. After a clock-out the panel sums up the shift just
ended (worked and breaks as the timesheet pays them, `counted_as_paid`; late or early against the
scheduled shift) and, for `UNDO_WINDOW`, offers
to undo it: `POST /clock/undo` deletes that clock-out punch (a provider may delete their own
pending punch) after checking it is still the latest punch and recent enough.

The same panel is part of the home page ("Now"): its forms carry `back=now`, so the answers go
back there without JavaScript.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Blueprint, Response, current_app, flash, g, url_for
from wtforms import HiddenField, StringField
from wtforms.validators import AnyOf, InputRequired, Length, Optional

from app.client import ApiClient, ApiProblem
from app.contract.labels import LabelListQuery
from app.contract.shifts import ShiftListQuery
from app.contract.teams import TeamListQuery
from app.contract.timekeeping import (
    PunchCreate,
    TimecardMe,
    TimecardPunchRead,
    TimecardShift,
    TimesheetQuery,
)
from app.web.auth import api, current_user, my_provider_id
from app.web.filters import format_time
from app.web.forms import BaseForm
from app.web.htmx import is_partial, render, see_other
from app.web.shifts.summary import ShiftView, label_views, minutes_words, shift_view, team_names
from app.web.worked_days import shift_rows

bp = Blueprint("clock", __name__)

ACTIONS = ("clock_in", "break_start", "break_end", "clock_out")
BUTTONS = {"clock_in": "Clock in", "break_start": "Start break", "break_end": "End break",
           "clock_out": "Clock out"}
DONE = {"clock_in": "Clocked in", "break_start": "Break started", "break_end": "Break ended",
        "clock_out": "Clocked out"}
# The timesheet matches a clock-in to a shift starting at most this long after it (the API's
# `missing_shift_tolerance`, docs/architecture.md, "Timesheets"); the grace window is the shared
# setting.
MISSING_SHIFT_TOLERANCE = timedelta(hours=2)
SHIFT_WINDOW = timedelta(days=8)
# How long a clock-out can be taken back from the clock (a slip of the thumb), and how far back
# the page looks for the scheduled shift a clock-out ended.
UNDO_WINDOW = timedelta(minutes=2)
SHIFT_LOOKBACK = timedelta(hours=24)
SUMMARY_FOR = timedelta(hours=12)  # how long the summary of a shift ended stays on the panel
# The timesheet read for that summary reaches this far around the shift: rounding may pay a
# clock-in or clock-out from a little before or after it.
PAID_MARGIN = timedelta(hours=2)
BACKS = ("clock", "now")


class PunchForm(BaseForm):
    """One press of a clock button."""

    action = HiddenField("Action", validators=[InputRequired(), AnyOf(ACTIONS)])
    provider_note = StringField("Note (optional)", validators=[Optional(), Length(max=500)])
    confirm = HiddenField("Confirm")
    back = HiddenField("Back", validators=[Optional(), AnyOf(BACKS)])


class UndoForm(BaseForm):
    """Take back the clock-out just recorded."""

    punch_id = HiddenField("Punch", validators=[InputRequired(), Length(max=64)])
    back = HiddenField("Back", validators=[Optional(), AnyOf(BACKS)])


@dataclass(frozen=True)
class ShiftEnded:
    """The shift a clock-out just ended, summed up for the provider."""

    clock_out: TimecardPunchRead
    clocked_in: datetime
    worked: int  # minutes, as the timesheet pays them when it could be read, else as clocked
    breaks: int  # minutes, likewise
    scheduled: ShiftView | None
    late_in: int  # minutes after the scheduled start (beyond the grace window), else 0
    early_in: int  # minutes before the scheduled start (beyond the grace window), else 0
    early_out: int  # minutes before the scheduled end (beyond the grace window), else 0
    late_out: int  # minutes after the scheduled end (beyond the grace window), else 0
    undo_until: datetime
    clocked: int | None = None
    """Minutes between the punches, breaks left out, when the timesheet pays otherwise
    (rounding, a short break paid as work, a meal deducted); None when they agree."""

    def can_undo(self, now: datetime) -> bool:
        """Whether the clock-out may still be taken back at `now`."""
        return self.clock_out.state == "pending" and now <= self.undo_until


@dataclass(frozen=True)
class ClockState:
    """What the clock panel shows."""

    now: datetime
    card: TimecardMe
    current: ShiftView | None
    upcoming: ShiftView | None
    today: list[TimecardPunchRead]
    shifts: tuple[ShiftView, ...] = ()
    grace_minutes: int = 7
    paid: tuple[int, int] | None = None
    """Worked and break minutes of the shift a clock-out ended, as the timesheet pays them
    (`counted_as_paid`); None: not read, and the summary gives them as clocked."""

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

    def _run(self) -> list[TimecardPunchRead]:
        """The punches of the latest shift worked: from its clock-in to now or its clock-out."""
        counted = [p for p in self.card.punches if p.state != "rejected"]
        starts = [i for i, p in enumerate(counted) if p.action == "clock_in"]
        return counted[starts[-1]:] if starts else []

    @staticmethod
    def _seconds(run: list[TimecardPunchRead], until: datetime) -> tuple[float, float]:
        """Seconds worked and on break in `run`, a running part counted until `until`."""
        worked = breaks = 0.0
        mark = run[0].time if run else until
        working = True
        for punch in run[1:]:
            span = max(0.0, (punch.time - mark).total_seconds())
            if working:
                worked += span
            else:
                breaks += span
            if punch.action == "clock_out":
                return worked, breaks
            working = punch.action != "break_start"
            mark = punch.time
        span = max(0.0, (until - mark).total_seconds())
        if working:
            worked += span
        else:
            breaks += span
        return worked, breaks

    @property
    def on_shift_since(self) -> datetime | None:
        """When the provider clocked in for the shift they are on (None: clocked out)."""
        run = self._run()
        if not run or run[-1].action == "clock_out":
            return None
        return run[0].time

    @property
    def break_since(self) -> datetime | None:
        """When the break under way started (None: not on a break)."""
        last = self.last_punch
        return last.time if last is not None and last.action == "break_start" else None

    @property
    def running(self) -> tuple[int, int]:
        """Seconds worked and on break in the shift under way (a running part until now)."""
        worked, breaks = self._seconds(self._run(), self.now)
        return int(worked), int(breaks)

    def ended(self) -> ShiftEnded | None:
        """The shift the latest punch, a clock-out, ended; None when the latest is no clock-out."""
        run = self._run()
        if len(run) < 2 or run[-1].action != "clock_out":
            return None
        out = run[-1]
        worked, breaks = self._seconds(run, out.time)
        clocked_in = run[0].time
        scheduled = scheduled_shift(clocked_in, self.shifts)
        grace = timedelta(minutes=self.grace_minutes)
        late_in = early_in = early_out = late_out = 0
        if scheduled is not None:
            start, end = _span(scheduled)
            if clocked_in > start + grace:
                late_in = _minutes(clocked_in - start)
            elif clocked_in < start - grace:
                early_in = _minutes(start - clocked_in)
            if out.time < end - grace:
                early_out = _minutes(end - out.time)
            elif out.time > end + grace:
                late_out = _minutes(out.time - end)
        minutes = int(worked // 60), int(breaks // 60)
        paid = self.paid or minutes
        return ShiftEnded(clock_out=out, clocked_in=clocked_in, worked=paid[0], breaks=paid[1],
                          scheduled=scheduled, late_in=late_in, early_in=early_in,
                          early_out=early_out, late_out=late_out,
                          undo_until=out.time + UNDO_WINDOW,
                          clocked=minutes[0] if paid[0] != minutes[0] else None)


def counted_as_paid(state: ClockState, client: ApiClient, provider_id: uuid.UUID | None,
                    ) -> ClockState:
    """`state` with the worked and break minutes of the shift its latest clock-out ended as the
    timesheet pays them, which is what My timecard shows (rounding, short breaks paid as work,
    meals deducted): one more read, only while the panel sums that shift up. Left as clocked
    when the timesheet cannot be read."""
    ended = state.ended()
    if ended is None or provider_id is None or state.now - ended.clock_out.time > SUMMARY_FOR:
        return state
    try:
        sheet = client.timesheet(TimesheetQuery(
            provider=provider_id, start_date=ended.clocked_in - PAID_MARGIN,
            end_date=ended.clock_out.time + PAID_MARGIN))
    except ApiProblem as problem:
        if problem.status >= 500:
            raise
        return state
    for row in shift_rows(sheet, [], _settings().zone, state.now):
        if any(p.id == ended.clock_out.id for p in row.punches):
            return replace(state, paid=(row.worked, row.breaks))
    return state


def _span(s: Any) -> tuple[datetime, datetime]:
    return (s.start_date, s.end_date) if isinstance(s, TimecardShift) else (s.start, s.end)


def _minutes(delta: timedelta) -> int:
    return int(delta.total_seconds() // 60)


def scheduled_shift(clocked_in: datetime, shifts: Any) -> Any:
    """The shift a clock-in at `clocked_in` belongs to, as the timesheet matches them: the one
    whose start is nearest among those starting at most two hours later and not over by then."""
    candidates = [s for s in shifts
                  if _span(s)[0] - MISSING_SHIFT_TOLERANCE <= clocked_in < _span(s)[1]]
    if not candidates:
        return None
    return min(candidates, key=lambda s: abs(clocked_in - _span(s)[0]))


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
    shift_query = ShiftListQuery(start_date=now - SHIFT_LOOKBACK, end_date=now + SHIFT_WINDOW,
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
    client, provider_id = api(), my_provider_id()
    me, card, shifts, teams, labels = fetch(client, now, provider_id)
    g.shiftdesk_me = me  # the menu reads it; no second call
    return counted_as_paid(build_state(now, me, card, shifts.items, teams.items, labels.items),
                           client, provider_id)


def build_state(now: datetime, me: Any, card: TimecardMe, shifts: list[Any], teams: list[Any],
                labels: list[Any]) -> ClockState:
    """The clock panel's state from what `fetch` read."""
    names, tags = team_names(teams), label_views(labels)
    mine = {str(s.id): shift_view(s, names, tags) for s in shifts
            if s.provider is not None and s.provider == me.provider_id}
    zone = _settings().zone
    today = now.astimezone(zone).date()
    return ClockState(
        now=now, card=card, current=_brief_view(card.current_shift, mine),
        upcoming=_brief_view(card.next_shift, mine),
        today=[p for p in card.punches if p.time.astimezone(zone).date() == today],
        shifts=tuple(sorted(mine.values(), key=lambda v: v.start)),
        grace_minutes=_settings().grace_minutes)


def clock_in_warning(now: datetime, current: TimecardShift | ShiftView | None,
                     upcoming: TimecardShift | ShiftView | None, grace_minutes: int,
                     ) -> str | None:
    """The timesheet warning a clock-in at `now` would get, in words, or None.

    Same rule as the timesheet: the clock-in belongs to the shift whose start is nearest, among
    those starting at most two hours later and not yet over; none is `missing_shift`; beyond the
    grace window it is `clock_in_early` or `clock_in_late`.
    """
    candidates = [_span(s) for s in (current, upcoming) if s is not None]
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


def panel_context(state: ClockState, form: PunchForm | None = None, *, back: str = "clock",
                  problem: str | None = None, warning: str | None = None) -> dict[str, Any]:
    """What the clock panel macro needs, for the clock page and the home page alike."""
    ended = state.ended()
    if ended is not None and state.now - ended.clock_out.time > SUMMARY_FOR:
        ended = None
    return {"state": state, "form": form or PunchForm(formdata=None), "back": back,
            "problem": problem, "warning": warning, "buttons": BUTTONS, "done": DONE,
            "ended": ended}


def _back(form: PunchForm | UndoForm) -> str:
    return "now" if form.back.data == "now" else "clock"


def _page(state: ClockState, form: PunchForm | UndoForm, *, status: int = 200,
          problem: str | None = None, warning: str | None = None) -> Response:
    back = _back(form)
    punch_form = form if isinstance(form, PunchForm) else PunchForm(formdata=None)
    panel = panel_context(state, punch_form, back=back, problem=problem, warning=warning)
    if back == "now" and not is_partial():
        from app.web.home.views import now_page  # the home page includes this panel

        return now_page(panel, status=status)
    return render("clock/index.html", fragment="clock_panel", status=status, now=state.now,
                  panel=panel)


def _done(back: str) -> Response:
    return see_other(url_for("home.index" if back == "now" else "clock.index"))


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
        return _page(state, PunchForm(formdata=None, back=_back(form)),
                     status=200 if is_partial() else 409, problem=_invalid(action, state))
    flash(f"{DONE[action]} at {_clock(datetime.now(UTC))}.", "success")
    if is_partial():
        return _page(load_state(), PunchForm(formdata=None, back=_back(form)))
    return _done(_back(form))


UNDO_REFUSED = ("This clock-out can no longer be undone: undo works only for {window} after "
                "clocking out, on the latest punch. To change it, ask your manager to correct "
                "your timecard.")


@bp.post("/clock/undo")
def undo() -> Response:
    """Take back the clock-out just made: delete that punch while it is the latest, still
    pending, and at most `UNDO_WINDOW` old. Anything else is refused inline."""
    form = UndoForm()
    state = load_state()
    ended = state.ended()
    refused = UNDO_REFUSED.format(window=minutes_words(int(UNDO_WINDOW.total_seconds() // 60)))
    if not form.validate() or ended is None or str(ended.clock_out.id) != form.punch_id.data \
            or not ended.can_undo(datetime.now(UTC)):
        return _page(state, form, status=200 if is_partial() else 409, problem=refused)
    try:
        api().delete_punch(ended.clock_out.id)
    except ApiProblem as problem:
        if problem.status not in (403, 404, 409):
            raise
        return _page(load_state(), form, status=200 if is_partial() else 409, problem=refused)
    flash(f"Clock-out undone. You are clocked in again, on shift since "
          f"{_clock(ended.clocked_in)}.", "success")
    if is_partial():
        return _page(load_state(), form)
    return _done(_back(form))
