"""The fields each permission subject exposes to conditions, in SQL and in Python.

A condition names a resource's wire fields (`provider`, `teamId`, …). For every subject this
module maps each field to a SQL expression (list filters) and to a getter on the ORM object
(single-object checks) from one declaration, so both forms of a rule see the same values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, select

from app.api import models as m


@dataclass(frozen=True)
class Field:
    """One condition field: its SQL expression and how to read it from an ORM object."""

    column: ColumnElement[Any]
    read: Callable[[Any], Any]


def _col(attribute: Any) -> Field:
    key = attribute.key
    return Field(attribute, lambda obj: getattr(obj, key))


def _team_of_provider(provider_id: Any) -> Field:
    """The team of the provider a row belongs to (rows carry only the provider id)."""
    expression = (
        select(m.Provider.team_id).where(m.Provider.id == provider_id).scalar_subquery()
    )
    return Field(expression, lambda obj: obj.provider.team_id if obj.provider else None)


@dataclass(frozen=True)
class Subject:
    """A permission subject's fields."""

    name: str
    fields: Mapping[str, Field]

    @property
    def columns(self) -> dict[str, ColumnElement[Any]]:
        """Field → SQL expression, for `Actor.where`."""
        return {name: f.column for name, f in self.fields.items()}

    def of(self, obj: Any) -> dict[str, Any]:
        """Field → value of one ORM object, for `Actor.require`."""
        return {name: f.read(obj) for name, f in self.fields.items()}


TEAM = Subject("Team", {"id": _col(m.Team.id), "name": _col(m.Team.name)})
PROVIDER = Subject("Provider", {
    "id": _col(m.Provider.id),
    "teamId": _col(m.Provider.team_id),
    "status": _col(m.Provider.status),
    "employmentType": _col(m.Provider.employment_type_id),
})
USER = Subject("User", {
    "id": _col(m.User.id),
    "type": _col(m.User.type),
    "status": _col(m.User.status),
    "isAdmin": _col(m.User.is_admin),
})
SHIFT = Subject("Shift", {
    "id": _col(m.Shift.id),
    "provider": _col(m.Shift.provider_id),
    "team": _col(m.Shift.team_id),
    "isCallout": _col(m.Shift.is_callout),
    "startDate": _col(m.Shift.start_date),
    "endDate": _col(m.Shift.end_date),
})
TIME_OFF_REQUEST = Subject("TimeOffRequest", {
    "id": _col(m.TimeOffRequest.id),
    "providerId": _col(m.TimeOffRequest.provider_id),
    "policyId": _col(m.TimeOffRequest.policy_id),
    "status": _col(m.TimeOffRequest.status),
    "startDate": _col(m.TimeOffRequest.start_date),
    "endDate": _col(m.TimeOffRequest.end_date),
    "teamId": _team_of_provider(m.TimeOffRequest.provider_id),
})
TIME_OFF_POLICY = Subject("TimeOffPolicy", {
    "id": _col(m.TimeOffPolicy.id),
    "type": _col(m.TimeOffPolicy.type),
})
TIMECARD = Subject("Timecard", {
    "id": _col(m.Timecard.id),
    "providerId": _col(m.Timecard.provider_id),
    "teamId": _team_of_provider(m.Timecard.provider_id),
})
PUNCH = Subject("Timecard", {
    "id": _col(m.TimecardPunch.timecard_id),
    "providerId": _col(m.TimecardPunch.provider_id),
    "teamId": _team_of_provider(m.TimecardPunch.provider_id),
})
"""Punches are checked as part of their timecard (the spec has no Punch subject)."""
TIMESHEET = Subject("Timesheet", {
    "providerId": _col(m.Provider.id),
    "teamId": _col(m.Provider.team_id),
})
"""A timesheet is computed per provider: its fields are the provider's."""
APPOINTMENT = Subject("Appointment", {
    "id": _col(m.Appointment.id),
    "providerId": _col(m.Appointment.provider_id),
    "status": _col(m.Appointment.status),
    "memberId": _col(m.Appointment.member_id),
    "teamId": _team_of_provider(m.Appointment.provider_id),
})
APPOINTMENT_TYPE = Subject("AppointmentType", {"id": _col(m.AppointmentType.id)})
LABEL = Subject("Label", {"id": _col(m.Label.id)})
PERMISSION = Subject("Permission", {
    "id": _col(m.Permission.id),
    "action": _col(m.Permission.action),
    "subject": _col(m.Permission.subject),
})
REPORT = Subject("Report", {
    "reportId": _col(m.ReportRun.report_id),
    "createdBy": _col(m.ReportRun.created_by_id),
})
DEMAND_FORECAST = Subject("DemandForecast", {
    "role": _col(m.DemandForecastRow.role_id),
    "team": Field(
        select(m.Role.team_id).where(m.Role.id == m.DemandForecastRow.role_id).scalar_subquery(),
        lambda obj: obj.role.team_id),
})
"""A forecast row's `team` is its role's team (rows carry only the role id)."""
AVAILABILITY = Subject("Availability", {
    "id": _col(m.Availability.id),
    "provider": _col(m.Availability.provider_id),
    "team": _team_of_provider(m.Availability.provider_id),
})
AVAILABILITY_EXCEPTION = Subject("Availability", {
    "id": _col(m.AvailabilityException.id),
    "provider": _col(m.AvailabilityException.provider_id),
    "team": _team_of_provider(m.AvailabilityException.provider_id),
})
"""Exceptions are checked as part of the provider's availability (one `Availability` subject)."""
WORK_RULE = Subject("WorkRule", {"id": _col(m.WorkRule.id)})
OVERTIME_RULE = Subject("WorkRule", {"id": _col(m.OvertimeRule.id)})
"""Overtime and rounding rules are checked as part of the `WorkRule` subject (pay rules)."""
ROUNDING_RULE = Subject("WorkRule", {"id": _col(m.RoundingRule.id)})

SUBJECTS: dict[str, Subject] = {
    s.name: s for s in (TEAM, PROVIDER, USER, SHIFT, TIME_OFF_REQUEST, TIME_OFF_POLICY, TIMECARD,
                        TIMESHEET, APPOINTMENT, APPOINTMENT_TYPE, AVAILABILITY, LABEL, PERMISSION,
                        REPORT, DEMAND_FORECAST, WORK_RULE)
}
"""Every subject with fields, by name: what permission conditions may name."""
