"""Permission rules with CASL semantics: who may do which action on which subject.

Rules are `(action, subject, conditions, inverted, errorMessage)`. `manage` matches any action
and `all` any subject. Among the rules relevant to an action and subject, the one defined last
takes precedence: the first in that order whose conditions match the object decides, allowing
or (inverted) denying; no match denies. Asking about a subject type rather than one object,
a conditional allow counts and a conditional deny does not (CASL's `can('view', 'Shift')`).
Pure code: the SQL form of the same decision is `app.api.authorization.sql_filter`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.api.domain import conditions as cond

ACTIONS = ("create", "view", "edit", "approve", "sign_off", "manage")
SPEC_SUBJECTS = (
    "AutoSchedulerJob", "BalanceReset", "DemandForecast", "Provider", "Report", "Shift", "Team",
    "Timecard", "TimeOffRequest", "TimeOffPolicy", "Timesheet",
)
EXTENSION_SUBJECTS = (
    "Appointment", "AppointmentType", "AuditEvent", "Availability", "Label", "Permission", "User",
    "WorkRule",
)
SUBJECTS = SPEC_SUBJECTS + EXTENSION_SUBJECTS


@dataclass(frozen=True)
class Rule:
    """One permission rule, its conditions already filled for the user."""

    action: str
    subject: str
    conditions: Any = None
    inverted: bool = False
    error_message: str | None = None

    def applies_to(self, action: str, subject: str) -> bool:
        """Whether the rule speaks about this action and subject at all."""
        return (self.action in (action, "manage")) and (self.subject in (subject, "all"))


@dataclass(frozen=True)
class Decision:
    """The answer to "may I?" with the reason shown when not."""

    allowed: bool
    reason: str | None = None


@dataclass
class Ability:
    """Everything one user may do: their rules in definition order, or everything for admins."""

    rules: Sequence[Rule] = field(default_factory=tuple)
    is_admin: bool = False

    def relevant(self, action: str, subject: str) -> list[Rule]:
        """The rules about this action and subject, highest precedence (defined last) first."""
        return [r for r in reversed(self.rules) if r.applies_to(action, subject)]

    def decide(self, action: str, subject: str, obj: Mapping[str, Any] | None = None) -> Decision:
        """Decide for one object (its wire fields), or for the subject type when `obj` is None."""
        if self.is_admin:
            return Decision(True)
        for rule in self.relevant(action, subject):
            if rule.conditions is None:
                return _verdict(rule, action, subject)
            if obj is None:
                if rule.inverted:
                    continue  # a conditional deny does not deny the whole type
                return Decision(True)
            if cond.matches(rule.conditions, obj):
                return _verdict(rule, action, subject)
        return Decision(False, f"You may not {action.replace('_', ' ')} {_label(subject)}.")

    def can(self, action: str, subject: str, obj: Mapping[str, Any] | None = None) -> bool:
        """Whether the action is allowed (see `decide`)."""
        return self.decide(action, subject, obj).allowed


def _label(subject: str) -> str:
    words = "".join(f" {c.lower()}" if c.isupper() else c for c in subject).strip()
    return f"this {words}"


def _verdict(rule: Rule, action: str, subject: str) -> Decision:
    if not rule.inverted:
        return Decision(True)
    return Decision(False, rule.error_message or
                    f"You may not {action.replace('_', ' ')} {_label(subject)}.")


def build_rules(raw: Sequence[Mapping[str, Any]], user: Mapping[str, Any]) -> list[Rule]:
    """Rules from stored permissions (wire-shaped mappings), placeholders filled for `user`."""
    return [
        Rule(
            action=r["action"],
            subject=r["subject"],
            conditions=cond.fill(r.get("conditions"), user),
            inverted=bool(r.get("inverted")),
            error_message=r.get("errorMessage"),
        )
        for r in raw
    ]
