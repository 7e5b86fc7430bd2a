"""The SQLAlchemy mapped classes, one module per aggregate, all re-exported here.

Importing this package registers every table on `Base.metadata` (Alembic relies on that).
Must not hold queries or business rules.
"""

from app.api.models.appointments import Appointment, AppointmentType
from app.api.models.audit import AuditEvent
from app.api.models.authorization import Permission, RbacRole, user_rbac_roles
from app.api.models.availability import Availability, AvailabilityException
from app.api.models.balances import (
    TimeOffAccrualSettings,
    TimeOffBalanceLock,
    TimeOffBalanceUpload,
    TimeOffLedgerEntry,
)
from app.api.models.forecasting import DemandForecastRow
from app.api.models.identity import (
    IdpSignIn,
    LoginAttempt,
    OAuthAuthorizationCode,
    OAuthRefreshToken,
)
from app.api.models.notifications import Notification
from app.api.models.people import (
    ApiToken,
    EmploymentType,
    Enrollment,
    PasswordSetToken,
    Provider,
    ProviderSkill,
    Role,
    Team,
    User,
    UserImport,
    provider_enrollments,
    provider_roles,
    team_managers,
)
from app.api.models.reports import ReportRun
from app.api.models.settings import AppSetting, Label, PayCode
from app.api.models.shift_swaps import ShiftSwapApplication, ShiftSwapListing
from app.api.models.shifts import Shift, ShiftPayCode, ShiftSegment, segment_labels
from app.api.models.time_off import (
    TimeOffDay,
    TimeOffPolicy,
    TimeOffRequest,
    time_off_policy_members,
)
from app.api.models.timekeeping import (
    Timecard,
    TimecardPunch,
    TimesheetSignOff,
    timesheet_sign_off_providers,
)
from app.api.models.work_rules import OvertimeRule, RoundingRule, WorkRule, WorkRuleVersion

__all__ = [
    "ApiToken",
    "AppSetting",
    "Appointment",
    "AppointmentType",
    "AuditEvent",
    "Availability",
    "AvailabilityException",
    "DemandForecastRow",
    "EmploymentType",
    "Enrollment",
    "IdpSignIn",
    "Label",
    "LoginAttempt",
    "Notification",
    "OAuthAuthorizationCode",
    "OAuthRefreshToken",
    "OvertimeRule",
    "PasswordSetToken",
    "PayCode",
    "Permission",
    "Provider",
    "ProviderSkill",
    "RbacRole",
    "ReportRun",
    "Role",
    "RoundingRule",
    "Shift",
    "ShiftPayCode",
    "ShiftSegment",
    "ShiftSwapApplication",
    "ShiftSwapListing",
    "Team",
    "TimeOffAccrualSettings",
    "TimeOffBalanceLock",
    "TimeOffBalanceUpload",
    "TimeOffDay",
    "TimeOffLedgerEntry",
    "TimeOffPolicy",
    "TimeOffRequest",
    "Timecard",
    "TimecardPunch",
    "TimesheetSignOff",
    "User",
    "UserImport",
    "WorkRule",
    "WorkRuleVersion",
    "provider_enrollments",
    "provider_roles",
    "segment_labels",
    "team_managers",
    "time_off_policy_members",
    "timesheet_sign_off_providers",
    "user_rbac_roles",
]
