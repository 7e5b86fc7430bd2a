"""Report catalog entries in the staff's words: labels and hints of parameters, choice names.

The catalog (`GET /v1/reporting/reports`) names parameters and describes reports for API
callers, with member names such as `startDate`. Pages show these words instead; a parameter or
report this module does not know yet is shown with its API text, member names spelt out. Must
not call the API.
"""

from __future__ import annotations

import re

LABELS: dict[str, str] = {
    "startDate": "First day",
    "endDate": "Last day",
    "teamId": "Team",
    "bucket": "Group by",
}
"""Each known parameter's label."""

HINTS: dict[str, str] = {
    "startDate": "The first day the report covers, from midnight (site time).",
    "endDate": "The last day the report covers, included.",
    "teamId": "Only this team's people (or roles).",
    "bucket": "Hours are in UTC; days in the site's time zone.",
}
"""Each known parameter's hint, where the form means something other than the API's text
(the form asks for the last day included; the API takes the end of the window, excluded)."""

CHOICES: dict[str, str] = {"hour": "Hour", "day": "Day"}
"""Words for the values of choice parameters."""

DESCRIPTIONS: dict[str, str] = {
    "payroll": "One team's payroll file: a row per person, day, pay code and role with "
               "scheduled and actual minutes and the person's payroll number. The figures are "
               "final when the whole window is signed off; otherwise the file is preliminary and "
               "its name says so.",
    "shift-coverage": "For each role and hour or day: how many people are scheduled against "
                      "the demand forecast, both averaged over the hour or day.",
}
"""Reports whose API description uses API words or says more than staff need."""

_MEMBER = re.compile(r"\b[a-z]+(?:[A-Z][a-z0-9]*)+\b")


def spelt_out(text: str) -> str:
    """`startDate` → `start date`, inside any sentence."""
    return _MEMBER.sub(lambda m: re.sub(r"(?<!^)([A-Z])", r" \1", m.group(0)).lower(), text)


def label(name: str) -> str:
    """A parameter's label."""
    return LABELS.get(name) or spelt_out(name).capitalize()


def hint(name: str, description: str) -> str:
    """A parameter's hint under its field."""
    return HINTS.get(name) or spelt_out(description)


def choice(value: str) -> str:
    """A choice's words."""
    return CHOICES.get(value) or spelt_out(value).capitalize()


def description(report_id: str, text: str) -> str:
    """A report's description."""
    return DESCRIPTIONS.get(report_id) or spelt_out(text)


STATUS: dict[str, str] = {"running": "Running", "completed": "Ready", "failed": "Failed"}
"""A run's status in words."""
