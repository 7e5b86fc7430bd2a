"""Appointment slot search: `POST /v1/appointments/slots`.

A thin view over `app.api.services.slots`. The rule is static, so Flask prefers it to
`/appointments/<appointment_id>` for POST; that rule has no POST, so nothing collides.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.routing import endpoint
from app.api.services import slots as service
from app.config import Settings
from app.contract.appointments import SlotSearch, SlotSearchResult


@endpoint("POST", "/appointments/slots", summary="Search appointment slots", body=SlotSearch,
          response=SlotSearchResult,
          codes=["negative-range", "appointment-type-not-found"],
          tag="Appointments", read_only=True,
          permits=[("create", "Appointment")])
def search_appointment_slots(session: Session, actor: Actor, body: SlotSearch,
                             settings: Settings) -> SlotSearchResult:
    """Free slots for an appointment type within the window, best first.

    Candidates are active providers' working segments (not breaks, on-call or callout shifts)
    with a role the type allows and skills meeting the type's and `requirements.skill`, limited
    to `requirements.providerIds` when given (an empty list matches no one). Appointments that
    are not cancelled and approved time off are busy. Slots start on the local grid of
    `SHIFTDESK_SLOT_GRID_MINUTES` (default 15) and have the type's length. `score` rewards
    `preferences` (providerIds, skill), earlier starts and providers with fewer appointments in
    the window. Skill conditions may name `licensed_region` (a licensed region) and
    `enrollment` (an enrollment's name). Needs permission to create appointments; the window may
    span at most 62 days. An archived type is never offered (`appointment-type-not-found`).
    """
    return service.search_slots(session, actor=actor, body=body,
                                grid=settings.slot_grid_minutes, zone=settings.zone)
