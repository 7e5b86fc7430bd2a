"""Time-off balances (extensions): PUT/GET …/policies/{id}/accrual, POST /v1/time-off/accruals,
GET /v1/time-off/balances, usage debited on approval (and its refusals, the concurrent race)
and given back on cancelling, and balance reset uploads; on SQLite and PostgreSQL.

The world's PTO policy (hours) has provider@example.com, the doctor, the Emergency per-diem
nurses and icu.nurse@example.com as members; its pending request of provider@example.com is
8 hours on 22 March 2026.
"""

from __future__ import annotations

import io
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, select, update

from app.api import models as m
from tests.factories import uid
from tests.problems import problem_of

PTO = str(uid("policy:pto"))
SICK = str(uid("policy:sick"))
ACCRUAL = f"/v1/time-off/policies/{PTO}/accrual"
ACCRUALS = "/v1/time-off/accruals"
BALANCES = "/v1/time-off/balances"
RESETS = "/v1/time-off/balance-resets"
REQUESTS = "/v1/time-off/requests"
PROVIDER = "provider@example.com"
MANAGER = "manager@example.com"
ICU_MANAGER = "icu.manager@example.com"
MONTHLY = {"method": "per_period", "rate": "8", "startDate": "2026-01-01", "period": "monthly"}



def _configure(api: Any, **settings: Any) -> dict[str, Any]:
    response = api.put(ACCRUAL, json={**MONTHLY, **settings})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def _accrue(api: Any, through: str, **body: Any) -> dict[str, Any]:
    response = api.post(ACCRUALS, json={"through": through, **body})
    assert response.status_code == 200, response.get_json()
    return response.get_json()


def _balance(api: Any, user: str = PROVIDER, **query: Any) -> dict[str, Any]:
    response = api.get(BALANCES, user=user, query_string={"policyId": PTO, **query})
    assert response.status_code == 200, response.get_json()
    [balance] = response.get_json()["balances"]
    return balance


def _request(api: Any, day: str, days: int = 1) -> str:
    end = f"2026-04-{int(day) + days:02d}T04:00:00+0000"
    response = api.post(REQUESTS, user=PROVIDER, json={
        "policyId": PTO, "startDate": f"2026-04-{day}T04:00:00+0000", "endDate": end,
        "isFullDay": True})
    assert response.status_code == 201, response.get_json()
    return str(response.get_json()["id"])


def _approve(api: Any, request_id: str, user: str = MANAGER) -> Any:
    return api.post(f"{REQUESTS}/{request_id}/approve", user=user,
                    json={"conflictResolution": "keep"})


def _ledger_total(api: Any, provider: Any) -> int:
    with api.db.unit_of_work() as session:
        return session.scalar(select(func.count()).select_from(m.TimeOffLedgerEntry).where(
            m.TimeOffLedgerEntry.provider_id == provider)) or 0


# Accrual settings -------------------------------------------------------------------------------


def test_set_accrual_stores_exact_settings_and_the_policy_answers_them(fresh_api):
    body = _configure(fresh_api, method="per_hour_worked", rate="2/60", period="pay_period",
                      periodAnchor="2026-01-05", balanceCap="120.5", carryOverMax="40",
                      carryOverDate="07-01", allowNegative=True, negativeFloor="-16",
                      waitingPeriodDays=90, debitOn="leave_date")

    assert body["rate"] == "1/30"
    assert body["balanceCap"] == "120.5"
    assert body["negativeFloor"] == "-16"
    assert body["carryOverDate"] == "07-01"
    assert body["unit"] == "hours"
    assert fresh_api.get(ACCRUAL, user=PROVIDER).get_json() == body


def test_policy_reads_embed_the_accrual_settings_once_set(fresh_api):
    assert "accrual" not in fresh_api.get(f"/v1/time-off/policies/{PTO}").get_json()

    settings = _configure(fresh_api, annualUseLimit="80")

    assert fresh_api.get(f"/v1/time-off/policies/{PTO}").get_json()["accrual"] == settings
    listed = fresh_api.get("/v1/time-off/policies", user=PROVIDER).get_json()["items"]
    assert [p.get("accrual") for p in listed if p["id"] == PTO] == [settings]
    request = fresh_api.get(f"{REQUESTS}/{uid('tor:pending')}", user=PROVIDER).get_json()
    assert request["policy"]["accrual"]["annualUseLimit"] == "80"


def test_set_accrual_lists_every_bad_amount(fresh_api):
    response = fresh_api.put(ACCRUAL, json={**MONTHLY, "rate": "1/0", "balanceCap": "-3",
                                            "negativeFloor": "4", "annualUseLimit": "abc"})

    body = problem_of(response, 400, "validation")
    assert {e["path"] for e in body["errors"]} == {"/rate", "/balanceCap", "/negativeFloor",
                                                  "/annualUseLimit"}


def test_set_accrual_refuses_bad_dates_and_sizes(fresh_api):
    for field, value in [("startDate", "0001-01-01"), ("startDate", "9999-12-31"),
                         ("carryOverDate", "02-30"), ("rate", "9" * 50),
                         ("waitingPeriodDays", -1), ("rate", "1e9")]:
        response = fresh_api.put(ACCRUAL, json={**MONTHLY, field: value})
        assert problem_of(response, 400, "validation")["errors"][0]["path"] == f"/{field}"


def test_set_accrual_needs_edit_on_the_policy_and_an_existing_policy(fresh_api):
    problem_of(fresh_api.put(ACCRUAL, user=MANAGER, json=MONTHLY), 403, "unauthorized")
    problem_of(fresh_api.put(f"/v1/time-off/policies/{uid('nope')}/accrual", json=MONTHLY), 404,
             "time-off-policy-not-found")
    problem_of(fresh_api.get(f"/v1/time-off/policies/{SICK}/accrual"), 400, "validation")


# Accrual runs and balances ----------------------------------------------------------------------


def test_accrual_run_posts_each_month_once_and_balances_show_them(fresh_api, world):
    _configure(fresh_api)

    first = _accrue(fresh_api, "2026-04-01")
    again = _accrue(fresh_api, "2026-04-01")

    assert first["entries"] == 3 * first["providers"]
    assert first["providers"] == 6
    assert again["entries"] == 0
    balance = _balance(fresh_api, asOf="2026-04-01")
    assert balance["balance"] == {"exact": "24", "value": 24.0}
    assert balance["available"]["exact"] == "24"
    assert balance["pending"]["exact"] == "8"  # the pending request of 22 March
    assert _balance(fresh_api, asOf="2026-02-15")["balance"]["exact"] == "8"
    entries = fresh_api.get(BALANCES, user=PROVIDER,
                            query_string={"asOf": "2026-04-01"}).get_json()["entries"]
    assert [e["effectiveDate"] for e in entries] == ["2026-04-01", "2026-03-01", "2026-02-01"]
    assert {e["kind"] for e in entries} == {"accrual"}
    assert entries[0]["sourceKey"] == f"accrual:{PTO}:{world.provider}:2026-03-01"


def test_accrual_run_cuts_at_the_cap_and_carries_over_what_remained(fresh_api):
    _configure(fresh_api, method="up_front", rate="40", carryOverMax="16", balanceCap="50")

    _accrue(fresh_api, "2027-01-01")

    entries = fresh_api.get(BALANCES, user=PROVIDER,
                            query_string={"asOf": "2027-01-01"}).get_json()["entries"]
    kinds = [(e["kind"], e["amount"]["exact"], (e["target"] or {}).get("exact"))
             for e in reversed(entries)]
    assert kinds == [("accrual", "40", None), ("carry_over", "0", "16"), ("forfeit", "-24", None),
                     ("accrual", "34", None)]
    assert _balance(fresh_api, asOf="2027-01-01")["balance"]["exact"] == "50"


def test_per_hour_worked_accrual_reads_the_timesheet_exactly(fresh_api, world):
    _configure(fresh_api, method="per_hour_worked", rate="1/30", period="pay_period",
               startDate="2026-02-23", periodAnchor="2026-02-23")

    _accrue(fresh_api, "2026-03-09")

    [entry] = fresh_api.get(BALANCES, user=PROVIDER,
                            query_string={"asOf": "2026-03-09"}).get_json()["entries"]
    assert entry["effectiveDate"] == "2026-03-09"
    hours = entry["amount"]["exact"]
    assert hours not in ("0", "")
    # 1/30 of the hours worked: whole minutes worked make a fraction over 1,800 at most.
    _, _, denominator = hours.partition("/")
    assert int(denominator or 1) <= 1800


def test_accrual_run_needs_manage_on_policies_and_valid_input(fresh_api):
    _configure(fresh_api)
    problem_of(fresh_api.post(ACCRUALS, user=MANAGER, json={"through": "2026-04-01"}), 403,
             "unauthorized")
    problem_of(fresh_api.post(ACCRUALS, json={"through": "9999-01-01"}), 400, "validation")
    problem_of(fresh_api.post(ACCRUALS, json={"through": "2999-12-31"}), 400, "validation")
    problem_of(fresh_api.post(ACCRUALS, json={"through": "2026-04-01", "policyId": SICK}), 400,
             "validation")
    problem_of(fresh_api.post(ACCRUALS, json={"through": "2026-04-01",
                                            "policyId": str(uid("nope"))}), 404,
             "time-off-policy-not-found")


def test_balances_follow_the_request_permissions(fresh_api, world):
    _configure(fresh_api)
    _accrue(fresh_api, "2026-02-01")

    assert _balance(fresh_api, MANAGER, providerId=str(world.provider),
                    asOf="2026-02-01")["balance"]["exact"] == "8"
    problem_of(fresh_api.get(BALANCES, user=ICU_MANAGER,
                           query_string={"providerId": str(world.provider)}), 403, "unauthorized")
    problem_of(fresh_api.get(BALANCES, user="doctor@example.com",
                           query_string={"providerId": str(world.provider)}), 403, "unauthorized")
    problem_of(fresh_api.get(BALANCES, user=MANAGER), 400, "validation")
    problem_of(fresh_api.get(BALANCES, query_string={"providerId": str(uid("nobody"))}), 404,
             "provider-not-found")
    problem_of(fresh_api.get(BALANCES, user="scheduler@example.com",
                           query_string={"providerId": str(world.provider)}), 403, "unauthorized")
    problem_of(fresh_api.get(BALANCES, user=PROVIDER, query_string={"asOf": "2026-13-01"}), 400,
             "validation")


# Usage on approval ------------------------------------------------------------------------------


def test_approval_debits_the_balance_and_cancelling_gives_it_back(fresh_api, world):
    _configure(fresh_api)
    _accrue(fresh_api, "2026-03-01")  # 16 hours
    request = _request(fresh_api, "06")

    approved = _approve(fresh_api, request)

    assert approved.status_code == 200, approved.get_json()
    assert _balance(fresh_api, asOf="2999-12-31")["balance"]["exact"] == "8"
    cancelled = fresh_api.post(f"{REQUESTS}/{request}/cancel", user=MANAGER)
    assert cancelled.status_code == 200, cancelled.get_json()
    assert _balance(fresh_api, asOf="2999-12-31")["balance"]["exact"] == "16"
    kinds = [e["kind"] for e in fresh_api.get(BALANCES, user=PROVIDER, query_string={
        "asOf": "2999-12-31"}).get_json()["entries"]]
    assert sorted(kinds) == ["accrual", "accrual", "reversal", "usage"]


def test_approval_beyond_the_balance_is_refused_with_what_it_needs(fresh_api):
    _configure(fresh_api)
    _accrue(fresh_api, "2026-02-01")  # 8 hours
    request = _request(fresh_api, "06", days=2)

    body = problem_of(_approve(fresh_api, request), 409, "insufficient-balance")

    assert "needs 16 hours, 8 available" in body["detail"]
    assert (body["needed"], body["available"], body["unit"]) == ("16", "8", "hours")
    state = fresh_api.get(f"{REQUESTS}/{request}", user=PROVIDER).get_json()["status"]
    assert state == "pending"


def test_approval_may_go_to_the_negative_floor_not_beyond(fresh_api):
    _configure(fresh_api, allowNegative=True, negativeFloor="-8")
    _accrue(fresh_api, "2026-02-01")  # 8 hours
    two_days = _request(fresh_api, "06", days=2)
    one_more = _request(fresh_api, "13")

    assert _approve(fresh_api, two_days).status_code == 200
    problem_of(_approve(fresh_api, one_more), 409, "insufficient-balance")
    assert _balance(fresh_api, asOf="2999-12-31")["available"]["exact"] == "0"


def test_approval_is_refused_over_the_annual_use_limit_and_in_the_waiting_period(fresh_api,
                                                                                world):
    _configure(fresh_api, annualUseLimit="12")
    _accrue(fresh_api, "2026-04-01")
    first, second = _request(fresh_api, "06"), _request(fresh_api, "13")
    assert _approve(fresh_api, first).status_code == 200
    body = problem_of(_approve(fresh_api, second), 409, "annual-use-limit-reached")
    assert body["available"] == "4"

    _configure(fresh_api, waitingPeriodDays=90)
    with fresh_api.db.unit_of_work(write=True) as session:
        session.execute(update(m.Provider).where(m.Provider.id == world.provider).values(
            hire_date=datetime(2026, 3, 1, 5, tzinfo=UTC)))
    body = problem_of(_approve(fresh_api, second), 409, "waiting-period")
    assert body["eligibleFrom"] == "2026-05-30"


def test_a_day_off_costs_a_day_under_a_days_policy_and_its_hours_under_an_hours_policy(
        fresh_api, world):
    response = fresh_api.put(f"/v1/time-off/policies/{SICK}/accrual",
                             json={**MONTHLY, "method": "up_front", "rate": "5"})
    assert response.status_code == 200, response.get_json()
    _configure(fresh_api, method="up_front", rate="40")
    _accrue(fresh_api, "2026-04-01")
    sick = fresh_api.post(REQUESTS, user=PROVIDER, json={
        "policyId": SICK, "startDate": "2026-04-06T04:00:00+0000",
        "endDate": "2026-04-08T04:00:00+0000"})
    part = fresh_api.post(REQUESTS, user=PROVIDER, json={
        "policyId": PTO, "startDate": "2026-04-13T13:00:00+0000",
        "endDate": "2026-04-13T16:30:00+0000", "isFullDay": False})
    assert sick.status_code == part.status_code == 201

    assert _approve(fresh_api, sick.get_json()["id"]).status_code == 200
    assert _approve(fresh_api, part.get_json()["id"]).status_code == 200

    days = fresh_api.get(BALANCES, user=PROVIDER, query_string={
        "policyId": SICK, "asOf": "2999-12-31"}).get_json()["balances"][0]
    assert (days["unit"], days["balance"]["exact"]) == ("days", "3")
    assert _balance(fresh_api, asOf="2999-12-31")["balance"]["exact"] == "36.5"


def test_leave_date_debit_is_dated_the_leaves_first_day(fresh_api):
    _configure(fresh_api, debitOn="leave_date")
    _accrue(fresh_api, "2026-03-01")
    request = _request(fresh_api, "06")

    assert _approve(fresh_api, request).status_code == 200

    entries = fresh_api.get(BALANCES, user=PROVIDER,
                            query_string={"asOf": "2026-12-31"}).get_json()["entries"]
    [usage] = [e for e in entries if e["kind"] == "usage"]
    assert usage["effectiveDate"] == "2026-04-06"
    assert usage["requestId"] == request
    assert _balance(fresh_api, asOf="2026-04-05")["balance"]["exact"] == "16"


def test_policies_without_accrual_settings_are_never_refused_for_a_balance(fresh_api, world):
    request = _request(fresh_api, "06", days=3)

    assert _approve(fresh_api, request).status_code == 200
    assert _ledger_total(fresh_api, world.provider) == 0


def test_two_concurrent_approvals_against_one_balance_let_exactly_one_win(fresh_api):
    _configure(fresh_api)
    _accrue(fresh_api, "2026-02-01")  # 8 hours: covers one day, not two
    first, second = _request(fresh_api, "06"), _request(fresh_api, "13")

    responses = fresh_api.race([
        ("POST", f"{REQUESTS}/{first}/approve", MANAGER, {"conflictResolution": "keep"}),
        ("POST", f"{REQUESTS}/{second}/approve", "admin@example.com",
         {"conflictResolution": "keep"})])

    assert sorted(r.status_code for r in responses) == [200, 409]
    [refused] = [r for r in responses if r.status_code == 409]
    assert refused.get_json()["type"].endswith("#insufficient-balance")
    assert _balance(fresh_api, asOf="2999-12-31")["balance"]["exact"] == "0"


# Balance resets ---------------------------------------------------------------------------------


def _csv(*rows: str, header: str = "providerId,policyId,balance,effectiveDate") -> bytes:
    return ("\n".join([header, *rows]) + "\n").encode()


def _upload(api: Any, data: bytes, user: str = "admin@example.com") -> Any:
    return api.post(RESETS, user=user, data={"file": (io.BytesIO(data), "resets.csv")},
                    content_type="multipart/form-data")


def test_reset_upload_sets_balances_from_their_date_and_twice_changes_nothing(fresh_api, world):
    _configure(fresh_api)
    _accrue(fresh_api, "2026-04-01")  # 24 hours
    data = _csv(f"{world.provider},{PTO},40.5,2026-03-15")

    response = _upload(fresh_api, data)

    assert response.status_code == 201, response.get_json()
    body = response.get_json()
    assert response.headers["Location"].endswith(f"{RESETS}/{body['id']}")
    assert body["status"] == "completed"
    [row] = body["rows"]
    assert (row["row"], row["balance"]["exact"], row["adjustment"]["exact"]) == (1, "40.5",
                                                                                 "24.5")
    assert _balance(fresh_api, asOf="2026-03-14")["balance"]["exact"] == "16"
    assert _balance(fresh_api, asOf="2026-03-15")["balance"]["exact"] == "40.5"
    assert _balance(fresh_api, asOf="2026-04-01")["balance"]["exact"] == "48.5"
    count = _ledger_total(fresh_api, world.provider)
    again = _upload(fresh_api, data)
    assert again.status_code == 200
    assert again.get_json()["id"] == body["id"]
    assert _ledger_total(fresh_api, world.provider) == count
    assert fresh_api.get(f"{RESETS}/{body['id']}").get_json() == body


def test_reset_upload_takes_imported_ids_and_a_plain_csv_body(fresh_api, world):
    _configure(fresh_api)
    with fresh_api.db.unit_of_work(write=True) as session:
        session.execute(update(m.Provider).where(m.Provider.id == world.provider).values(
            imported_id="EMP-7"))

    response = fresh_api.post(RESETS, data=_csv(f"EMP-7,{PTO},12,2026-01-01",
                                                header="importedId,policyId,balance,"
                                                       "effectiveDate"),
                              content_type="text/csv")

    assert response.status_code == 201, response.get_json()
    assert _balance(fresh_api, asOf="2026-01-01")["balance"]["exact"] == "12"


def test_reset_upload_refuses_the_whole_file_listing_every_bad_row(fresh_api, world):
    _configure(fresh_api)
    data = _csv(f"{world.provider},{PTO},8,2026-01-01",
                f"{uid('nobody')},{PTO},8,2026-01-01",
                f"{uid('user:gone@example.com')},{PTO},8,2026-01-01",
                f"{world.provider},{PTO},-2,2026-01-01",
                f"{world.provider},{PTO},abc,2026-02-30",
                f"{world.provider},{SICK},1,2026-01-01",
                f"{world.provider},{PTO},9,2026-01-01")

    body = problem_of(_upload(fresh_api, data), 400, "invalid-balance-reset-rows")

    paths = [e["path"] for e in body["errors"]]
    assert paths == ["/rows/2/providerId", "/rows/3/policyId", "/rows/4/balance",
                     "/rows/5/balance", "/rows/5/effectiveDate", "/rows/6/policyId",
                     "/rows/7/effectiveDate"]
    messages = " ".join(e["message"] for e in body["errors"])
    assert "unknown person" in messages
    assert "provider-not-in-policy" in messages
    assert "negative where the policy does not allow it" in messages
    assert _ledger_total(fresh_api, world.provider) == 0


def test_reset_upload_refusals(fresh_api, world):
    problem_of(_upload(fresh_api, b"a,b\n1,2\n"), 400, "validation")
    problem_of(_upload(fresh_api, b"\xff\xfe"), 400, "validation")
    problem_of(fresh_api.post(RESETS, json={"rows": []}), 415, "unsupported-media-type")
    problem_of(_upload(fresh_api, _csv(f"{world.provider},{PTO},1,2026-01-01"),
                     user=MANAGER), 403, "unauthorized")
    problem_of(fresh_api.get(f"{RESETS}/{uid('nope')}"), 404, "balance-reset-upload-not-found")
    rows = [f"{world.provider},{PTO},1,2026-01-{1 + i % 28:02d}" for i in range(1001)]
    problem_of(_upload(fresh_api, _csv(*rows)), 400, "batch-size-exceeded")


def test_reset_uploads_are_listed_newest_first_a_page_at_a_time(fresh_api, world):
    _configure(fresh_api)
    assert fresh_api.get(RESETS).get_json() == {"items": [], "cursor": None}
    ids = []
    for day in range(1, 4):
        response = _upload(fresh_api, _csv(f"{world.provider},{PTO},{day},2026-01-0{day}"))
        assert response.status_code == 201, response.get_json()
        ids.append(response.get_json()["id"])
    problem_of(_upload(fresh_api, _csv(f"{world.provider},{PTO},-1,2026-01-01")), 400,
             "invalid-balance-reset-rows")
    _upload(fresh_api, _csv(f"{world.provider},{PTO},1,2026-01-01"))  # the first file again

    pages = fresh_api.walk(RESETS, page_size=2)

    assert [len(p) for p in pages] == [2, 1]
    listed = [item for page in pages for item in page]
    assert [item["id"] for item in listed] == ids[::-1]
    assert listed[0] == {"id": ids[2], "status": "completed", "fileName": "resets.csv",
                         "rowCount": 1, "createdAt": listed[0]["createdAt"],
                         "createdById": str(world.admin)}
    problem_of(fresh_api.get(RESETS, query_string={"cursor": "forged"}), 400, "validation")
    problem_of(fresh_api.get(RESETS, user=MANAGER), 403, "unauthorized")
    assert fresh_api.get(RESETS, user=None).status_code == 401
