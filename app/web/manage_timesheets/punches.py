"""Timesheet punches a manager writes (blueprint `manage_timesheets`): add a punch, delete one, and
fix the team's missing clock-outs in one action.

`new_punch`/`create_punch` add a punch for a provider of the timesheet (action, a date and time
on the site's clock, a note for the provider), created approved at once through `POST
/v1/timekeeping/timecard/punches`; a time the clocks skip or repeat is asked about in words.
Without JavaScript the form is a page and success goes back (303) to the provider's section; htmx
from the timesheet opens it in the provider's section, which then refreshes in place.
`confirm_delete_punch`/`delete_punch` delete one after a confirmation. `fix_clock_outs` proposes
a clock-out at the scheduled end of every shift whose clock-in has none (the `no_clock_out`
errors of the period), and `apply_clock_outs` adds the ones the manager keeps, concurrently in
batches, then reports each one: added, or refused with the API's reason. Fixing a punch's time
is `views.review`. Every form carries `back`, the timesheet address to return to.

Must not import `app.api`; it reaches the API only through `app.client`. Rules (allowed next
actions, sign-offs, who may write) are the API's answers, shown inline.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, tzinfo
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from flask import Response, current_app, flash, request, url_for
from wtforms import DateField, HiddenField, RadioField, SelectField, StringField, TimeField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, InputRequired, Length

from app.client import ApiClient, ApiProblem
from app.contract.timekeeping import PunchCreate, TimesheetPunchRead
from app.web.auth import api
from app.web.forms import BaseForm, apply_problem
from app.web.htmx import is_partial, render, render_macro, see_other, target
from app.web.manage_schedule.calendar import zone
from app.web.manage_timesheets.views import (
    ACTIONS,
    BATCH,
    ROWS,
    Period,
    Sheet,
    bp,
    build_period,
)
from app.web.security import safe_next
from app.web.worked_days import ERRORS, ShiftRow

NEW = "manage_timesheets/punch_new.html"
DELETE = "manage_timesheets/punch_delete.html"
FIX = "manage_timesheets/fix_clock_outs.html"
NO_CLOCK_OUT = ERRORS["no_clock_out"]
FIX_NOTE = "Clock-out added at the scheduled end of the shift."
_WIRE_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+0000")
_WIRE_ACTION = re.compile(r"\b(clock_in|clock_out|break_start|break_end)\b")


class PunchAddForm(BaseForm):
    """A punch a manager adds: what, when on the site's clock, and why (shown to the provider)."""

    pointer_map = {"/time": "time"}

    provider = HiddenField(validators=[InputRequired("Choose the provider again.")])
    action = SelectField("Punch", choices=[SelectChoice(k, v) for k, v in ACTIONS.items()],
                         validators=[InputRequired("Choose what to punch.")])
    date = DateField("Date", validators=[InputRequired("Enter the date of the punch.")])
    time = TimeField("Time", validators=[InputRequired("Enter the time of the punch.")])
    fold = RadioField("Which one", choices=[], validate_choice=False)
    admin_note = StringField("Note for the provider", validators=[
        DataRequired("Tell the provider why you add this punch."), Length(max=500)])


class ClockOutFixForm(BaseForm):
    """The note every added clock-out carries."""

    admin_note = StringField("Note for the providers", validators=[
        DataRequired("Tell the providers why their clock-out is added."), Length(max=500)])


class WallClockProblem(ValueError):
    """A date and time the site's clock skips (clocks go forward) or shows twice (they go back)."""

    def __init__(self, message: str, choices: list[SelectChoice] | None = None) -> None:
        super().__init__(message)
        self.choices = choices or []


def _words(instant: datetime, name: str) -> str:
    return str(current_app.jinja_env.filters[name](instant))


def wall_instant(day: date, at: time, fold: str | None, site: tzinfo) -> datetime:
    """The UTC instant of `day` at `at` on the site's clock. Raises `WallClockProblem` for a time
    the clocks skip, and for one they show twice unless `fold` ("0" the first, "1" the second)
    says which."""
    naive = datetime.combine(day, at)
    first, second = naive.replace(tzinfo=site, fold=0), naive.replace(tzinfo=site, fold=1)
    if first.utcoffset() == second.utcoffset():
        return first.astimezone(UTC)
    shown = f"{at.hour % 12 or 12}:{at.minute:02d} {'AM' if at.hour < 12 else 'PM'}"
    when = _words(first, "local_date")
    if first.astimezone(UTC).astimezone(site).replace(tzinfo=None) != naive:
        after = _words(first.astimezone(UTC), "local_time")
        raise WallClockProblem(
            f"{shown} does not exist on {when}: the clocks go forward an hour that night. "
            f"Enter a time after the change, such as {after}.")
    if fold in ("0", "1"):
        return (second if fold == "1" else first).astimezone(UTC)
    raise WallClockProblem(
        f"{shown} happens twice on {when}: the clocks go back an hour that night. "
        "Choose which one you mean.",
        [SelectChoice("0", f"The first {shown} ({first.tzname()}, before the clocks go back)"),
         SelectChoice("1", f"The second {shown} ({second.tzname()}, after the clocks go back)")])


def staff_sentence(text: str) -> str:
    """An API sentence with wire timestamps and punch actions in the page's words."""
    text = _WIRE_TIME.sub(lambda m: _words(datetime.strptime(m.group(0), "%Y-%m-%dT%H:%M:%S%z"),
                                           "local_datetime"), text)
    text = _WIRE_ACTION.sub(lambda m: ACTIONS[m.group(0)].lower(), text)
    return text[:1].upper() + text[1:]


def _back() -> str:
    """The timesheet address to return to (from the form, or the query of a GET)."""
    default = url_for("manage_timesheets.index")
    wanted = safe_next(request.values.get("back"), default)
    return wanted if wanted.startswith(default) else default


def _period() -> Period:
    return build_period(dict(parse_qsl(urlsplit(_back()).query)))


def _sheet(period: Period, provider: str | None) -> Sheet | None:
    return next((s for s in period.sheets if str(s.provider.id) == provider), None)


def _row(sheet: Sheet | None, key: str | None) -> ShiftRow | None:
    if sheet is None or not key:
        return None
    return next((r for r in sheet.rows if r.key == key), None)


def _anchor(back: str, provider: Any) -> str:
    return f"{back}#sheet-{provider}"


def missing_punch(row: ShiftRow) -> str | None:
    """The punch a row is missing: the clock-in of a shift not worked or only clocked out of,
    the clock-out of a clock-in never closed."""
    if row.shift is not None and not any(p.action == "clock_in" for p in row.counted):
        return "clock_in"
    return "clock_out" if row.open else None


def _suggestion(row: ShiftRow | None) -> tuple[str, datetime | None] | None:
    """The punch a row is missing and its scheduled time (None without a shift)."""
    action = missing_punch(row) if row is not None else None
    if row is None or action is None:
        return None
    if row.shift is None:
        return action, None
    return action, row.shift.start_date if action == "clock_in" else row.shift.end_date


def _inline(sheet: Sheet | None) -> bool:
    """Whether htmx asked from the timesheet for the provider's section (the form in place)."""
    return sheet is not None and is_partial() and target() == f"sheet-{sheet.provider.id}"


def _show_new(form: PunchAddForm, period: Period, sheet: Sheet | None, row: ShiftRow | None,
              status: int = 200) -> Response:
    """The form: in the provider's section of the timesheet for htmx from there (its fields'
    ids carry the provider's), else the page (htmx: its form alone)."""
    if sheet is not None and _inline(sheet):
        for bound in form:
            bound.id = bound.label.field_id = f"{bound.name}-{sheet.provider.id}"
        return render_macro(ROWS, "person_section", sheet, period, adding=form,
                            adding_row=row.key if row else "", status=status)
    return render(NEW, fragment="punch_form", form=form, period=period, sheet=sheet, row=row,
                  back=_back(), row_key=row.key if row else "", status=status)


@bp.get("/manage/timesheets/punches/new")
def new_punch() -> Response:
    """The form to add a punch for a provider (`provider=`), prefilled from a row (`row=`) with
    the punch it is missing, at its scheduled time."""
    period = _period()
    sheet = _sheet(period, request.args.get("provider"))
    if sheet is None:
        flash("Choose the provider on this timesheet to add a punch for.", "error")
        return see_other(_back())
    row = _row(sheet, request.args.get("row"))
    form = PunchAddForm(formdata=None, provider=str(sheet.provider.id),
                        date=row.day if row else None)
    suggested = _suggestion(row)
    if suggested is not None:
        form.action.data = suggested[0]
    if suggested is not None and suggested[1] is not None:
        local = suggested[1].astimezone(zone())
        form.date.data = local.date()
        form.time.data = local.time().replace(second=0, microsecond=0)
        if local.replace(fold=0).utcoffset() != local.replace(fold=1).utcoffset():
            form.fold.data = str(local.fold)  # which of the hour the clocks repeat
    return _show_new(form, period, sheet, row)


@bp.post("/manage/timesheets/punches")
def create_punch() -> Response:
    """Add an approved punch with the manager's note; problems shown on the form."""
    form = PunchAddForm()
    period = _period()
    sheet = _sheet(period, form.provider.data)
    row = _row(sheet, request.form.get("row"))
    if not form.validate():
        return _show_new(form, period, sheet, row, 422)
    try:
        provider = uuid.UUID(form.provider.data)
    except ValueError:
        form.form_errors = ["Choose the provider again from the timesheet."]
        return _show_new(form, period, sheet, row, 422)
    try:
        at = wall_instant(form.date.data, form.time.data, form.fold.data, zone())
    except WallClockProblem as problem:
        form.time.errors = [str(problem)]
        form.fold.choices = problem.choices
        return _show_new(form, period, sheet, row, 422)
    body = PunchCreate(provider=provider, action=form.action.data, time=at,
                       state="approved", admin_note=form.admin_note.data.strip())
    try:
        api().create_punch(body)
    except ApiProblem as problem:
        if problem.status >= 500:
            raise
        _explain(form, problem)
        return _show_new(form, period, sheet, row, 409 if problem.status == 409 else 422)
    name = sheet.name if sheet else "the provider"
    flash(f"{ACTIONS[body.action]} at {_words(at, 'local_datetime')} added for {name}, approved "
          "with your note.", "success")
    if _inline(sheet):  # the section again, in place, with the punch
        fresh = _period()
        again = _sheet(fresh, form.provider.data)
        if again is not None:
            return render_macro(ROWS, "person_section", again, fresh)
    return see_other(_anchor(_back(), form.provider.data))


def _explain(form: PunchAddForm, problem: ApiProblem) -> None:
    """The API's refusal on the form, in the page's words; a refused action on the action."""
    if problem.code == "invalid-punch-action":
        form.action.errors = [staff_sentence(problem.detail)]
        return
    apply_problem(form, problem)
    form.form_errors = [staff_sentence(m) for m in form.form_errors]
    for field in form:
        field.errors = [staff_sentence(m) for m in field.errors]


def _punch(period: Period, punch_id: uuid.UUID,
           ) -> tuple[Sheet, ShiftRow, TimesheetPunchRead] | None:
    for sheet in period.sheets:
        for row in sheet.rows:
            for punch in row.punches:
                if punch.id == punch_id:
                    return sheet, row, punch
    return None


@bp.get("/manage/timesheets/punches/<uuid:punch_id>/delete")
def confirm_delete_punch(punch_id: uuid.UUID) -> Response:
    """Ask before deleting a punch of the timesheet."""
    found = _punch(_period(), punch_id)
    if found is None:
        flash("That punch is no longer on this timesheet.", "error")
        return see_other(_back())
    sheet, row, punch = found
    return render(DELETE, fragment="punch_delete", sheet=sheet, row=row, punch=punch,
                  back=_back(), problem=None)


@bp.post("/manage/timesheets/punches/<uuid:punch_id>/delete")
def delete_punch(punch_id: uuid.UUID) -> Response:
    """Delete a punch; the API's refusal shows on the confirmation (a punch not on this
    timesheet: through the UI's problem handlers, back with the message)."""
    period = _period()
    found = _punch(period, punch_id)
    try:
        api().delete_punch(punch_id)
    except ApiProblem as problem:
        if problem.status >= 500 or found is None:
            raise  # not this timesheet's punch: the UI's handlers show the refusal
        sheet, row, punch = found
        return render(DELETE, fragment="punch_delete", sheet=sheet, row=row, punch=punch,
                      back=_back(), problem=staff_sentence(problem.detail),
                      status=409 if problem.status == 409 else 422)
    if found is None:
        flash("Punch deleted.", "success")
    else:
        sheet, _, punch = found
        flash(f"Deleted {sheet.name}'s {ACTIONS[punch.action].lower()} at "
              f"{_words(punch.time, 'local_datetime')}.", "success")
    back = _back()
    return see_other(_anchor(back, found[0].provider.id) if found else back)


@dataclass
class Proposal:
    """A clock-out the page proposes: at the scheduled end of a shift clocked into and not out."""

    sheet: Sheet
    row: ShiftRow
    problem: str | None = None

    @property
    def key(self) -> str:
        """The row's key (the shift's id): the value of its keep checkbox."""
        return self.row.key

    @property
    def at(self) -> datetime:
        """The proposed clock-out: the shift's scheduled end."""
        assert self.row.shift is not None
        return self.row.shift.end_date

    @property
    def later_day(self) -> bool:
        """Whether the clock-out falls on a later day than the row's (a night shift)."""
        return self.at.astimezone(zone()).date() > self.row.day


def proposals(period: Period) -> tuple[list[Proposal], list[Proposal]]:
    """The period's missing clock-outs: those with a scheduled end that has passed (proposed),
    and the others (no shift, or a shift still under way), which need a time from the manager."""
    proposed, by_hand = [], []
    for sheet in period.sheets:
        for row in sheet.rows:
            if NO_CLOCK_OUT not in row.errors or not row.open:
                continue
            if row.shift is not None and row.shift.end_date <= period.now:
                proposed.append(Proposal(sheet, row))
            else:
                by_hand.append(Proposal(sheet, row, "No scheduled shift to end it"
                                        if row.shift is None else "The shift is still under way"))
    return proposed, by_hand


@bp.app_template_global()
def punch_missing(row: ShiftRow) -> str | None:
    """`missing_punch` for the rows' templates."""
    return missing_punch(row)


@bp.app_template_global()
def missing_clock_outs(period: Period) -> int:
    """How many rows of the period have a clock-in without a clock-out (the timesheet's link)."""
    return sum(1 for s in period.sheets for r in s.rows if NO_CLOCK_OUT in r.errors and r.open)


def _show_fix(period: Period, form: ClockOutFixForm, kept: set[str] | None = None,
              results: list[Proposal] | None = None, status: int = 200) -> Response:
    proposed, by_hand = proposals(period)
    return render(FIX, fragment="fix_clock_outs", period=period, form=form, proposed=proposed,
                  by_hand=by_hand, results=results or [], back=period.url(),
                  kept={p.key for p in proposed} if kept is None else kept, status=status)


@bp.get("/manage/timesheets/fix-clock-outs")
def fix_clock_outs() -> Response:
    """The team's missing clock-outs, each proposed at the scheduled end of its shift."""
    period = build_period(request.args)
    return _show_fix(period, ClockOutFixForm(formdata=None, admin_note=FIX_NOTE))


def add_clock_outs(client: ApiClient, kept: list[Proposal], note: str) -> None:
    """Add the kept clock-outs with concurrent POSTs, `BATCH` at a time; each refused one gets
    the API's reason (the others are added all the same)."""

    def one(proposal: Proposal) -> ApiProblem | None:
        try:
            client.create_punch(PunchCreate(provider=proposal.sheet.provider.id,
                                            action="clock_out", time=proposal.at,
                                            state="approved", admin_note=note))
        except ApiProblem as problem:
            if problem.status >= 500:
                raise
            return problem
        return None

    for at in range(0, len(kept), BATCH):
        batch = kept[at:at + BATCH]
        answers = client.concurrently(*[lambda p=p: one(p) for p in batch])
        for proposal, problem in zip(batch, answers, strict=True):
            if problem is not None:  # in words here: the calls ran outside the request
                proposal.problem = staff_sentence("; ".join([problem.detail, *(
                    e.message for e in problem.field_errors if e.message not in problem.detail)]))


@bp.post("/manage/timesheets/fix-clock-outs")
def apply_clock_outs() -> Response:
    """Add the kept clock-outs with the note; all added: back to the timesheet with a message for
    each; any refused: the page again with each one's result."""
    form = ClockOutFixForm()
    period = _period()
    wanted = set(request.form.getlist("keep"))
    proposed, _ = proposals(period)
    if not form.validate():
        return _show_fix(period, form, wanted, status=422)
    kept = [p for p in proposed if p.key in wanted]
    gone = wanted - {p.key for p in proposed}
    if not kept and not gone:
        form.form_errors = ["Keep at least one clock-out to add, or go back to the timesheet."]
        return _show_fix(period, form, wanted, status=422)
    add_clock_outs(api(), kept, form.admin_note.data.strip())
    for proposal in kept:
        if proposal.problem is None:
            flash(f"Clock-out added for {proposal.sheet.name}'s shift of "
                  f"{_words(proposal.row.shift.start_date, 'local_date')} at "  # type: ignore[union-attr]
                  f"{_words(proposal.at, 'local_time')}.", "success")
    refused = [p for p in kept if p.problem is not None]
    if not refused and not gone:
        return see_other(period.url())
    if gone:
        form.form_errors.append(
            f"{len(gone)} of the kept shifts no longer miss a clock-out on this timesheet (fixed "
            "meanwhile, or not your team's): nothing was added for "
            + ("it." if len(gone) == 1 else "them."))
    fresh = build_period(dict(parse_qsl(urlsplit(_back()).query)))
    return _show_fix(fresh, form, set(), refused, status=409)
