"""The audit recorder's pure parts: one event for a record written twice in a transaction, wire
names and JSON-safe values."""

from __future__ import annotations

import uuid
from datetime import UTC, date, datetime
from decimal import Decimal

from app.api.audit import _Event, _merge, json_safe, wire_name


def test_merge_keeps_the_first_before_and_the_last_after():
    earlier = _Event("edit", {"note": {"before": "A", "after": "B"}})
    later = _Event("edit", {"note": {"before": "B", "after": "C"},
                            "team": {"before": "x", "after": "y"}})
    merged = _merge(earlier, later)
    assert merged.action == "edit"
    assert merged.changes == {"note": {"before": "A", "after": "C"},
                              "team": {"before": "x", "after": "y"}}


def test_merge_drops_a_field_changed_back():
    merged = _merge(_Event("edit", {"note": {"before": "A", "after": "B"}}),
                    _Event("edit", {"note": {"before": "B", "after": "A"}}))
    assert merged.changes == {}


def test_merge_of_a_creation_stays_a_creation_until_a_deletion():
    created = _Event("create", {"note": {"before": None, "after": "A"}})
    assert _merge(created, _Event("edit", {"note": {"before": "A", "after": "B"}})).action \
        == "create"
    assert _merge(created, _Event("delete", {"note": {"before": "A", "after": None}})).action \
        == "delete"


def test_merge_concatenates_folded_child_rows():
    merged = _merge(_Event("edit", {"segments": {"before": [{"a": 1}], "after": []}}),
                    _Event("edit", {"segments": {"before": [], "after": [{"a": 2}]}}))
    assert merged.changes == {"segments": {"before": [{"a": 1}], "after": [{"a": 2}]}}


def test_wire_names_and_json_safe_values():
    assert wire_name("start_date", {}) == "startDate"
    assert wire_name("provider_id", {"provider_id": "provider"}) == "provider"
    ident = uuid.UUID(int=1)
    assert json_safe({"at": datetime(2026, 3, 2, 5, tzinfo=UTC), "day": date(2026, 3, 2),
                      "id": ident, "rate": Decimal("1.5"), "xs": (1, float("nan"))}) == {
        "at": "2026-03-02T05:00:00+00:00", "day": "2026-03-02", "id": str(ident),
        "rate": "1.5", "xs": [1, None]}
