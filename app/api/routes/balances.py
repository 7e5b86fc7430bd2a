"""Time-off balances (extensions): `GET /v1/time-off/balances`, `POST /v1/time-off/accruals`,
`GET`/`PUT /v1/time-off/policies/{policyId}/accrual`, and balance reset uploads
(`POST`/`GET /v1/time-off/balance-resets`, `GET …/{uploadId}`).

Thin views over `app.api.services.balances`. The clock and the site zone are read here, at the
edge. The reset upload is a file, not JSON: `multipart/form-data` with the CSV in the `file`
part, or the CSV itself as the body (`text/csv`).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from flask import request, url_for
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.pagination import Paginator
from app.api.problems import ProblemError, validation
from app.api.routing import endpoint
from app.api.services import balances as service
from app.config import Settings
from app.contract.balances import (
    AccrualRun,
    AccrualRunResult,
    AccrualSettingsRead,
    AccrualSettingsWrite,
    BalanceResetUploadListQuery,
    BalanceResetUploadPage,
    BalanceResetUploadRead,
    BalancesQuery,
    BalancesRead,
)
from app.contract.problems import ProblemCode

TAG = "Time off"


@endpoint("GET", "/time-off/balances", summary="Get a provider's time-off balances and ledger",
          query=BalancesQuery, response=BalancesRead,
          codes=["validation", "provider-not-found", "time-off-policy-not-found", "unauthorized"],
          extension=True, tag=TAG, permits=[("view", "TimeOffRequest")])
def get_time_off_balances(session: Session, actor: Actor, query: BalancesQuery,
                          settings: Settings) -> BalancesRead:
    """A provider's balance in each policy with accrual settings they belong to (or the one
    `policyId` names) as of `asOf` (default: today in the site's zone), and the ledger entries
    dated on or before it, newest first, at most `entryLimit` (`moreEntries` says whether older
    ones were left out).

    `balance` is the sum of the entries dated on or before `asOf`; `available` is `balance` less
    the `floor` (0, or the policy's negative floor); `pending` is what the provider's pending
    requests would use. Amounts are exact (`exact`: "12.5" or "208/3") with a rounded `value`.
    `providerId` defaults to the caller's provider. Providers see their own, managers their
    teams' (`view` TimeOffRequest on the provider's requests).
    """
    today = datetime.now(UTC).astimezone(settings.zone).date()
    return service.read_balances(session, actor=actor, query=query, today=today)


@endpoint("POST", "/time-off/accruals", summary="Post the time-off accruals due up to a day",
          body=AccrualRun, response=AccrualRunResult,
          codes=["validation", "time-off-policy-not-found", "unauthorized"],
          extension=True, tag=TAG, permits=[("manage", "TimeOffPolicy")])
def run_time_off_accruals(session: Session, actor: Actor, body: AccrualRun,
                          settings: Settings) -> AccrualRunResult:
    """Append every accrual, carry-over and forfeit due up to `through` for the members of each
    policy with accrual settings (or of `policyId`). Idempotent: each entry has a source key,
    so running again appends nothing (`entries: 0`). Per-hour-worked accrual reads the worked
    time of the timesheet computation. Needs `manage` TimeOffPolicy.
    """
    actor.require("manage", "TimeOffPolicy")
    return service.run_accruals(session, actor_id=actor.user_id, through=body.through,
                                policy_id=body.policy_id, zone=settings.zone,
                                now=datetime.now(UTC), grace_minutes=settings.grace_minutes)


@endpoint("GET", "/time-off/policies/<policy_id>/accrual",
          summary="Get a time-off policy's accrual settings", response=AccrualSettingsRead,
          codes=["time-off-policy-not-found", "validation"], extension=True, tag=TAG,
          locate=service.locate_policy, permits=[("view", "TimeOffPolicy")])
def get_time_off_policy_accrual(session: Session, actor: Actor, policy_id: uuid.UUID
                                ) -> AccrualSettingsRead:
    """How the policy accrues; `validation` (path `policyId`) when it keeps no balance."""
    policy, row = service.get_accrual(session, actor=actor, policy_id=policy_id)
    if row is None:
        raise validation("policyId", "this policy has no accrual settings")
    return service.accrual_read(policy, row)


@endpoint("PUT", "/time-off/policies/<policy_id>/accrual",
          summary="Set a time-off policy's accrual settings", body=AccrualSettingsWrite,
          response=AccrualSettingsRead,
          codes=["time-off-policy-not-found", "validation", "unauthorized"], extension=True,
          tag=TAG, locate=service.locate_policy, permits=[("edit", "TimeOffPolicy")])
def set_time_off_policy_accrual(session: Session, actor: Actor, body: AccrualSettingsWrite,
                                policy_id: uuid.UUID) -> AccrualSettingsRead:
    """Replace how the policy accrues (see the fields); entries already posted stay. Amounts
    are exact strings ("8", "12.5", "1/30"); caps and limits may not be negative, the negative
    floor may not be positive. Needs `edit` TimeOffPolicy.
    """
    policy, row = service.set_accrual(session, actor=actor, policy_id=policy_id, body=body,
                                      now=datetime.now(UTC))
    return service.accrual_read(policy, row)


def _upload_bytes(limit: int) -> tuple[bytes, str | None]:
    """The CSV of a reset upload: the `file` part of a multipart form, or a `text/csv` body."""
    if request.mimetype == "multipart/form-data":
        part = request.files.get("file")
        if part is None:
            raise validation("file", "send the CSV in a form part named file")
        return part.read(limit + 1), part.filename or None
    if request.mimetype in ("text/csv", "text/plain"):
        return request.get_data(cache=False), None
    raise ProblemError(ProblemCode.UNSUPPORTED_MEDIA_TYPE,
                       "Send the CSV as multipart/form-data (part `file`) or as text/csv.")


@endpoint("POST", "/time-off/balance-resets", summary="Upload time-off balance resets (CSV)",
          response=BalanceResetUploadRead, status=201,
          codes=["validation", "invalid-balance-reset-rows", "batch-size-exceeded",
                 "unsupported-media-type", "unauthorized"],
          extension=True, tag=TAG, permits=[("create", "BalanceReset")])
def upload_time_off_balance_resets(session: Session, actor: Actor, settings: Settings
                                   ) -> tuple[BalanceResetUploadRead, dict[str, str]]:
    """Set balances from a CSV with the header `providerId` (or `importedId`), `policyId`,
    `balance`, `effectiveDate` (`YYYY-MM-DD`), as `multipart/form-data` (part `file`) or as a
    `text/csv` body; at most `maxBatchSize` (1,000) rows.

    Each row sets the provider's balance in the policy from its effective date: a `reset`
    entry adds the difference (history before the date is untouched). The whole file is
    checked first; any bad row refuses it with `invalid-balance-reset-rows`, every bad field in
    `errors` (path `/rows/<row>/<column>`, row 1 the first after the header): unknown person,
    not in the policy (`provider-not-in-policy`), a policy without a balance, a balance below
    the policy's floor (negative where not allowed), a bad date or number, a row repeated.
    The same file again changes nothing and answers the first upload (200). Needs `create`
    BalanceReset.
    """
    data, name = _upload_bytes(settings.max_body_bytes)
    upload, created = service.upload_resets(
        session, actor=actor, data=data, file_name=name, max_rows=settings.max_batch_size,
        zone=settings.zone, now=datetime.now(UTC))
    headers = {"Location": url_for("api.get_time_off_balance_reset", upload_id=upload.id)}
    if not created:
        from app.api.routing import json_response

        return json_response(service.upload_read(upload), 200, headers)  # type: ignore[return-value]
    return service.upload_read(upload), headers


@endpoint("GET", "/time-off/balance-resets/<upload_id>", summary="Get a balance reset upload",
          response=BalanceResetUploadRead, codes=["balance-reset-upload-not-found"],
          extension=True, tag=TAG, locate=service.locate_upload,
          permits=[("view", "BalanceReset")])
def get_time_off_balance_reset(session: Session, actor: Actor, upload_id: uuid.UUID
                               ) -> BalanceResetUploadRead:
    """A balance reset upload: its status, its rows and what each set. Needs `view`
    BalanceReset."""
    return service.upload_read(service.get_upload(session, actor=actor, upload_id=upload_id))


@endpoint("GET", "/time-off/balance-resets", summary="List balance reset uploads",
          query=BalanceResetUploadListQuery, response=BalanceResetUploadPage,
          codes=["validation", "unauthorized"], extension=True, tag=TAG,
          permits=[("view", "BalanceReset")])
def list_time_off_balance_resets(session: Session, actor: Actor,
                                 query: BalanceResetUploadListQuery, pages: Paginator
                                 ) -> BalanceResetUploadPage:
    """Balance reset uploads, newest first, without their rows (`GET …/{uploadId}` reads
    those). Needs `view` BalanceReset."""
    items, cursor = service.list_uploads(session, actor=actor, query=query, pages=pages)
    return BalanceResetUploadPage(items=items, cursor=cursor)
