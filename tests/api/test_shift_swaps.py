"""Shift swap extensions: /v1/shift-swap-listings and /v1/shift-swap-applications, every
transition, every refusal code and the handover's races (SQLite and PostgreSQL)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from app.api import models as m
from tests.factories import make_shift, uid
from tests.problems import problem_of

LISTINGS = "/v1/shift-swap-listings"
APPLICATIONS = "/v1/shift-swap-applications"
PAT = "provider@example.com"
NURSE = "ed.nurse1@example.com"
NURSE2 = "ed.nurse2@example.com"
DOCTOR = "doctor@example.com"
ICU_NURSE = "icu.nurse@example.com"
MANAGER = "manager@example.com"
ICU_MANAGER = "icu.manager@example.com"
SOON = (datetime.now(UTC) + timedelta(days=9)).replace(hour=12, minute=0, second=0,
                                                        microsecond=0)
"""7:00 or 8:00 in New York, nine days ahead: every test shift starts from here."""



def _ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.get_json()
    return response.get_json()


def _shift(api: Any, email: str | None, *, days: float = 0, hours: int = 12,
           role: str = "role:Emergency:Registered Nurse", team: str = "team:Emergency",
           start: datetime | None = None, break_at: int | None = 6) -> str:
    """A future shift of the person with `email` (None: open), `days` after SOON."""
    with api.db.unit_of_work(write=True) as session:
        provider = session.get(m.Provider, uid(f"user:{email}")) if email else None
        shift = make_shift(session, provider=provider, team=session.get(m.Team, uid(team)),
                           role=session.get(m.Role, uid(role)),
                           start=start or SOON + timedelta(days=days), hours=hours,
                           break_at=break_at)
        session.flush()
        return str(shift.id)


def _list(api: Any, shift_id: str, user: str = PAT, **body: Any) -> dict[str, Any]:
    return _ok(api.post(LISTINGS, user=user, json={"shiftId": shift_id, **body}), 201)


def _apply(api: Any, listing: dict[str, Any], user: str = NURSE,
           offered: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"listingId": listing["id"]}
    if offered:
        body["offeredShiftId"] = offered
    return _ok(api.post(APPLICATIONS, user=user, json=body), 201)


def _decide(api: Any, application: dict[str, Any], decision: str, user: str,
            **body: Any) -> Any:
    return api.post(f"{APPLICATIONS}/{application['id']}/{decision}", user=user, json=body)


def _provider_of(api: Any, shift_id: str) -> tuple[str | None, int]:
    shift = _ok(api.get(f"/v1/shifts/{shift_id}"))
    return shift.get("provider"), shift["version"]


def test_swap_with_exchange_listed_applied_accepted_approved(fresh_api):
    mine, theirs = _shift(fresh_api, PAT), _shift(fresh_api, NURSE, days=1)
    listing = _list(fresh_api, mine, note="Family wedding", kind="swap")
    assert (listing["status"], listing["kind"], listing["note"]) == ("open", "swap",
                                                                      "Family wedding")
    assert listing["expiresAt"] == listing["shiftStart"]
    # Colleagues holding the role see it; the doctor (another role) and ICU do not.
    open_ = {"status": "open"}
    assert [i["id"] for i in _ok(fresh_api.get(LISTINGS, user=NURSE,
                                               query_string=open_))["items"]] == [listing["id"]]
    assert _ok(fresh_api.get(LISTINGS, user=DOCTOR, query_string=open_))["items"] == []
    assert _ok(fresh_api.get(LISTINGS, user=ICU_NURSE))["items"] == []
    problem_of(fresh_api.get(f"{LISTINGS}/{listing['id']}", user=ICU_NURSE), 403, "unauthorized")
    application = _apply(fresh_api, listing, offered=theirs)
    assert (application["status"], application["offeredShiftId"]) == ("pending", theirs)
    assert _ok(fresh_api.get(f"{LISTINGS}/{listing['id']}", user=PAT))["applicationCount"] == 1
    # The applicant cannot accept; the lister can; the manager then approves.
    problem_of(_decide(fresh_api, application, "accept", NURSE), 403, "unauthorized")
    accepted = _ok(_decide(fresh_api, application, "accept", PAT,
                           version=application["version"]))
    assert accepted["status"] == "accepted"
    assert _ok(fresh_api.get(f"{LISTINGS}/{listing['id']}", user=PAT))["status"] == "accepted"
    queue = _ok(fresh_api.get(APPLICATIONS, user=MANAGER,
                              query_string={"status": "accepted"}))["items"]
    assert [a["id"] for a in queue] == [application["id"]]
    assert _ok(fresh_api.get(APPLICATIONS, user=ICU_MANAGER))["items"] == []
    problem_of(_decide(fresh_api, accepted, "approve", PAT), 403, "unauthorized")
    problem_of(_decide(fresh_api, accepted, "approve", ICU_MANAGER), 403, "unauthorized")
    before = (_provider_of(fresh_api, mine)[1], _provider_of(fresh_api, theirs)[1])
    approved = _ok(_decide(fresh_api, accepted, "approve", MANAGER,
                           version=accepted["version"]))
    assert (approved["status"], approved["decidedBy"]) == ("approved",
                                                           str(fresh_api.world.manager))
    assert _provider_of(fresh_api, mine) == (str(uid(f"user:{NURSE}")), before[0] + 1)
    assert _provider_of(fresh_api, theirs) == (str(fresh_api.world.provider), before[1] + 1)
    assert _ok(fresh_api.get(f"{LISTINGS}/{listing['id']}", user=PAT))["status"] == "completed"


def test_giveaway_without_approval_hands_over_at_acceptance_and_closes_the_rest(fresh_api):
    _ok(fresh_api.patch(f"/v1/teams/{fresh_api.world.ed}", json={"swapsNeedApproval": False}))
    assert _ok(fresh_api.get(f"/v1/teams/{fresh_api.world.ed}"))["swapsNeedApproval"] is False
    problem_of(fresh_api.patch(f"/v1/teams/{fresh_api.world.ed}", user=MANAGER,
                             json={"swapsNeedApproval": True}), 403, "unauthorized")
    mine = _shift(fresh_api, PAT)
    listing = _list(fresh_api, mine, kind="giveaway")
    first, second = _apply(fresh_api, listing), _apply(fresh_api, listing, user=NURSE2)
    done = _ok(_decide(fresh_api, first, "accept", PAT))
    assert done["status"] == "approved"
    assert _provider_of(fresh_api, mine)[0] == str(uid(f"user:{NURSE}"))
    assert _ok(fresh_api.get(f"{APPLICATIONS}/{second['id']}", user=NURSE2))["status"] == \
        "closed"
    listed = _ok(fresh_api.get(LISTINGS, user=PAT, query_string={"mine": "true"}))["items"]
    assert [(i["status"], i["applicationCount"]) for i in listed] == [("completed", 0)]


def test_rejection_reopens_the_listing_and_decline_and_withdrawals(fresh_api):
    listing = _list(fresh_api, _shift(fresh_api, PAT))
    first, second = _apply(fresh_api, listing), _apply(fresh_api, listing, user=NURSE2)
    accepted = _ok(_decide(fresh_api, first, "accept", PAT))
    problem_of(_decide(fresh_api, second, "accept", PAT), 409, "shift-swap-listing-closed")
    problem_of(_decide(fresh_api, accepted, "reject", MANAGER), 400, "validation")
    rejected = _ok(_decide(fresh_api, accepted, "reject", MANAGER,
                           rejectionReason="Nurse 1 is in orientation that day"))
    assert (rejected["status"], rejected["rejectionReason"]) == (
        "rejected", "Nurse 1 is in orientation that day")
    assert _ok(fresh_api.get(f"{LISTINGS}/{listing['id']}", user=PAT))["status"] == "open"
    declined = _ok(_decide(fresh_api, second, "decline", PAT))
    assert declined["status"] == "declined"
    problem_of(_decide(fresh_api, declined, "accept", PAT), 409, "invalid-state-transition")
    third = _apply(fresh_api, listing, user=NURSE2)
    withdrawn = _ok(fresh_api.patch(f"{APPLICATIONS}/{third['id']}", user=NURSE2,
                                    json={"status": "withdrawn", "version": third["version"]}))
    assert withdrawn["status"] == "withdrawn"
    problem_of(fresh_api.patch(f"{APPLICATIONS}/{third['id']}", user=PAT,
                             json={"status": "withdrawn"}), 403, "unauthorized")


def test_withdrawn_and_expired_listings_close_their_applications(fresh_api):
    listing = _list(fresh_api, _shift(fresh_api, PAT))
    application = _apply(fresh_api, listing)
    problem_of(fresh_api.patch(f"{LISTINGS}/{listing['id']}", user=PAT,
                             json={"status": "withdrawn", "version": 99}),
             409, "version-conflict")
    withdrawn = _ok(fresh_api.patch(f"{LISTINGS}/{listing['id']}", user=PAT,
                                    json={"status": "withdrawn",
                                          "version": listing["version"]}))
    assert withdrawn["status"] == "withdrawn"
    assert _ok(fresh_api.get(f"{APPLICATIONS}/{application['id']}", user=NURSE))["status"] == \
        "closed"
    problem_of(fresh_api.post(APPLICATIONS, user=NURSE2, json={"listingId": listing["id"]}),
             409, "shift-swap-listing-closed")
    # Expiry is read, not written: an open listing past expiresAt reads expired.
    other = _list(fresh_api, _shift(fresh_api, PAT, days=2))
    pending = _apply(fresh_api, other)
    with fresh_api.db.unit_of_work(write=True) as session:
        session.get(m.ShiftSwapListing, uuid.UUID(other["id"])).expires_at = \
            datetime.now(UTC) - timedelta(minutes=1)
    assert _ok(fresh_api.get(f"{LISTINGS}/{other['id']}", user=PAT))["status"] == "expired"
    assert _ok(fresh_api.get(f"{APPLICATIONS}/{pending['id']}", user=NURSE))["status"] == \
        "closed"
    expired = _ok(fresh_api.get(LISTINGS, user=PAT, query_string={"status": "expired"}))
    assert [i["id"] for i in expired["items"]] == [other["id"]]
    closed = _ok(fresh_api.get(APPLICATIONS, user=NURSE, query_string={"status": "closed"}))
    assert {i["id"] for i in closed["items"]} == {application["id"], pending["id"],
                                                  str(uid("swap-application:doctor"))}
    body = problem_of(_decide(fresh_api, pending, "accept", PAT), 409,
                    "shift-swap-listing-closed")
    assert body["listingStatus"] == "expired"
    # The shift may be listed again once the old listing is over.
    assert _list(fresh_api, other["shiftId"])["status"] == "open"


def test_listing_refusals(fresh_api):
    mine = _shift(fresh_api, PAT)
    problem_of(fresh_api.post(LISTINGS, user=MANAGER, json={"shiftId": mine}), 409,
             "shift-swap-not-own-shift")
    problem_of(fresh_api.post(LISTINGS, user=NURSE, json={"shiftId": mine}), 403,
             "unauthorized")
    problem_of(fresh_api.post(LISTINGS, user=PAT, json={"shiftId": str(uuid.uuid4())}), 404,
             "shift-not-found")
    past = _ok(fresh_api.get("/v1/shifts", user=PAT, query_string={
        "providerId": str(fresh_api.world.provider), "pageSize": 1}))["items"][0]["id"]
    problem_of(fresh_api.post(LISTINGS, user=PAT, json={"shiftId": past}), 409,
             "shift-already-started")
    late = (SOON + timedelta(days=1)).isoformat()
    body = problem_of(fresh_api.post(LISTINGS, user=PAT, json={"shiftId": mine,
                                                             "expiresAt": late}),
                    400, "validation")
    assert body["path"] == "/expiresAt"
    for bad in ("0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"):
        problem_of(fresh_api.post(LISTINGS, user=PAT, json={"shiftId": mine, "expiresAt": bad}),
                 400, "validation")
    problem_of(fresh_api.post(LISTINGS, user=PAT, json={"shiftId": mine, "kind": "sell"}), 400,
             "validation")
    problem_of(fresh_api.post(LISTINGS, user=PAT, json={"shiftId": mine, "note": "x" * 501}),
             400, "validation")
    listing = _list(fresh_api, mine)
    body = problem_of(fresh_api.post(LISTINGS, user=PAT, json={"shiftId": mine}), 409,
                    "shift-swap-already-listed")
    assert body["listingId"] == listing["id"]
    problem_of(fresh_api.get(f"{LISTINGS}/{uuid.uuid4()}", user=PAT), 404,
             "shift-swap-listing-not-found")
    problem_of(fresh_api.get(f"{APPLICATIONS}/{uuid.uuid4()}", user=PAT), 404,
             "shift-swap-application-not-found")
    problem_of(fresh_api.patch(f"{LISTINGS}/{uuid.uuid4()}", user=PAT,
                             json={"status": "withdrawn"}), 404, "shift-swap-listing-not-found")


def test_application_refusals(fresh_api):
    mine = _shift(fresh_api, PAT)
    listing = _list(fresh_api, mine)
    problem_of(fresh_api.post(APPLICATIONS, user=PAT, json={"listingId": listing["id"]}), 409,
             "shift-swap-own-listing")
    problem_of(fresh_api.post(APPLICATIONS, user=DOCTOR, json={"listingId": listing["id"]}),
             403, "unauthorized")
    problem_of(fresh_api.post(APPLICATIONS, user=NURSE, json={"listingId": str(uuid.uuid4())}),
             404, "shift-swap-listing-not-found")
    problem_of(fresh_api.post(APPLICATIONS, user=MANAGER, json={"listingId": listing["id"]}),
             400, "validation")
    for offered in (mine, _shift(fresh_api, NURSE2, days=1), str(uuid.uuid4())):
        body = problem_of(fresh_api.post(APPLICATIONS, user=NURSE, json={
            "listingId": listing["id"], "offeredShiftId": offered}), 400, "validation")
        assert body["path"] == "/offeredShiftId"
    application = _apply(fresh_api, listing)
    body = problem_of(fresh_api.post(APPLICATIONS, user=NURSE, json={"listingId": listing["id"]}),
                    409, "shift-swap-already-applied")
    assert body["applicationId"] == application["id"]
    giveaway = _list(fresh_api, _shift(fresh_api, PAT, days=3), kind="giveaway")
    problem_of(fresh_api.post(APPLICATIONS, user=NURSE, json={
        "listingId": giveaway["id"], "offeredShiftId": _shift(fresh_api, NURSE, days=4)}),
        400, "validation")
    problem_of(_decide(fresh_api, application, "approve", MANAGER), 409,
             "invalid-state-transition")
    problem_of(_decide(fresh_api, application, "accept", PAT, version=application["version"] + 1),
             409, "version-conflict")
    problem_of(_decide(fresh_api, {"id": str(uuid.uuid4())}, "accept", PAT), 404,
             "shift-swap-application-not-found")


def _set_up(api: Any, refusal: str) -> tuple[str, str | None, str]:
    """A listing's shift, an offered shift and the applicant, arranged so that applying is
    refused with `refusal`."""
    applicant = NURSE
    if refusal == "shift-claim-window-closed":
        return _shift(api, PAT, start=datetime.now(UTC).replace(microsecond=0)
                      + timedelta(minutes=60)), None, applicant
    listed = _shift(api, PAT)
    offered = None
    with api.db.unit_of_work(write=True) as session:
        nurse = session.get(m.Provider, uid(f"user:{NURSE}"))
        if refusal == "shift-role-not-held":
            # The nurse offers a physician's shift: Pat does not hold that role.
            nurse.roles = [session.get(m.Role, uid("role:Emergency:Registered Nurse")),
                           session.get(m.Role, uid("role:Emergency:Physician"))]
        elif refusal == "shift-missing-skills":
            shift = session.get(m.Shift, uuid.UUID(listed))
            for segment in shift.segments:
                segment.skill_requirement = {"type": "equal", "skill": "certification",
                                             "value": "PALS"}
        elif refusal == "shift-time-off-conflict":
            session.add(m.TimeOffRequest(
                status="approved", start_date=SOON - timedelta(hours=2),
                end_date=SOON + timedelta(hours=14), policy_id=uid("policy:pto"),
                provider_id=nurse.id, paid_hours=8.0, is_full_day=False))
        elif refusal == "shift-swap-unavailable":
            day = SOON.astimezone().date()
            session.add(m.AvailabilityException(provider_id=nurse.id, start_date=day,
                                                end_date=day + timedelta(days=1),
                                                kind="unavailable", note="Exam day"))
        elif refusal == "shift-swap-max-weekly-hours":
            nurse.max_weekly_hours = 10.0
        elif refusal == "timesheet-signed-off":
            sign_off = m.TimesheetSignOff(team_id=uid("team:Emergency"),
                                          start_date=SOON - timedelta(days=1),
                                          end_date=SOON + timedelta(days=2),
                                          signed_by_id=uid("user:manager@example.com"))
            sign_off.providers = [nurse]
            session.add(sign_off)
    if refusal == "shift-schedule-conflict":
        _shift(api, NURSE, start=SOON + timedelta(hours=2), hours=4, break_at=None)
    if refusal == "shift-role-not-held":
        offered = _shift(api, NURSE, days=1, role="role:Emergency:Physician")
    return listed, offered, applicant


@pytest.mark.parametrize("refusal", [
    "shift-claim-window-closed", "shift-role-not-held", "shift-missing-skills",
    "shift-time-off-conflict", "shift-schedule-conflict", "timesheet-signed-off",
    "shift-swap-unavailable", "shift-swap-max-weekly-hours",
])
def test_each_trade_check_refuses_with_its_code(fresh_api, refusal):
    listed, offered, applicant = _set_up(fresh_api, refusal)
    listing = _list(fresh_api, listed)
    body: dict[str, Any] = {"listingId": listing["id"]}
    if offered:
        body["offeredShiftId"] = offered
    problem = problem_of(fresh_api.post(APPLICATIONS, user=applicant, json=body), 409, refusal)
    assert problem["detail"]
    if refusal == "shift-swap-max-weekly-hours":
        # By hand: the listed shift's 12 hours less its 30-minute unpaid break; the nurse works
        # nothing else that week, against the limit of 10.
        assert (problem["scheduledHours"], problem["maxWeeklyHours"]) == (11.5, 10.0)
    assert _ok(fresh_api.get(APPLICATIONS, user=applicant, query_string={
        "listingId": listing["id"]}))["items"] == []


def test_a_shift_edited_after_listing_cannot_change_hands(fresh_api):
    mine, theirs = _shift(fresh_api, PAT), _shift(fresh_api, NURSE, days=1)
    listing = _list(fresh_api, mine)
    application = _apply(fresh_api, listing, offered=theirs)
    _ok(_decide(fresh_api, application, "accept", PAT))
    _ok(fresh_api.patch(f"/v1/shifts/{theirs}", json={"note": "Moved to pod C"}))
    body = problem_of(_decide(fresh_api, application, "approve", MANAGER), 409,
                    "shift-swap-shift-changed")
    assert body["shiftId"] == theirs
    assert _provider_of(fresh_api, mine)[0] == str(fresh_api.world.provider)
    assert _provider_of(fresh_api, theirs)[0] == str(uid(f"user:{NURSE}"))
    _ok(fresh_api.patch(f"/v1/shifts/{mine}", json={"note": "Charge"}))
    problem_of(fresh_api.post(APPLICATIONS, user=NURSE2, json={"listingId": listing["id"]}),
             409, "shift-swap-listing-closed")


def test_race_two_applications_accepted_at_once_exactly_one_wins(fresh_api):
    _ok(fresh_api.patch(f"/v1/teams/{fresh_api.world.ed}", json={"swapsNeedApproval": False}))
    mine = _shift(fresh_api, PAT)
    first_offer, second_offer = _shift(fresh_api, NURSE, days=1), _shift(fresh_api, NURSE2,
                                                                          days=2)
    listing = _list(fresh_api, mine)
    first = _apply(fresh_api, listing, offered=first_offer)
    second = _apply(fresh_api, listing, user=NURSE2, offered=second_offer)
    responses = fresh_api.race([
        ("POST", f"{APPLICATIONS}/{first['id']}/accept", PAT, {}),
        ("POST", f"{APPLICATIONS}/{second['id']}/accept", PAT, {}),
    ])
    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200, 409], [r.get_json() for r in responses]
    loser = next(r for r in responses if r.status_code == 409).get_json()
    assert loser["type"].endswith("#shift-swap-listing-closed"), loser
    winner = next(r for r in responses if r.status_code == 200).get_json()
    won_offer, lost_offer = ((first_offer, second_offer) if winner["id"] == first["id"]
                             else (second_offer, first_offer))
    taker = winner["providerId"]
    assert _provider_of(fresh_api, mine)[0] == taker
    assert _provider_of(fresh_api, won_offer)[0] == str(fresh_api.world.provider)
    assert _provider_of(fresh_api, lost_offer)[0] != str(fresh_api.world.provider)


def test_race_acceptance_against_a_shift_edit_exactly_one_wins(fresh_api):
    _ok(fresh_api.patch(f"/v1/teams/{fresh_api.world.ed}", json={"swapsNeedApproval": False}))
    mine = _shift(fresh_api, PAT)
    listing = _list(fresh_api, mine)
    application = _apply(fresh_api, listing)
    version = _provider_of(fresh_api, mine)[1]
    responses = fresh_api.race([
        ("POST", f"{APPLICATIONS}/{application['id']}/accept", PAT, {}),
        ("PATCH", f"/v1/shifts/{mine}", "admin@example.com",
         {"version": version, "note": "Pod B"}),
    ])
    codes = [r.status_code for r in responses]
    assert sorted(codes) == [200, 409], [r.get_json() for r in responses]
    provider, after = _provider_of(fresh_api, mine)
    assert after == version + 1
    if codes[0] == 200:
        assert provider == str(uid(f"user:{NURSE}"))
        assert responses[1].get_json()["type"].endswith("#version-conflict")
    else:
        assert provider == str(fresh_api.world.provider)
        assert responses[0].get_json()["type"].endswith("#shift-swap-shift-changed")


def _notices(api: Any, user: str) -> list[tuple[str, str, str]]:
    """The unread notices of `user`: kind, subject and body, newest first."""
    items = _ok(api.get("/v1/notifications", user=user, query_string={"unread": "true"}))
    return [(n["kind"], n["subject"], n["body"]) for n in items["items"]]


def test_each_decision_of_a_swap_reaches_the_people_it_concerns(fresh_api):
    mine, theirs = _shift(fresh_api, PAT), _shift(fresh_api, NURSE, days=1)
    listing = _list(fresh_api, mine, kind="swap")
    assert _notices(fresh_api, NURSE) == []  # a listing is an offer, not a decision
    application = _apply(fresh_api, listing, offered=theirs)
    [(kind, subject, body)] = _notices(fresh_api, PAT)
    assert (kind, subject) == ("swap-applied", "ShiftSwapListing")
    assert "offering their shift" in body
    _ok(_decide(fresh_api, application, "accept", PAT))
    assert [n[0] for n in _notices(fresh_api, NURSE)] == ["swap-accepted"]
    assert "waits for a manager" in _notices(fresh_api, NURSE)[0][2]
    accepted = _ok(fresh_api.get(f"{APPLICATIONS}/{application['id']}", user=NURSE))
    _ok(_decide(fresh_api, accepted, "reject", MANAGER, rejectionReason="Orientation day"))
    for person in (PAT, NURSE):
        kind, _, body = _notices(fresh_api, person)[0]
        assert kind == "swap-rejected"
        assert "Orientation day" in body
    again = _apply(fresh_api, listing, user=NURSE2)
    _ok(_decide(fresh_api, again, "accept", PAT))
    _ok(_decide(fresh_api, _ok(fresh_api.get(f"{APPLICATIONS}/{again['id']}", user=NURSE2)),
                "approve", MANAGER))
    assert _notices(fresh_api, PAT)[0][0] == "swap-approved"
    assert [n[0] for n in _notices(fresh_api, NURSE2)][:2] == ["swap-approved", "swap-accepted"]
    assert [n[0] for n in _notices(fresh_api, MANAGER)] == []  # nobody hears of their own act


def test_a_declined_application_tells_its_applicant(fresh_api):
    listing = _list(fresh_api, _shift(fresh_api, PAT))
    application = _apply(fresh_api, listing)
    _ok(_decide(fresh_api, application, "decline", PAT))
    [(kind, subject, _)] = _notices(fresh_api, NURSE)
    assert (kind, subject) == ("swap-rejected", "ShiftSwapApplication")
