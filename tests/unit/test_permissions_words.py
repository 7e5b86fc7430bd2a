"""Permission rules in words, and the pretty-printed lines that mark where a validation path
points."""

from __future__ import annotations

import json

from app.web.permissions.words import describe, describe_html, json_lines, text_lines


def test_describe_reads_common_conditions_in_words():
    assert describe(None) == "Every record"
    assert describe({"team": {"$in": "$user.teamIds"}}) == "team is one of my teams"
    assert describe({"provider": None, "isCallout": False}) == \
        "provider is empty and isCallout is false"
    assert describe({"$or": [{"id": "$user.id"}, {"status": {"$ne": "x"}}]}) == \
        "(id is me or status is not “x”)"


def test_describe_html_marks_field_names_as_code_and_escapes_the_rest():
    html = str(describe_html({"name": "<b>"}))
    assert html == "<code>name</code> is “&lt;b&gt;”"


def test_json_lines_mark_the_line_of_each_pointer():
    document = {"team": {"$in": "$user.teamIds"}, "nope": 1, "$or": [{"x": {"$near": 2}}]}
    lines = json_lines(document, {"/nope": ["unknown field"], "/$or/0/x/$near": ["unknown op"]})
    assert "\n".join(line.text for line in lines) == json.dumps(document, indent=2)
    marked = {line.number: (line.pointer, line.messages) for line in lines if line.messages}
    assert marked == {5: ("/nope", ("unknown field",)), 9: ("/$or/0/x/$near", ("unknown op",))}


def test_json_lines_put_a_pointer_without_a_line_on_its_nearest_member():
    lines = json_lines({"a": {}}, {"/a/b": ["needs an operator"], "": ["top"]})
    assert [(line.number, line.messages) for line in lines if line.messages] == [
        (1, ("top",)), (2, ("needs an operator",))]


def test_text_lines_mark_the_line_of_a_syntax_error():
    lines = text_lines('{\n  "a": ,\n}', 2, "Column 8: Expecting value.")
    assert [line.messages for line in lines] == [(), ("Column 8: Expecting value.",), ()]
