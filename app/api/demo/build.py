"""The whole demo load in order: plan in memory, then write table by table, then summarise.

Every step draws from the load's one random generator, so the order below is part of the data:
changing it changes the demo.
"""

from __future__ import annotations

from datetime import timedelta

from app.api.demo.appointments import write_appointments
from app.api.demo.availability import write_availability
from app.api.demo.bulk import roomy_sqlite_cache
from app.api.demo.forecasting import write_forecast
from app.api.demo.notifications import write_notifications
from app.api.demo.organisation import plan_organisation, write_organisation
from app.api.demo.people import plan_people, write_people
from app.api.demo.reports import write_report_runs
from app.api.demo.schedule import plan_callouts, plan_open_shifts, plan_shifts, write_shifts
from app.api.demo.state import DEMO_PASSWORD, FIRST_DAY, LAST_DAY, Demo
from app.api.demo.swaps import write_swaps
from app.api.demo.time_off import plan_time_off, write_policies, write_time_off
from app.api.demo.timekeeping import write_punches
from app.api.services.people import grant_worked_roles


def build(demo: Demo) -> str:
    """Plan and write everything; return the summary."""
    with roomy_sqlite_cache(demo.session.connection()):
        plan_organisation(demo)
        plan_people(demo)
        plan_shifts(demo)
        requests = plan_time_off(demo)
        plan_callouts(demo)
        plan_open_shifts(demo)
        write_organisation(demo)
        write_people(demo)
        write_policies(demo)
        write_shifts(demo)
        grant_worked_roles(demo.session)  # each person holds the roles their shifts use
        write_time_off(demo, requests)
        write_punches(demo)
        write_appointments(demo)
        write_report_runs(demo)
        write_forecast(demo)
        write_availability(demo)
        write_notifications(demo)
        write_swaps(demo)
        return summary(demo)


def summary(demo: Demo) -> str:
    """One paragraph: what exists and how to sign in."""
    c = demo.counts
    statuses = ", ".join(f"{c['request:' + s]} {s}" for s in
                         ("pending", "approved", "rejected", "cancelled", "pending_sync",
                          "sync_failed"))
    appointments = ", ".join(f"{c['appointment:' + s]} {s}" for s in
                             ("upcoming", "occurred", "cancelled", "no-show", "re-scheduled"))
    names = ", ".join(t.name for t in demo.teams[:6]) + (
        f" and {len(demo.teams) - 6} more" if len(demo.teams) > 6 else "")
    first, last = demo.today + timedelta(days=FIRST_DAY), demo.today + timedelta(days=LAST_DAY)
    return (
        f"Demo organisation loaded for {demo.today.isoformat()} ({demo.zone.key}): "
        f"{c['teams']} teams ({names}) with {c['roles']} colour-coded roles, "
        f"{c['providers']} providers and {c['users']} users; {c['shifts']:,} shifts from "
        f"{first.isoformat()} to {last.isoformat()} ({c['open']:,} open, "
        f"{c['callouts']:,} callouts) in {c['segments']:,} segments; "
        f"{c['requests']} time-off requests ({statuses}); {c['appointments']:,} appointments "
        f"({appointments}); {c['punches']:,} punches on {c['timecards']:,} timecards "
        f"({c['anomaly:late']} late clock-ins, {c['anomaly:early']} early clock-outs, "
        f"{c['anomaly:missing']} missing clock-outs, {c['unscheduled']} clocked days without "
        f"a shift); {c['runs']} report runs; {c['forecast']:,} demand forecast rows. Sign in "
        f"as admin@example.com, manager@example.com, scheduler@example.com or "
        f"provider@example.com with the password \"{DEMO_PASSWORD}\"."
    )
