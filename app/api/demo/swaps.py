"""Demo shift swaps: a teammate of Pat Rivera (the demo provider) who holds Pat's role offers one
of their shifts next week for a swap, so Pat's swaps page and open shifts show an offer from the
start.

Writes rows only; the rules live in `app.api.services.shift_swaps`.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from app.api import models as m
from app.api.demo.state import Demo, demo_id


def write_swaps(demo: Demo) -> None:
    """One open listing by a teammate, of a shift Pat does not overlap."""
    pat = next((p for p in demo.people if p.is_demo), None)
    if pat is None:
        return
    mates = [p for p in demo.people if p.team is pat.team and not p.is_demo
             and p.status == "active" and p.role == pat.role]
    start, end = demo.at(4, 0), demo.at(14, 0)
    busy = [(a, b) for a, b in demo.session.execute(select(m.Shift.start_date, m.Shift.end_date)
                                                    .where(m.Shift.provider_id == pat.id))]
    for mate in mates:
        for shift in demo.session.scalars(
                select(m.Shift).where(m.Shift.provider_id == mate.id,
                                      m.Shift.is_callout.is_(False), m.Shift.start_date >= start,
                                      m.Shift.start_date < end).order_by(m.Shift.start_date)):
            if any(a < shift.end_date and shift.start_date < b for a, b in busy):
                continue
            demo.session.add(m.ShiftSwapListing(
                id=demo_id(f"swap-listing:{mate.email}"), shift_id=shift.id,
                shift_version=shift.version, provider_id=mate.id, team_id=shift.team_id,
                kind="swap", note="My daughter's recital; happy to take one of yours.",
                expires_at=shift.start_date - timedelta(hours=12), status="open"))
            demo.session.flush()
            return
