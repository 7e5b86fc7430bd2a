"""Read an HTML form as a browser would submit it: the helper of the schedule's web tests.

`submission(html, action)` finds the form whose action contains `action` and returns the pairs
a browser sends when its main button is pressed: inputs with their values (checkboxes only when
checked), each select's selected option, textareas — never the form's other submit buttons.
"""

from __future__ import annotations

from html.parser import HTMLParser


class _Forms(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.forms: list[tuple[str, list[tuple[str, str]]]] = []
        self._select: str | None = None
        self._first: str | None = None
        self._chosen = False
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append((a.get("action", ""), []))
        if not self.forms:
            return
        pairs = self.forms[-1][1]
        if tag == "input" and a.get("name"):
            kind = a.get("type", "text")
            if kind in ("submit", "button", "image"):
                return
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            pairs.append((a["name"], a.get("value", "on" if kind == "checkbox" else "")))
        elif tag == "select":
            self._select, self._first, self._chosen = a.get("name"), None, False
        elif tag == "option" and self._select:
            value = a.get("value", "")
            if self._first is None:
                self._first = value
            if "selected" in a and not self._chosen:
                pairs.append((self._select, value))
                self._chosen = True
        elif tag == "textarea":
            self._textarea = a.get("name")
            pairs.append((self._textarea or "", ""))

    def handle_data(self, data: str) -> None:
        if self._textarea and self.forms:
            name, value = self.forms[-1][1][-1]
            self.forms[-1][1][-1] = (name, value + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "select" and self._select:
            if not self._chosen and self._first is not None:
                self.forms[-1][1].append((self._select, self._first))
            self._select = None
        elif tag == "textarea":
            self._textarea = None


def submission(html: str, action: str) -> list[tuple[str, str]]:
    """What the form posting to an address containing `action` sends (its last such form)."""
    parser = _Forms()
    parser.feed(html)
    found = [pairs for url, pairs in parser.forms if action in url]
    assert found, f"no form posts to {action}"
    return list(found[-1])


def as_dict(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    """The pairs as the test client's `data` (a name may repeat)."""
    data: dict[str, list[str]] = {}
    for name, value in pairs:
        data.setdefault(name, []).append(value)
    return data
