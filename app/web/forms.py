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
from typing import Any, ClassVar

from flask_wtf import FlaskForm
from pydantic import BaseModel
from wtforms import Field, FieldList, FormField

from app.client import ApiProblem

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
