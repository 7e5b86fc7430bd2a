"""Shift swaps (blueprint `swaps`): the provider's `/swaps` and the manager's `/manage/swaps`.

`GET /swaps` shows, for a provider: a form to offer one of their future shifts (from the list,
or preselected with `?shift=<id>` from their schedule), their offers with the applications to
them (accept, decline), colleagues' open offers they may apply to (optionally giving one of
their own shifts in exchange), and their own applications (withdraw). `POST /swaps/listings`,
`POST /swaps/listings/<id>/apply`, `POST /swaps/applications/<id>/accept|decline` act, and a
refusal is shown inline beside the offer or application it concerns (the API's sentence);
withdrawing an offer or an application asks first (`GET|POST …/withdraw`).

`GET /manage/swaps` lists the swaps waiting for a manager (accepted by the lister), each with
Approve and a Reject form that needs a reason; a refusal at approval shows on its card.

Must not import `app.api`; it reaches the API only through `app.client`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from typing import Any

from flask import Blueprint, Response, current_app, flash, request, url_for
from wtforms.fields.choices import SelectChoice

from app.client import ApiClient, ApiProblem
from app.contract.shift_swaps import (
    ShiftSwapApplicationCreate,
    ShiftSwapApplicationQuery,
    ShiftSwapApplicationRead,
    ShiftSwapListingCreate,
    ShiftSwapListingQuery,
    ShiftSwapListingRead,
    ShiftSwapListingUpdate,
)
from app.contract.shifts import ShiftListQuery
from app.web.auth import api, my_provider_id
from app.web.filters import format_date, format_time_range
from app.web.forms import apply_problem
from app.web.htmx import render, see_other
from app.web.swaps.forms import ApplyForm, DecisionForm, ListingForm, RejectForm

bp = Blueprint("swaps", __name__)

AHEAD = timedelta(days=90)
"""How far ahead the provider's shifts are offered in the forms."""
LIVE = ("open", "accepted")


def _zone() -> Any:
    return current_app.extensions["shiftdesk_web"].settings.zone


def _when(start: datetime, end: datetime) -> str:
    """A shift as people read it: `Tomorrow, 7:00 AM - 7:00 PM` (with an en dash)."""
    return f"{format_date(start, _zone())}, {format_time_range(start, end, _zone())}"


@dataclass
class Page:
    """What /swaps shows."""

    provider: uuid.UUID | None
    shifts: list[Any] = field(default_factory=list)
    mine: list[ShiftSwapListingRead] = field(default_factory=list)
    others: list[ShiftSwapListingRead] = field(default_factory=list)
    applications: list[ShiftSwapApplicationRead] = field(default_factory=list)
    to_mine: dict[uuid.UUID, list[ShiftSwapApplicationRead]] = field(default_factory=dict)
    listings: dict[uuid.UUID, ShiftSwapListingRead] = field(default_factory=dict)
    refusals: dict[uuid.UUID, str] = field(default_factory=dict)
    """A refusal's sentence beside the application or offer (by id) it concerns."""


def _load(client: ApiClient) -> Page:
    provider = my_provider_id()
    if provider is None:
        return Page(provider=None)
    now = datetime.now(UTC)
    shifts, listings, applications = client.concurrently(
        lambda: client.list_shifts(ShiftListQuery(provider_id=provider, start_date=now,
                                                  end_date=now + AHEAD, page_size=200)),
        lambda: client.list_swap_listings(ShiftSwapListingQuery(page_size=200)),
        lambda: client.list_swap_applications(ShiftSwapApplicationQuery(page_size=200)))
    page = Page(provider=provider)
    page.shifts = [s for s in shifts.items if s.provider == provider and s.start_date > now]
    page.listings = {listing.id: listing for listing in listings.items}
    applied = {a.listing_id for a in applications.items
               if a.provider_id == provider and a.status in ("pending", "accepted")}
    page.mine = [listing for listing in listings.items if listing.provider_id == provider
                 and listing.shift_end > now]
    page.others = [listing for listing in listings.items if listing.provider_id != provider
                   and listing.status == "open" and listing.id not in applied]
    page.applications = [a for a in applications.items if a.provider_id == provider]
    mine = {listing.id for listing in page.mine}
    for application in applications.items:
        if application.listing_id in mine:
            page.to_mine.setdefault(application.listing_id, []).append(application)
    return page


def _listing_form(page: Page, formdata: Any = None) -> ListingForm:
    listed = {listing.shift_id for listing in page.mine if listing.status in LIVE}
    form = ListingForm(formdata=formdata)
    form.shift_id.choices = [SelectChoice("", "Choose a shift")] + [
        SelectChoice(str(s.id), _when(s.start_date, s.end_date))
        for s in page.shifts if s.id not in listed]
    if formdata is None and request.args.get("shift"):
        form.shift_id.data = request.args["shift"]
    return form


def _apply_form(page: Page, listing: ShiftSwapListingRead, formdata: Any = None) -> ApplyForm:
    form = ApplyForm(formdata=formdata, prefix=f"apply-{listing.id}-", listing_id=str(listing.id))
    form.offered_shift_id.choices = [SelectChoice("", "Nothing: I take the shift")] + (
        [] if listing.kind == "giveaway" else
        [SelectChoice(str(s.id), _when(s.start_date, s.end_date)) for s in page.shifts])
    return form


def _page(page: Page, *, listing_form: ListingForm | None = None,
          apply_forms: dict[uuid.UUID, ApplyForm] | None = None, status: int = 200) -> Response:
    forms = {listing.id: _apply_form(page, listing) for listing in page.others}
    forms.update(apply_forms or {})
    failed = (listing_form is not None and bool(listing_form.errors or listing_form.form_errors)
              ) or any(f.errors or f.form_errors for f in (apply_forms or {}).values()
                       ) or bool(page.refusals)
    return render("swaps/index.html", status=status, page=page, when=_when,
                  listing_form=listing_form or _listing_form(page), apply_forms=forms,
                  failed=failed)


@bp.get("/swaps")
def index() -> Response:
    """My offers and their applications, colleagues' offers, my applications."""
    return _page(_load(api()))


def _expiry(form: ListingForm, page: Page) -> datetime | None:
    """The end of the chosen local day, or none (the shift's start)."""
    day = form.close_on.data
    if day is None:
        return None
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=_zone()).astimezone(UTC)


@bp.post("/swaps/listings")
def create_listing() -> Response:
    """Offer a shift."""
    client = api()
    page = _load(client)
    form = _listing_form(page, request.form)
    if not form.validate():
        return _page(page, listing_form=form, status=422)
    shift = next((s for s in page.shifts if str(s.id) == form.shift_id.data), None)
    expires = _expiry(form, page)
    if shift is not None and expires is not None and expires > shift.start_date:
        expires = shift.start_date
    try:
        client.create_swap_listing(ShiftSwapListingCreate(
            shift_id=uuid.UUID(form.shift_id.data), kind=form.kind.data,
            note=(form.note.data or "").strip() or None, expires_at=expires))
    except ApiProblem as problem:
        if problem.status not in (400, 403, 404, 409, 422):
            raise
        apply_problem(form, problem)
        return _page(page, listing_form=form, status=422)
    flash("Your shift is offered to your colleagues. You'll see their applications here.",
          "success")
    return see_other(url_for("swaps.index"))


@bp.post("/swaps/listings/<uuid:listing_id>/apply")
def apply(listing_id: uuid.UUID) -> Response:
    """Apply to a colleague's offer."""
    client = api()
    page = _load(client)
    listing = page.listings.get(listing_id)
    if listing is None:
        listing = client.get_swap_listing(listing_id)
        page.others.append(listing)
    form = _apply_form(page, listing, request.form)
    if not form.validate():
        return _page(page, apply_forms={listing_id: form}, status=422)
    offered = form.offered_shift_id.data or None
    try:
        client.create_swap_application(ShiftSwapApplicationCreate(
            listing_id=listing_id, offered_shift_id=uuid.UUID(offered) if offered else None,
            note=(form.note.data or "").strip() or None))
    except ApiProblem as problem:
        if problem.status not in (400, 403, 404, 409, 422):
            raise
        apply_problem(form, problem)
        if listing not in page.others:
            page.others.append(listing)
        return _page(page, apply_forms={listing_id: form}, status=422)
    flash(f"You applied for {listing.provider_name or 'your colleague'}'s shift. They'll "
          "accept one application.", "success")
    return see_other(url_for("swaps.index"))


def _decide(application_id: uuid.UUID, decision: str, done: str, *,
            manager: bool = False) -> Response:
    client = api()
    form = DecisionForm(request.form)
    try:
        client.decide_swap_application(application_id, decision, version=form.version.data)
    except ApiProblem as problem:
        if problem.status not in (403, 409, 422):
            raise
        if manager:
            return _queue({application_id: problem.detail or problem.title}, status=422)
        page = _load(client)
        page.refusals[application_id] = problem.detail or problem.title
        return _page(page, status=422)
    flash(done, "success")
    return see_other(url_for("swaps.queue" if manager else "swaps.index"))


@bp.post("/swaps/applications/<uuid:application_id>/accept")
def accept(application_id: uuid.UUID) -> Response:
    """Accept an application to my offer."""
    return _decide(application_id, "accept",
                   "Accepted. The swap goes ahead once a manager approves it (you'll see it "
                   "here), unless your team lets swaps through without approval.")


@bp.post("/swaps/applications/<uuid:application_id>/decline")
def decline(application_id: uuid.UUID) -> Response:
    """Decline an application to my offer."""
    return _decide(application_id, "decline", "Declined.")


@bp.get("/swaps/listings/<uuid:listing_id>/withdraw")
def confirm_withdraw_listing(listing_id: uuid.UUID) -> Response:
    """Ask before withdrawing an offer."""
    listing = api().get_swap_listing(listing_id)
    return render("swaps/confirm.html", what="offer", listing=listing, when=_when,
                  action=url_for("swaps.withdraw_listing", listing_id=listing_id),
                  version=listing.version)


def _withdraw(record_id: uuid.UUID, send: Callable[[ApiClient, int | None], object],
              done: str) -> Response:
    """Withdraw an offer or an application with the version the confirmation page showed; a
    refusal (changed meanwhile, no longer yours) shows beside its record."""
    client = api()
    form = DecisionForm(request.form)
    try:
        send(client, form.version.data)
    except ApiProblem as problem:
        if problem.status not in (403, 409, 422):
            raise
        page = _load(client)
        page.refusals[record_id] = problem.detail or problem.title
        return _page(page, status=422)
    flash(done, "success")
    return see_other(url_for("swaps.index"))


@bp.post("/swaps/listings/<uuid:listing_id>/withdraw")
def withdraw_listing(listing_id: uuid.UUID) -> Response:
    """Withdraw an offer (its applications close)."""
    def send(client: ApiClient, version: int | None) -> object:
        return client.update_swap_listing(listing_id, ShiftSwapListingUpdate(
            status="withdrawn", **({"version": version} if version is not None else {})))

    return _withdraw(listing_id, send, "Your offer is withdrawn; its applications are closed.")


@bp.get("/swaps/applications/<uuid:application_id>/withdraw")
def confirm_withdraw_application(application_id: uuid.UUID) -> Response:
    """Ask before withdrawing an application."""
    client = api()
    application = client.get_swap_application(application_id)
    listing = client.get_swap_listing(application.listing_id)
    return render("swaps/confirm.html", what="application", listing=listing, when=_when,
                  action=url_for("swaps.withdraw_application", application_id=application_id),
                  version=application.version)


@bp.post("/swaps/applications/<uuid:application_id>/withdraw")
def withdraw_application(application_id: uuid.UUID) -> Response:
    """Withdraw my application."""
    return _withdraw(application_id, lambda client, version: client.withdraw_swap_application(
        application_id, version=version), "Your application is withdrawn.")


# -- managers ------------------------------------------------------------------------------------

def _queue(refusals: dict[uuid.UUID, str] | None = None, *,
           reject_forms: dict[uuid.UUID, RejectForm] | None = None,
           status: int = 200) -> Response:
    client = api()
    waiting = client.list_swap_applications(ShiftSwapApplicationQuery(status="accepted",
                                                                      page_size=200)).items
    listings = {}
    for application in waiting:
        listings[application.listing_id] = client.get_swap_listing(application.listing_id)
    forms = {a.id: RejectForm(formdata=None, prefix=f"reject-{a.id}-", version=a.version)
             for a in waiting}
    forms.update(reject_forms or {})
    failed = bool(refusals) or any(f.errors for f in (reject_forms or {}).values())
    return render("swaps/queue.html", status=status, waiting=waiting, listings=listings,
                  refusals=refusals or {}, reject_forms=forms, when=_when, failed=failed)


@bp.get("/manage/swaps")
def queue() -> Response:
    """Swaps waiting for a manager."""
    return _queue()


@bp.post("/manage/swaps/<uuid:application_id>/approve")
def approve(application_id: uuid.UUID) -> Response:
    """Approve a swap: the shifts change hands."""
    return _decide(application_id, "approve", "Approved. Both schedules show the swap.",
                   manager=True)


@bp.post("/manage/swaps/<uuid:application_id>/reject")
def reject(application_id: uuid.UUID) -> Response:
    """Reject a swap with a reason."""
    form = RejectForm(request.form, prefix=f"reject-{application_id}-")
    if not form.validate():
        return _queue(reject_forms={application_id: form}, status=422)
    try:
        api().decide_swap_application(application_id, "reject", version=form.version.data,
                                      reason=form.rejection_reason.data.strip())
    except ApiProblem as problem:
        if problem.status not in (400, 403, 409, 422):
            raise
        apply_problem(form, problem)
        return _queue(reject_forms={application_id: form}, status=422)
    flash("Rejected. Both colleagues see your reason; the offer is open again.", "success")
    return see_other(url_for("swaps.queue"))
