"""Shift swaps on the wire (extension): listings (`/v1/shift-swap-listings`), a provider offering
one of their future shifts for a swap or as a give-away, and applications
(`/v1/shift-swap-applications`), a colleague asking for it, optionally offering one of their own
shifts in exchange.

Shape only: who may list, apply, accept and approve, and every scheduling rule, are the API's
business. States are described on the read models; `status` values a reader computes (an open
listing past `expiresAt` reads `expired`, the pending applications of a listing that is no longer
open read `closed`) are never stored by a client.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from app.contract.common import EXTENSION, ApiModel, Id, ListQuery, Omittable, Page, Timestamp

SwapKind = Literal["swap", "giveaway"]
ListingStatus = Literal["open", "accepted", "completed", "withdrawn", "expired", "closed"]
ApplicationStatus = Literal["pending", "accepted", "approved", "rejected", "declined",
                            "withdrawn", "closed"]
Note = Annotated[str, Field(max_length=500)]
Reason = Annotated[str, Field(min_length=1, max_length=500)]
_VERSION = Field(description="The version being changed; an outdated one fails with "
                             "`version-conflict`. Left out, the change applies to the latest.")


class ShiftSwapListingRead(ApiModel):
    """A provider's future shift offered for a swap or as a give-away (extension).

    `open`: colleagues may apply until `expiresAt` (at the latest the shift's start), after which
    it reads `expired`. `accepted`: the lister accepted `acceptedApplicationId`, which waits for
    a manager. `completed`: the shifts changed hands. `withdrawn`: the lister took it back.
    `closed`: its shift changed hands in another swap."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    id: Id
    created_at: Timestamp
    updated_at: Timestamp
    version: int
    shift_id: Id
    provider_id: Id = Field(description="The lister: the shift's provider when it was listed.")
    team_id: Id
    kind: SwapKind
    note: str | None
    expires_at: Timestamp
    status: ListingStatus
    shift_start: Timestamp
    shift_end: Timestamp
    provider_name: str | None = None
    accepted_application_id: Id | None = None
    application_count: int = Field(default=0, description="Applications still pending or "
                                                          "accepted.")


class ShiftSwapListingPage(Page[ShiftSwapListingRead]):
    """A page of swap listings."""


class ShiftSwapListingQuery(ListQuery):
    """Query of GET /v1/shift-swap-listings, by shift start."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    team_id: Id | None = None
    status: ListingStatus | None = None
    mine: bool = Field(default=False, description="Only the caller's own listings.")
    shift_id: Id | None = None


class ShiftSwapListingCreate(ApiModel):
    """Body of POST /v1/shift-swap-listings."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    shift_id: Id
    kind: SwapKind = "swap"
    note: Note | None = None
    expires_at: Timestamp | None = Field(default=None, description="Until when colleagues may "
                                         "apply; defaults to, and may not pass, the shift's "
                                         "start.")


class ShiftSwapListingUpdate(ApiModel):
    """Body of PATCH /v1/shift-swap-listings/{listingId}: members left out keep their value;
    `status: withdrawn` takes the listing back and closes its applications."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    version: Omittable[Annotated[int, Field(ge=0)]] = _VERSION
    note: Note | None = None
    expires_at: Omittable[Timestamp]
    status: Omittable[Literal["withdrawn"]]


class ShiftSwapApplicationRead(ApiModel):
    """A colleague's application for a listed shift (extension).

    `pending` until the lister accepts it (`accepted`) or another (`closed` once that one
    completes), or declines it (`declined`). An accepted application waits for a manager, who
    approves it (`approved`: the shifts changed hands) or rejects it with a reason (`rejected`:
    the listing opens again). When the team lets swaps go without approval, accepting hands the
    shifts over at once (`approved`). The applicant may withdraw until it is approved."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    id: Id
    created_at: Timestamp
    updated_at: Timestamp
    version: int
    listing_id: Id
    provider_id: Id = Field(description="The applicant.")
    provider_name: str | None = None
    offered_shift_id: Id | None = Field(description="The applicant's shift offered in exchange; "
                                                    "null takes the shift without giving one.")
    offered_shift_start: Timestamp | None = None
    offered_shift_end: Timestamp | None = None
    note: str | None
    status: ApplicationStatus
    decided_by: Id | None = None
    decided_at: Timestamp | None = None
    rejection_reason: str | None = None


class ShiftSwapApplicationPage(Page[ShiftSwapApplicationRead]):
    """A page of swap applications."""


class ShiftSwapApplicationQuery(ListQuery):
    """Query of GET /v1/shift-swap-applications, newest first."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    listing_id: Id | None = None
    team_id: Id | None = None
    status: ApplicationStatus | None = None
    mine: bool = Field(default=False, description="Only the caller's own applications.")


class ShiftSwapApplicationCreate(ApiModel):
    """Body of POST /v1/shift-swap-applications."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    listing_id: Id
    offered_shift_id: Id | None = Field(default=None, description="One of the caller's own "
                                        "future shifts, offered in exchange (swap listings).")
    note: Note | None = None


class ShiftSwapApplicationUpdate(ApiModel):
    """Body of PATCH /v1/shift-swap-applications/{applicationId}: the applicant withdraws."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    version: Omittable[Annotated[int, Field(ge=0)]] = _VERSION
    status: Literal["withdrawn"]


class ShiftSwapDecision(ApiModel):
    """Body of the accept, decline and approve transitions."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    version: Omittable[Annotated[int, Field(ge=0)]] = _VERSION


class ShiftSwapRejection(ApiModel):
    """Body of POST /v1/shift-swap-applications/{applicationId}/reject."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    version: Omittable[Annotated[int, Field(ge=0)]] = _VERSION
    rejection_reason: Reason
