"""Form base class and the mapping of API problems onto form fields (STYLE §7).

Forms check shape only (presence, type, length, choices, parsing); everything that needs data
comes back from the API as a problem, and `apply_problem` puts each of its messages on the field
its JSON pointer names — `/startDate` → `start_date`, `/breaks/0/start` → entry 0's `start` —
or, when no field matches, into `form.form_errors`. No message is dropped. Validators never call
the API. CSRF is checked for every UI POST before any view runs (`app.web.security`), so forms
do not check it again.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, ClassVar
from urllib.parse import urlencode

from flask_wtf import FlaskForm
from pydantic import BaseModel
from wtforms import Field, FieldList, Form, FormField, SelectMultipleField, TimeField
from wtforms.validators import ValidationError
from wtforms.widgets import CheckboxInput, ListWidget

from app.client import ApiProblem
from app.contract.common import MAX_CURSOR_LENGTH

EARLIEST_FILTER_DAY = date(1900, 1, 2)
LATEST_FILTER_DAY = date(2999, 12, 30)
"""The days a filter by date takes: the API keeps instants from 1900 to 2999 (a day's margin
either side for the site's time zone, and for a last day's end at the next midnight)."""


def filter_day(day: date | None) -> date | None:
    """`day` when a filter can ask the API for it, else None."""
    return day if day is not None and EARLIEST_FILTER_DAY <= day <= LATEST_FILTER_DAY else None


FORGED_CURSOR = "-"
"""What `page_cursor` sends for a cursor too long to send: one the API refuses like any other."""


def page_cursor(value: str | None) -> str | None:
    """A list page's `cursor` argument (None when absent). One longer than any list takes (an
    edited address) becomes `FORGED_CURSOR`, which the API refuses like any cursor it did not
    give: the page then says so and shows the first page, as for every refused cursor."""
    if not value:
        return None
    return value if len(value) <= MAX_CURSOR_LENGTH else FORGED_CURSOR


def kept_day(_form: Any, field: Field) -> None:
    """Validator of a filter's date field: a day the API keeps (`filter_day`)."""
    if field.data and filter_day(field.data) is None:
        raise ValidationError(f"Pick a day between {EARLIEST_FILTER_DAY.year} and "
                              f"{LATEST_FILTER_DAY.year}.")


_CAMEL = re.compile(r"(?<!^)(?=[A-Z])")


def snake(name: str) -> str:
    """`startDate` → `start_date`."""
    return _CAMEL.sub("_", name).lower()


class BaseForm(FlaskForm):
    """A UI form: snake_case fields named after the contract's attributes."""

    class Meta:
        csrf = False  # checked once for every UI request by app.web.security

    contract: ClassVar[type[BaseModel] | None] = None
    pointer_map: ClassVar[dict[str, str]] = {}

    def to_contract(self, **extra: Any) -> BaseModel:
        """The contract model of the submission (fields by their snake_case names)."""
        if self.contract is None:
            raise TypeError(f"{type(self).__name__} names no contract model")
        data = {name: field.data for name, field in self._fields.items()}
        data.update(extra)
        return self.contract.model_validate(data)


def _segments(pointer: str) -> list[str]:
    if not pointer or pointer == "/":
        return []
    text = pointer[1:] if pointer.startswith("/") else pointer
    return [part.replace("~1", "/").replace("~0", "~") for part in text.split("/")]


def field_for(form: Any, pointer: str) -> Field | None:
    """The field a problem path names, or None when it names none."""
    mapped = getattr(form, "pointer_map", {}).get(pointer)
    parts = _segments(mapped) if mapped else [snake(p) for p in _segments(pointer)]
    node: Any = form
    for part in parts:
        if isinstance(node, FieldList):
            if not part.isdigit() or int(part) >= len(node.entries):
                return None
            node = node.entries[int(part)]
        else:
            if isinstance(node, FormField):
                node = node.form
            fields = getattr(node, "_fields", None)
            if fields is None or part not in fields:
                return None
            node = fields[part]
    return node if isinstance(node, Field) and node is not form else None


def _add_error(field: Field, message: str) -> None:
    errors = list(field.errors) if field.errors else []
    if message not in errors:
        errors.append(message)
    field.errors = errors


_MEMBER = re.compile(r"\b[a-z]+(?:[A-Z][a-z0-9]*)+\b")


def staff_words(form: Any, text: str) -> str:
    """An API sentence with its member names (`endDate`) in the form's words: the label of the
    field the member names, else the name spelt out (`end date`). Staff never see wire names."""
    def word(match: re.Match[str]) -> str:
        field = field_for(form, "/" + match.group(0))
        if field is not None and field.label is not None and field.label.text:
            return f"“{field.label.text}”"
        return re.sub(r"(?<!^)([A-Z])", r" \1", match.group(0)).lower()

    return _MEMBER.sub(word, text)


def apply_problem(form: BaseForm, problem: ApiProblem) -> None:
    """Show `problem` on `form`: each path's message on its field, the rest as form errors (API
    member names in them put in the form's words)."""
    form_errors = list(form.form_errors)
    summary = staff_words(form, problem.problem.detail or problem.title)
    if summary not in form_errors:
        form_errors.append(summary)
    for error in problem.field_errors:
        field = field_for(form, error.path)
        message = staff_words(form, error.message)
        if field is None or isinstance(field, (FieldList, FormField)):
            if message not in form_errors:
                form_errors.append(message)
        else:
            _add_error(field, message)
    form.form_errors = form_errors


class MultiCheckboxField(SelectMultipleField):
    """Several choices as a list of checkboxes (`checkbox_list` in `_macros/forms.html`): one
    tap adds or removes one choice, where a multi-select's plain click would replace them all.
    Submits exactly what a multi-select does (the name repeated), so views read it the same."""

    widget = ListWidget(prefix_label=False)
    option_widget = CheckboxInput()


@dataclass(frozen=True)
class FilterChip:
    """One active filter of a list page: its name, its value in words (or a date, which the
    template writes with `local_date`), and the page's address without it."""

    name: str
    value: Any
    remove_url: str

    @property
    def is_date(self) -> bool:
        """Whether the value is a day (written by the template's date filter)."""
        return isinstance(self.value, date)


def _query(pairs: list[tuple[str, str]]) -> str:
    return ("?" + urlencode(pairs)) if pairs else ""


def filter_chips(form: BaseForm, names: Sequence[str], args: Mapping[str, Any], base_url: str,
                 *, defaults: Mapping[str, str] | None = None,
                 drop: Sequence[str] = ("cursor",)) -> list[FilterChip]:
    """The chips of a GET filter form: one per active filter (one per value of a multiple
    choice), each linking to `base_url` with the other filters of `args` kept and this one
    gone (a single-value one left blank, so a filter the page fills in by default stays off).
    Fields with errors and values equal to `defaults` are not chips; `drop` (the page cursor)
    never survives."""
    pairs = [(key, str(value)) for key, value in _pairs(args)
             if key not in drop and str(value).strip()]
    chips: list[FilterChip] = []
    for name in names:
        field = form[name]
        if field.errors:
            continue
        raw = field.data if isinstance(field.data, list) else [field.data]
        values = [v for v in raw if v not in (None, "")]
        if not values or (defaults and len(values) == 1
                          and str(values[0]) == defaults.get(name)):
            continue
        labels = _choice_labels(field)
        for value in values:
            text = value.isoformat() if isinstance(value, date) else str(value)
            kept = [(k, v) for k, v in pairs if k != name or (len(values) > 1 and v != text)]
            if not isinstance(field.data, list) and not any(k == name for k, _ in kept):
                kept.append((name, ""))
            shown = value if isinstance(value, date) else labels.get(text, text)
            chips.append(FilterChip(str(field.label.text), shown, base_url + _query(kept)))
    return chips


def _pairs(args: Mapping[str, Any]) -> list[tuple[str, Any]]:
    if hasattr(args, "items") and callable(getattr(args, "lists", None)):
        return [(k, v) for k, vs in args.lists() for v in vs]  # a MultiDict: every value
    return list(args.items())


def _choice_labels(field: Field) -> dict[str, str]:
    choices = getattr(field, "choices", None) or []
    labels: dict[str, str] = {}
    for choice in choices:
        if isinstance(choice, (tuple, list)):
            labels[str(choice[0])] = str(choice[1])
        else:
            labels[str(choice.value)] = str(choice.label)
    return labels


def typed(field: TimeField) -> bool:
    """Whether the time field holds a time or something typed that is not one."""
    return field.data is not None or any(str(v).strip() for v in field.raw_data or [])


class TimeRangeRow(Form):
    """A row of a list form with a from and a to time (a shift's segment, a weekday's range):
    a row with neither time is blank and left out; one with a single time needs the other.
    Subclasses declare `start_time` and `end_time` (optional `TimeField`s, in their order on
    the page) and name what a row is in `noun`."""

    noun: ClassVar[str] = "range"
    start_time: TimeField
    end_time: TimeField

    @property
    def blank(self) -> bool:
        """Whether the row names no time (an unused row)."""
        return not typed(self.start_time) and not typed(self.end_time)

    def validate(self, extra_validators: Any = None) -> bool:
        """Check the row; a row with one time needs the other (a blank row passes)."""
        ok = super().validate(extra_validators)
        if self.blank:
            return ok
        for time_field, message in ((self.start_time, f"Enter when this {self.noun} starts."),
                                    (self.end_time, f"Enter when this {self.noun} ends.")):
            if time_field.data is None and not time_field.errors:
                time_field.errors = [message]
                ok = False
        return ok
