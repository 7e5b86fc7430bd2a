"""The standard RBAC roles every organisation starts with: Provider, Manager, Scheduler, Admin.

Data, not code paths: the demo loader and the tests install these through `install_roles`, and
admins can then edit the rules (`PATCH /v1/authorization/permissions/{id}`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.api.models import Permission, RbacRole

OWN = {"providerId": "$user.providerId"}
MY_TEAMS = {"teamId": {"$in": "$user.teamIds"}}

Rule = tuple[str, str, dict[str, Any] | None]

STANDARD_ROLES: dict[str, tuple[str, list[Rule]]] = {
    "Provider": (
        "Clock in and out, see own shifts and open shifts, claim them, request time off.",
        [
            ("view", "Team", None),
            ("view", "TimeOffPolicy", None),
            ("view", "User", {"id": "$user.id"}),
            ("view", "Provider", {"id": "$user.providerId"}),
            ("view", "Shift", {"provider": "$user.providerId"}),
            ("view", "Shift", {"provider": None, "team": {"$in": "$user.teamIds"}}),
            ("edit", "Shift", {"provider": None, "team": {"$in": "$user.teamIds"}}),
            ("view", "Timecard", OWN),
            ("create", "Timecard", OWN),
            ("view", "Timesheet", OWN),
            ("view", "TimeOffRequest", OWN),
            ("create", "TimeOffRequest", OWN),
            ("edit", "TimeOffRequest", OWN),
            ("view", "Appointment", OWN),
            ("view", "Availability", {"provider": "$user.providerId"}),
            ("create", "Availability", {"provider": "$user.providerId"}),
            ("edit", "Availability", {"provider": "$user.providerId"}),
        ],
    ),
    "Manager": (
        "Review time off, timesheets and punches, and edit the schedule of the managed teams.",
        [
            ("view", "Team", None),
            ("view", "TimeOffPolicy", None),
            ("view", "User", None),
            ("view", "Provider", MY_TEAMS),
            ("view", "Shift", {"team": {"$in": "$user.teamIds"}}),
            ("create", "Shift", {"team": {"$in": "$user.teamIds"}}),
            ("edit", "Shift", {"team": {"$in": "$user.teamIds"}}),
            ("view", "Timecard", MY_TEAMS),
            ("edit", "Timecard", MY_TEAMS),
            ("approve", "Timecard", MY_TEAMS),
            ("view", "Timesheet", MY_TEAMS),
            ("sign_off", "Timesheet", MY_TEAMS),
            ("view", "TimeOffRequest", MY_TEAMS),
            ("create", "TimeOffRequest", MY_TEAMS),
            ("approve", "TimeOffRequest", MY_TEAMS),
            ("edit", "TimeOffRequest", MY_TEAMS),
            ("view", "Appointment", MY_TEAMS),
            ("view", "Report", None),
            ("create", "Report", None),
            ("view", "DemandForecast", None),
            ("create", "DemandForecast", {"team": {"$in": "$user.teamIds"}}),
            ("view", "Availability", {"team": {"$in": "$user.teamIds"}}),
        ],
    ),
    "Scheduler": (
        "Search slots and book, reschedule and cancel appointments; keep appointment types.",
        [
            ("view", "Team", None),
            ("view", "User", None),
            ("view", "Provider", None),
            ("manage", "Appointment", None),
            ("manage", "AppointmentType", None),
        ],
    ),
    "Admin": (
        "Everything, for administrators who are not flagged isAdmin.",
        [("manage", subject, None) for subject in (
            "AutoSchedulerJob", "BalanceReset", "DemandForecast", "Provider", "Report", "Shift",
            "Team", "Timecard", "TimeOffRequest", "TimeOffPolicy", "Timesheet", "Appointment",
            "AppointmentType", "AuditEvent", "Availability", "Label", "Permission", "User",
            "WorkRule",
        )],
    ),
}


def install_roles(session: Session) -> dict[str, RbacRole]:
    """Create the standard roles that do not exist yet; return every standard role by name."""
    existing = {r.name: r for r in session.scalars(
        select(RbacRole).where(RbacRole.name.in_(STANDARD_ROLES))
    )}
    for name, (description, rules) in STANDARD_ROLES.items():
        if name in existing:
            continue
        role = RbacRole(name=name, description=description)
        role.permissions = [
            Permission(action=action, subject=subject, conditions=conditions, position=index)
            for index, (action, subject, conditions) in enumerate(rules)
        ]
        session.add(role)
        existing[name] = role
    session.flush()
    return existing
