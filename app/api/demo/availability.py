"""Demo availability: Pat Rivera (the demo provider) and two teammates state a weekly pattern
and a day off, so the team schedule shows unavailable time from the start.

Writes rows only; the rules that read them live in `app.api.domain.availability`.
"""

from __future__ import annotations

from datetime import timedelta

from app.api import models as m
from app.api.demo.state import Demo, demo_id


def _rule(weekday: str, start: str, end: str, kind: str) -> dict[str, str]:
    return {"weekday": weekday, "startTime": start, "endTime": end, "kind": kind}


def write_availability(demo: Demo) -> None:
    """Patterns from four weeks ago and days off in the coming two weeks."""
    pat = next((p for p in demo.people if p.is_demo), None)
    if pat is None:
        return
    mates = [p for p in demo.people if p.team is pat.team and not p.is_demo
             and p.status == "active"][:2]
    since = demo.today - timedelta(days=28)
    plans = [(pat, [_rule("wednesday", "00:00", "12:00", "unavailable"),
                    _rule("friday", "07:00", "19:00", "preferred")],
              10, 10, "Family visit")]
    if mates:
        plans.append((mates[0], [_rule("sunday", "00:00", "24:00", "unavailable")],
                      5, 7, "Conference"))
    if len(mates) > 1:
        plans.append((mates[1], [_rule("monday", "15:00", "24:00", "unavailable"),
                                 _rule("tuesday", "07:00", "15:00", "preferred")],
                      3, 3, None))
    for person, rules, first, last, note in plans:
        demo.session.add(m.Availability(id=demo_id(f"availability:{person.email}"),
                                        provider_id=person.id, effective_from=since,
                                        rules=rules))
        demo.session.add(m.AvailabilityException(
            id=demo_id(f"availability-exception:{person.email}"), provider_id=person.id,
            start_date=demo.today + timedelta(days=first),
            end_date=demo.today + timedelta(days=last), kind="unavailable", note=note))
    demo.session.flush()
