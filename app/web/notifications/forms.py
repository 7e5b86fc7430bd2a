"""Forms of the notifications page: mark one read (its version, hidden).

Shape only: an outdated version or someone else's notice is the API's answer.
"""

from __future__ import annotations

from wtforms import IntegerField
from wtforms.validators import NumberRange, Optional
from wtforms.widgets import HiddenInput

from app.contract.notifications import NotificationUpdate
from app.web.forms import BaseForm


class NotificationReadForm(BaseForm):
    """Mark a notification read (the version shown, so a change meanwhile is noticed)."""

    contract = NotificationUpdate

    version = IntegerField("Version", widget=HiddenInput(),
                           validators=[Optional(), NumberRange(min=0, max=2**31 - 1)])
