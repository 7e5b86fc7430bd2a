"""Pay rules (extension): overtime rules, rounding rules, work rules with dated versions, presets,
a team's rule and a shift's `workRuleOverride`.

The shared world holds one example of each rule, assigned to no team, and no overtime pay
codes; `_ot_codes` adds "Overtime" (1.5) and "Double time"
(2.0) to a test's own database. Today is read from the real clock, so dated tests use far
future Sundays (2031-01-05, 2031-01-12 …) unless they need the signed-off past.
"""

from __future__ import annotations

import uuid
from datetime import date, timedelta
from typing import Any

from sqlalchemy import select

from app.api import models as m
from tests.factories import uid
from tests.problems import problem_of

OT = "/v1/settings/overtime-rules"
ROUNDING = "/v1/settings/rounding-rules"
RULES = "/v1/settings/work-rules"
PRESETS = "/v1/settings/work-rule-presets"
SIGN_OFFS = "/v1/timekeeping/timesheet/sign-offs"
ADMIN = "admin@example.com"
MANAGER = "manager@example.com"
PROVIDER = "provider@example.com"
OT_CODE = uid("pay:OT")
DT_CODE = uid("pay:DT")
SUNDAY = date(2031, 1, 5)
NY = "America/New_York"
EXAMPLE_OT = str(uid("ot:weekly"))
EXAMPLE_ROUNDING = str(uid("rounding:quarter"))
EXAMPLE_RULE = str(uid("work-rule:example"))


def _ids(api: Any, path: str) -> list[str]:
    return [r["id"] for r in api.get(path).get_json()["items"]]



def _ot_codes(api: Any) -> None:
    with api.db.unit_of_work(write=True) as session:
        session.add_all([
            m.PayCode(id=OT_CODE, name="Overtime", shorthand_name="OT", hex_color="#E45756",
                      type="hours", value=1.5),
            m.PayCode(id=DT_CODE, name="Double time", shorthand_name="DT", hex_color="#B279A2",
                      type="hours", value=2.0)])


def _created(response: Any) -> dict[str, Any]:
    assert response.status_code == 201, response.get_json()
    assert response.headers["Location"].endswith(response.get_json()["id"])
    return response.get_json()


def _overtime(api: Any, kind: str = "weekly", threshold: int = 2400,
              code: uuid.UUID = OT_CODE, name: str = "Weekly over 40") -> dict[str, Any]:
    return _created(api.post(OT, json={"name": name, "kind": kind, "thresholdMinutes": threshold,
                                       "payCodeId": str(code)}))


def _rule(api: Any, overtime: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    body = {"name": "Nursing", "timeZone": NY, "effectiveFrom": SUNDAY.isoformat(),
            "overtimeRuleIds": overtime or [], **extra}
    return _created(api.post(RULES, json=body))


# Overtime rules ------------------------------------------------------------------------------


def test_overtime_rule_crud_round_trips_with_multiplier_and_version(fresh_api):
    _ot_codes(fresh_api)
    rule = _overtime(fresh_api)
    assert rule["kind"] == "weekly"
    assert rule["multiplier"] == "1.5"
    assert rule["version"] == 1
    assert fresh_api.get(f"{OT}/{rule['id']}").get_json() == rule
    changed = fresh_api.patch(f"{OT}/{rule['id']}", json={
        "thresholdMinutes": 2280, "payCodeId": str(DT_CODE), "version": 1})
    assert changed.status_code == 200, changed.get_json()
    assert changed.get_json()["multiplier"] == "2.0"
    assert changed.get_json()["version"] == 2
    listed = fresh_api.get(OT, user=PROVIDER)
    assert [r["id"] for r in listed.get_json()["items"]] == [rule["id"], EXAMPLE_OT]
    assert fresh_api.delete(f"{OT}/{rule['id']}").status_code == 204
    problem_of(fresh_api.get(f"{OT}/{rule['id']}"), 404, "overtime-rule-not-found")


def test_overtime_rule_refusals(fresh_api):
    _ot_codes(fresh_api)
    cases = [({"kind": "daily", "thresholdMinutes": 1441}, "/thresholdMinutes"),
             ({"kind": "weekly", "thresholdMinutes": -1}, "/thresholdMinutes"),
             ({"kind": "weekly", "thresholdMinutes": 10**12}, "/thresholdMinutes"),
             ({"kind": "monthly", "thresholdMinutes": 60}, "/kind")]
    for fields, path in cases:
        body = {"name": "x", "payCodeId": str(OT_CODE), **fields}
        assert problem_of(fresh_api.post(OT, json=body), 400, "validation")["path"] == path
    assert fresh_api.post(OT, json={"name": "p", "kind": "period", "thresholdMinutes": 4800,
                                    "payCodeId": str(OT_CODE)}).status_code == 201
    problem_of(fresh_api.post(OT, json={"name": "x", "kind": "weekly", "thresholdMinutes": 60,
                                      "payCodeId": str(uuid.uuid4())}), 404,
             "pay-code-not-found")
    rule = _overtime(fresh_api)
    stale = fresh_api.patch(f"{OT}/{rule['id']}", json={"name": "y", "version": 7})
    assert problem_of(stale, 409, "version-conflict")["currentVersion"] == 1
    problem_of(fresh_api.patch(f"{OT}/{uuid.uuid4()}", json={"name": "y"}), 404,
             "overtime-rule-not-found")
    problem_of(fresh_api.patch(f"{OT}/{rule['id']}", json={"kind": "daily"}), 400, "validation")
    for user in (PROVIDER, MANAGER):
        problem_of(fresh_api.post(OT, user=user, json={
            "name": "x", "kind": "weekly", "thresholdMinutes": 60,
            "payCodeId": str(OT_CODE)}), 403, "unauthorized")
        problem_of(fresh_api.delete(f"{OT}/{rule['id']}", user=user), 403, "unauthorized")


# Rounding rules ------------------------------------------------------------------------------


def test_rounding_rule_crud_and_refusals(fresh_api):
    made = _created(fresh_api.post(ROUNDING, json={"name": "A quarter", "intervalMinutes": 15,
                                                   "mode": "nearest"}))
    assert made["version"] == 1
    assert fresh_api.get(f"{ROUNDING}/{made['id']}", user=PROVIDER).get_json() == made
    bad = fresh_api.post(ROUNDING, json={"name": "x", "intervalMinutes": 7, "mode": "up"})
    assert problem_of(bad, 400, "validation")["path"] == "/intervalMinutes"
    bad = fresh_api.patch(f"{ROUNDING}/{made['id']}", json={"intervalMinutes": 7})
    assert problem_of(bad, 400, "validation")["path"] == "/intervalMinutes"
    changed = fresh_api.patch(f"{ROUNDING}/{made['id']}", json={"intervalMinutes": 6,
                                                                "mode": "down", "version": 1})
    assert changed.get_json()["intervalMinutes"] == 6
    assert changed.get_json()["version"] == 2
    problem_of(fresh_api.patch(f"{ROUNDING}/{made['id']}", json={"version": 1}), 409,
             "version-conflict")
    problem_of(fresh_api.post(ROUNDING, user=PROVIDER, json={
        "name": "x", "intervalMinutes": 5, "mode": "up"}), 403, "unauthorized")
    assert _ids(fresh_api, ROUNDING) == [made["id"], EXAMPLE_ROUNDING]
    assert fresh_api.delete(f"{ROUNDING}/{made['id']}").status_code == 204
    problem_of(fresh_api.delete(f"{ROUNDING}/{made['id']}"), 404, "rounding-rule-not-found")


# Work rules ----------------------------------------------------------------------------------


def test_create_work_rule_snapshots_its_rules(fresh_api):
    _ot_codes(fresh_api)
    weekly = _overtime(fresh_api)
    rounding = _created(fresh_api.post(ROUNDING, json={"name": "Tenth", "intervalMinutes": 6,
                                                       "mode": "nearest"}))
    rule = _rule(fresh_api, [weekly["id"]], roundingRuleId=rounding["id"],
                 mealDeductMinutes=30, mealAfterMinutes=360,
                 countingPayCodeIds=[str(uid("pay:PTO"))])
    assert rule["current"] is None  # 2031 is still ahead
    (version,) = rule["versions"]
    assert version["effectiveFrom"] == SUNDAY.isoformat()
    assert version["weekStartDay"] == 6
    assert version["weekStartTime"] == "00:00"
    assert version["overtime"] == [{"id": weekly["id"], "name": "Weekly over 40",
                                    "kind": "weekly", "thresholdMinutes": 2400,
                                    "payCodeId": str(OT_CODE), "multiplier": "1.5"}]
    assert version["rounding"]["intervalMinutes"] == 6
    assert version["minUnpaidBreakMinutes"] == 30
    # Editing the overtime rule does not rewrite the snapshot.
    fresh_api.patch(f"{OT}/{weekly['id']}", json={"thresholdMinutes": 2000})
    read = fresh_api.get(f"{RULES}/{rule['id']}", user=PROVIDER,
                         query_string={"asOf": "2031-02-01"})
    assert read.status_code == 200
    assert read.get_json()["current"]["overtime"][0]["thresholdMinutes"] == 2400
    assert _ids(fresh_api, RULES) == [EXAMPLE_RULE, rule["id"]]


def test_create_work_rule_refusals(fresh_api):
    _ot_codes(fresh_api)
    period = _overtime(fresh_api, "period", 4800, name="Period over 80")
    base = {"name": "x", "timeZone": NY, "effectiveFrom": SUNDAY.isoformat()}
    cases = [({"timeZone": "Mars/Olympus"}, "/timeZone"),
             ({"timeZone": "../etc/passwd"}, "/timeZone"),
             ({"effectiveFrom": "0001-01-07"}, "/effectiveFrom"),
             ({"effectiveFrom": "9999-12-26"}, "/effectiveFrom"),
             ({"effectiveFrom": "2031-01-06"}, "/effectiveFrom"),
             ({"mealDeductMinutes": 30}, "/mealDeductMinutes"),
             ({"minUnpaidBreakMinutes": -5}, "/minUnpaidBreakMinutes"),
             ({"weekStartTime": "24:00"}, "/weekStartTime"),
             ({"overtimeRuleIds": [period["id"]]}, "/periodAnchor"),
             ({"overtimeRuleIds": [period["id"]], "periodAnchor": "2031-01-12"},
              "/effectiveFrom"),
             ({"overtimeRuleIds": [period["id"]], "periodAnchor": "2031-01-06"},
              "/periodAnchor"),
             ({"periodAnchor": "0001-01-01"}, "/periodAnchor")]
    for fields, path in cases:
        body = problem_of(fresh_api.post(RULES, json={**base, **fields}), 400, "validation")
        assert body["path"] == path, (fields, body)
    problem_of(fresh_api.post(RULES, json={**base, "overtimeRuleIds": [str(uuid.uuid4())]}), 404,
             "overtime-rule-not-found")
    problem_of(fresh_api.post(RULES, json={**base, "roundingRuleId": str(uuid.uuid4())}), 404,
             "rounding-rule-not-found")
    problem_of(fresh_api.post(RULES, json={**base, "countingPayCodeIds": [str(uuid.uuid4())]}),
             404, "pay-code-not-found")
    problem_of(fresh_api.post(RULES, user=PROVIDER, json=base), 403, "unauthorized")
    problem_of(fresh_api.get(f"{RULES}/{uuid.uuid4()}"), 404, "work-rule-not-found")
    problem_of(fresh_api.get(f"{RULES}/{uuid.uuid4()}", query_string={"asOf": "9999-01-01"}),
             400, "validation")


def test_patch_work_rule_adds_versions_and_replaces_a_future_one(fresh_api):
    _ot_codes(fresh_api)
    weekly = _overtime(fresh_api)
    daily = _overtime(fresh_api, "daily", 480, name="Daily over 8")
    rule = _rule(fresh_api, [weekly["id"]])
    later = (SUNDAY + timedelta(days=14)).isoformat()
    patched = fresh_api.patch(f"{RULES}/{rule['id']}", json={
        "effectiveFrom": later, "overtimeRuleIds": [daily["id"], weekly["id"]], "version": 1})
    assert patched.status_code == 200, patched.get_json()
    body = patched.get_json()
    assert body["version"] == 2
    assert [v["effectiveFrom"] for v in body["versions"]] == [SUNDAY.isoformat(), later]
    assert body["versions"][0]["overtime"][0]["kind"] == "weekly"
    assert len(body["versions"][1]["overtime"]) == 2
    # The same (future) day again replaces that version.
    again = fresh_api.patch(f"{RULES}/{rule['id']}", json={
        "effectiveFrom": later, "minUnpaidBreakMinutes": 20, "name": "Nursing 2031"})
    assert again.status_code == 200, again.get_json()
    body = again.get_json()
    assert [v["effectiveFrom"] for v in body["versions"]] == [SUNDAY.isoformat(), later]
    assert body["versions"][1]["minUnpaidBreakMinutes"] == 20
    assert len(body["versions"][1]["overtime"]) == 2  # kept from the version it replaces
    assert body["name"] == "Nursing 2031"
    read = fresh_api.get(f"{RULES}/{rule['id']}", query_string={"asOf": later}).get_json()
    assert read["current"]["effectiveFrom"] == later
    # Refusals.
    problem_of(fresh_api.patch(f"{RULES}/{rule['id']}", json={"name": "x"}), 400, "validation")
    monday = fresh_api.patch(f"{RULES}/{rule['id']}", json={"effectiveFrom": "2031-01-06"})
    assert "Sunday" in problem_of(monday, 400, "validation")["message"]
    problem_of(fresh_api.patch(f"{RULES}/{rule['id']}", json={
        "effectiveFrom": later, "version": 1}), 409, "version-conflict")
    problem_of(fresh_api.patch(f"{RULES}/{uuid.uuid4()}", json={"effectiveFrom": later}), 404,
             "work-rule-not-found")
    problem_of(fresh_api.patch(f"{RULES}/{rule['id']}", user=PROVIDER,
                             json={"effectiveFrom": later}), 403, "unauthorized")


def test_patch_work_rule_keeps_a_version_in_effect(fresh_api):
    rule = _rule(fresh_api, effectiveFrom="2026-01-04")
    again = fresh_api.patch(f"{RULES}/{rule['id']}", json={"effectiveFrom": "2026-01-04",
                                                          "minUnpaidBreakMinutes": 10})
    assert "already in effect" in problem_of(again, 400, "validation")["message"]
    read = fresh_api.get(f"{RULES}/{rule['id']}").get_json()
    assert read["current"]["effectiveFrom"] == "2026-01-04"


def test_delete_rules_in_use_is_refused_but_past_use_is_not(fresh_api):
    _ot_codes(fresh_api)
    weekly = _overtime(fresh_api)
    rounding = _created(fresh_api.post(ROUNDING, json={"name": "q", "intervalMinutes": 15,
                                                       "mode": "nearest"}))
    rule = _rule(fresh_api, [weekly["id"]], roundingRuleId=rounding["id"],
                 effectiveFrom="2026-01-04")
    body = problem_of(fresh_api.delete(f"{OT}/{weekly['id']}"), 409, "rule-in-use")
    assert body["workRuleIds"] == [rule["id"]]
    problem_of(fresh_api.delete(f"{ROUNDING}/{rounding['id']}"), 409, "rule-in-use")
    # A newer version in effect without them leaves only a past use.
    with fresh_api.db.unit_of_work(write=True) as session:
        session.add(m.WorkRuleVersion(
            work_rule_id=uuid.UUID(rule["id"]), effective_from=date(2026, 2, 1), time_zone=NY,
            week_start_day=6, week_start_time="00:00", day_start_time="00:00", overtime=[],
            counting_pay_code_ids=[]))
    assert fresh_api.delete(f"{OT}/{weekly['id']}").status_code == 204
    assert fresh_api.delete(f"{ROUNDING}/{rounding['id']}").status_code == 204
    old = fresh_api.get(f"{RULES}/{rule['id']}", query_string={"asOf": "2026-01-10"})
    assert old.get_json()["current"]["overtime"][0]["id"] == weekly["id"]


# Presets -------------------------------------------------------------------------------------


def test_presets_list_cites_their_sources(api):
    response = api.get(PRESETS, user=PROVIDER)
    assert response.status_code == 200
    items = {p["id"]: p for p in response.get_json()["items"]}
    assert set(items) == {"us-federal", "us-hospital-8-80", "california"}
    assert "778.105" in items["us-federal"]["description"]
    assert "778.601" in items["us-hospital-8-80"]["description"]
    assert items["us-hospital-8-80"]["requiresPeriodAnchor"] is True
    assert "510" in items["california"]["description"]
    kinds = [(o["kind"], o["thresholdMinutes"], o["multiplier"])
             for o in items["california"]["overtime"]]
    assert ("seventhDay", 0, "1.5") in kinds
    assert ("daily", 720, "2") in kinds


def test_create_from_preset_makes_its_overtime_rules(fresh_api):
    _ot_codes(fresh_api)
    made = _created(fresh_api.post(RULES, json={
        "preset": "california", "name": "CA nurses", "timeZone": "America/Los_Angeles",
        "effectiveFrom": SUNDAY.isoformat()}))
    overtime = made["versions"][0]["overtime"]
    assert [(o["kind"], o["thresholdMinutes"], o["payCodeId"]) for o in overtime] == [
        ("daily", 480, str(OT_CODE)), ("daily", 720, str(DT_CODE)),
        ("seventhDay", 0, str(OT_CODE)), ("seventhDay", 480, str(DT_CODE)),
        ("weekly", 2400, str(OT_CODE))]
    assert len(_ids(fresh_api, OT)) == 6
    hospital = fresh_api.post(RULES, json={"preset": "us-hospital-8-80", "name": "8/80",
                                           "timeZone": NY, "periodAnchor": "2026-01-04"})
    made = _created(hospital)
    start = date.fromisoformat(made["versions"][0]["effectiveFrom"])
    assert (start - date(2026, 1, 4)).days % 14 == 0
    assert start.weekday() == 6
    assert made["current"] is not None


def test_create_from_preset_refusals(fresh_api):
    base = {"preset": "us-federal", "name": "US", "timeZone": NY}
    missing = problem_of(fresh_api.post(RULES, json=base), 404, "pay-code-not-found")
    assert "1.5" in missing["detail"]
    problem_of(fresh_api.post(RULES, json={**base, "payCodes": {"overtime": str(uuid.uuid4())}}),
             404, "pay-code-not-found")
    _ot_codes(fresh_api)
    problem_of(fresh_api.post(RULES, json={**base, "preset": "us-hospital-8-80"}), 400,
             "validation")
    problem_of(fresh_api.post(RULES, json={**base, "overtimeRuleIds": []}), 400, "validation")
    problem_of(fresh_api.post(RULES, json={**base, "preset": "nowhere"}), 400, "validation")
    assert _ids(fresh_api, OT) == [EXAMPLE_OT]  # nothing left behind
    ok = fresh_api.post(RULES, json={**base, "payCodes": {"overtime": str(DT_CODE)}})
    assert _created(ok)["versions"][0]["overtime"][0]["multiplier"] == "2.0"


# Teams ---------------------------------------------------------------------------------------


def test_team_work_rule_is_assigned_and_read(fresh_api, world):
    rule = _rule(fresh_api)
    path = f"/v1/teams/{world.ed}/work-rule"
    response = fresh_api.put(path, json={"workRuleId": rule["id"]})
    assert response.status_code == 200, response.get_json()
    assert response.get_json()["workRuleId"] == rule["id"]
    assert fresh_api.get(f"/v1/teams/{world.ed}", user=PROVIDER).get_json()["workRuleId"] == \
        rule["id"]
    assert fresh_api.get(f"/v1/teams/{world.icu}").get_json()["workRuleId"] is None
    problem_of(fresh_api.put(path, user=MANAGER, json={"workRuleId": None}), 403, "unauthorized")
    problem_of(fresh_api.put(path, json={"workRuleId": str(uuid.uuid4())}), 404,
             "work-rule-not-found")
    problem_of(fresh_api.put(f"/v1/teams/{uuid.uuid4()}/work-rule", json={"workRuleId": None}),
             404, "team-not-found")
    cleared = fresh_api.put(path, json={"workRuleId": None})
    assert cleared.get_json()["workRuleId"] is None


def test_rule_versions_for_teams_reads_in_date_order(fresh_api, world):
    from app.api.services.work_rules import domain_rules, rule_versions_for_teams

    rule = _rule(fresh_api)
    fresh_api.patch(f"{RULES}/{rule['id']}", json={"effectiveFrom": "2031-03-02"})
    fresh_api.put(f"/v1/teams/{world.ed}/work-rule", json={"workRuleId": rule["id"]})
    with fresh_api.db.unit_of_work() as session:
        found = rule_versions_for_teams(session, [world.ed, world.icu])
    assert found[world.icu] == []
    assert [v.effective_from for v in found[world.ed]] == [SUNDAY, date(2031, 3, 2)]
    assert domain_rules(found[world.ed][0])["min_unpaid_break_minutes"] == 30


def _sign_off_first_day(api: Any, world: Any) -> str:
    response = api.post(SIGN_OFFS, user=MANAGER, json={
        "teamId": str(world.ed), "startDate": "2026-03-02T05:00:00+0000",
        "endDate": "2026-03-03T05:00:00+0000"})
    assert response.status_code == 201, response.get_json()
    return str(response.get_json()["id"])


def test_signed_off_time_refuses_rule_changes_that_would_recompute_it(fresh_api, world):
    early = _rule(fresh_api, effectiveFrom="2026-01-04")
    assert fresh_api.put(f"/v1/teams/{world.ed}/work-rule",
                         json={"workRuleId": early["id"]}).status_code == 200
    sign_off = _sign_off_first_day(fresh_api, world)
    refused = fresh_api.patch(f"{RULES}/{early['id']}", json={"effectiveFrom": "2026-03-01"})
    assert problem_of(refused, 409, "timesheet-signed-off")["signOffId"] == sign_off
    assert fresh_api.patch(f"{RULES}/{early['id']}",
                           json={"effectiveFrom": "2026-03-08"}).status_code == 200
    problem_of(fresh_api.put(f"/v1/teams/{world.ed}/work-rule", json={"workRuleId": None}), 409,
             "timesheet-signed-off")
    late = _rule(fresh_api)
    assert fresh_api.put(f"/v1/teams/{world.icu}/work-rule",
                         json={"workRuleId": late["id"]}).status_code == 200


# Shift overrides -----------------------------------------------------------------------------


def _shift_body(world: Any, override: str | None) -> dict[str, Any]:
    start, end = "2031-01-07T12:00:00+0000", "2031-01-07T20:00:00+0000"
    return {"provider": str(world.provider), "team": str(world.ed), "startDate": start,
            "endDate": end, "workRuleOverride": override,
            "segments": [{"role": str(world.ed_nurse_role), "type": "working",
                          "startDate": start, "endDate": end}]}


def test_shift_override_must_keep_the_team_rule_basis(fresh_api, world):
    _ot_codes(fresh_api)
    weekly = _overtime(fresh_api)
    daily = _overtime(fresh_api, "daily", 480, name="Daily over 8")
    team_rule = _rule(fresh_api, [weekly["id"]])
    fresh_api.put(f"/v1/teams/{world.ed}/work-rule", json={"workRuleId": team_rule["id"]})
    same_basis = _rule(fresh_api, [weekly["id"], daily["id"]], name="Daily too")
    other_week = _rule(fresh_api, [weekly["id"]], name="Monday weeks", weekStartDay=0,
                       effectiveFrom="2031-01-06")
    no_weekly = _rule(fresh_api, [daily["id"]], name="Daily only")
    made = fresh_api.post("/v1/shifts", user=MANAGER,
                          json=_shift_body(world, same_basis["id"]))
    assert made.status_code == 201, made.get_json()
    assert made.get_json()["workRuleOverride"] == same_basis["id"]
    refused = fresh_api.post("/v1/shifts", user=MANAGER,
                             json=_shift_body(world, other_week["id"]))
    assert "workweek start" in problem_of(refused, 409, "work-rule-override-conflict")["differs"]
    refused = fresh_api.post("/v1/shifts", user=MANAGER, json=_shift_body(world, no_weekly["id"]))
    assert problem_of(refused, 409, "work-rule-override-conflict")["differs"] == [
        "weekly overtime"]
    problem_of(fresh_api.post("/v1/shifts", user=MANAGER,
                            json=_shift_body(world, str(uuid.uuid4()))), 404,
             "work-rule-not-found")
    shift_id = made.get_json()["id"]
    patched = fresh_api.patch(f"/v1/shifts/{shift_id}", user=MANAGER,
                              json={"workRuleOverride": no_weekly["id"]})
    problem_of(patched, 409, "work-rule-override-conflict")
    cleared = fresh_api.patch(f"/v1/shifts/{shift_id}", user=MANAGER,
                              json={"workRuleOverride": None})
    assert cleared.status_code == 200
    assert cleared.get_json()["workRuleOverride"] is None


def test_rule_versions_by_id_and_team_ids_in_one_query_each(fresh_api, world):
    from app.api.services.work_rules import rule_versions_by_id, rule_versions_for_teams

    rule = _rule(fresh_api)
    with fresh_api.db.unit_of_work() as session, fresh_api.count_queries() as statements:
        rule_versions_by_id(session, [uuid.UUID(rule["id"]), uuid.uuid4()])
        rule_versions_for_teams(session, [world.ed])
    assert len(statements) == 2
    with fresh_api.db.unit_of_work() as session:
        ids = session.scalars(select(m.WorkRuleVersion.id)).all()
    assert len(ids) == 2


def test_list_work_rules_reads_versions_without_a_query_per_rule(fresh_api):
    def count() -> int:
        with fresh_api.count_queries() as statements:
            assert fresh_api.get(RULES, user=PROVIDER).status_code == 200
        return len(statements)

    one = count()
    for name in ("B", "C", "D"):
        _rule(fresh_api, name=name)
    assert count() == one


def test_rounding_named_by_interval_and_mode_reuses_the_rule_or_makes_one(fresh_api):
    reused = _rule(fresh_api, rounding={"intervalMinutes": 15, "mode": "nearest"})
    assert reused["versions"][0]["rounding"]["id"] == EXAMPLE_ROUNDING
    made = _rule(fresh_api, name="Tenths", rounding={"intervalMinutes": 6, "mode": "down"})
    snapshot = made["versions"][0]["rounding"]
    assert (snapshot["intervalMinutes"], snapshot["mode"]) == (6, "down")
    assert snapshot["id"] in _ids(fresh_api, ROUNDING)
    again = _rule(fresh_api, name="Tenths again", rounding={"intervalMinutes": 6, "mode": "down"})
    assert again["versions"][0]["rounding"]["id"] == snapshot["id"]
    # A new version may name its rounding so too, or drop it.
    changed = fresh_api.patch(f"{RULES}/{made['id']}", json={
        "effectiveFrom": (SUNDAY + timedelta(days=7)).isoformat(),
        "rounding": {"intervalMinutes": 15, "mode": "nearest"}})
    assert changed.status_code == 200, changed.get_json()
    latest = max(changed.get_json()["versions"], key=lambda v: v["effectiveFrom"])
    assert latest["rounding"]["id"] == EXAMPLE_ROUNDING
    bad = problem_of(fresh_api.post(RULES, json={
        "name": "x", "timeZone": NY, "effectiveFrom": SUNDAY.isoformat(),
        "rounding": {"intervalMinutes": 7, "mode": "up"}}), 400, "validation")
    assert bad["errors"][0]["path"] == "/rounding/intervalMinutes"
    problem_of(fresh_api.post(RULES, json={
        "name": "x", "timeZone": NY, "effectiveFrom": SUNDAY.isoformat(),
        "roundingRuleId": EXAMPLE_ROUNDING, "rounding": {"intervalMinutes": 15,
                                                         "mode": "nearest"}}), 400, "validation")
