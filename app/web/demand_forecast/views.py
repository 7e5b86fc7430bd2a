"""Demand forecast upload (blueprint `demand_forecast`): a CSV of how many staff each role needs
over time windows, checked row by row here, then sent to the API in batches.

`/manage/demand-forecast` shows the upload form, what the file holds, the roles the user may
forecast (with their ids) and a template to download (`template.csv`). A posted file is read
whole first (`rows.read_forecast`): any bad row, or a file that cannot be read, answers 422 with
a table of row, column and message, and nothing is sent. A good file is kept in the user's
server-side session under a token and sent in batches of the API's size (the contract's
1,000, lowered to the `maxBatchSize` a `batch-size-exceeded` answer reports; a refused batch
stores nothing, so it is sent again split). Without JavaScript the post sends every batch and
redirects to the result page (`/manage/demand-forecast/uploads/<token>`); with htmx it answers
a progress bar whose form posts the next batch (`…/rows-from/<rows stored>`) as soon as it
loads, each answer the
next step, until the result. A batch the API refuses stops the upload: the result says which
rows were stored and which were not. The API replaces a stored row with the same role and
window, so sending a file again never doubles the demand.

Only users who may create `DemandForecast` (managers for their teams' roles, administrators)
use these pages. Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import csv
import io
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from typing import Any

from flask import Blueprint, Response, abort, current_app, request, url_for
from werkzeug.exceptions import RequestEntityTooLarge

from app.client import ApiClient
from app.contract.forecasting import (
    MAX_DEMAND_ROWS,
    DemandForecastRow,
    DemandForecastUploadResult,
)
from app.contract.roles import RoleListQuery, RoleRead
from app.contract.users import UserMe
from app.web import nav
from app.web.auth import api, current_user
from app.web.demand_forecast.forms import DemandForecastUploadForm
from app.web.demand_forecast.rows import (
    COLUMNS,
    MAX_ROWS,
    FileProblem,
    RoleIndex,
    qualified,
    read_forecast,
    too_large,
)
from app.web.htmx import is_partial, render, see_other
from app.web.manage_schedule.calendar import local_day, today, week_start, zone
from app.web.uploads import BatchedUpload, RowError

bp = Blueprint("demand_forecast", __name__)

TEMPLATE = "demand_forecast/index.html"
SHOWN_ERRORS = 500
"""Bad-row messages listed at most; the caption says how many there are."""


def _require() -> UserMe:
    """Only those who may upload a forecast use these pages (the API decides again)."""
    me = current_user()
    if not nav.can(me, "create", "DemandForecast"):
        abort(403)
    return me


def _every_team(me: UserMe) -> bool:
    """Whether `me` may forecast for any team (administrators, or a rule without conditions);
    otherwise only their own teams' roles are theirs to forecast."""
    if me.is_admin:
        return True
    return any(rule.subject == "DemandForecast" and rule.action in ("create", "manage")
               and not rule.inverted and rule.conditions in (None, {})
               for rule in me.permissions)


def _roles(client: ApiClient, me: UserMe) -> list[RoleRead]:
    """The roles `me` may forecast, by team and name."""
    roles = client.iterate(client.list_roles, RoleListQuery(page_size=200))
    mine = set(me.team_ids)
    chosen = [r for r in roles if _every_team(me) or r.team in mine]
    return sorted(chosen, key=lambda r: (r.team_name.casefold(), r.name.casefold()))


@bp.url_value_preprocessor
def _file_limit(endpoint: str | None, _values: dict[str, Any] | None) -> None:
    # The app's body limit (1 MB) is for forms; this page takes files of up to
    # `max_upload_bytes`, with room for the multipart envelope. Set before anything parses the
    # body (Flask 3.1): URL value preprocessors run before every `before_request` function,
    # the CSRF check's too.
    if endpoint == "demand_forecast.create":
        request.max_content_length = _max_bytes() + 64 * 1024


def _max_bytes() -> int:
    return int(current_app.config["SHIFTDESK"].max_upload_bytes)


@dataclass(kw_only=True)
class Upload(BatchedUpload):
    """The user's current upload: the checked rows still to send (`[role id, startDate,
    endDate, demand, file row]`), how many are stored, how it ended, and what the result names
    (the window, the roles, where the schedule shows it)."""

    KEY = "demand_forecast_upload"
    COLUMN_OF = {"role": "role", "startDate": "start", "endDate": "end", "demand": "demand"}
    ROW_AT = 4
    UNAVAILABLE = "The server could not store the forecast just now."

    window: list[str]  # the earliest start and the latest end (UTC, ISO 8601)
    first_start: str
    first_team: str
    roles: list[str]
    replaced: int = 0

    def span(self) -> tuple[datetime, datetime]:
        """The earliest start and latest end of the file."""
        return datetime.fromisoformat(self.window[0]), datetime.fromisoformat(self.window[1])

    def schedule_url(self) -> str:
        """The team schedule's week of the file's first row, for its role's team."""
        day = local_day(datetime.fromisoformat(self.first_start))
        return url_for("manage_schedule.index", team=self.first_team,
                       week=week_start(day).isoformat(), view="week")

    def post(self, client: ApiClient, chunk: list[list[Any]]) -> DemandForecastUploadResult:
        return client.upload_demand_forecast([
            DemandForecastRow(role=uuid.UUID(r[0]), start_date=datetime.fromisoformat(r[1]),
                              end_date=datetime.fromisoformat(r[2]), demand=r[3])
            for r in chunk])

    def record(self, chunk: list[list[Any]], result: DemandForecastUploadResult) -> None:
        self.replaced += result.replaced


def _context(me: UserMe, client: ApiClient) -> dict[str, Any]:
    """What the page shows beside the form: the roles to forecast and the file's rules."""
    return {"roles": _roles(client, me), "columns": COLUMNS, "max_rows": MAX_ROWS,
            "max_mb": f"{_max_bytes() / (1024 * 1024):.3g}", "zone_name": zone().key}


def _page(form: DemandForecastUploadForm, *, status: int = 200,
          errors: list[RowError] | None = None, upload: Upload | None = None) -> Response:
    me = _require()
    context = {} if is_partial() else _context(me, api())
    if upload is not None and upload.failed_rows:
        errors = [RowError(*r) for r in upload.failed_rows]
    return render(TEMPLATE, fragment="forecast_upload", status=status, form=form,
                  errors=errors or [], shown=SHOWN_ERRORS, upload=upload, **context)


@bp.get("/manage/demand-forecast")
def index() -> Response:
    """The upload form, the file's columns, the roles and the template."""
    _require()
    return _page(DemandForecastUploadForm(formdata=None))


@bp.get("/manage/demand-forecast/template.csv")
def template() -> Response:
    """A CSV to start from: the header and two rows (day and night) for one of the user's
    roles, next Monday."""
    me = _require()
    roles = _roles(api(), me)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(COLUMNS)
    monday = week_start(today()) + timedelta(days=7)
    role = roles[0] if roles else None
    # A name that several of the user's teams use would be ambiguous: then with the team's.
    names = [r.name.casefold() for r in roles]
    label = ("Registered Nurse" if role is None else role.name
             if names.count(role.name.casefold()) == 1 else qualified(role))
    for begin, end, demand in ((time(7), time(19), 4), (time(19), time(7), 2)):
        last = monday + timedelta(days=1) if end < begin else monday
        writer.writerow([label, f"{monday.isoformat()} {begin:%H:%M}",
                         f"{last.isoformat()} {end:%H:%M}", demand])
    return Response(out.getvalue(), mimetype="text/csv", headers={
        "Content-Disposition": 'attachment; filename="demand-forecast-template.csv"'})


def _refused(form: DemandForecastUploadForm, errors: list[RowError] | None = None) -> Response:
    return _page(form, status=422, errors=errors)


@bp.post("/manage/demand-forecast")
def create() -> Response:
    """Read the file: bad rows come back as a table; a good file is sent (with htmx: the first
    step of the progress bar; without: every batch, then the result page)."""
    me = _require()
    form = DemandForecastUploadForm()
    if not form.validate():
        return _refused(form)
    name, content = form.content()
    client = api()
    roles = _roles(client, me)
    try:
        lines, errors = read_forecast(content, RoleIndex.of(roles), zone(),
                                      max_bytes=_max_bytes())
    except FileProblem as problem:
        form.file.errors = [str(problem)]
        return _refused(form)
    if errors:
        form.form_errors = [f"“{name}” was not sent: {_count(len({e.row for e in errors}))} "
                            "to fix, listed below. Nothing was stored."]
        return _refused(form, errors)
    teams = {r.id: r for r in roles}
    upload = Upload(
        token=secrets.token_urlsafe(12), file_name=name,
        rows=[[str(x.role), x.start.isoformat(), x.end.isoformat(), x.demand, x.row]
              for x in lines],
        total=len(lines), batch=MAX_DEMAND_ROWS,
        window=[min(x.start for x in lines).isoformat(), max(x.end for x in lines).isoformat()],
        first_start=lines[0].start.isoformat(), first_team=str(teams[lines[0].role].team),
        roles=sorted({qualified(teams[x.role]) for x in lines}))
    if is_partial():
        upload.save()
        return _page(form, upload=upload)
    upload.send_all(client)
    return see_other(url_for("demand_forecast.show", token=upload.token))


@bp.post("/manage/demand-forecast/uploads/<token>/rows-from/<int:offset>")
def send(token: str, offset: int) -> Response:
    """Send the batch of the current upload that starts after `offset` stored rows (once: a
    repeated post of a batch already sent sends nothing) and answer the next step, or the
    result."""
    _require()
    upload = Upload.kept(token)
    if upload is None:
        return _gone()
    upload.send_from(offset, api())
    if upload.finished and not is_partial():
        return see_other(url_for("demand_forecast.show", token=token))
    return _page(DemandForecastUploadForm(formdata=None), upload=upload)


@bp.get("/manage/demand-forecast/uploads/<token>")
def show(token: str) -> Response:
    """The current upload: its progress, or what was stored."""
    _require()
    upload = Upload.kept(token)
    if upload is None:
        return _gone()
    return _page(DemandForecastUploadForm(formdata=None), upload=upload)


def _gone() -> Response:
    """An upload this session no longer holds (another file replaced it, or the session
    ended): say so on the form. What it sent stays stored."""
    form = DemandForecastUploadForm(formdata=None)
    form.form_errors = ["That upload is no longer in progress here (a newer file replaced it, "
                        "or you signed in again). Rows it sent stay stored; to be sure of the "
                        "rest, upload the file again: stored rows are replaced, not doubled."]
    return _page(form, status=404)


@bp.errorhandler(RequestEntityTooLarge)
def file_too_large(_exc: RequestEntityTooLarge) -> Response:
    """A file beyond the page's limit: said on the form, not on an error page."""
    form = DemandForecastUploadForm(formdata=None)
    form.file.errors = [too_large(_max_bytes())]
    return _page(form, status=413)


def _count(rows: int) -> str:
    return "1 row" if rows == 1 else f"{rows:,} rows"
