"""The staff navigation: one list of every area, each keyed by the permission it needs.

An entry shows when the signed-in user holds its permission (read from `GET /v1/users/me`) and
its endpoint exists. A new area adds its entry here with its blueprint, never before: the menu
and the home page link only to pages that exist. This decides what to *show*; the API still
decides what is allowed. Must not call the API itself: it receives the `UserMe`.
"""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass, replace

from app.contract.users import UserMe


@dataclass(frozen=True)
class Need:
    """A permission: `action` on some `subject`; `own` also needs the user to be a provider."""

    action: str
    subject: str
    own: bool = False
    key: str = ""
    """Tells apart areas that need the same permission."""


@dataclass(frozen=True)
class NavItem:
    """One area of the UI as the navigation and the home page show it."""

    label: str
    endpoint: str
    path: str
    group: str
    hint: str
    # The home page's group for an administrator, where it differs (their own tools).
    admin_group: str | None = None


@dataclass(frozen=True)
class Group:
    """A kind of work, headed on the home page."""

    key: str
    title: str
    summary: str
    # How an administrator, who belongs to no team and may act in all of them, sees the group.
    admin_title: str | None = None
    admin_summary: str | None = None

    def seen_by(self, me: UserMe) -> Group:
        """The group as `me` sees it."""
        if not me.is_admin:
            return self
        return replace(self, title=self.admin_title or self.title,
                       summary=self.admin_summary or self.summary)


GROUPS: tuple[Group, ...] = (
    Group("provider", "My work",
          "Clock in and out, check your timecard and shifts, pick up open shifts and ask for "
          "time off."),
    Group("manager", "My teams",
          "Decide on time-off requests, review timesheets and keep the team schedule.",
          admin_title="All teams",
          admin_summary="Decide on time-off requests, review timesheets and keep the schedule "
                        "of any team: each page lets you pick the team."),
    Group("scheduler", "Appointments",
          "Find free slots, book and change appointments, and keep appointment types."),
    Group("admin", "Administration",
          "Scripts and integrations use the same /v1 API as these pages."),
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
    Need("create", "Availability", own=True):
        NavItem("Availability", "availability.index", "/availability", "provider",
                "When you can and can't work"),
    Need("view", "Shift", own=True, key="swaps"):
        NavItem("Shift swaps", "swaps.index", "/swaps", "provider",
                "Offer a shift, take a colleague's"),
    Need("approve", "TimeOffRequest"):
        NavItem("Time-off queue", "manage_time_off.index", "/manage/time-off", "manager",
                "Requests waiting for a decision"),
    Need("sign_off", "Timesheet"):
        NavItem("Timesheets", "manage_timesheets.index", "/manage/timesheets", "manager",
                "Hours, punches and warnings"),
    Need("create", "Shift"):
        NavItem("Team schedule", "manage_schedule.index", "/manage/schedule", "manager",
                "Plan and edit shifts"),
    Need("create", "Shift", key="swaps"):
        NavItem("Swaps", "swaps.queue", "/manage/swaps", "manager",
                "Shift swaps colleagues agreed on"),
    Need("create", "DemandForecast"):
        NavItem("Demand forecast", "demand_forecast.index", "/manage/demand-forecast", "manager",
                "Upload how many staff each role needs", admin_group="admin"),
    Need("create", "Appointment"):
        NavItem("Find a slot", "slots.index", "/slots", "scheduler",
                "Search free appointment slots"),
    Need("edit", "Appointment"):
        NavItem("Appointments", "appointments.index", "/appointments", "scheduler",
                "Book, reschedule and cancel"),
    Need("edit", "AppointmentType"):
        NavItem("Appointment types", "appointment_types.index", "/appointment-types",
                "scheduler", "Lengths, roles and skills"),
    Need("edit", "WorkRule"):
        NavItem("Pay rules", "pay_rules.index", "/admin/pay-rules", "admin",
                "Overtime, rounding and meals for each team"),
    Need("create", "BalanceReset"):
        NavItem("Balance resets", "balance_resets.index", "/admin/balance-resets", "admin",
                "Set time-off balances from a CSV file"),
    Need("create", "Report"):
        NavItem("Reports", "reports.index", "/admin/reports", "manager",
                "Run reports and download their files", admin_group="admin"),
    Need("create", "User"):
        NavItem("People", "people.index", "/admin/people", "admin",
                "The directory of staff; import people from a CSV file"),
    Need("edit", "Label"):
        NavItem("Settings", "settings.index", "/admin/settings", "admin",
                "Labels, pay codes, teams, roles and time-off policies"),
    Need("edit", "Permission"):
        NavItem("Permissions", "permissions.index", "/admin/permissions", "admin",
                "What each role may do, previewed before you change it (beta)"),
    Need("manage", "AuditEvent"):
        NavItem("Audit trail", "audit.index", "/admin/audit", "admin",
                "Who changed what, and when"),
}

# The administrator's own group on the home page: the documents of the /v1 API (the API's own
# endpoints, so the home page turns them into the API's address).
API_DOCS: tuple[NavItem, ...] = (
    NavItem("API description", "openapi_document", "/v1/openapi.json", "admin",
            "Every /v1 endpoint, in OpenAPI (JSON)"),
    NavItem("API error codes", "error_codes", "/v1/errors", "admin",
            "Each problem the API can answer with, and what it means"),
)


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
    """Every area `me` may use, in menu order (before checking that its endpoint exists)."""
    return [item for need, item in NAV.items()
            if (not need.own or me.provider_id is not None) and can(me, need.action, need.subject)]


def menu(me: UserMe, endpoints: Container[str]) -> list[NavItem]:
    """The navigation of `me`: the areas they may use whose pages exist."""
    return [item for item in entitled(me) if item.endpoint in endpoints]


# The phone's bottom tab bar for providers: what they came for, one thumb away. "Now" is home.
TAB_ENDPOINTS: tuple[tuple[str, str], ...] = (
    ("shifts.mine", "Schedule"), ("shifts.open", "Open shifts"), ("time_off.index", "Time off"))
NOW = NavItem("Now", "home.index", "/", "provider", "What needs you now")


def tabs(items: list[NavItem]) -> list[NavItem]:
    """The bottom tabs of a menu: Now, then Schedule, Open shifts and Time off as the menu has
    them; none for someone without the provider's own areas (the header menu serves them)."""
    found = {item.endpoint: item for item in items if item.group == "provider"}
    chosen = [replace(found[endpoint], label=label)
              for endpoint, label in TAB_ENDPOINTS if endpoint in found]
    return [NOW, *chosen] if chosen else []


def groups(me: UserMe, endpoints: Container[str], *, api_docs: bool = True,
           ) -> list[tuple[Group, list[NavItem]]]:
    """The kinds of work `me` does, each with its areas whose pages exist, for the home page
    (and the header's menus).

    A group without such an area is left out rather than shown empty. Administrators also get
    the API's documents (unless `api_docs` is false), under their own group.
    """
    mine = menu(me, endpoints)
    if me.is_admin:
        # Areas an administrator keeps as their own tools move to their group, after its own.
        mine = ([i for i in mine if not i.admin_group]
                + [replace(i, group=i.admin_group) for i in mine if i.admin_group]
                + ([item for item in API_DOCS if item.endpoint in endpoints] if api_docs
                   else []))
    found = [(group.seen_by(me), [i for i in mine if i.group == group.key]) for group in GROUPS]
    return [(group, items) for group, items in found if items]


def header(me: UserMe, endpoints: Container[str]) -> list[tuple[Group, list[NavItem]]]:
    """The header's menus on a wide screen: one per kind of work when `me` does more than one
    (an administrator: all teams, appointments, administration), else one group whose areas
    the header lists as links in a row. The phone's menu lists the same, headed by group."""
    return groups(me, endpoints, api_docs=False)
