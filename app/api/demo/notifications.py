"""Demo notifications: Pat Rivera (the demo provider) finds a few in the bell, one already read,
as the decisions the load wrote would have told them: their latest decided time-off request,
their next shift, and the next open shift of their team.

Writes rows only (ids from `demo_id`, so a second load changes nothing); the words come from
`app.api.domain.notifications`, as the live notices'.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from app.api import models as m
from app.api.demo.state import Demo, demo_id
from app.api.domain import notifications as words


def write_notifications(demo: Demo) -> None:
    """Three notices for Pat: a time-off decision (read), their next shift and an open shift."""
    pat = next((p for p in demo.people if p.is_demo), None)
    if pat is None:
        return
    session, zone, now = demo.session, demo.zone, demo.midnight
    decided = session.scalars(
        select(m.TimeOffRequest).where(m.TimeOffRequest.provider_id == pat.id,
                                       m.TimeOffRequest.status.in_(("approved", "rejected")))
        .order_by(m.TimeOffRequest.start_date.desc()).limit(1)).first()
    mine = session.scalars(
        select(m.Shift).where(m.Shift.provider_id == pat.id, m.Shift.start_date > now,
                              m.Shift.is_callout.is_(False))
        .order_by(m.Shift.start_date).limit(1)).first()
    posted = session.scalars(
        select(m.Shift).where(m.Shift.provider_id.is_(None), m.Shift.team_id == pat.team.id,
                              m.Shift.start_date > now, m.Shift.segments.any(
                                  m.ShiftSegment.role_id == pat.role_id))
        .order_by(m.Shift.start_date).limit(1)).first()
    notices: list[tuple[str, words.Words, str, m.TimeOffRequest | m.Shift, int, bool]] = []
    if decided is not None:
        leave = words.leave_days(decided.start_date, decided.end_date, zone)
        said = (words.time_off_approved(leave, "Morgan Ellis") if decided.status == "approved"
                else words.time_off_rejected(leave, "Morgan Ellis", decided.rejection_reason))
        notices.append((f"time-off-{decided.status}", said, "TimeOffRequest", decided, 30, True))
    if mine is not None:
        notices.append(("shift-assigned", words.shift_assigned(
            words.span(mine.start_date, mine.end_date, zone), "Morgan Ellis"), "Shift", mine, 20,
            False))
    if posted is not None:
        notices.append(("open-shift-posted", words.open_shift_posted(
            words.span(posted.start_date, posted.end_date, zone),
            session.get(m.Role, pat.role_id).name), "Shift", posted, 5, False))
    for kind, said, subject, record, hours_ago, read in notices:
        at = now - timedelta(hours=hours_ago)
        session.add(m.Notification(
            id=demo_id(f"notification:{kind}:{pat.email}"), user_id=pat.id, kind=kind,
            title=said.title, body=said.body, subject=subject, record_id=record.id,
            record_time=record.start_date, created_at=at, updated_at=at,
            read_at=at + timedelta(hours=1) if read else None))
    demo.counts["notifications"] = len(notices)
    session.flush()
