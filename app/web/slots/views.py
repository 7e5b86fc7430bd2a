"""Find a slot (blueprint `slots`): schedulers search free appointment slots and book them.

`index` answers the GET search form (URL-kept, bookmarkable): the page, or for htmx the
`slot_results` block alone. It makes one round of concurrent API calls (the user, the types, the
providers and the slot search); only an empty result earns a second, explanatory round (the same
search without the hard filters, and the window's upcoming appointments), so the page costs what
its search costs. `new`/`create` confirm and book one slot; a slot taken meanwhile (the API's
`appointment-overlap`, or the slot no longer offered) re-renders the search with an inline
explanation and fresh results. Must not import `app.api`; it reaches the API only via `app.client`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, current_app, flash, g, request, url_for
from werkzeug.datastructures import MultiDict

from app.client import ApiClient, ApiProblem
from app.contract.appointment_types import AppointmentTypeListQuery, AppointmentTypeRead
from app.contract.appointments import (
    AppointmentCreate,
    AppointmentListQuery,
    AppointmentSlot,
    SlotCriteria,
    SlotSearch,
    SlotSearchResult,
)
from app.contract.common import format_timestamp, parse_timestamp
from app.contract.providers import ProviderListQuery, ProviderWithRelations
from app.web.appointment_types import skills
from app.web.auth import api
from app.web.filters import format_minutes
from app.web.forms import apply_problem, filter_chips
from app.web.htmx import render, see_other
from app.web.slots import windows
from app.web.slots.forms import DEFAULT_LIMIT, MORE, BookingForm, SlotSearchForm, is_uuid

bp = Blueprint("slots", __name__)

FILTERS = ("provider", "skill", "prefer_provider", "prefer_skill")
"""The search's provider and skill filters (folded away; each active one is a chip)."""
PAGE = 200  # types and providers are read in one page each; the demo organisation fits easily


def zone() -> Any:
    """The site's time zone."""
    return current_app.config["SHIFTDESK"].zone


def now() -> datetime:
    """The current instant (UTC)."""
    return datetime.now(UTC)


def catalog_calls(client: ApiClient) -> list[Callable[[], Any]]:
    """The reads every scheduler page starts with: the user, the types, the providers."""
    return [client.me,
            lambda: client.list_appointment_types(AppointmentTypeListQuery(page_size=PAGE)),
            lambda: client.list_providers(ProviderListQuery(page_size=PAGE))]


def remember_me(me: Any) -> None:
    """Keep `/v1/users/me`, fetched alongside a page's other reads, for the menu."""
    g.shiftdesk_me = me  # the key app.web.auth.current_user caches it under


def guarded(call: Callable[[], Any]) -> Callable[[], Any]:
    """`call`, answering its problem instead of raising it (so siblings still finish)."""
    def run() -> Any:
        try:
            return call()
        except ApiProblem as problem:
            return problem
    return run


@dataclass
class Criteria:
    """What the search form asked for, parsed."""

    type: AppointmentTypeRead | None
    window: windows.Window
    required_providers: list[str]
    required_skills: list[str]
    preferred_providers: list[str]
    preferred_skills: list[str]
    limit: int

    def requirements(self) -> SlotCriteria | None:
        """The hard filters of the search body."""
        skill = skills.all_of([c for c in map(skills.parse_option, self.required_skills) if c])
        if not self.required_providers and skill is None:
            return None
        return SlotCriteria(provider_ids=self.required_providers or None, skill=skill)

    def preferences(self) -> SlotCriteria | None:
        """The soft filters of the search body."""
        skill = skills.any_of([c for c in map(skills.parse_option, self.preferred_skills) if c])
        if not self.preferred_providers and skill is None:
            return None
        return SlotCriteria(provider_ids=self.preferred_providers or None, skill=skill)


def search_body(type_id: str, window: windows.Window, criteria: Criteria | None = None, *,
                limit: int = DEFAULT_LIMIT) -> SlotSearch:
    """The body of a slot search."""
    body: dict[str, Any] = {"appointment_type_id": type_id, "start_date": window.start,
                            "end_date": window.end, "limit": limit}
    if criteria is not None:
        if (requirements := criteria.requirements()) is not None:
            body["requirements"] = requirements
        if (preferences := criteria.preferences()) is not None:
            body["preferences"] = preferences
    return SlotSearch(**body)


def window_of(form: SlotSearchForm) -> windows.Window:
    """The window the form names: a quick pick, or the chosen days."""
    pick = form.range.data or "week"
    if pick == "dates" or (pick not in dict(windows.QUICK_PICKS)):
        first: date | None = form.start.data
        last: date | None = form.end.data or first
        if first is None:
            return windows.quick("week", now(), zone())
        return windows.days(first, max(first, last or first), zone())
    return windows.quick(pick, now(), zone())


@dataclass
class Row:
    """One slot as the results list shows it."""

    rank: int
    slot: AppointmentSlot
    provider: ProviderWithRelations | None
    book_url: str


@dataclass
class Results:
    """What the results region shows."""

    searched: bool = False
    days: list[tuple[date, list[Row]]] = field(default_factory=list)
    count: int = 0
    more_url: str | None = None
    reasons: list[str] = field(default_factory=list)
    suggestions: list[tuple[str, str]] = field(default_factory=list)
    problem: str | None = None


def args_with(args: MultiDict[str, str], **changes: Any) -> str:
    """The search URL with some parameters replaced (None removes one)."""
    kept = MultiDict(args)
    for key, value in changes.items():
        kept.poplist(key)
        if isinstance(value, list):
            kept.setlist(key, value)
        elif value is not None:
            kept[key] = str(value)
    return url_for("slots.index") + ("?" + urlencode(list(kept.items(multi=True)))
                                     if kept else "")


def _rows(found: SlotSearchResult, people: dict[str, ProviderWithRelations], back: str,
          type_id: str, carry: dict[str, str] | None = None) -> list[tuple[date, list[Row]]]:
    by_day: dict[date, list[Row]] = {}
    for rank, slot in enumerate(found.results, start=1):
        day = parse_timestamp(slot.start_date).astimezone(zone()).date()
        book = url_for("slots.new", type=type_id, provider=slot.provider_id,
                       start=format_timestamp(slot.start_date),
                       end=format_timestamp(slot.end_date), back=back, **(carry or {}))
        by_day.setdefault(day, []).append(Row(rank, slot, people.get(slot.provider_id), book))
    return [(day, sorted(rows, key=lambda r: r.slot.start_date))
            for day, rows in sorted(by_day.items())]


def explain(client: ApiClient, criteria: Criteria, providers: Sequence[ProviderWithRelations],
            args: MultiDict[str, str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Why a search found nothing, in plain words, and searches likely to find something."""
    kind = criteria.type
    assert kind is not None
    reasons: list[str] = []
    suggestions: list[tuple[str, str]] = []
    required = skills.all_of([c for c in map(skills.parse_option, criteria.required_skills)
                              if c])
    values = {p.id.hex: skills.provider_values(p) for p in providers}
    able = [p for p in providers if skills.meets(kind.skill_requirement, values[p.id.hex])]
    if not able:
        reasons.append(f"Nobody on staff has the skills a {kind.name} needs "
                       f"({skills.describe(kind.skill_requirement)}).")
    elif required is not None and not any(skills.meets(required, values[p.id.hex])
                                          for p in able):
        reasons.append(f"Nobody who can take a {kind.name} has "
                       f"{skills.describe(required)}.")
    hard = criteria.requirements() is not None
    loose = search_body(str(kind.id), criteria.window, limit=1)
    upcoming = AppointmentListQuery(start_date=criteria.window.start,
                                    end_date=criteria.window.end, status="upcoming",
                                    page_size=PAGE)
    calls: list[Callable[[], Any]] = [guarded(lambda: client.list_appointments(upcoming))]
    if hard:
        calls.append(guarded(lambda: client.search_slots(loose)))
    answers = client.concurrently(*calls)
    booked = answers[0]
    others = answers[1] if hard else None
    if hard and isinstance(others, SlotSearchResult) and others.results:
        if not reasons:
            reasons.append("Nobody who meets your required providers or skills is free then; "
                           "others are.")
        suggestions.append(("Drop the required providers and skills",
                            args_with(args, provider=None, skill=None, limit=None)))
    elif not reasons:
        able_ids = {str(p.id) for p in able}
        busy = [a for a in getattr(booked, "items", []) if str(a.provider_id) in able_ids]
        if busy:
            reasons.append(f"Everyone who can take a {kind.name} is fully booked in this window "
                           f"({len(busy)} appointments already booked).")
        else:
            reasons.append(f"Nobody who can take a {kind.name} has a shift in this window.")
    pick = args.get("range", "week")
    if pick != "next-week":
        suggestions.append(("Search next week", args_with(args, range="next-week", limit=None)))
    first = criteria.window.first_day
    suggestions.append(("Search the next four weeks",
                        args_with(args, range="dates", start=first.isoformat(),
                                  end=date.fromordinal(first.toordinal() + 27).isoformat(),
                                  limit=None)))
    return reasons, suggestions


def search_page(args: MultiDict[str, str], *, status: int = 200, alert: str | None = None,
                carry: dict[str, str] | None = None) -> Response:
    """The search page (or its results block) for the query `args`.

    `carry` (member id and location typed for a slot that was taken) rides along on every
    "Book" link, so picking another slot does not mean typing them again.
    """
    client = api()
    form = SlotSearchForm(formdata=args if args else None)
    valid = form.validate() if args else True
    window = window_of(form) if valid else windows.quick("week", now(), zone())
    type_id = form.type.data if valid and form.type.data and is_uuid(form.type.data) else None
    limit = form.limit.data or DEFAULT_LIMIT
    criteria = Criteria(type=None, window=window, required_providers=list(form.provider.data or []),
                        required_skills=list(form.skill.data or []),
                        preferred_providers=list(form.prefer_provider.data or []),
                        preferred_skills=list(form.prefer_skill.data or []), limit=limit)
    calls = catalog_calls(client)
    over = window.start >= window.end  # e.g. "today" after the day's last minute
    if type_id and not over:
        body = search_body(type_id, window, criteria, limit=limit)
        calls.append(guarded(lambda: client.search_slots(body)))
    me, types, providers, *searched = client.concurrently(*calls)
    remember_me(me)
    people = {str(p.id): p for p in providers.items}
    type_names = {str(t.id): t for t in types.items}
    form.type.choices = [("", "Choose a type…")] + [
        (str(t.id), f"{t.name} ({format_minutes(t.length)})") for t in types.items]
    provider_choices = [(str(p.id), p.name or p.email) for p in providers.items]
    form.provider.choices = provider_choices
    form.prefer_provider.choices = provider_choices
    extra = [*(form.skill.data or []), *(form.prefer_skill.data or [])]
    form.skill.choices = skills.options(providers.items, extra)
    form.prefer_skill.choices = form.skill.choices
    results = Results()
    back = urlencode(list(MultiDict(args).items(multi=True)))
    if type_id and over:
        results.problem = "That window is already over. Pick a later day, or This week."
    elif type_id and type_id not in type_names:
        results.problem = ("That appointment type is archived or no longer exists; choose "
                           "another type.")
        form.type.errors = [results.problem]
        status = 422 if status == 200 else status
    elif type_id:
        found = searched[0]
        criteria.type = type_names[type_id]
        if isinstance(found, ApiProblem):
            apply_problem(form, found)
            results.problem = found.detail
            status = 422 if status == 200 else status
        else:
            results.searched = True
            results.count = len(found.results)
            results.days = _rows(found, people, back, type_id, carry)
            if results.count >= limit and limit < 200:
                results.more_url = args_with(args, limit=min(200, limit + MORE))
            if not found.results:
                results.reasons, results.suggestions = explain(client, criteria,
                                                               providers.items, args)
    elif not valid:
        status = 422
    filters_open = any(form[name].errors for name in FILTERS)
    chips = filter_chips(form, FILTERS, args, url_for("slots.index"))
    return render("slots/index.html", fragment="slot_results", status=status, form=form,
                  results=results, window=window, criteria=criteria, alert=alert,
                  filters_open=filters_open, chosen=type_names.get(type_id or ""), chips=chips,
                  clear_url=args_with(args, **dict.fromkeys(FILTERS)))


@bp.get("/slots")
def index() -> Response:
    """Search free slots; results follow the form as it changes."""
    return search_page(request.args)


def _slot_context(form: BookingForm, types: Any, providers: Any) -> dict[str, Any]:
    kind = next((t for t in types.items if str(t.id) == form.type_id.data), None)
    provider = next((p for p in providers.items if str(p.id) == form.provider_id.data), None)
    back = url_for("slots.index") + ("?" + form.back.data if form.back.data else "")
    return {"kind": kind, "provider": provider, "back_url": back,
            "start": parse_timestamp(form.start_date.data),
            "end": parse_timestamp(form.end_date.data)}


@bp.get("/slots/book")
def new() -> Response:
    """Confirm a slot: who, when, and the member id and location to book it for."""
    form = BookingForm(formdata=MultiDict({
        "type_id": request.args.get("type", ""), "provider_id": request.args.get("provider", ""),
        "start_date": request.args.get("start", ""), "end_date": request.args.get("end", ""),
        "back": request.args.get("back", ""), "member_id": request.args.get("member", ""),
        "location": request.args.get("location", ""),
    }))
    form.validate()
    if any(f.errors for f in (form.type_id, form.provider_id, form.start_date, form.end_date)):
        flash("That slot link is incomplete; search again and pick a slot.", "error")
        return see_other(url_for("slots.index"))
    form.member_id.errors, form.location.errors = [], []
    client = api()
    me, types, providers = client.concurrently(*catalog_calls(client))
    remember_me(me)
    return render("slots/new.html", form=form, **_slot_context(form, types, providers))


def taken(form: BookingForm, message: str) -> Response:
    """The search again, fresh, with why the chosen slot could not be booked."""
    args = MultiDict(_parse_back(form.back.data or ""))
    carry = {"member": form.member_id.data or "", "location": form.location.data or ""}
    return search_page(args, status=409, alert=message,
                       carry={k: v.strip() for k, v in carry.items() if v and v.strip()})


def _parse_back(query: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    return parse_qsl(query, keep_blank_values=False)


@bp.post("/slots/book")
def create() -> Response:
    """Book the slot; a slot taken meanwhile goes back to fresh results with why."""
    form = BookingForm()
    client = api()
    if not form.validate():
        if any(f.errors for f in (form.type_id, form.provider_id, form.start_date,
                                  form.end_date)):
            flash("That slot could not be read; search again and pick a slot.", "error")
            return see_other(url_for("slots.index"))
        me, types, providers = client.concurrently(*catalog_calls(client))
        remember_me(me)
        return render("slots/new.html", form=form, status=422,
                      **_slot_context(form, types, providers))
    start, end = parse_timestamp(form.start_date.data), parse_timestamp(form.end_date.data)
    check = SlotSearch(appointment_type_id=form.type_id.data, start_date=start, end_date=end,
                       requirements=SlotCriteria(provider_ids=[form.provider_id.data]),
                       limit=200)
    me, types, providers, free = client.concurrently(
        *catalog_calls(client), guarded(lambda: client.search_slots(check)))
    remember_me(me)
    context = _slot_context(form, types, providers)
    kind = context["kind"]
    if kind is None:
        return taken(form, "That appointment type was archived meanwhile, so it can no longer "
                           "be booked. Choose another type.")
    still_free = isinstance(free, SlotSearchResult) and any(
        s.provider_id == form.provider_id.data and parse_timestamp(s.start_date) == start
        for s in free.results)
    who = context["provider"].name if context["provider"] else "the provider"
    if not still_free:
        return taken(form, f"Someone else just took that slot with {who}, or it is no longer "
                           "free. Here are the slots free now; pick another one.")
    body = AppointmentCreate(type=kind.name, provider_id=uuid.UUID(form.provider_id.data),
                             start_date=start, end_date=end,
                             member_id=form.member_id.data.strip(),
                             location=form.location.data.strip())
    try:
        booked = client.create_appointment(body)
    except ApiProblem as problem:
        if problem.code == "appointment-overlap":
            return taken(form, f"Someone else booked {who} at that time a moment ago. Here are "
                               "the slots free now; pick another one.")
        if problem.status in (400, 409, 422):
            apply_problem(form, problem)
            return render("slots/new.html", form=form, status=422, **context)
        raise
    flash(f"Booked: {kind.name} with {who} for member {booked.member_id}.", "success")
    return see_other(url_for("appointments.show", appointment_id=booked.id))
