"""Permission rules in words, and a condition document as numbered lines that know their place.

`describe` writes a rule's conditions as a sentence for the list ("team is one of my teams");
`json_lines` pretty-prints a document line by line, each line carrying the JSON Pointer of the
member it starts, so the editor can mark the line the API's validation `path` names. Pure
functions of their arguments: no Flask, no API.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

PLACEHOLDERS = {
    "$user.id": "me",
    "$user.providerId": "me (as a provider)",
    "$user.teamIds": "my teams",
}
_OPERATORS = {
    "$eq": "is", "$ne": "is not", "$in": "is one of", "$nin": "is none of",
    "$lt": "is before", "$lte": "is at most", "$gt": "is after", "$gte": "is at least",
}
ACTIONS = {"create": "Create", "view": "View", "edit": "Edit", "approve": "Approve",
           "sign_off": "Sign off", "manage": "Any action on"}


def _value(value: Any) -> str:
    if isinstance(value, str):
        return PLACEHOLDERS.get(value, f"“{value}”")
    if value is None:
        return "empty"
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return json.dumps(value)


def _plain(name: str) -> str:
    return name


def _field(name: str, value: Any, mark: Callable[[str], str]) -> str:
    name = mark(name)
    if isinstance(value, dict) and value and all(k.startswith("$") for k in value):
        parts = []
        for op, operand in value.items():
            if op == "$exists":
                parts.append(f"{name} is {'set' if operand else 'empty'}")
            else:
                parts.append(f"{name} {_OPERATORS.get(op, op)} {_value(operand)}")
        return " and ".join(parts)
    return f"{name} is {_value(value)}"


def describe_html(document: Any) -> Markup:
    """`describe` as markup, each field name in `<code>` (it is what a condition names)."""
    text = describe(document, mark=lambda name: f"\x00{name}\x01")
    return Markup(str(escape(text)).replace("\x00", "<code>").replace("\x01", "</code>"))


def describe(document: Any, mark: Callable[[str], str] = _plain) -> str:
    """A rule's conditions in words, each field name as `mark` writes it; every record when
    there are none."""
    if document is None or document == {}:
        return "Every record"
    if not isinstance(document, dict):
        return compact(document)
    parts = []
    for key, value in document.items():
        if key in ("$and", "$or") and isinstance(value, list):
            joiner = " and " if key == "$and" else " or "
            parts.append("(" + joiner.join(describe(v, mark) for v in value) + ")")
        else:
            parts.append(_field(key, value, mark))
    return " and ".join(parts)


def compact(document: Any) -> str:
    """The document as one line of JSON."""
    return json.dumps(document, separators=(", ", ": "), ensure_ascii=False)


def pretty(document: Any) -> str:
    """The document as indented JSON, as the editor shows it."""
    return json.dumps(document, indent=2, ensure_ascii=False)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


@dataclass(frozen=True)
class Line:
    """One line of a pretty-printed document, the pointer of the member it starts, and the
    problems the API found there."""

    number: int
    text: str
    pointer: str
    messages: tuple[str, ...] = ()


def _lines(value: Any, pointer: str, prefix: str, indent: int, comma: str,
           out: list[tuple[str, str]]) -> None:
    pad = "  " * indent
    if isinstance(value, dict) and value:
        out.append((f"{pad}{prefix}{{", pointer))
        items = list(value.items())
        for index, (key, child) in enumerate(items):
            _lines(child, f"{pointer}/{_escape(key)}", json.dumps(key, ensure_ascii=False) + ": ",
                   indent + 1, "," if index < len(items) - 1 else "", out)
        out.append((f"{pad}}}{comma}", pointer))
    elif isinstance(value, list) and value:
        out.append((f"{pad}{prefix}[", pointer))
        for index, child in enumerate(value):
            _lines(child, f"{pointer}/{index}", "", indent + 1,
                   "," if index < len(value) - 1 else "", out)
        out.append((f"{pad}]{comma}", pointer))
    else:
        out.append((f"{pad}{prefix}{json.dumps(value, ensure_ascii=False)}{comma}", pointer))


def json_lines(document: Any, problems: dict[str, list[str]] | None = None) -> list[Line]:
    """`document` pretty-printed, each line with its pointer; `problems` (pointer inside the
    document → messages) go on the first line of the member they name, or of its nearest
    enclosing member when the document has no line of its own for it."""
    raw: list[tuple[str, str]] = []
    _lines(document, "", "", 0, "", raw)
    first: dict[str, int] = {}
    for index, (_, pointer) in enumerate(raw):
        first.setdefault(pointer, index)
    placed: dict[int, list[str]] = {}
    for pointer, messages in (problems or {}).items():
        at = pointer
        while at not in first and at:
            at = at.rsplit("/", 1)[0]
        placed.setdefault(first.get(at, 0), []).extend(messages)
    return [Line(i + 1, text, pointer, tuple(placed.get(i, ())))
            for i, (text, pointer) in enumerate(raw)]


def text_lines(text: str, line: int, message: str) -> list[Line]:
    """Text that is not JSON, line by line, `message` on line `line` (1-based)."""
    rows = text.splitlines() or [""]
    return [Line(i + 1, row, "", (message,) if i + 1 == line else ())
            for i, row in enumerate(rows)]
