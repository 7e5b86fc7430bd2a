"""Permission rules with CASL semantics: `manage`, precedence, reasons, subject-type checks and
admins."""

from __future__ import annotations

import pytest

from app.api.domain.ability import ACTIONS, SUBJECTS, Ability, Decision, Rule, build_rules

ME = "abcdef01-2345-4678-9abc-def012345678"
OTHER = "99999999-2345-4678-9abc-def012345678"
TEAM = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
MINE = {"provider": ME, "team": TEAM}
THEIRS = {"provider": OTHER, "team": TEAM}


def test_can_denies_everything_without_rules():
    ability = Ability([])
    assert not ability.can("view", "Shift")
    assert not ability.can("view", "Shift", MINE)


def test_decide_explains_a_denial_without_rules():
    assert Ability([]).decide("sign_off", "TimeOffRequest") == Decision(
        False, "You may not sign off this time off request."
    )


def test_can_allows_only_the_named_action_and_subject():
    ability = Ability([Rule("view", "Shift")])
    assert ability.can("view", "Shift", MINE)
    assert not ability.can("edit", "Shift", MINE)
    assert not ability.can("view", "Timecard", MINE)


@pytest.mark.parametrize("action", ACTIONS)
def test_can_lets_manage_match_any_action(action):
    ability = Ability([Rule("manage", "Shift")])
    assert ability.can(action, "Shift", MINE)
    assert ability.can(action, "Shift")
    assert not ability.can(action, "Timecard")


def test_can_lets_all_match_any_subject():
    ability = Ability([Rule("view", "all")])
    assert all(ability.can("view", subject) for subject in SUBJECTS)
    assert not ability.can("edit", "Shift")


def test_can_applies_conditions_to_one_object():
    ability = Ability([Rule("view", "Shift", {"provider": ME})])
    assert ability.can("view", "Shift", MINE)
    assert not ability.can("view", "Shift", THEIRS)


def test_can_lets_a_later_deny_override_an_earlier_allow():
    ability = Ability([Rule("view", "Shift"), Rule("view", "Shift", {"provider": OTHER}, True)])
    assert ability.can("view", "Shift", MINE)
    assert not ability.can("view", "Shift", THEIRS)


def test_can_lets_a_later_allow_override_an_earlier_deny():
    ability = Ability([Rule("view", "Shift", {"provider": OTHER}, True), Rule("view", "Shift")])
    assert ability.can("view", "Shift", THEIRS)


def test_can_lets_a_later_deny_of_manage_override_a_specific_allow():
    ability = Ability([Rule("edit", "Shift"), Rule("manage", "Shift", None, True)])
    assert not ability.can("edit", "Shift", MINE)
    assert not ability.can("view", "Shift", MINE)


def test_can_falls_through_a_non_matching_later_rule_to_an_earlier_one():
    ability = Ability([
        Rule("view", "Shift", {"team": TEAM}),
        Rule("view", "Shift", {"provider": OTHER}, True),
        Rule("view", "Shift", {"provider": "nobody"}),
    ])
    assert ability.can("view", "Shift", MINE)
    assert not ability.can("view", "Shift", THEIRS)
    assert not ability.can("view", "Shift", {"provider": ME, "team": "elsewhere"})


def test_decide_gives_the_inverted_rules_error_message_as_reason():
    ability = Ability([
        Rule("edit", "Shift"),
        Rule("edit", "Shift", {"provider": OTHER}, True, "Only the assignee may edit a shift."),
    ])
    assert ability.decide("edit", "Shift", THEIRS) == Decision(
        False, "Only the assignee may edit a shift."
    )
    assert ability.decide("edit", "Shift", MINE) == Decision(True)


def test_decide_gives_a_default_reason_for_an_inverted_rule_without_message():
    ability = Ability([Rule("approve", "TimeOffRequest", None, True)])
    assert ability.decide("approve", "TimeOffRequest") == Decision(
        False, "You may not approve this time off request."
    )


def test_can_counts_a_conditional_allow_for_a_type_check():
    ability = Ability([Rule("view", "Shift", {"provider": ME})])
    assert ability.can("view", "Shift")


def test_can_ignores_a_conditional_deny_for_a_type_check():
    ability = Ability([Rule("view", "Shift"), Rule("view", "Shift", {"provider": OTHER}, True)])
    assert ability.can("view", "Shift")


def test_can_denies_a_type_check_after_an_unconditional_deny():
    ability = Ability([Rule("view", "Shift", {"provider": ME}),
                       Rule("view", "Shift", None, True, "Shifts are hidden today.")])
    assert ability.decide("view", "Shift") == Decision(False, "Shifts are hidden today.")


def test_can_denies_a_type_check_with_only_a_conditional_deny():
    assert not Ability([Rule("view", "Shift", {"provider": OTHER}, True)]).can("view", "Shift")


@pytest.mark.parametrize("action", ACTIONS)
@pytest.mark.parametrize("subject", SUBJECTS)
def test_can_lets_admins_do_everything(action, subject):
    ability = Ability([Rule("manage", "all", None, True, "Nobody may.")], is_admin=True)
    assert ability.decide(action, subject, THEIRS) == Decision(True)
    assert ability.can(action, subject)


def test_build_rules_fills_placeholders_and_keeps_order():
    raw = [
        {"action": "view", "subject": "Shift", "conditions": {"provider": "$user.providerId"}},
        {"action": "view", "subject": "Shift", "conditions": {"team": {"$in": "$user.teamIds"}},
         "inverted": True, "errorMessage": "Not your team."},
    ]
    rules = build_rules(raw, {"id": "u", "providerId": ME, "teamIds": [TEAM]})
    assert rules == [
        Rule("view", "Shift", {"provider": ME}),
        Rule("view", "Shift", {"team": {"$in": [TEAM]}}, True, "Not your team."),
    ]
    assert Ability(rules).decide("view", "Shift", MINE) == Decision(False, "Not your team.")
