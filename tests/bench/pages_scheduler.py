"""Page benchmarks of the scheduler pages (issue 7), for `python -m tests.bench.pages`.

The slot search page is the one that matters: its view makes one round of four concurrent API
calls (the user, the appointment types, the providers and the slot search itself), so
`api_calls` makes the same four concurrently with the same search body. The appointments list
makes one round of five (the user, types, providers, teams and the page of appointments from
today on).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from app.config import Settings
from app.contract.appointment_types import AppointmentTypeListQuery
from app.contract.appointments import AppointmentListQuery
from app.contract.providers import ProviderListQuery
from app.contract.teams import TeamListQuery
from app.web.appointments.views import PAGE_SIZE
from app.web.slots import windows
from app.web.slots.views import PAGE, search_body
from tests.bench.pages import PageCase


def _type_id(client: Any) -> str:
    types = client.list_appointment_types(AppointmentTypeListQuery(page_size=PAGE))
    return str(types.items[0].id)


def _slot_page(client: Any) -> str:
    return f"/slots?type={_type_id(client)}&range=next-week"


def _slot_calls(client: Any) -> object:
    window = windows.quick("next-week", datetime.now(UTC), Settings().zone)
    body = search_body(_TYPE.setdefault("id", _type_id(client)), window)
    return client.concurrently(
        client.me,
        lambda: client.list_appointment_types(AppointmentTypeListQuery(page_size=PAGE)),
        lambda: client.list_providers(ProviderListQuery(page_size=PAGE)),
        lambda: client.search_slots(body))


_TYPE: dict[str, str] = {}


def _list_calls(client: Any) -> object:
    zone = Settings().zone
    today = datetime.now(UTC).astimezone(zone).date()
    query = AppointmentListQuery(page_size=PAGE_SIZE, start_date=windows.midnight(today, zone))
    return client.concurrently(
        client.me,
        lambda: client.list_appointment_types(AppointmentTypeListQuery(page_size=PAGE)),
        lambda: client.list_providers(ProviderListQuery(page_size=PAGE)),
        lambda: client.list_teams(TeamListQuery(page_size=PAGE)),
        lambda: client.list_appointments(query))

CASES = [
    PageCase(name="slot search page", email="scheduler@example.com", path=_slot_page,
             api_calls=_slot_calls, compressed_bytes=True),
    PageCase(name="appointments list", email="scheduler@example.com", path="/appointments",
             api_calls=_list_calls),
]
