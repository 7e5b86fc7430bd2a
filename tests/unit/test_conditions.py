"""The permission condition language: operators, placeholders, None and list semantics, and the
JSON-pointer paths `validate` reports."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

import pytest

from app.api.domain.conditions import ConditionError, fill, matches, validate

ALICE = UUID("abcdef01-2345-4678-9abc-def012345678")
BOB = UUID("22222222-2222-4222-8222-222222222222")
TEAM_A = UUID("aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa")
TEAM_B = UUID("bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb")
NOON = datetime(2026, 3, 2, 12, 0, tzinfo=UTC)

SHIFT = {
    "provider": ALICE,
    "team": TEAM_A,
    "hours": 12,
    "status": "upcoming",
    "isCallout": False,
    "startDate": NOON,
    "note": None,
    "labels": ["charge", "float"],
}


# --- operators -------------------------------------------------------------------------------

@pytest.mark.parametrize(("condition", "expected"), [
    ({"status": {"$eq": "upcoming"}}, True),
    ({"status": {"$eq": "cancelled"}}, False),
    ({"status": {"$ne": "cancelled"}}, True),
    ({"status": {"$ne": "upcoming"}}, False),
    ({"status": {"$in": ["cancelled", "upcoming"]}}, True),
    ({"status": {"$in": ["cancelled"]}}, False),
    ({"status": {"$in": []}}, False),
    ({"status": {"$nin": ["cancelled"]}}, True),
    ({"status": {"$nin": ["upcoming", "cancelled"]}}, False),
    ({"status": {"$nin": []}}, True),
    ({"hours": {"$lt": 13}}, True),
    ({"hours": {"$lt": 12}}, False),
    ({"hours": {"$lte": 12}}, True),
    ({"hours": {"$lte": 11}}, False),
    ({"hours": {"$gt": 11}}, True),
    ({"hours": {"$gt": 12}}, False),
    ({"hours": {"$gte": 12}}, True),
    ({"hours": {"$gte": 12.5}}, False),
    ({"status": {"$lt": "zzz"}}, True),
    ({"status": {"$gt": "zzz"}}, False),
    ({"status": {"$exists": True}}, True),
    ({"status": {"$exists": False}}, False),
    ({"note": {"$exists": True}}, False),
    ({"note": {"$exists": False}}, True),
    ({"isCallout": {"$eq": False}}, True),
    ({"hours": {"$gt": 1, "$lt": 20}}, True),
    ({"hours": {"$gt": 1, "$lt": 5}}, False),
])
def test_matches_applies_each_operator(condition, expected):
    assert matches(condition, SHIFT) is expected


def test_matches_reads_plain_value_as_equality():
    assert matches({"status": "upcoming"}, SHIFT)
    assert not matches({"status": "cancelled"}, SHIFT)


def test_matches_requires_every_key_of_one_document():
    assert matches({"status": "upcoming", "hours": 12}, SHIFT)
    assert not matches({"status": "upcoming", "hours": 8}, SHIFT)


def test_matches_allows_anything_when_document_is_none_or_empty():
    assert matches(None, SHIFT)
    assert matches({}, SHIFT)


def test_matches_compares_uuid_values_with_their_string_form():
    assert matches({"provider": str(ALICE)}, SHIFT)
    assert matches({"provider": {"$in": [str(BOB), str(ALICE)]}}, SHIFT)
    assert not matches({"provider": str(BOB)}, SHIFT)


def test_matches_ignores_letter_case_of_uuid_operands():
    assert matches({"provider": str(ALICE).upper()}, SHIFT)


def test_matches_never_orders_a_value_against_another_type():
    assert not matches({"hours": {"$lt": "99"}}, SHIFT)
    assert not matches({"status": {"$gt": 5}}, SHIFT)
    assert not matches({"startDate": {"$lt": 5}}, SHIFT)


def test_matches_keeps_booleans_apart_from_numbers():
    assert not matches({"isCallout": 0}, SHIFT)
    assert not matches({"hours": {"$eq": True}}, {"hours": 1})


# --- $and / $or -----------------------------------------------------------------------------

def test_matches_and_requires_every_branch():
    assert matches({"$and": [{"status": "upcoming"}, {"hours": {"$gte": 12}}]}, SHIFT)
    assert not matches({"$and": [{"status": "upcoming"}, {"hours": {"$gt": 12}}]}, SHIFT)


def test_matches_or_requires_one_branch():
    assert matches({"$or": [{"status": "cancelled"}, {"hours": 12}]}, SHIFT)
    assert not matches({"$or": [{"status": "cancelled"}, {"hours": 8}]}, SHIFT)


def test_matches_nests_and_inside_or_inside_and():
    document = {
        "team": str(TEAM_A),
        "$or": [
            {"$and": [{"status": "cancelled"}, {"hours": 12}]},
            {"$and": [{"status": "upcoming"}, {"$or": [{"hours": 1}, {"isCallout": False}]}]},
        ],
    }
    assert matches(document, SHIFT)
    assert not matches(document, {**SHIFT, "isCallout": True})
    assert not matches(document, {**SHIFT, "team": TEAM_B})


def test_matches_treats_empty_or_as_false_and_empty_and_as_true():
    assert not matches({"$or": []}, SHIFT)
    assert matches({"$and": []}, SHIFT)


# --- placeholders ---------------------------------------------------------------------------

USER = {"id": str(BOB), "providerId": str(ALICE), "teamIds": [str(TEAM_A), str(TEAM_B)]}


def test_fill_replaces_every_placeholder_at_any_depth():
    document = {
        "provider": "$user.providerId",
        "$or": [{"team": {"$in": "$user.teamIds"}}, {"createdBy": "$user.id"}],
    }
    assert fill(document, USER) == {
        "provider": str(ALICE),
        "$or": [{"team": {"$in": [str(TEAM_A), str(TEAM_B)]}}, {"createdBy": str(BOB)}],
    }


def test_fill_leaves_other_strings_alone():
    assert fill({"status": "$user", "note": "user.id"}, USER) == {"status": "$user",
                                                                  "note": "user.id"}


def test_matches_filled_document_for_own_and_team_objects():
    own = fill({"provider": "$user.providerId"}, USER)
    mine = fill({"team": {"$in": "$user.teamIds"}}, USER)
    assert matches(own, SHIFT)
    assert not matches(own, {**SHIFT, "provider": BOB})
    assert matches(mine, {**SHIFT, "team": TEAM_B})
    assert not matches(mine, {**SHIFT, "team": UUID(int=7)})


@pytest.mark.parametrize("obj", [{"provider": None}, {}, SHIFT], ids=["null", "missing", "set"])
def test_fill_makes_a_placeholder_without_value_equal_nothing(obj):
    nobody = {**USER, "providerId": None}
    assert not matches(fill({"provider": "$user.providerId"}, nobody), obj)
    assert not matches(fill({"provider": {"$in": ["$user.providerId"]}}, nobody), obj)
    assert not matches(fill({"provider": {"$gte": "$user.providerId"}}, nobody), obj)
    assert matches(fill({"provider": {"$ne": "$user.providerId"}}, nobody), obj)


def test_matches_filled_document_with_no_teams_matches_nothing():
    mine = fill({"team": {"$in": "$user.teamIds"}}, {**USER, "teamIds": []})
    assert not matches(mine, SHIFT)


# --- None and missing -----------------------------------------------------------------------

@pytest.mark.parametrize("obj", [{"provider": None}, {}], ids=["null", "missing"])
def test_matches_treats_null_and_missing_alike(obj):
    assert matches({"provider": None}, obj)
    assert matches({"provider": {"$eq": None}}, obj)
    assert not matches({"provider": {"$ne": None}}, obj)
    assert matches({"provider": {"$in": [None, str(ALICE)]}}, obj)
    assert not matches({"provider": {"$nin": [None]}}, obj)
    assert matches({"provider": {"$exists": False}}, obj)
    assert not matches({"provider": {"$exists": True}}, obj)
    assert not matches({"provider": str(ALICE)}, obj)
    assert matches({"provider": {"$ne": str(ALICE)}}, obj)
    assert matches({"provider": {"$nin": [str(ALICE)]}}, obj)
    assert not matches({"provider": {"$lt": "zzz"}}, obj)
    assert not matches({"provider": {"$gte": ""}}, obj)


def test_matches_none_operand_does_not_match_present_value():
    assert not matches({"provider": None}, SHIFT)
    assert matches({"provider": {"$ne": None}}, SHIFT)


# --- list-valued fields ---------------------------------------------------------------------

def test_matches_list_field_when_any_item_equals():
    assert matches({"labels": "float"}, SHIFT)
    assert not matches({"labels": "night"}, SHIFT)
    assert matches({"labels": {"$in": ["night", "charge"]}}, SHIFT)
    assert not matches({"labels": {"$nin": ["night", "charge"]}}, SHIFT)
    assert not matches({"labels": {"$ne": "charge"}}, SHIFT)
    assert matches({"labels": {"$ne": "night"}}, SHIFT)


def test_matches_list_field_never_orders():
    assert not matches({"labels": {"$gt": ""}}, SHIFT)


def test_matches_empty_list_field_exists_but_equals_nothing():
    obj = {"labels": []}
    assert matches({"labels": {"$exists": True}}, obj)
    assert not matches({"labels": "charge"}, obj)


# --- timestamps -----------------------------------------------------------------------------

@pytest.mark.parametrize("same_instant", [
    "2026-03-02T12:00:00+0000", "2026-03-02T12:00:00Z", "2026-03-02T07:00:00-05:00",
    "2026-03-02T13:00:00+0100",
])
def test_matches_timestamps_as_instants(same_instant):
    assert matches({"startDate": same_instant}, SHIFT)
    assert matches({"startDate": {"$lte": same_instant, "$gte": same_instant}}, SHIFT)
    assert not matches({"startDate": {"$lt": same_instant}}, SHIFT)


def test_matches_orders_timestamps_across_offsets():
    # 08:00-05:00 is 13:00 UTC, later than noon UTC although "08" < "12" as text.
    assert matches({"startDate": {"$lt": "2026-03-02T08:00:00-05:00"}}, SHIFT)
    assert not matches({"startDate": {"$gt": "2026-03-02T08:00:00-05:00"}}, SHIFT)


def test_matches_never_matches_unparseable_timestamp():
    assert not matches({"startDate": "yesterday"}, SHIFT)
    assert not matches({"startDate": {"$lt": "9999"}}, SHIFT)
    assert not matches({"startDate": {"$gt": "2026-03-02T12:00:00"}}, SHIFT)  # no offset


# --- validate -------------------------------------------------------------------------------

def _paths(errors: list[ConditionError]) -> list[str]:
    return [e.path for e in errors]


def test_validate_accepts_every_valid_form():
    document = {
        "provider": "$user.providerId",
        "team": {"$in": "$user.teamIds"},
        "status": {"$nin": ["cancelled", None]},
        "hours": {"$gte": 4, "$lt": 13},
        "note": {"$exists": False},
        "$or": [{"isCallout": True}, {"$and": [{"startDate": {"$gt": "2026-03-02T12:00:00Z"}}]}],
    }
    assert validate(document) == []
    assert validate(document, fields=frozenset(SHIFT)) == []
    assert validate(None) == []


@pytest.mark.parametrize(("document", "path"), [
    ([{"status": "x"}], "/"),
    ("status", "/"),
    ({"$or": [{"a": 1}, "b"]}, "/$or/1"),
    ({"$and": [{"$or": [{"a": 1}, 7]}]}, "/$and/0/$or/1"),
])
def test_validate_points_at_a_non_object(document, path):
    errors = validate(document)
    assert _paths(errors) == [path]
    assert "JSON object" in errors[0].message


@pytest.mark.parametrize(("document", "path"), [
    ({"status": {"$regex": "x"}}, "/status/$regex"),
    ({"$nor": [{"a": 1}]}, "/$nor"),
    ({"$or": [{"team": {"$elemMatch": {}}}]}, "/$or/0/team/$elemMatch"),
    ({"a/b": {"$like": "x"}}, "/a~1b/$like"),
])
def test_validate_points_at_an_unknown_operator(document, path):
    errors = validate(document)
    assert _paths(errors) == [path]
    assert "unknown operator" in errors[0].message


def test_validate_points_at_an_unknown_field_and_lists_known_ones():
    errors = validate({"$or": [{"provider": 1}, {"colour": "red"}]},
                      fields=frozenset({"provider", "team"}))
    assert _paths(errors) == ["/$or/1/colour"]
    assert "colour" in errors[0].message
    assert "provider, team" in errors[0].message


def test_validate_escapes_field_names_as_json_pointer():
    errors = validate({"a~b": 1, "c/d": 2}, fields=frozenset())
    assert _paths(errors) == ["/a~0b", "/c~1d"]


@pytest.mark.parametrize(("document", "path"), [
    ({"status": {"$in": "upcoming"}}, "/status/$in"),
    ({"status": {"$nin": {"a": 1}}}, "/status/$nin"),
    ({"status": {"$in": ["a", ["b"]]}}, "/status/$in/1"),
    ({"status": {"$in": ["a", {"b": 1}]}}, "/status/$in/1"),
    ({"status": {"$in": "$user.id"}}, "/status/$in"),
])
def test_validate_points_at_a_bad_list_operand(document, path):
    assert _paths(validate(document)) == [path]


@pytest.mark.parametrize(("document", "path"), [
    ({"provider": "$user.email"}, "/provider"),
    ({"provider": {"$ne": "$user.name"}}, "/provider/$ne"),
    ({"team": {"$in": ["$user.id", "$user.teams"]}}, "/team/$in/1"),
    ({"$and": [{"provider": "$user.managerId"}]}, "/$and/0/provider"),
])
def test_validate_points_at_an_unknown_placeholder(document, path):
    errors = validate(document)
    assert _paths(errors) == [path]
    assert "unknown placeholder" in errors[0].message
    assert "$user.providerId" in errors[0].message


@pytest.mark.parametrize(("document", "path"), [
    ({"hours": {"$lt": None}}, "/hours/$lt"),
    ({"hours": {"$gte": True}}, "/hours/$gte"),
    ({"hours": {"$gt": [1]}}, "/hours/$gt"),
    ({"note": {"$exists": "yes"}}, "/note/$exists"),
    ({"note": {}}, "/note"),
    ({"note": [1, 2]}, "/note"),
    ({"note": {"$eq": {"a": 1}}}, "/note/$eq"),
    ({"hours": float("nan")}, "/hours"),
    ({"hours": {"$lt": float("inf")}}, "/hours/$lt"),
    ({"hours": {"$in": [1, float("-inf")]}}, "/hours/$in/1"),
    ({"$or": []}, "/$or"),
    ({"$and": {"a": 1}}, "/$and"),
])
def test_validate_points_at_a_bad_operand(document, path):
    assert _paths(validate(document)) == [path]


def test_validate_reports_every_mistake():
    errors = validate({
        "colour": {"$regex": "x"},
        "status": {"$in": "x"},
        "$or": [5, {"provider": "$user.email"}],
    }, fields=frozenset({"status", "provider"}))
    assert _paths(errors) == ["/colour", "/colour/$regex", "/status/$in", "/$or/0",
                              "/$or/1/provider"]
