"""`ApiClient`: the typed `/v1` client the staff UI uses — over HTTP or in-process, same code.

One `httpx.Client` (pooled, explicit timeouts) is shared per process; an `ApiClient` wraps it
with one user's bearer token. Methods mirror the API (`list_shifts`, `approve_time_off_request`)
and take and return contract models. Problem documents raise `ApiProblem` subclasses; transport
failures and non-problem errors raise `ApiUnavailable`. Only idempotent reads are retried, and
only when the connection failed. Must not import Flask, the API or the IdP.
"""

from __future__ import annotations

import contextvars
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from email.message import Message
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

import httpx
from pydantic import BaseModel, ValidationError

from app import request_ids
from app.client.errors import ApiProblem, ApiUnavailable, problem_exception
from app.contract import (
    appointment_types as at,
)
from app.contract import (
    appointments as ap,
)
from app.contract import (
    audit,
    balances,
    employment_types,
    forecasting,
    labels,
    pay_codes,
    pay_preview,
    people,
    permissions,
    providers,
    reports,
    roles,
    shifts,
    sign_offs,
    teams,
    time_off,
    timekeeping,
    users,
    work_rules,
)
from app.contract import availability as av
from app.contract import notifications as nt
from app.contract import shift_swaps as sw
from app.contract.common import ListQuery
from app.contract.problems import Problem

M = TypeVar("M", bound=BaseModel)

DEFAULT_TIMEOUT = httpx.Timeout(10.0, connect=3.0)
READ_RETRIES = 2
_IDEMPOTENT = frozenset({"GET", "HEAD", "OPTIONS"})
KEEPALIVE_SECONDS = 2.0
"""How long an idle connection to the API is kept for the next request. Shorter than the API
server's own wait for an idle client (gunicorn's `keepalive`, 5 s by default in
`app.gunicorn_conf`): were they equal, the client would now and then send a request down a
connection the server was closing at that moment, and get "connection reset" for an answer."""
_LOST_ANSWER = (httpx.ReadError, httpx.WriteError)
"""The connection broke after the request may have reached the API: a read is asked again,
a write is not (it may have been done)."""


def build_http(*, base_url: str | None = None, wsgi_app: Any = None,
               timeout: httpx.Timeout = DEFAULT_TIMEOUT) -> httpx.Client:
    """The shared HTTP client: to `base_url` over the network, or into `wsgi_app` in-process."""
    if (base_url is None) == (wsgi_app is None):
        raise ValueError("give exactly one of base_url or wsgi_app")
    hooks = {"request": [_pass_request_id]}
    if wsgi_app is not None:
        return httpx.Client(transport=httpx.WSGITransport(app=own_context(wsgi_app)),
                            base_url="http://shiftdesk.internal", timeout=timeout,
                            event_hooks=hooks)
    limits = httpx.Limits(max_connections=50, max_keepalive_connections=20,
                          keepalive_expiry=KEEPALIVE_SECONDS)
    return httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout, limits=limits,
                        event_hooks=hooks)


def own_context(wsgi_app: Any) -> Callable[[dict[str, Any], Any], Any]:
    """`wsgi_app`, each call of it run in a context of its own, as a call over the network is.

    The UI calls the API in-process from inside its own request, and `concurrently` from
    copies of that request's context. Flask would take the app context it finds there (the
    same app's) for the API's request, so calls running side by side, and the page that
    made them, would share one `g`: each other's request id, start time and rate-limit
    state, overwritten or popped twice. In an empty context each call pushes its own; the
    request id travels in the `X-Request-Id` header, as over HTTP.
    """
    def call(environ: dict[str, Any], start_response: Any) -> Any:
        return contextvars.Context().run(wsgi_app, environ, start_response)

    return call


def _pass_request_id(outgoing: httpx.Request) -> None:
    """Send the id of the request being served along, so the API logs its lines under it."""
    request_id = request_ids.current()
    if request_id is not None and request_ids.HEADER not in outgoing.headers:
        outgoing.headers[request_ids.HEADER] = request_id


def _params(query: BaseModel | None) -> dict[str, Any]:
    """Query parameters of a model: wire names, lists comma-joined, defaults left out."""
    if query is None:
        return {}
    data = query.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)
    return {k: ",".join(map(str, v)) if isinstance(v, list) else v for k, v in data.items()}


def _body(model: BaseModel | list[BaseModel]) -> Any:
    if isinstance(model, list):
        return [m.model_dump(mode="json", by_alias=True, exclude_unset=True) for m in model]
    return model.model_dump(mode="json", by_alias=True, exclude_unset=True)


def _version(version: int | None) -> dict[str, int]:
    """The `version` member of a write body, left out when there is none."""
    return {} if version is None else {"version": version}


def _id(value: uuid.UUID | str) -> str:
    return quote(str(value), safe="")


FILES_PATH = "/v1/reporting/files/"
"""Where the API's signed report links point (the token is the rest of the path)."""


@dataclass(frozen=True)
class DownloadedFile:
    """A report file fetched through a signed link: its name, media type and bytes."""

    name: str
    media_type: str
    content: bytes


def _file_name(disposition: str, default: str) -> str:
    message = Message()
    message["Content-Disposition"] = disposition
    return str(message.get_filename() or default)


class ApiClient:
    """The `/v1` API as one user sees it."""

    def __init__(self, http: httpx.Client, token: str | None = None) -> None:
        self._http = http
        self._token = token

    # -- transport ---------------------------------------------------------------------------

    def _send(self, method: str, path: str, *, params: dict[str, Any] | None = None,
              json: Any = None, files: dict[str, Any] | None = None) -> httpx.Response:
        headers = {"Accept": "application/json, application/problem+json"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        attempts = READ_RETRIES + 1 if method in _IDEMPOTENT else 1
        for attempt in range(attempts):
            try:
                response = self._http.request(method, "/v1" + path, params=params, json=json,
                                              files=files, headers=headers)
                break
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError,
                    *_LOST_ANSWER) as exc:
                if attempt + 1 == attempts:
                    if isinstance(exc, _LOST_ANSWER):
                        raise ApiUnavailable(f"the API did not answer: {exc}") from exc
                    raise ApiUnavailable(f"could not reach the API: {exc}") from exc
                time.sleep(0.05 * 2**attempt)
            except httpx.HTTPError as exc:
                raise ApiUnavailable(f"the API did not answer: {exc}") from exc
        if response.is_success:
            return response
        if response.headers.get("content-type", "").startswith("application/problem+json"):
            try:
                problem = Problem.model_validate_json(response.content)
            except ValidationError as exc:
                raise ApiUnavailable(f"malformed problem from the API ({response.status_code})") \
                    from exc
            raise problem_exception(problem)
        raise ApiUnavailable(f"the API answered {response.status_code} without a problem document")

    def _call(self, method: str, path: str, answer: type[M], *, query: BaseModel | None = None,
              body: BaseModel | list[BaseModel] | None = None) -> M:
        response = self._send(method, path, params=_params(query),
                              json=None if body is None else _body(body))
        try:
            return answer.model_validate_json(response.content)
        except ValidationError as exc:
            raise ApiUnavailable(f"unexpected answer from {method} {path}: {exc}") from exc

    def _delete(self, path: str) -> None:
        self._send("DELETE", path)

    # -- helpers -----------------------------------------------------------------------------

    def iterate(self, list_method: Callable[[Any], Any], query: ListQuery) -> Iterator[Any]:
        """Every item of a paginated list, following cursors: `iterate(api.list_shifts, q)`."""
        cursor: str | None = None
        while True:
            page = list_method(query.model_copy(update={"cursor": cursor}))
            yield from page.items
            cursor = page.cursor
            if cursor is None:
                return

    @staticmethod
    def concurrently(*calls: Callable[[], Any]) -> list[Any]:
        """Run independent calls at the same time; results in order; the first problem raises."""
        if len(calls) <= 1:
            return [call() for call in calls]
        with ThreadPoolExecutor(max_workers=min(8, len(calls))) as pool:
            # Each call runs in a copy of this context: the request id travels along.
            futures = [pool.submit(contextvars.copy_context().run, call) for call in calls]
            return [future.result() for future in futures]

    # -- users, teams, roles, providers, settings -----------------------------------------------

    def me(self) -> users.UserMe:
        """The signed-in user and what they may do."""
        return self._call("GET", "/users/me", users.UserMe)

    def get_user(self, user_id: uuid.UUID) -> users.UserRead:
        """One user."""
        return self._call("GET", f"/users/{_id(user_id)}", users.UserRead)

    def list_users(self, query: users.UserListQuery | None = None) -> users.UserPage:
        """A page of users."""
        return self._call("GET", "/users", users.UserPage, query=query)

    def list_permissions(self, query: permissions.PermissionListQuery | None = None,
                         ) -> permissions.PermissionPage:
        """A page of permission rules, role by role in evaluation order (extension)."""
        return self._call("GET", "/authorization/permissions", permissions.PermissionPage,
                          query=query)

    def get_permission(self, permission_id: uuid.UUID) -> permissions.PermissionRead:
        """One permission rule (extension)."""
        return self._call("GET", f"/authorization/permissions/{_id(permission_id)}",
                          permissions.PermissionRead)

    def update_permission(self, permission_id: uuid.UUID, body: permissions.PermissionUpdate,
                          ) -> permissions.PermissionRead:
        """Replace a rule's conditions (beta)."""
        return self._call("PATCH", f"/authorization/permissions/{_id(permission_id)}",
                          permissions.PermissionRead, body=body)

    def dry_run_permission(self, permission_id: uuid.UUID, body: permissions.PermissionDryRun,
                           ) -> permissions.PermissionDryRunRead:
        """What a user could do under a rule's proposed conditions beside today (extension);
        nothing is saved."""
        return self._call("POST", f"/authorization/permissions/{_id(permission_id)}/dry-run",
                          permissions.PermissionDryRunRead, body=body)

    def list_teams(self, query: teams.TeamListQuery | None = None) -> teams.TeamPage:
        """A page of teams."""
        return self._call("GET", "/teams", teams.TeamPage, query=query)

    def list_roles(self, query: roles.RoleListQuery | None = None) -> roles.RolePage:
        """A page of roles."""
        return self._call("GET", "/roles", roles.RolePage, query=query)

    def upload_demand_forecast(self, rows: list[forecasting.DemandForecastRow],
                               ) -> forecasting.DemandForecastUploadResult:
        """Store forecast rows, all or none (at most the API's batch size: `batch-size-exceeded`
        reports it). A row with a stored row's role and window replaces that row."""
        return self._call("POST", "/forecasting/demand", forecasting.DemandForecastUploadResult,
                          body=list(rows))

    def get_coverage(self, query: forecasting.CoverageQuery) -> forecasting.CoverageRead:
        """A team's staffing coverage against demand, per role and interval."""
        return self._call("GET", "/forecasting/coverage", forecasting.CoverageRead, query=query)

    def list_providers(self, query: providers.ProviderListQuery | None = None,
                       ) -> providers.ProviderWithRelationsPage:
        """A page of providers with their skills, team and manager."""
        return self._call("GET", "/providers", providers.ProviderWithRelationsPage, query=query)

    def count_providers(self, query: providers.ProviderFilter | None = None,
                        ) -> providers.ProviderCount:
        """How many providers the list would give with the same filters."""
        return self._call("GET", "/providers/count", providers.ProviderCount, query=query)

    def get_provider(self, provider_id: uuid.UUID) -> providers.ProviderWithRelations:
        """One provider with their skills, team, manager and roles."""
        return self._call("GET", f"/providers/{_id(provider_id)}",
                          providers.ProviderWithRelations)

    def get_employment_type(self, employment_type_id: uuid.UUID,
                            ) -> employment_types.EmploymentTypeRead:
        """One employment type."""
        return self._call("GET", f"/employment-types/{_id(employment_type_id)}",
                          employment_types.EmploymentTypeRead)

    def import_people(self, rows: list[people.PersonImportRow]) -> people.PeopleImportResult:
        """Create or update people, all or none (at most the API's batch size:
        `batch-size-exceeded` reports it); matched on `importedId`."""
        return self._call("POST", "/people/import", people.PeopleImportResult, body=list(rows))

    def create_password_link(self, user_id: uuid.UUID) -> people.PasswordLink:
        """A new one-time set-password link for a person (ending their earlier ones)."""
        return self._call("POST", f"/users/{_id(user_id)}/password-link", people.PasswordLink)

    def list_employment_types(self, query: employment_types.EmploymentTypeListQuery | None = None,
                              ) -> employment_types.EmploymentTypePage:
        """A page of employment types."""
        return self._call("GET", "/employment-types", employment_types.EmploymentTypePage,
                          query=query)

    def list_labels(self, query: labels.LabelListQuery | None = None) -> labels.LabelPage:
        """A page of labels."""
        return self._call("GET", "/settings/labels", labels.LabelPage, query=query)

    def get_label(self, label_id: uuid.UUID) -> labels.LabelRead:
        """One label."""
        return self._call("GET", f"/settings/labels/{_id(label_id)}", labels.LabelRead)

    def create_label(self, body: labels.LabelCreate) -> labels.LabelRead:
        """Create a label."""
        return self._call("POST", "/settings/labels", labels.LabelRead, body=body)

    def update_label(self, label_id: uuid.UUID, body: labels.LabelUpdate) -> labels.LabelRead:
        """Change a label (the members set on `body`)."""
        return self._call("PUT", f"/settings/labels/{_id(label_id)}", labels.LabelRead,
                          body=body)

    def delete_label(self, label_id: uuid.UUID) -> None:
        """Delete a label: it comes off every shift segment that carried it."""
        self._delete(f"/settings/labels/{_id(label_id)}")

    def label_usage(self, label_id: uuid.UUID) -> labels.LabelUsage:
        """Where a label is in use: its shifts by team (extension)."""
        return self._call("GET", f"/settings/labels/{_id(label_id)}/usage", labels.LabelUsage)

    def list_pay_codes(self, query: pay_codes.PayCodeListQuery | None = None,
                       ) -> pay_codes.PayCodePage:
        """A page of pay codes."""
        return self._call("GET", "/settings/pay-codes", pay_codes.PayCodePage, query=query)

    # -- shifts --------------------------------------------------------------------------------

    def list_shifts(self, query: shifts.ShiftListQuery | None = None) -> shifts.ShiftPage:
        """A page of shifts."""
        return self._call("GET", "/shifts", shifts.ShiftPage, query=query)

    def get_shift(self, shift_id: uuid.UUID) -> shifts.ShiftRead:
        """One shift."""
        return self._call("GET", f"/shifts/{_id(shift_id)}", shifts.ShiftRead)

    def create_shift(self, body: shifts.ShiftCreate) -> shifts.ShiftRead:
        """Create a shift (open when it has no provider)."""
        return self._call("POST", "/shifts", shifts.ShiftRead, body=body)

    def update_shift(self, shift_id: uuid.UUID, body: shifts.ShiftUpdate) -> shifts.ShiftRead:
        """Change a shift; raises `VersionConflict` when `body.version` is outdated."""
        return self._call("PATCH", f"/shifts/{_id(shift_id)}", shifts.ShiftRead, body=body)

    def delete_shift(self, shift_id: uuid.UUID, version: int | None = None) -> None:
        """Delete a shift; with `version`, only that version (else `VersionConflict`)."""
        self._send("DELETE", f"/shifts/{_id(shift_id)}",
                   params=None if version is None else {"version": version})

    def claim_shift(self, shift_id: uuid.UUID, body: shifts.ShiftClaim | None = None,
                    ) -> shifts.ShiftRead:
        """Claim an open shift for the signed-in provider."""
        return self._call("POST", f"/shifts/{_id(shift_id)}/claim", shifts.ShiftRead,
                          body=body or shifts.ShiftClaim())

    def claim_checks(self, query: shifts.ShiftClaimCheckQuery) -> shifts.ShiftClaimChecks:
        """Whether the provider may claim each open shift asked about (at most 200), with every
        reason not; unknown or invisible shifts are left out."""
        return self._call("GET", "/shifts/claim-checks", shifts.ShiftClaimChecks, query=query)

    # -- time off ------------------------------------------------------------------------------

    def list_time_off_policies(self, query: time_off.TimeOffPolicyListQuery | None = None,
                               ) -> time_off.TimeOffPolicyPage:
        """A page of time-off policies."""
        return self._call("GET", "/time-off/policies", time_off.TimeOffPolicyPage, query=query)

    def list_time_off_requests(self, query: time_off.TimeOffRequestListQuery | None = None,
                               ) -> time_off.TimeOffRequestPage:
        """A page of time-off requests."""
        return self._call("GET", "/time-off/requests", time_off.TimeOffRequestPage, query=query)

    def count_time_off_requests(self, query: time_off.TimeOffRequestFilter | None = None,
                                ) -> time_off.TimeOffRequestCount:
        """How many time-off requests match."""
        return self._call("GET", "/time-off/requests/count", time_off.TimeOffRequestCount,
                          query=query)

    def get_time_off_request(self, request_id: uuid.UUID) -> time_off.TimeOffRequestRead:
        """One time-off request."""
        return self._call("GET", f"/time-off/requests/{_id(request_id)}",
                          time_off.TimeOffRequestRead)

    def create_time_off_request(self, body: time_off.TimeOffRequestCreate,
                                ) -> time_off.TimeOffRequestRead:
        """Ask for time off."""
        return self._call("POST", "/time-off/requests", time_off.TimeOffRequestRead, body=body)

    def approve_time_off_request(self, request_id: uuid.UUID, body: time_off.TimeOffApprove,
                                 ) -> time_off.TimeOffRequestRead:
        """Approve a request, resolving overlapping shifts as `body.conflict_resolution` says."""
        return self._call("POST", f"/time-off/requests/{_id(request_id)}/approve",
                          time_off.TimeOffRequestRead, body=body)

    def reject_time_off_request(self, request_id: uuid.UUID, body: time_off.TimeOffReject,
                                ) -> time_off.TimeOffRequestRead:
        """Reject a request with a reason."""
        return self._call("POST", f"/time-off/requests/{_id(request_id)}/reject",
                          time_off.TimeOffRequestRead, body=body)

    def cancel_time_off_request(self, request_id: uuid.UUID) -> time_off.TimeOffRequestRead:
        """Cancel a request: a manager cancels pending or approved ones at once; a provider
        withdraws a pending one, or asks to cancel approved leave (`cancellation_requested_at`
        set, still approved); raises `Conflict` `time-off-already-started` once it began."""
        return self._call("POST", f"/time-off/requests/{_id(request_id)}/cancel",
                          time_off.TimeOffRequestRead)

    def decline_time_off_cancellation(self, request_id: uuid.UUID,
                                      body: time_off.TimeOffDeclineCancellation,
                                      ) -> time_off.TimeOffRequestRead:
        """Keep approved leave whose provider asked to cancel it, with an optional reason."""
        return self._call("POST", f"/time-off/requests/{_id(request_id)}/decline-cancellation",
                          time_off.TimeOffRequestRead, body=body)

    def time_off_request_conflicts(self, request_id: uuid.UUID,
                                   ) -> time_off.TimeOffRequestConflicts:
        """The provider's shifts that approving the request would act on, by start."""
        return self._call("GET", f"/time-off/requests/{_id(request_id)}/conflicts",
                          time_off.TimeOffRequestConflicts)

    # -- timekeeping ---------------------------------------------------------------------------

    def my_timecard(self) -> timekeeping.TimecardMe:
        """The signed-in provider's timecard, next actions, current and next shift."""
        return self._call("GET", "/timekeeping/timecard/me", timekeeping.TimecardMe)

    def get_timecard(self, provider_id: uuid.UUID) -> timekeeping.TimecardRead:
        """A provider's current timecard."""
        return self._call("GET", f"/timekeeping/timecard/{_id(provider_id)}",
                          timekeeping.TimecardRead)

    def create_punch(self, body: timekeeping.PunchCreate) -> timekeeping.TimecardPunchRead:
        """Record a punch (clock in/out, break start/end)."""
        return self._call("POST", "/timekeeping/timecard/punches",
                          timekeeping.TimecardPunchRead, body=body)

    def update_punch(self, punch_id: uuid.UUID, body: timekeeping.PunchUpdate,
                     ) -> timekeeping.TimecardPunchRead:
        """Review a punch: state, admin note, corrected time."""
        return self._call("PATCH", f"/timekeeping/timecard/punches/{_id(punch_id)}",
                          timekeeping.TimecardPunchRead, body=body)

    def delete_punch(self, punch_id: uuid.UUID) -> None:
        """Delete a punch."""
        self._delete(f"/timekeeping/timecard/punches/{_id(punch_id)}")

    def timesheet(self, query: timekeeping.TimesheetQuery) -> timekeeping.TimesheetRead:
        """One provider's timesheet for a window."""
        return self._call("GET", "/timekeeping/timesheet", timekeeping.TimesheetRead, query=query)

    def team_timesheets(self, query: timekeeping.TimesheetQuery) -> timekeeping.TimesheetPage:
        """A page of timesheets, one per provider of a team."""
        return self._call("GET", "/timekeeping/timesheet", timekeeping.TimesheetPage, query=query)

    # -- timesheet sign-offs (extension) --------------------------------------------------------

    def list_audit_events(self, query: audit.AuditEventQuery | None = None,
                          ) -> audit.AuditEventPage:
        """A page of the audit trail, newest first (extension; administrators)."""
        return self._call("GET", "/audit-events", audit.AuditEventPage, query=query)

    def list_sign_offs(self, query: sign_offs.TimesheetSignOffQuery,
                       ) -> sign_offs.TimesheetSignOffPage:
        """A page of sign-offs overlapping a window, reopened ones included."""
        return self._call("GET", "/timekeeping/timesheet/sign-offs",
                          sign_offs.TimesheetSignOffPage, query=query)

    def create_sign_off(self, body: sign_offs.TimesheetSignOffCreate,
                        ) -> sign_offs.TimesheetSignOffRead:
        """Sign off a team's timesheets for a window (`timesheet-not-ready` while blocked)."""
        return self._call("POST", "/timekeeping/timesheet/sign-offs",
                          sign_offs.TimesheetSignOffRead, body=body)

    def get_sign_off(self, sign_off_id: uuid.UUID) -> sign_offs.TimesheetSignOffRead:
        """One sign-off."""
        return self._call("GET", f"/timekeeping/timesheet/sign-offs/{_id(sign_off_id)}",
                          sign_offs.TimesheetSignOffRead)

    def reopen_sign_off(self, sign_off_id: uuid.UUID) -> None:
        """Reopen a sign-off: its punches and shifts may change again."""
        self._delete(f"/timekeeping/timesheet/sign-offs/{_id(sign_off_id)}")

    # -- reports -------------------------------------------------------------------------------

    def list_reports(self, query: reports.ReportListQuery | None = None) -> reports.ReportPage:
        """A page of the report catalog: each report and the parameters it takes."""
        return self._call("GET", "/reporting/reports", reports.ReportPage, query=query)

    def list_report_runs(self, query: reports.ReportRunListQuery | None = None,
                         ) -> reports.ReportRunPage:
        """A page of report runs, newest first."""
        return self._call("GET", "/reporting/reports/runs", reports.ReportRunPage, query=query)

    def create_report_run(self, body: reports.ReportRunCreate) -> reports.ReportRunRead:
        """Start a report run (it answers `running`; poll `get_report_run`)."""
        return self._call("POST", "/reporting/reports/runs", reports.ReportRunRead, body=body)

    def get_report_run(self, run_id: uuid.UUID) -> reports.ReportRunRead:
        """One report run."""
        return self._call("GET", f"/reporting/reports/runs/{_id(run_id)}", reports.ReportRunRead)

    def report_download(self, run_id: uuid.UUID) -> reports.ReportDownload:
        """A signed, expiring link to a completed run's file."""
        return self._call("GET", f"/reporting/reports/runs/{_id(run_id)}/download",
                          reports.ReportDownload)

    def report_file(self, url: str) -> DownloadedFile:
        """The file behind a signed link of `report_download`, fetched through this client.

        Only the link's path is used: the API names its own host in the link, which the UI's
        connection to it (in-process or a private address) need not share."""
        path = urlsplit(url).path
        if FILES_PATH not in path:
            raise ApiUnavailable(f"not a report file link: {url}")
        response = self._send("GET", "/" + path.split("/v1/", 1)[1])
        return DownloadedFile(
            name=_file_name(response.headers.get("content-disposition", ""), "report.csv"),
            media_type=response.headers.get("content-type", "text/csv").split(";")[0],
            content=response.content)

    # -- appointments --------------------------------------------------------------------------

    def list_appointment_types(self, query: at.AppointmentTypeListQuery | None = None,
                               ) -> at.AppointmentTypePage:
        """A page of appointment types (archived ones are not listed)."""
        return self._call("GET", "/appointment-types", at.AppointmentTypePage, query=query)

    def create_appointment_type(self, body: at.AppointmentTypeCreate) -> at.AppointmentTypeRead:
        """Create an appointment type."""
        return self._call("POST", "/appointment-types", at.AppointmentTypeRead, body=body)

    def update_appointment_type(self, type_id: uuid.UUID, body: at.AppointmentTypeUpdate,
                                ) -> at.AppointmentTypeRead:
        """Change an appointment type."""
        return self._call("PATCH", f"/appointment-types/{_id(type_id)}", at.AppointmentTypeRead,
                          body=body)

    def archive_appointment_type(self, type_id: uuid.UUID) -> None:
        """Archive an appointment type."""
        self._delete(f"/appointment-types/{_id(type_id)}")

    def list_appointments(self, query: ap.AppointmentListQuery | None = None,
                          ) -> ap.AppointmentPage:
        """A page of appointments."""
        return self._call("GET", "/appointments", ap.AppointmentPage, query=query)

    def get_appointment(self, appointment_id: uuid.UUID) -> ap.AppointmentRead:
        """One appointment."""
        return self._call("GET", f"/appointments/{_id(appointment_id)}", ap.AppointmentRead)

    def create_appointment(self, body: ap.AppointmentCreate) -> ap.AppointmentRead:
        """Book an appointment."""
        return self._call("POST", "/appointments", ap.AppointmentRead, body=body)

    def update_appointment(self, appointment_id: uuid.UUID, body: ap.AppointmentUpdate,
                           ) -> ap.AppointmentRead:
        """Change an appointment; raises `VersionConflict` when `body.version` is outdated."""
        return self._call("PATCH", f"/appointments/{_id(appointment_id)}", ap.AppointmentRead,
                          body=body)

    def delete_appointment(self, appointment_id: uuid.UUID) -> None:
        """Delete an appointment."""
        self._delete(f"/appointments/{_id(appointment_id)}")

    def search_slots(self, body: ap.SlotSearch) -> ap.SlotSearchResult:
        """Free appointment slots, best first."""
        return self._call("POST", "/appointments/slots", ap.SlotSearchResult, body=body)

    # Time-off balances

    def get_time_off_balances(self, query: balances.BalancesQuery | None = None,
                              ) -> balances.BalancesRead:
        """A provider's time-off balances and ledger as of a day (default: the caller's, today)."""
        return self._call("GET", "/time-off/balances", balances.BalancesRead, query=query)

    # Pay rules (overtime pages) ----------------------------------------------------------------

    def get_overtime_rule(self, rule_id: uuid.UUID | str) -> work_rules.OvertimeRuleRead:
        """One overtime rule (extension): its name, kind, threshold and multiplier."""
        return self._call("GET", f"/settings/overtime-rules/{_id(rule_id)}",
                          work_rules.OvertimeRuleRead)

    def get_work_rule(self, rule_id: uuid.UUID | str) -> work_rules.WorkRuleRead:
        """One work rule (extension) with all its dated versions."""
        return self._call("GET", f"/settings/work-rules/{_id(rule_id)}", work_rules.WorkRuleRead)

    # Pay rules (administrator's pages) --------------------------------------------------------

    def list_overtime_rules(self, query: work_rules.OvertimeRuleListQuery | None = None,
                            ) -> work_rules.OvertimeRulePage:
        """A page of overtime rules (extension), by name."""
        return self._call("GET", "/settings/overtime-rules", work_rules.OvertimeRulePage,
                          query=query)

    def list_rounding_rules(self, query: work_rules.RoundingRuleListQuery | None = None,
                            ) -> work_rules.RoundingRulePage:
        """A page of rounding rules (extension), by name."""
        return self._call("GET", "/settings/rounding-rules", work_rules.RoundingRulePage,
                          query=query)

    def create_rounding_rule(self, body: work_rules.RoundingRuleCreate,
                             ) -> work_rules.RoundingRuleRead:
        """Create a rounding rule (extension)."""
        return self._call("POST", "/settings/rounding-rules", work_rules.RoundingRuleRead,
                          body=body)

    def list_work_rules(self, query: work_rules.WorkRuleListQuery | None = None,
                        ) -> work_rules.WorkRulePage:
        """A page of work rules (extension), each with its current version and all versions."""
        return self._call("GET", "/settings/work-rules", work_rules.WorkRulePage, query=query)

    def list_work_rule_presets(self) -> work_rules.WorkRulePresetList:
        """The ready-made work rules (extension): US federal, hospital 8 and 80, California."""
        return self._call("GET", "/settings/work-rule-presets", work_rules.WorkRulePresetList)

    def create_work_rule(self, body: work_rules.WorkRuleCreate) -> work_rules.WorkRuleRead:
        """Create a work rule with its first version (extension)."""
        return self._call("POST", "/settings/work-rules", work_rules.WorkRuleRead, body=body)

    def update_work_rule(self, rule_id: uuid.UUID | str, body: work_rules.WorkRuleUpdate,
                         ) -> work_rules.WorkRuleRead:
        """Give a work rule a new version from `effectiveFrom` (extension)."""
        return self._call("PATCH", f"/settings/work-rules/{_id(rule_id)}",
                          work_rules.WorkRuleRead, body=body)

    def set_team_work_rule(self, team_id: uuid.UUID | str, body: work_rules.TeamWorkRule,
                           ) -> teams.TeamRead:
        """Give a team its work rule, or none (extension)."""
        return self._call("PUT", f"/teams/{_id(team_id)}/work-rule", teams.TeamRead, body=body)

    def preview_work_rule(self, body: pay_preview.WorkRulePreviewCreate,
                          ) -> pay_preview.WorkRulePreview:
        """A draft work rule applied to a team's past window beside its current rule."""
        return self._call("POST", "/settings/work-rules/preview", pay_preview.WorkRulePreview,
                          body=body)

    # Balance reset uploads (admin) -------------------------------------------------------------

    def list_balance_resets(self, query: balances.BalanceResetUploadListQuery | None = None,
                            ) -> balances.BalanceResetUploadPage:
        """A page of balance reset uploads, newest first, without their rows."""
        return self._call("GET", "/time-off/balance-resets", balances.BalanceResetUploadPage,
                          query=query)

    def get_balance_reset(self, upload_id: uuid.UUID) -> balances.BalanceResetUploadRead:
        """One balance reset upload with its rows and what each set."""
        return self._call("GET", f"/time-off/balance-resets/{_id(upload_id)}",
                          balances.BalanceResetUploadRead)

    def upload_balance_resets(self, file_name: str, content: bytes,
                              ) -> tuple[balances.BalanceResetUploadRead, bool]:
        """Upload a balance reset CSV (multipart, part `file`); return the upload and whether
        it is new (False: the same file was uploaded before, and that upload is returned)."""
        response = self._send("POST", "/time-off/balance-resets",
                              files={"file": (file_name, content, "text/csv")})
        try:
            upload = balances.BalanceResetUploadRead.model_validate_json(response.content)
        except ValidationError as exc:
            raise ApiUnavailable(f"unexpected answer from the balance reset upload: {exc}") \
                from exc
        return upload, response.status_code == 201

    # -- availability (extension) ---------------------------------------------------------------

    def list_availabilities(self, query: av.AvailabilityListQuery | None = None,
                            ) -> av.AvailabilityPage:
        """A page of weekly availability patterns."""
        return self._call("GET", "/availabilities", av.AvailabilityPage, query=query)

    def create_availability(self, body: av.AvailabilityCreate) -> av.AvailabilityRead:
        """Create a version of a weekly availability pattern."""
        return self._call("POST", "/availabilities", av.AvailabilityRead, body=body)

    def update_availability(self, availability_id: uuid.UUID, body: av.AvailabilityUpdate,
                            ) -> av.AvailabilityRead:
        """Change a weekly pattern; raises `VersionConflict` when `body.version` is outdated."""
        return self._call("PATCH", f"/availabilities/{_id(availability_id)}",
                          av.AvailabilityRead, body=body)

    def list_availability_exceptions(self, query: av.AvailabilityExceptionListQuery | None = None,
                                     ) -> av.AvailabilityExceptionPage:
        """A page of availability exceptions."""
        return self._call("GET", "/availability-exceptions", av.AvailabilityExceptionPage,
                          query=query)

    def get_availability_exception(self, exception_id: uuid.UUID,
                                   ) -> av.AvailabilityExceptionRead:
        """One availability exception."""
        return self._call("GET", f"/availability-exceptions/{_id(exception_id)}",
                          av.AvailabilityExceptionRead)

    def create_availability_exception(self, body: av.AvailabilityExceptionCreate,
                                      ) -> av.AvailabilityExceptionRead:
        """Create an availability exception."""
        return self._call("POST", "/availability-exceptions", av.AvailabilityExceptionRead,
                          body=body)

    def update_availability_exception(self, exception_id: uuid.UUID,
                                      body: av.AvailabilityExceptionUpdate,
                                      ) -> av.AvailabilityExceptionRead:
        """Change an availability exception (`VersionConflict` when outdated)."""
        return self._call("PATCH", f"/availability-exceptions/{_id(exception_id)}",
                          av.AvailabilityExceptionRead, body=body)

    def delete_availability_exception(self, exception_id: uuid.UUID,
                                      version: int | None = None) -> None:
        """Delete an availability exception; with `version`, only that version."""
        self._send("DELETE", f"/availability-exceptions/{_id(exception_id)}",
                   params=None if version is None else {"version": version})

    def availability_windows(self, query: av.AvailabilityWindowQuery,
                             ) -> av.AvailabilityWindows:
        """Per provider, the unavailable and preferred windows of up to 31 local days."""
        return self._call("GET", "/availability/windows", av.AvailabilityWindows, query=query)

    # Notifications (extension) ------------------------------------------------------------------

    def list_notifications(self, query: nt.NotificationListQuery | None = None,
                           ) -> nt.NotificationPage:
        """A page of the signed-in user's notifications, newest first."""
        return self._call("GET", "/notifications", nt.NotificationPage, query=query)

    def count_notifications(self, query: nt.NotificationFilter | None = None) -> int:
        """How many of the signed-in user's notifications match (`unread=True`: the unread)."""
        return self._call("GET", "/notifications/count", nt.NotificationCount,
                          query=query).count

    def update_notification(self, notification_id: uuid.UUID, body: nt.NotificationUpdate,
                            ) -> nt.NotificationRead:
        """Mark a notification read or unread (`VersionConflict` when outdated)."""
        return self._call("PATCH", f"/notifications/{_id(notification_id)}",
                          nt.NotificationRead, body=body)

    def mark_all_notifications_read(self) -> int:
        """Mark every unread notification of the signed-in user read; how many were."""
        return self._call("POST", "/notifications/mark-all-read",
                          nt.NotificationsMarked).marked


    # -- shift swaps (extension) ---------------------------------------------------------------

    def list_swap_listings(self, query: sw.ShiftSwapListingQuery | None = None,
                           ) -> sw.ShiftSwapListingPage:
        """A page of the shift swap listings the caller may see."""
        return self._call("GET", "/shift-swap-listings", sw.ShiftSwapListingPage, query=query)

    def get_swap_listing(self, listing_id: uuid.UUID | str) -> sw.ShiftSwapListingRead:
        """One shift swap listing."""
        return self._call("GET", f"/shift-swap-listings/{_id(listing_id)}",
                          sw.ShiftSwapListingRead)

    def create_swap_listing(self, body: sw.ShiftSwapListingCreate) -> sw.ShiftSwapListingRead:
        """List one of the caller's shifts for a swap or give-away."""
        return self._call("POST", "/shift-swap-listings", sw.ShiftSwapListingRead, body=body)

    def update_swap_listing(self, listing_id: uuid.UUID | str, body: sw.ShiftSwapListingUpdate,
                            ) -> sw.ShiftSwapListingRead:
        """Change or withdraw a listing."""
        return self._call("PATCH", f"/shift-swap-listings/{_id(listing_id)}",
                          sw.ShiftSwapListingRead, body=body)

    def list_swap_applications(self, query: sw.ShiftSwapApplicationQuery | None = None,
                               ) -> sw.ShiftSwapApplicationPage:
        """A page of the shift swap applications the caller may see."""
        return self._call("GET", "/shift-swap-applications", sw.ShiftSwapApplicationPage,
                          query=query)

    def get_swap_application(self, application_id: uuid.UUID | str,
                             ) -> sw.ShiftSwapApplicationRead:
        """One shift swap application."""
        return self._call("GET", f"/shift-swap-applications/{_id(application_id)}",
                          sw.ShiftSwapApplicationRead)

    def create_swap_application(self, body: sw.ShiftSwapApplicationCreate,
                                ) -> sw.ShiftSwapApplicationRead:
        """Apply to a listing, optionally offering a shift in exchange."""
        return self._call("POST", "/shift-swap-applications", sw.ShiftSwapApplicationRead,
                          body=body)

    def withdraw_swap_application(self, application_id: uuid.UUID | str,
                                  version: int | None = None) -> sw.ShiftSwapApplicationRead:
        """The applicant withdraws an application."""
        body = sw.ShiftSwapApplicationUpdate(status="withdrawn", **_version(version))
        return self._call("PATCH", f"/shift-swap-applications/{_id(application_id)}",
                          sw.ShiftSwapApplicationRead, body=body)

    def decide_swap_application(self, application_id: uuid.UUID | str, decision: str,
                                version: int | None = None, reason: str | None = None,
                                ) -> sw.ShiftSwapApplicationRead:
        """`accept` or `decline` (the lister), `approve` or `reject` (a manager, with a
        reason)."""
        if decision not in ("accept", "decline", "approve", "reject"):
            raise ValueError(f"no such decision: {decision}")
        body: sw.ShiftSwapDecision | sw.ShiftSwapRejection = (
            sw.ShiftSwapRejection(rejection_reason=reason or "", **_version(version))
            if decision == "reject" else sw.ShiftSwapDecision(**_version(version)))
        return self._call("POST", f"/shift-swap-applications/{_id(application_id)}/{decision}",
                          sw.ShiftSwapApplicationRead, body=body)

    def update_team(self, team_id: uuid.UUID | str, body: teams.TeamUpdate) -> teams.TeamRead:
        """Change a team's settings (extension)."""
        return self._call("PATCH", f"/teams/{_id(team_id)}", teams.TeamRead, body=body)

__all__ = ["ApiClient", "ApiProblem", "ApiUnavailable", "build_http"]
