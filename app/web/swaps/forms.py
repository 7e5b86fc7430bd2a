"""Forms of the shift swap pages: offer a shift, apply to an offer, reject a swap.

Shape only; who may do what and every scheduling rule come back from the API as problems.
"""

from __future__ import annotations

from wtforms import HiddenField, IntegerField, RadioField, SelectField, TextAreaField
from wtforms.fields import DateField
from wtforms.fields.choices import SelectChoice
from wtforms.validators import DataRequired, Length, Optional

from app.contract.shift_swaps import ShiftSwapApplicationCreate, ShiftSwapListingCreate
from app.web.forms import BaseForm


class ListingForm(BaseForm):
    """Offer one of my future shifts."""

    contract = ShiftSwapListingCreate

    shift_id = SelectField("Shift", validators=[DataRequired("Choose one of your shifts.")])
    kind = RadioField("Offer it", choices=[SelectChoice("swap", "For a swap (or to give away)"),
                                           SelectChoice("giveaway", "To give away only")],
                      default="swap")
    note = TextAreaField("Note for colleagues", validators=[Optional(), Length(max=500)])
    close_on = DateField("Stop taking applications after", validators=[Optional()])

    pointer_map = {"/expiresAt": "close_on"}


class ApplyForm(BaseForm):
    """Apply to a colleague's offer, optionally giving one of my shifts in exchange."""

    contract = ShiftSwapApplicationCreate

    listing_id = HiddenField()
    offered_shift_id = SelectField("In exchange", default="")
    note = TextAreaField("Note", validators=[Optional(), Length(max=500)])


class DecisionForm(BaseForm):
    """Accept, decline, approve or withdraw: the version read."""

    version = IntegerField(validators=[Optional()])


class RejectForm(BaseForm):
    """Reject a swap, saying why."""

    version = IntegerField(validators=[Optional()])
    rejection_reason = TextAreaField("Reason", validators=[
        DataRequired("Say why, so both colleagues know."), Length(max=500)])
