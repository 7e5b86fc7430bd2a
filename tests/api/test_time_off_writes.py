"""Writing time off: requesting it, approving with each shift-conflict strategy, rejecting,
cancelling, and the conflicts preview.

POST /v1/time-off/requests, POST …/{id}/approve, …/reject, …/cancel and GET …/{id}/conflicts
(extensions): status, Location, computed dailyHours/paidHours (DST days of America/New_York
included), the provider's shifts and the open shifts before and after approval, states,
permissions and problems.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from app.api import models as m
from tests.factories import uid
from tests.problems import problem_of

REQUESTS = "/v1/time-off/requests"
SHIFTS = "/v1/shifts"
PTO = str(uid("policy:pto"))
SICK = str(uid("policy:sick"))
# Monday 2 March 2026 in New York (EST, UTC-5): the provider's day-0 shift (12:00-24:00 UTC) has
# the "Charge nurse" label, the REG pay code and a note.
DAY0 = "2026-03-02T05:00:00+0000"
DAY1 = "2026-03-03T05:00:00+0000"
STRATEGIES = ["delete", "deleteWithOpen", "callout", "calloutWithOpen", "keep", "keepWithOpen"]



def _create(api: Any, user: str = "provider@example.com", **fields: Any) -> dict[str, Any]:
    body = {"policyId": PTO, "startDate": DAY0, "endDate": DAY1, **fields}
    response = api.post(REQUESTS, user=user, json=body)
    assert response.status_code == 201, response.get_json()
    return response.get_json()


def _shifts(api: Any, **query: Any) -> list[dict[str, Any]]:
    params = {"startDate": DAY0, "endDate": DAY1, "includeCallouts": "true", **query}
    pages = api.walk(SHIFTS, page_size=200, query_string=params)
    return [item for page in pages for item in page]


def _decide(api: Any, request_id: Any, action: str, user: str = "manager@example.com",
            **body: Any) -> Any:
    return api.post(f"{REQUESTS}/{request_id}/{action}", user=user, json=body)


# Create -----------------------------------------------------------------------------------------


def test_create_request_answers_201_with_location_and_computed_hours(fresh_api, world):
    response = fresh_api.post(REQUESTS, user="provider@example.com", json={
        "policyId": PTO, "startDate": DAY0, "endDate": "2026-03-04T05:00:00+0000",
        "note": "Family visit", "isFullDay": True,
    })

    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert response.headers["Location"].endswith(f"{REQUESTS}/{body['id']}")
    assert body["status"] == "pending"
    assert body["providerId"] == str(world.provider)
    assert body["policyId"] == PTO
    assert body["note"] == "Family visit"
    assert body["isFullDay"] is True
    assert body["conflictResolution"] is None
    assert "rejectionReason" not in body
    assert body["dailyHours"] == [
        {"date": "2026-03-02T00:00:00.000Z", "duration": 8.0},
        {"date": "2026-03-03T00:00:00.000Z", "duration": 8.0},
    ]
    assert body["paidHours"] == 16.0
    assert fresh_api.get(response.headers["Location"]).get_json() == body


def test_create_request_counts_real_hours_when_the_clocks_fall_back(fresh_api):
    # 22:00 EDT on 31 October to 05:00 EST on 1 November: local midnight is 04:00 UTC, and the
    # 1 November part lasts 6 real hours although the wall clock moves only 5.
    body = _create(fresh_api, isFullDay=False, startDate="2026-11-01T02:00:00+0000",
                   endDate="2026-11-01T10:00:00+0000")

    assert body["dailyHours"] == [
        {"date": "2026-10-31T00:00:00.000Z", "duration": 2.0},
        {"date": "2026-11-01T00:00:00.000Z", "duration": 6.0},
    ]
    assert body["paidHours"] == 8.0


def test_create_request_counts_real_hours_when_the_clocks_spring_forward(fresh_api):
    # Local midnight (05:00 UTC, EST) to 05:00 EDT on 8 March: 4 real hours.
    body = _create(fresh_api, isFullDay=False, startDate="2026-03-08T05:00:00+0000",
                   endDate="2026-03-08T09:00:00+0000")

    assert body["dailyHours"] == [{"date": "2026-03-08T00:00:00.000Z", "duration": 4.0}]
    assert body["paidHours"] == 4.0


def test_create_request_caps_each_local_day_at_the_providers_daily_hours(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as s:
        s.get(m.Provider, world.provider).daily_hours = 12.0

    # Midnight to midnight of the 25-hour 1 November, then 2 hours of 2 November.
    body = _create(fresh_api, isFullDay=False, startDate="2026-11-01T04:00:00+0000",
                   endDate="2026-11-02T07:00:00+0000")

    assert body["dailyHours"] == [
        {"date": "2026-11-01T00:00:00.000Z", "duration": 12.0},
        {"date": "2026-11-02T00:00:00.000Z", "duration": 2.0},
    ]
    assert body["paidHours"] == 14.0


def test_create_request_takes_full_days_on_both_dst_days_when_full_day(fresh_api):
    fall = _create(fresh_api, isFullDay=True, startDate="2026-11-01T04:00:00+0000",
                   endDate="2026-11-02T05:00:00+0000")
    spring = _create(fresh_api, isFullDay=True, startDate="2026-03-08T05:00:00+0000",
                     endDate="2026-03-09T04:00:00+0000")

    assert fall["dailyHours"] == [{"date": "2026-11-01T00:00:00.000Z", "duration": 8.0}]
    assert spring["dailyHours"] == [{"date": "2026-03-08T00:00:00.000Z", "duration": 8.0}]
    assert fall["paidHours"] == spring["paidHours"] == 8.0


def test_create_request_pays_whole_days_when_the_policy_accrues_in_days(fresh_api):
    partial = _create(fresh_api, policyId=SICK, isFullDay=False,
                      startDate="2026-03-02T14:00:00+0000", endDate="2026-03-02T18:00:00+0000")
    defaulted = _create(fresh_api, policyId=SICK, startDate="2026-03-09T14:00:00+0000",
                        endDate="2026-03-09T18:00:00+0000")

    assert partial["isFullDay"] is False
    assert partial["dailyHours"] == [{"date": "2026-03-02T00:00:00.000Z", "duration": 4.0}]
    assert partial["paidHours"] == 8.0
    assert defaulted["isFullDay"] is True
    assert defaulted["dailyHours"] == [{"date": "2026-03-09T00:00:00.000Z", "duration": 8.0}]


def test_create_request_pays_nothing_when_the_policy_is_unpaid(fresh_api, world):
    with fresh_api.db.unit_of_work(write=True) as s:
        policy = m.TimeOffPolicy(id=uid("policy:unpaid"), type="unpaid-day", name="Unpaid",
                                 description=None, accrual_unit="hours")
        policy.members = [s.get(m.Provider, world.provider)]
        s.add(policy)

    body = _create(fresh_api, policyId=str(uid("policy:unpaid")), isFullDay=True)

    assert body["dailyHours"] == [{"date": "2026-03-02T00:00:00.000Z", "duration": 8.0}]
    assert body["paidHours"] == 0.0


def test_create_request_keeps_given_daily_hours(fresh_api):
    body = _create(fresh_api, isFullDay=True, endDate="2026-03-04T05:00:00+0000", dailyHours=[
        {"date": "2026-03-03T00:00:00.000Z", "duration": 3.5},
        {"date": "2026-03-02T00:00:00.000Z", "duration": 6},
    ])

    assert body["dailyHours"] == [
        {"date": "2026-03-02T00:00:00.000Z", "duration": 6.0},
        {"date": "2026-03-03T00:00:00.000Z", "duration": 3.5},
    ]
    assert body["paidHours"] == 9.5


def test_create_request_rejects_given_daily_hours_outside_the_request(fresh_api):
    response = fresh_api.post(REQUESTS, user="provider@example.com", json={
        "policyId": PTO, "startDate": DAY0, "endDate": DAY1,
        "dailyHours": [{"date": "2026-03-02T00:00:00.000Z", "duration": 8},
                       {"date": "2026-03-05T00:00:00.000Z", "duration": 8}],
    })

    body = problem_of(response, 400, "validation")
    assert body["path"] == "/dailyHours/1/date"


def test_create_request_defaults_to_the_callers_provider_and_lets_managers_name_one(
    fresh_api, world
):
    own = _create(fresh_api, user="provider@example.com")
    named = _create(fresh_api, user="manager@example.com", providerId=str(world.provider),
                    startDate="2026-03-09T05:00:00+0000", endDate="2026-03-10T04:00:00+0000")

    assert own["providerId"] == named["providerId"] == str(world.provider)


def test_create_request_requires_a_provider_when_the_caller_has_none(fresh_api):
    response = fresh_api.post(REQUESTS, user="manager@example.com",
                              json={"policyId": PTO, "startDate": DAY0, "endDate": DAY1})

    assert problem_of(response, 400, "validation")["path"] == "/providerId"


def test_create_request_refuses_a_provider_outside_the_policy(fresh_api):
    response = fresh_api.post(REQUESTS, user="icu.nurse@example.com",
                              json={"policyId": SICK, "startDate": DAY0, "endDate": DAY1})

    body = problem_of(response, 400, "provider-not-in-policy")
    assert "Sick leave" in body["detail"]


def test_create_request_refuses_time_already_requested_or_approved(fresh_api):
    pending = _create(fresh_api)  # Monday 2 March, a full day
    approved = _create(fresh_api, startDate="2026-03-04T05:00:00+0000",
                       endDate="2026-03-05T05:00:00+0000")
    assert _decide(fresh_api, approved["id"], "approve", conflictResolution="keep"
                   ).status_code == 200

    for start, end, clash, status in [
        (DAY0, DAY1, pending, "pending"),  # the same day, asked twice
        ("2026-03-02T20:00:00+0000", "2026-03-02T22:00:00+0000", pending, "pending"),  # part
        ("2026-03-03T05:00:00+0000", "2026-03-05T05:00:00+0000", approved, "approved"),  # Tue-Wed
    ]:
        body = problem_of(fresh_api.post(REQUESTS, user="provider@example.com", json={
            "policyId": SICK, "startDate": start, "endDate": end}), 409,
            "time-off-request-overlap")
        assert [c["id"] for c in body["conflicts"]] == [clash["id"]]
        assert body["conflicts"][0]["status"] == status

    # Touching is not overlapping: Tuesday alone lies between the two.
    _create(fresh_api, startDate=DAY1, endDate="2026-03-04T05:00:00+0000")


def test_create_request_allows_another_part_of_the_same_day(fresh_api):
    _create(fresh_api, isFullDay=False, startDate="2026-03-02T14:00:00+0000",
            endDate="2026-03-02T16:00:00+0000")
    later = _create(fresh_api, isFullDay=False, startDate="2026-03-02T18:00:00+0000",
                    endDate="2026-03-02T20:00:00+0000")
    assert later["status"] == "pending"
    # A full day over both part-day requests collides with each.
    body = problem_of(fresh_api.post(REQUESTS, user="provider@example.com", json={
        "policyId": PTO, "startDate": DAY0, "endDate": DAY1, "isFullDay": True}), 409,
        "time-off-request-overlap")
    assert len(body["conflicts"]) == 2


def test_create_request_may_retake_time_once_the_first_request_is_gone(fresh_api):
    first = _create(fresh_api)
    assert _decide(fresh_api, first["id"], "reject", rejectionReason="Short-staffed"
                   ).status_code == 200
    second = _create(fresh_api)
    assert _decide(fresh_api, second["id"], "cancel", user="provider@example.com"
                   ).status_code == 200
    assert _create(fresh_api)["status"] == "pending"


def test_create_request_refuses_an_end_before_the_start(fresh_api):
    response = fresh_api.post(REQUESTS, user="provider@example.com",
                              json={"policyId": PTO, "startDate": DAY1, "endDate": DAY0})

    assert problem_of(response, 400, "negative-range")["path"] == "/endDate"


@pytest.mark.parametrize(("start", "end", "path"), [
    ("2026-01-01T00:00:00+0000", "2027-01-03T00:00:00+0000", "/endDate"),
    ("0001-01-01T00:00:00+0000", "0001-01-02T00:00:00+0000", "/startDate"),
    ("9999-12-30T00:00:00+0000", "9999-12-31T23:00:00+0000", "/startDate"),
])
def test_create_request_refuses_windows_too_long_or_too_far(fresh_api, start, end, path):
    response = fresh_api.post(REQUESTS, user="provider@example.com",
                              json={"policyId": PTO, "startDate": start, "endDate": end})

    assert problem_of(response, 400, "validation")["path"] == path


def test_create_request_reports_unknown_policy_and_provider_at_their_paths(fresh_api):
    response = fresh_api.post(REQUESTS, json={
        "policyId": str(uuid.uuid4()), "providerId": str(uuid.uuid4()),
        "startDate": DAY0, "endDate": DAY1,
    })

    body = problem_of(response, 400, "validation")
    assert {e["path"] for e in body["errors"]} == {"/policyId", "/providerId"}


@pytest.mark.parametrize(("user", "provider"), [
    ("provider@example.com", "doctor"),
    ("manager@example.com", "icu_nurse"),
])
def test_create_request_is_unauthorized_for_someone_else(fresh_api, world, user, provider):
    response = fresh_api.post(REQUESTS, user=user, json={
        "policyId": PTO, "providerId": str(getattr(world, provider)),
        "startDate": DAY0, "endDate": DAY1,
    })

    problem_of(response, 403, "unauthorized")


# Approve ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_approve_request_applies_the_strategy_to_overlapping_shifts(fresh_api, world, strategy):
    request = _create(fresh_api, isFullDay=True)
    [before] = _shifts(fresh_api, providerId=str(world.provider))
    assert _shifts(fresh_api, openOnly="true", teamId=str(world.ed)) == []

    response = _decide(fresh_api, request["id"], "approve", conflictResolution=strategy)

    assert response.status_code == 200, response.get_json()
    assert response.get_json()["status"] == "approved"
    assert response.get_json()["conflictResolution"] == strategy
    after = _shifts(fresh_api, providerId=str(world.provider))
    if strategy.startswith("delete"):
        assert after == []
        problem_of(fresh_api.get(f"{SHIFTS}/{before['id']}"), 404, "shift-not-found")
    elif strategy.startswith("callout"):
        assert after == [{**before, "isCallout": True, "version": before["version"] + 1}]
    else:
        assert after == [before]
    opened = _shifts(fresh_api, openOnly="true", teamId=str(world.ed))
    if strategy.endswith("WithOpen"):
        [copy] = opened
        assert copy["id"] != before["id"]
        assert copy["provider"] is None
        assert copy["isCallout"] is False
        for key in ("team", "startDate", "endDate", "payCodes", "note"):
            assert copy[key] == before[key], key
        keys = ("role", "type", "isBreak", "startDate", "endDate", "labels", "skillRequirement")
        assert [{k: s[k] for k in keys} for s in copy["segments"]] == \
            [{k: s[k] for k in keys} for s in before["segments"]]
        assert copy["segments"][0]["labels"] == [str(uid("label:charge"))]
        assert copy["payCodes"] == [{"payCodeId": str(uid("pay:REG"))}]
    else:
        assert opened == []


def test_approve_request_reaches_shifts_of_the_whole_local_day_when_full_day(fresh_api, world):
    # One hour of the morning, but full-day: the 07:00-19:00 local shift of that day is hit.
    full = _create(fresh_api, isFullDay=True, startDate="2026-03-02T06:00:00+0000",
                   endDate="2026-03-02T07:00:00+0000")
    partial = _create(fresh_api, isFullDay=False, startDate="2026-03-03T06:00:00+0000",
                      endDate="2026-03-03T07:00:00+0000")

    preview = fresh_api.get(f"{REQUESTS}/{full['id']}/conflicts", user="manager@example.com")
    assert preview.status_code == 200, preview.get_json()
    assert [s["startDate"] for s in preview.get_json()["items"]] == ["2026-03-02T12:00:00+0000"]
    assert fresh_api.get(f"{REQUESTS}/{partial['id']}/conflicts").get_json()["items"] == []

    assert _decide(fresh_api, full["id"], "approve", conflictResolution="delete").status_code == 200
    assert _decide(fresh_api, partial["id"], "approve",
                   conflictResolution="delete").status_code == 200
    days = _shifts(fresh_api, providerId=str(world.provider),
                   endDate="2026-03-04T05:00:00+0000")
    assert [s["startDate"] for s in days] == ["2026-03-03T12:00:00+0000"]


def test_approve_request_leaves_callouts_and_other_providers_alone(fresh_api, world):
    # Days 0-11: ten working shifts and, on day 11, the provider's callout shift.
    request = _create(fresh_api, isFullDay=True, endDate="2026-03-14T05:00:00+0000")

    response = _decide(fresh_api, request["id"], "approve", conflictResolution="deleteWithOpen")

    assert response.status_code == 200, response.get_json()
    left = _shifts(fresh_api, providerId=str(world.provider), endDate="2026-03-14T05:00:00+0000")
    assert [(s["id"], s["isCallout"]) for s in left] == [(str(world.ids["callout"]), True)]
    opened = _shifts(fresh_api, openOnly="true", teamId=str(world.ed),
                     endDate="2026-03-14T05:00:00+0000")
    assert len(opened) == 10 + 1  # a copy per working shift, plus the seeded open shift
    assert len(_shifts(fresh_api, providerId=str(world.doctor))) == 1


def test_approve_request_is_unauthorized_for_the_manager_of_another_team(fresh_api, world):
    response = _decide(fresh_api, world.ids["request_icu"], "approve", conflictResolution="keep")

    problem_of(response, 403, "unauthorized")
    assert fresh_api.get(f"{REQUESTS}/{world.ids['request_icu']}").get_json()["status"] == \
        "pending"


def test_approve_request_is_unauthorized_for_the_provider(fresh_api, world):
    response = _decide(fresh_api, world.ids["request_pending"], "approve",
                       user="provider@example.com", conflictResolution="keep")

    problem_of(response, 403, "unauthorized")


@pytest.mark.parametrize("state", ["approved", "rejected", "cancelled"])
def test_approve_request_refuses_a_decided_request(fresh_api, world, state):
    response = _decide(fresh_api, world.ids[f"request_{state}"], "approve",
                       conflictResolution="keep")

    assert problem_of(response, 409, "invalid-state-transition")["currentState"] == state


def test_approve_request_requires_a_known_strategy(fresh_api, world):
    response = _decide(fresh_api, world.ids["request_pending"], "approve",
                       conflictResolution="shred")

    assert problem_of(response, 400, "validation")["path"] == "/conflictResolution"


def test_approve_request_answers_404_for_an_unknown_request(fresh_api):
    response = _decide(fresh_api, uuid.uuid4(), "approve", conflictResolution="keep")

    problem_of(response, 404, "time-off-request-not-found")


def test_approve_request_lets_one_of_two_concurrent_approvals_win(fresh_api, world):
    request = _create(fresh_api, isFullDay=True)
    [shift] = _shifts(fresh_api, providerId=str(world.provider))
    path, body = f"{REQUESTS}/{request['id']}/approve", {"conflictResolution": "calloutWithOpen"}
    responses = fresh_api.race([("POST", path, user, body)
                                for user in ("manager@example.com", "admin@example.com")])
    statuses = [r.status_code for r in responses]
    assert sorted(statuses) == [200, 409]
    [after] = _shifts(fresh_api, providerId=str(world.provider))
    assert after["version"] == shift["version"] + 1
    assert len(_shifts(fresh_api, openOnly="true", teamId=str(world.ed))) == 1


# Reject -----------------------------------------------------------------------------------------


def test_reject_request_shows_who_and_why_to_the_provider(fresh_api, world):
    response = _decide(fresh_api, world.ids["request_pending"], "reject",
                       rejectionReason="Two nurses already off that day")

    assert response.status_code == 200, response.get_json()
    seen = fresh_api.get(f"{REQUESTS}/{world.ids['request_pending']}",
                         user="provider@example.com").get_json()
    assert seen["status"] == "rejected"
    assert seen["rejectionReason"] == "Two nurses already off that day"
    assert seen["rejectedById"] == str(world.manager)
    assert seen["rejectedBy"]["name"] == "Morgan Manager"
    assert response.get_json() == seen


def test_reject_request_without_reason_answers_null_reason(fresh_api, world):
    response = _decide(fresh_api, world.ids["request_pending"], "reject", rejectionReason=None)

    body = response.get_json()
    assert response.status_code == 200, body
    assert body["rejectionReason"] is None
    assert body["rejectedById"] == str(world.manager)


@pytest.mark.parametrize("state", ["approved", "rejected", "cancelled"])
def test_reject_request_refuses_a_decided_request(fresh_api, world, state):
    response = _decide(fresh_api, world.ids[f"request_{state}"], "reject", rejectionReason="x")

    assert problem_of(response, 409, "invalid-state-transition")["currentState"] == state


def test_reject_request_is_unauthorized_for_the_manager_of_another_team(fresh_api, world):
    response = _decide(fresh_api, world.ids["request_icu"], "reject", rejectionReason=None)

    problem_of(response, 403, "unauthorized")


# Cancel -----------------------------------------------------------------------------------------


# Far enough ahead to stay in the future while the suite lives: a Monday in 2030 (New York).
FUTURE = "2030-03-04T05:00:00+0000"
FUTURE_END = "2030-03-05T05:00:00+0000"


def test_cancel_request_withdraws_a_pending_request_for_its_provider(fresh_api, world):
    response = fresh_api.post(f"{REQUESTS}/{world.ids['request_pending']}/cancel",
                              user="provider@example.com")

    assert response.status_code == 200, response.get_json()
    assert response.get_json()["status"] == "cancelled"
    assert response.get_json()["cancellationRequestedAt"] is None


@pytest.mark.parametrize("state", ["pending", "approved"])
def test_cancel_request_by_a_manager_cancels_at_once(fresh_api, world, state):
    response = fresh_api.post(f"{REQUESTS}/{world.ids[f'request_{state}']}/cancel",
                              user="manager@example.com")

    assert response.status_code == 200, response.get_json()
    assert response.get_json()["status"] == "cancelled"


def test_cancel_request_of_approved_leave_by_its_provider_waits_for_the_manager(fresh_api):
    leave = _create(fresh_api, startDate=FUTURE, endDate=FUTURE_END)
    _decide(fresh_api, leave["id"], "approve", conflictResolution="keep")

    asked = fresh_api.post(f"{REQUESTS}/{leave['id']}/cancel", user="provider@example.com")

    assert asked.status_code == 200, asked.get_json()
    body = asked.get_json()
    assert body["status"] == "approved"
    assert body["cancellationRequestedAt"] is not None
    waiting = fresh_api.get(REQUESTS, user="manager@example.com",
                            query_string={"cancellationRequested": "true"}).get_json()["items"]
    assert [r["id"] for r in waiting] == [leave["id"]]
    # Asking again changes nothing; the manager then cancels it.
    again = fresh_api.post(f"{REQUESTS}/{leave['id']}/cancel", user="provider@example.com")
    assert again.get_json()["cancellationRequestedAt"] == body["cancellationRequestedAt"]
    done = fresh_api.post(f"{REQUESTS}/{leave['id']}/cancel", user="manager@example.com")
    assert done.get_json()["status"] == "cancelled"
    assert done.get_json()["cancellationRequestedAt"] is None


def test_decline_cancellation_keeps_the_leave_and_tells_the_provider_why(fresh_api):
    leave = _create(fresh_api, startDate=FUTURE, endDate=FUTURE_END)
    _decide(fresh_api, leave["id"], "approve", conflictResolution="keep")
    fresh_api.post(f"{REQUESTS}/{leave['id']}/cancel", user="provider@example.com")

    declined = _decide(fresh_api, leave["id"], "decline-cancellation",
                       reason="The shifts were already given away")

    assert declined.status_code == 200, declined.get_json()
    body = declined.get_json()
    assert (body["status"], body["cancellationRequestedAt"]) == ("approved", None)
    assert body["cancellationDeclineReason"] == "The shifts were already given away"
    assert body["cancellationDeclinedAt"] is not None
    seen = fresh_api.get(f"{REQUESTS}/{leave['id']}", user="provider@example.com").get_json()
    assert seen["cancellationDeclineReason"] == "The shifts were already given away"
    # Nothing waits any more: declining twice is refused.
    problem_of(_decide(fresh_api, leave["id"], "decline-cancellation"), 409,
             "invalid-state-transition")


def test_decline_cancellation_is_the_managers_decision(fresh_api):
    leave = _create(fresh_api, startDate=FUTURE, endDate=FUTURE_END)
    _decide(fresh_api, leave["id"], "approve", conflictResolution="keep")
    fresh_api.post(f"{REQUESTS}/{leave['id']}/cancel", user="provider@example.com")

    problem_of(_decide(fresh_api, leave["id"], "decline-cancellation",
                     user="provider@example.com"), 403, "unauthorized")


def test_cancel_request_refuses_a_provider_leave_that_has_started(fresh_api, world):
    # The shared organisation's approved request lies in March 2026, before today.
    response = fresh_api.post(f"{REQUESTS}/{world.ids['request_approved']}/cancel",
                              user="provider@example.com")

    body = problem_of(response, 409, "time-off-already-started")
    assert body["startDate"].startswith("2026-03-")


def test_cancel_request_does_not_restore_deleted_shifts(fresh_api, world):
    request = _create(fresh_api, isFullDay=True)
    _decide(fresh_api, request["id"], "approve", conflictResolution="delete")

    response = fresh_api.post(f"{REQUESTS}/{request['id']}/cancel", user="manager@example.com")

    assert response.get_json()["status"] == "cancelled"
    assert _shifts(fresh_api, providerId=str(world.provider)) == []


@pytest.mark.parametrize("state", ["rejected", "cancelled"])
def test_cancel_request_refuses_rejected_and_cancelled_requests(fresh_api, world, state):
    response = fresh_api.post(f"{REQUESTS}/{world.ids[f'request_{state}']}/cancel",
                              user="provider@example.com")

    assert problem_of(response, 409, "invalid-state-transition")["currentState"] == state


def test_cancel_request_is_unauthorized_for_another_provider(fresh_api, world):
    response = fresh_api.post(f"{REQUESTS}/{world.ids['request_pending']}/cancel",
                              user="doctor@example.com")

    problem_of(response, 403, "unauthorized")


def test_conflicts_is_unauthorized_for_the_provider(fresh_api, world):
    response = fresh_api.get(f"{REQUESTS}/{world.ids['request_pending']}/conflicts",
                             user="provider@example.com")

    problem_of(response, 403, "unauthorized")
