"""Forms of the time-off queue: the filters (a GET form kept in the URL), approve, reject, bulk
approve, and the answers to a provider's request to cancel approved leave (cancel it, or keep
it with a reason). Shape only; whether a request may still be decided is the API's answer.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel
from wtforms import HiddenField, RadioField, SelectField, TextAreaField, ValidationError
from wtforms.fields import DateField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, InputRequired, Length, Optional

from app.contract.time_off import TimeOffApprove, TimeOffDeclineCancellation, TimeOffReject
from app.web.forms import BaseForm, kept_day

STRATEGIES: list[tuple[str, str]] = [
    ("keep", "Keep the shifts"),
    ("keepWithOpen", "Keep the shifts and post open copies"),
    ("callout", "Mark the shifts as callouts"),
    ("calloutWithOpen", "Mark as callouts and post open copies"),
    ("delete", "Delete the shifts"),
    ("deleteWithOpen", "Delete the shifts and post open copies"),
]
STATUSES: list[tuple[str, str]] = [
    ("pending", "Pending"), ("cancellation", "Cancellation requests"), ("approved", "Approved"),
    ("rejected", "Declined"), ("cancelled", "Cancelled"), ("any", "Any status"),
]


def options(pairs: list[tuple[str, str]]) -> list[SelectChoice]:
    """Select or radio choices from (value, label) pairs."""
    return [SelectChoice(value, label) for value, label in pairs]


class QueueFilterForm(BaseForm):
    """Which requests the queue lists; every field lives in the query string."""

    status = SelectField("Status", choices=options(STATUSES), default="pending",
                         validate_choice=True)
    team = SelectField("Team", choices=[], validate_choice=True, validators=[Optional()])
    provider = SelectField("Provider", choices=[], validate_choice=True, validators=[Optional()])
    policy = SelectField("Policy", choices=[], validate_choice=True, validators=[Optional()])
    start = DateField("From", validators=[Optional(), kept_day])
    end = DateField("To", validators=[Optional(), kept_day])
    cursor = HiddenField()

    def validate_end(self, field: DateField) -> None:
        """The last day is not before the first."""
        if field.data and self.start.data and field.data < self.start.data:
            raise ValidationError("The To date can't be before the From date. Change one of "
                                  "them to see requests.")


class DecisionForm(BaseForm):
    """What every decision carries: what the manager saw, and where to go back to."""

    seen_status = HiddenField(validators=[InputRequired()])
    seen_shifts = HiddenField()
    back = HiddenField()


class TimeOffApproveForm(DecisionForm):
    """Approve a request with a shift-conflict strategy."""

    contract: ClassVar[type[BaseModel] | None] = TimeOffApprove

    conflict_resolution = RadioField("What happens to the overlapping shifts",
                                     choices=options(STRATEGIES), default="keep",
                                     validators=[InputRequired("Choose what happens to the "
                                                               "overlapping shifts.")])

    def to_contract(self, **extra: object) -> BaseModel:
        """The approve body."""
        return TimeOffApprove(conflict_resolution=self.conflict_resolution.data)


class TimeOffRejectForm(DecisionForm):
    """Decline (reject) a request with a reason the provider will read."""

    contract: ClassVar[type[BaseModel] | None] = TimeOffReject

    rejection_reason = TextAreaField("Reason for declining", validators=[
        DataRequired("Tell the provider why."), Length(max=500)])

    def to_contract(self, **extra: object) -> BaseModel:
        """The reject body."""
        return TimeOffReject(rejection_reason=self.rejection_reason.data.strip())


class CancelLeaveForm(DecisionForm):
    """Cancel approved leave its provider asked to cancel."""


class KeepLeaveForm(DecisionForm):
    """Keep approved leave its provider asked to cancel, optionally saying why."""

    contract: ClassVar[type[BaseModel] | None] = TimeOffDeclineCancellation

    reason = TextAreaField("Why it stays (optional, the provider sees it)",
                           validators=[Optional(), Length(max=500)])

    def to_contract(self, **extra: object) -> BaseModel:
        """The decline-cancellation body."""
        return TimeOffDeclineCancellation(reason=(self.reason.data or "").strip() or None)


class BulkApproveForm(BaseForm):
    """Approve several requests at once; only those without overlapping shifts are approved."""

    back = HiddenField()
