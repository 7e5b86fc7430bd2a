"""Availability use cases: weekly pattern versions, dated exceptions, and the computed windows.

Permission is one subject, `Availability`, whose fields are `provider` and `team` (the provider's
team) for patterns and exceptions alike. The windows are computed by
`app.api.domain.availability`, the one rule the schedule's warnings also use. Never commits.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.domain import availability as rules
from app.api.models import Availability, AvailabilityException, Provider, Team
from app.api.models.common import utcnow
from app.api.pagination import Paginator, SortKey
from app.api.problems import ProblemError, negative_range, not_found, validation
from app.api.subjects import AVAILABILITY, AVAILABILITY_EXCEPTION
from app.contract.availability import (
    AvailabilityCreate,
    AvailabilityExceptionCreate,
    AvailabilityExceptionListQuery,
    AvailabilityExceptionRead,
    AvailabilityExceptionUpdate,
    AvailabilityListQuery,
    AvailabilityRead,
    AvailabilityRule,
    AvailabilityUpdate,
    AvailabilityWindow,
    AvailabilityWindowQuery,
    AvailabilityWindows,
    ProviderWindows,
)
from app.contract.problems import FieldError, ProblemCode

MAX_WINDOW_DAYS = 31


def _conflict(kind: str, current: int) -> ProblemError:
    return ProblemError(
        ProblemCode.VERSION_CONFLICT,
        f"This {kind} changed since you read it (it is now at version {current}); reload it and "
        "apply your change again.",
        currentVersion=current,
    )


def _provider(session: Session, actor: Actor, provider_id: uuid.UUID | None) -> Provider:
    """The provider a new record is for: the one named, else the caller's own."""
    provider_id = provider_id or actor.provider_id
    if provider_id is None:
        raise validation("/providerId", "you are not a provider yourself; name the provider "
                                        "whose availability this is")
    provider = session.get(Provider, provider_id)
    if provider is None:
        raise not_found("provider", provider_id)
    return provider


def _fields(provider: Provider, ident: uuid.UUID | None = None) -> dict[str, Any]:
    return {"id": ident, "provider": provider.id, "team": provider.team_id}


def _rule_dicts(body_rules: Sequence[AvailabilityRule]) -> list[dict[str, Any]]:
    """Check the rules (end after start, no overlap per weekday) and store them as JSON."""
    drafts = [rules.WeeklyRule(r.weekday, r.start_time, r.end_time, r.kind) for r in body_rules]
    found = rules.rule_errors(drafts)
    if found:
        errors = [FieldError(path=f"/rules/{index}/{member}", message=message)
                  for index, member, message in found]
        raise validation(errors[0].path, errors[0].message, errors)
    return [r.model_dump(mode="json", by_alias=True) for r in body_rules]


# Weekly patterns --------------------------------------------------------------------------------


def read(availability: Availability) -> AvailabilityRead:
    """Convert a pattern version to its wire form."""
    return AvailabilityRead.model_validate({
        "id": availability.id, "createdAt": availability.created_at,
        "updatedAt": availability.updated_at, "version": availability.version,
        "providerId": availability.provider_id, "effectiveFrom": availability.effective_from,
        "rules": availability.rules,
    })


def _scoped(statement: Select[Any], column: Any, provider_id: uuid.UUID | None,
            team_id: uuid.UUID | None) -> Select[Any]:
    if provider_id is not None:
        statement = statement.where(column == provider_id)
    if team_id is not None:
        statement = statement.where(
            column.in_(select(Provider.id).where(Provider.team_id == team_id)))
    return statement


def list_availabilities(session: Session, *, actor: Actor, query: AvailabilityListQuery,
                        pages: Paginator) -> tuple[list[Availability], str | None]:
    """One page of the pattern versions the actor may view, by provider and effective date.

    Raises `validation` (bad cursor).
    """
    statement = _scoped(
        select(Availability).where(actor.where("view", "Availability", AVAILABILITY.columns)),
        Availability.provider_id, query.provider_id, query.team_id)
    return pages.page(session, statement, scope="availabilities", query=query,
                      order=[SortKey(Availability.provider_id),
                             SortKey(Availability.effective_from), SortKey(Availability.id)])


def locate_availability(session: Session, availability_id: uuid.UUID) -> None:
    """Raise `availability-not-found` unless the pattern version exists."""
    if session.get(Availability, availability_id) is None:
        raise not_found("availability", availability_id)


def get_availability(session: Session, *, actor: Actor, availability_id: uuid.UUID,
                     action: str = "view", lock: bool = False) -> Availability:
    """One pattern version the actor may do `action` on.

    Raises `availability-not-found` and `unauthorized`.
    """
    found = session.get(Availability, availability_id, with_for_update=lock)
    if found is None:
        raise not_found("availability", availability_id)
    actor.require(action, "Availability", AVAILABILITY.of(found))
    return found


def create_availability(session: Session, *, actor: Actor,
                        body: AvailabilityCreate) -> Availability:
    """Create a pattern version. Raises `validation`, `provider-not-found`, `unauthorized`."""
    provider = _provider(session, actor, body.provider_id)
    actor.require("create", "Availability", _fields(provider))
    stored = _rule_dicts(body.rules)
    availability = Availability(provider=provider, effective_from=body.effective_from,
                                rules=stored)
    session.add(availability)
    session.flush()
    return availability


def update_availability(session: Session, *, actor: Actor, availability_id: uuid.UUID,
                        body: AvailabilityUpdate) -> Availability:
    """Change the members sent; `rules` replaces the whole list.

    Raises `availability-not-found`, `unauthorized`, `version-conflict`, `validation`.
    """
    found = get_availability(session, actor=actor, availability_id=availability_id,
                             action="edit", lock=True)
    if body.version is not None and body.version != found.version:
        raise _conflict("availability", found.version)
    if body.effective_from is not None:
        found.effective_from = body.effective_from
    if body.rules is not None:
        found.rules = _rule_dicts(body.rules)
    found.updated_at = utcnow()  # every successful update raises the version, as for shifts
    session.flush()
    return found


def delete_availability(session: Session, *, actor: Actor, availability_id: uuid.UUID,
                        version: int | None) -> None:
    """Delete a pattern version. Raises `availability-not-found`, `unauthorized`,
    `version-conflict`."""
    found = get_availability(session, actor=actor, availability_id=availability_id,
                             action="edit", lock=True)
    if version is not None and version != found.version:
        raise _conflict("availability", found.version)
    session.delete(found)
    session.flush()


# Exceptions -------------------------------------------------------------------------------------


def exception_read(found: AvailabilityException) -> AvailabilityExceptionRead:
    """Convert an exception to its wire form."""
    return AvailabilityExceptionRead.model_validate(found)


def list_exceptions(session: Session, *, actor: Actor, query: AvailabilityExceptionListQuery,
                    pages: Paginator) -> tuple[list[AvailabilityException], str | None]:
    """One page of the exceptions the actor may view overlapping the dates, by start date.

    Raises `negative-range` and `validation` (bad cursor).
    """
    if query.start_date and query.end_date and query.end_date < query.start_date:
        raise negative_range("endDate")
    statement = _scoped(
        select(AvailabilityException).where(
            actor.where("view", "Availability", AVAILABILITY_EXCEPTION.columns)),
        AvailabilityException.provider_id, query.provider_id, query.team_id)
    if query.start_date is not None:
        statement = statement.where(AvailabilityException.end_date >= query.start_date)
    if query.end_date is not None:
        statement = statement.where(AvailabilityException.start_date <= query.end_date)
    return pages.page(session, statement, scope="availability-exceptions", query=query,
                      order=[SortKey(AvailabilityException.start_date),
                             SortKey(AvailabilityException.id)])


def locate_exception(session: Session, exception_id: uuid.UUID) -> None:
    """Raise `availability-exception-not-found` unless the exception exists."""
    if session.get(AvailabilityException, exception_id) is None:
        raise not_found("availability-exception", exception_id)


def get_exception(session: Session, *, actor: Actor, exception_id: uuid.UUID,
                  action: str = "view", lock: bool = False) -> AvailabilityException:
    """One exception the actor may do `action` on.

    Raises `availability-exception-not-found` and `unauthorized`.
    """
    found = session.get(AvailabilityException, exception_id, with_for_update=lock)
    if found is None:
        raise not_found("availability-exception", exception_id)
    actor.require(action, "Availability", AVAILABILITY_EXCEPTION.of(found))
    return found


def create_exception(session: Session, *, actor: Actor,
                     body: AvailabilityExceptionCreate) -> AvailabilityException:
    """Create an exception. Raises `validation`, `negative-range` (path `/endDate`),
    `provider-not-found` and `unauthorized`."""
    if body.end_date < body.start_date:
        raise negative_range("/endDate")
    provider = _provider(session, actor, body.provider_id)
    actor.require("create", "Availability", _fields(provider))
    found = AvailabilityException(provider=provider, start_date=body.start_date,
                                  end_date=body.end_date, kind=body.kind,
                                  note=(body.note or "").strip() or None)
    session.add(found)
    session.flush()
    return found


def update_exception(session: Session, *, actor: Actor, exception_id: uuid.UUID,
                     body: AvailabilityExceptionUpdate) -> AvailabilityException:
    """Change the members sent. Raises `availability-exception-not-found`, `unauthorized`,
    `version-conflict`, `negative-range`."""
    found = get_exception(session, actor=actor, exception_id=exception_id, action="edit",
                          lock=True)
    if body.version is not None and body.version != found.version:
        raise _conflict("exception", found.version)
    start = body.start_date or found.start_date
    end = body.end_date or found.end_date
    if end < start:
        raise negative_range("/endDate")
    found.start_date, found.end_date = start, end
    if body.kind is not None:
        found.kind = body.kind
    if "note" in body.model_fields_set:
        found.note = (body.note or "").strip() or None
    found.updated_at = utcnow()  # every successful update raises the version
    session.flush()
    return found


def delete_exception(session: Session, *, actor: Actor, exception_id: uuid.UUID,
                     version: int | None) -> None:
    """Delete an exception. Raises `availability-exception-not-found`, `unauthorized`,
    `version-conflict`."""
    found = get_exception(session, actor=actor, exception_id=exception_id, action="edit",
                          lock=True)
    if version is not None and version != found.version:
        raise _conflict("exception", found.version)
    session.delete(found)
    session.flush()


# Windows ----------------------------------------------------------------------------------------


def provider_windows(session: Session, provider_ids: Sequence[uuid.UUID], *, first: date,
                     last: date, zone: ZoneInfo) -> dict[uuid.UUID, list[rules.Window]]:
    """Each provider's unavailable and preferred windows on local dates `first`..`last`.

    No permission check: callers decide whose windows they may read (shift checks use this for
    the provider a shift is being given to).
    """
    if not provider_ids:
        return {}
    patterns: dict[uuid.UUID, list[rules.Pattern]] = {p: [] for p in provider_ids}
    for row in session.scalars(select(Availability).where(
            Availability.provider_id.in_(provider_ids), Availability.effective_from <= last)):
        patterns[row.provider_id].append(rules.Pattern(row.effective_from, tuple(
            rules.WeeklyRule(r["weekday"], r["startTime"], r["endTime"], r["kind"])
            for r in row.rules)))
    days_off: dict[uuid.UUID, list[rules.DayException]] = {p: [] for p in provider_ids}
    for row in session.scalars(select(AvailabilityException).where(
            AvailabilityException.provider_id.in_(provider_ids),
            AvailabilityException.start_date <= last, AvailabilityException.end_date >= first)):
        days_off[row.provider_id].append(
            rules.DayException(row.start_date, row.end_date, row.kind, row.note))
    return {p: rules.windows(patterns[p], days_off[p], first=first, last=last, zone=zone)
            for p in provider_ids}


def instant_days(start: datetime, end: datetime, zone: ZoneInfo) -> tuple[date, date]:
    """The local dates an interval of instants touches."""
    return start.astimezone(zone).date(), end.astimezone(zone).date()


def windows(session: Session, *, actor: Actor, query: AvailabilityWindowQuery,
            zone: ZoneInfo) -> AvailabilityWindows:
    """The windows of one provider or of a team's providers the actor may view.

    Raises `validation` (neither or both of providerId/teamId; more than 31 days),
    `negative-range`, `provider-not-found`, `team-not-found` and `unauthorized`.
    """
    if (query.provider_id is None) == (query.team_id is None):
        raise validation("providerId", "give either providerId or teamId")
    if query.end_date < query.start_date:
        raise negative_range("endDate")
    if query.end_date - query.start_date >= timedelta(days=MAX_WINDOW_DAYS):
        raise validation("endDate", f"the window may span at most {MAX_WINDOW_DAYS} days")
    if query.provider_id is not None:
        provider = session.get(Provider, query.provider_id)
        if provider is None:
            raise not_found("provider", query.provider_id)
        actor.require("view", "Availability", _fields(provider))
        providers = [provider.id]
    else:
        if session.get(Team, query.team_id) is None:
            raise not_found("team", query.team_id)
        providers = [p.id for p in session.scalars(
            select(Provider).where(Provider.team_id == query.team_id).order_by(Provider.id))
            if actor.can("view", "Availability", _fields(p))]
    found = provider_windows(session, providers, first=query.start_date, last=query.end_date,
                             zone=zone)
    return AvailabilityWindows(items=[ProviderWindows(provider_id=p, windows=[
        AvailabilityWindow(start_date=w.start, end_date=w.end, kind=w.kind,  # type: ignore[arg-type]
                           reason=w.reason, source=w.source)  # type: ignore[arg-type]
        for w in found[p]]) for p in providers])
