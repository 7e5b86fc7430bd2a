"""Words of the audit trail page: subjects, actions, field names and values as staff read them.

Pure functions of what the API sent; times go through `app.web.filters`. Must not call the API.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from app.web.filters import format_datetime

SUBJECTS: dict[str, str] = {
    "Appointment": "Appointment", "AppointmentType": "Appointment type",
    "BalanceReset": "Balance reset", "EmploymentType": "Employment type", "Label": "Label",
    "PayCode": "Pay code", "Permission": "Permission rule", "Provider": "Provider",
    "Punch": "Punch", "RbacRole": "Permission role", "Role": "Role", "Shift": "Shift",
    "Team": "Team", "TimeOffPolicy": "Time-off policy", "TimeOffRequest": "Time-off request",
    "Timecard": "Timecard", "Timesheet": "Timesheet sign-off", "User": "User",
    "WorkRule": "Pay rule",
}

ACTIONS = {"create": "Created", "edit": "Changed", "delete": "Deleted"}

_WORD = re.compile(r"(?<!^)(?=[A-Z])")
_INSTANT = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)$")
_NAMES = {"provider": "Provider", "team": "Team", "roleId": "Role", "role": "Role",
          "isCallout": "Callout", "payCodes": "Pay code", "payCodeId": "Pay code",
          "adminNote": "Manager's note", "providerNote": "Provider's note"}


def subject_word(subject: str) -> str:
    """`TimeOffRequest` → `Time-off request`; an unknown subject as sent."""
    return SUBJECTS.get(subject, subject)


def action_word(action: str) -> str:
    """`edit` → `Changed`."""
    return ACTIONS.get(action, "Unknown")


def field_word(name: str) -> str:
    """A wire field name as a label: `startDate` → `Start date`, `providerId` → `Provider`."""
    if name in _NAMES:
        return _NAMES[name]
    if name.endswith("Id") and len(name) > 2:
        name = name[:-2]
    words = _WORD.sub(" ", name).lower()
    return words[:1].upper() + words[1:]


def value_lines(value: Any, zone: ZoneInfo) -> list[str]:
    """A recorded value as lines of text: instants in the site's zone, child rows one a line
    with their set fields, nothing as `None`."""
    if value is None or value == [] or value == {}:
        return []
    if isinstance(value, list):
        return [line for item in value for line in (value_lines(item, zone) or ["None"])]
    if isinstance(value, dict):
        parts = [f"{field_word(k)}: {', '.join(value_lines(v, zone))}"
                 for k, v in value.items() if value_lines(v, zone)]
        return ["; ".join(parts)] if parts else []
    if isinstance(value, bool):
        return ["Yes" if value else "No"]
    if isinstance(value, str) and _INSTANT.match(value):
        try:
            return [format_datetime(datetime.fromisoformat(value.replace("Z", "+00:00")), zone)]
        except (ValueError, OverflowError):
            return [value]
    return [str(value)]
