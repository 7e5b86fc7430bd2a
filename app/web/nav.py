"""The staff navigation: one list of every area, each keyed by the permission it needs.

An entry shows when the signed-in user holds its permission (read from `GET /v1/users/me`) and
its endpoint exists. Later issues add an area by registering its blueprint; the entry here
already names the endpoint it will have. This decides what to *show*; the API still decides
what is allowed. Must not call the API itself: it receives the `UserMe`.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass

from app.contract.users import UserMe


@dataclass(frozen=True)
class Need:
    """A permission: `action` on some `subject`; `own` also needs the user to be a provider."""

    action: str
    subject: str
    own: bool = False


@dataclass(frozen=True)
class NavItem:
    """One area of the UI as the navigation and the home page show it."""

    label: str
    endpoint: str
    path: str
    group: str
    hint: str


@dataclass(frozen=True)
class Group:
    """A kind of work, headed on the home page."""

    key: str
    title: str
    summary: str


GROUPS: tuple[Group, ...] = (
    Group("provider", "My work",
          "Clock in and out, check your timecard and shifts, pick up open shifts and ask for "
          "time off."),
    Group("manager", "My teams",
          "Decide on time-off requests, review timesheets and keep the team schedule."),
    Group("scheduler", "Appointments",
          "Find free slots, book and change appointments, and keep appointment types."),
    Group("admin", "Administration", "Labels, pay codes, roles and permissions."),
)

NAV: dict[Need, NavItem] = {
    Need("create", "Timecard", own=True):
        NavItem("Clock", "clock.index", "/clock", "provider", "Clock in and out, take breaks"),
    Need("view", "Timecard", own=True):
        NavItem("My timecard", "timecard.index", "/timecard", "provider",
                "Your punches this pay period"),
    Need("view", "Shift", own=True):
        NavItem("My shifts", "shifts.mine", "/shifts/mine", "provider",
                "Where and when you work"),
    Need("edit", "Shift", own=True):
        NavItem("Open shifts", "shifts.open", "/shifts/open", "provider",
                "Shifts you can pick up"),
    Need("create", "TimeOffRequest", own=True):
        NavItem("Time off", "time_off.index", "/time-off", "provider",
                "Ask for time off, see your requests"),
    Need("approve", "TimeOffRequest"):
        NavItem("Time-off queue", "manage_time_off.index", "/manage/time-off", "manager",
                "Requests waiting for a decision"),
    Need("sign_off", "Timesheet"):
        NavItem("Timesheets", "manage_timesheets.index", "/manage/timesheets", "manager",
                "Hours, punches and warnings"),
    Need("create", "Shift"):
        NavItem("Team schedule", "manage_schedule.index", "/manage/schedule", "manager",
                "Plan and edit shifts"),
    Need("create", "Appointment"):
        NavItem("Find a slot", "slots.index", "/slots", "scheduler",
                "Search free appointment slots"),
    Need("edit", "Appointment"):
        NavItem("Appointments", "appointments.index", "/appointments", "scheduler",
                "Book, reschedule and cancel"),
    Need("edit", "AppointmentType"):
        NavItem("Appointment types", "appointment_types.index", "/appointment-types",
                "scheduler", "Lengths, roles and skills"),
    Need("edit", "Permission"):
        NavItem("Settings", "settings.index", "/settings", "admin",
                "Labels, pay codes, roles and permissions"),
}


def can(me: UserMe, action: str, subject: str) -> bool:
    """Whether `me` may do `action` on some `subject` (CASL's check without an object).

    Conditions are ignored: a conditional rule still allows *some* objects. An inverted rule
    without conditions denies outright; administrators may do everything.
    """
    if me.is_admin:
        return True
    allowed = False
    for rule in me.permissions:
        if rule.subject != subject or rule.action not in (action, "manage"):
            continue
        if rule.inverted:
            if rule.conditions in (None, {}):
                return False
        else:
            allowed = True
    return allowed


def entitled(me: UserMe) -> list[NavItem]:
    """Every area `me` may use, whether or not its pages exist yet, in menu order."""
    return [item for need, item in NAV.items()
            if (not need.own or me.provider_id is not None) and can(me, need.action, need.subject)]


def menu(me: UserMe, endpoints: Container[str]) -> list[NavItem]:
    """The navigation of `me`: the areas they may use whose pages exist."""
    return [item for item in entitled(me) if item.endpoint in endpoints]


def groups(me: UserMe, endpoints: Container[str]) -> list[tuple[Group, list[NavItem]]]:
    """The kinds of work `me` does, each with its available areas, for the home page."""
    mine = entitled(me)
    return [(group, [i for i in mine if i.group == group.key and i.endpoint in endpoints])
            for group in GROUPS if any(i.group == group.key for i in mine)]
