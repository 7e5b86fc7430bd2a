"""The /v1 wire models: timestamps, skill requirements, omitted members, extra keys, names, limits,
and that every model yields a JSON schema in both modes."""

from __future__ import annotations

import importlib
import inspect
import json
import typing
import warnings
from datetime import UTC, datetime, timedelta, timezone
from types import ModuleType, SimpleNamespace
from typing import Any
from uuid import UUID, uuid4

import pytest
from openapi_spec_validator import validate as validate_openapi
from pydantic import BaseModel, ValidationError
from pydantic.json_schema import models_json_schema

from app.contract.appointment_types import (
    AppointmentTypeCreate,
    AppointmentTypeRead,
    AppointmentTypeUpdate,
)
from app.contract.appointments import (
    AppointmentCreate,
    AppointmentPage,
    AppointmentRead,
    AppointmentUpdate,
    SlotSearch,
)
from app.contract.common import EXTENSION
from app.contract.forecasting import DemandForecastRow, DemandForecastUpload
from app.contract.labels import LabelCreate, LabelUpdate
from app.contract.permissions import (
    EXTENSION_SUBJECTS,
    SPEC_SUBJECTS,
    PermissionSubject,
    PermissionUpdate,
)
from app.contract.reports import ReportRunRead
from app.contract.shifts import ShiftCreate, ShiftListQuery, ShiftRead, ShiftUpdate
from app.contract.skills import SkillCondition, SkillGroup, SkillNestedGroup
from app.contract.time_off import DailyHours, TimeOffRequestRead
from app.contract.timekeeping import TimecardMe, TimecardRead, TimesheetQuery
from app.contract.users import UserListQuery

MODULES = [
    "appointments", "appointment_types", "skills", "employment_types", "forecasting",
    "providers", "users", "roles", "teams", "labels", "pay_codes", "shifts", "time_off",
    "timekeeping", "reports", "permissions",
]

ID = uuid4()
T0 = "2024-05-01T09:00:00+0000"
T1 = "2024-05-01T17:00:00+0000"


def _modules() -> list[ModuleType]:
    return [importlib.import_module(f"app.contract.{name}") for name in MODULES]


def _models() -> list[type[BaseModel]]:
    return [
        obj
        for module in _modules()
        for obj in vars(module).values()
        if inspect.isclass(obj) and issubclass(obj, BaseModel) and obj.__module__ == module.__name__
    ]


def _first_error(exc: pytest.ExceptionInfo[ValidationError]) -> tuple[tuple[Any, ...], str]:
    error = exc.value.errors()[0]
    return error["loc"], error["msg"]


def _appointment(**overrides: Any) -> dict[str, Any]:
    return {
        "id": str(ID), "createdAt": T0, "type": "checkup", "status": "upcoming",
        "providerId": str(ID), "memberId": None, "startDate": T0, "endDate": T1,
        "actualStartDate": None, "actualEndDate": None, "location": None, **overrides,
    }


def _time_off_request(**overrides: Any) -> dict[str, Any]:
    return {
        "id": str(ID), "createdAt": T0, "status": "pending", "startDate": T0, "endDate": T1,
        "policyId": str(ID), "providerId": str(ID), "note": None,
        "dailyHours": [{"date": "2024-05-01T00:00:00.000Z", "duration": 8}], "paidHours": 8,
        **overrides,
    }


def _segment(**overrides: Any) -> dict[str, Any]:
    return {
        "id": str(ID), "importedId": None, "createdAt": T0, "role": str(ID), "isBreak": False,
        "isOnCall": False, "type": "working", "startDate": T0, "endDate": T1, "labels": [],
        **overrides,
    }


def _shift(**overrides: Any) -> dict[str, Any]:
    return {
        "id": str(ID), "createdAt": T0, "provider": None, "startDate": T0, "endDate": T1,
        "segments": [_segment()], "team": str(ID), "note": None, "isCallout": False,
        "workRuleOverride": None, **overrides,
    }


def _condition(skill: str = "language") -> dict[str, Any]:
    return {"type": "equal", "skill": skill, "value": "fr"}


# Timestamps ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-01T09:00:00Z", "2024-05-01T09:00:00+0000"),
        ("2024-05-01T11:00:00+02:00", "2024-05-01T09:00:00+0000"),
        ("2024-05-01T04:30:00-0430", "2024-05-01T09:00:00+0000"),
        ("2024-05-01T09:00:00.123456+0000", "2024-05-01T09:00:00+0000"),
    ],
)
def test_parse_timestamp_accepts_offsets_and_writes_utc(text: str, expected: str) -> None:
    body = AppointmentCreate.model_validate(
        {"type": "checkup", "providerId": str(ID), "startDate": text, "endDate": T1}
    )
    assert body.start_date.tzinfo is not None
    dumped = AppointmentRead.model_validate(_appointment(startDate=text)).model_dump(mode="json")
    assert dumped["start_date"] == expected


@pytest.mark.parametrize(
    "text",
    [
        "2024-05-01T09:00:00",  # naive
        "2024-05-01 09:00:00+0000",
        "2024-05-01",
        "yesterday",
        "2024-13-01T09:00:00Z",  # no such month
        "2024-05-01T09:00:00+2",
        "",
    ],
)
def test_parse_timestamp_rejects_naive_and_garbage(text: str) -> None:
    with pytest.raises(ValidationError) as exc:
        AppointmentCreate.model_validate(
            {"type": "checkup", "providerId": str(ID), "startDate": text, "endDate": T1}
        )
    assert _first_error(exc)[0] == ("startDate",)


def test_parse_timestamp_rejects_naive_datetime_object() -> None:
    with pytest.raises(ValidationError):
        AppointmentCreate(
            type="checkup", provider_id=ID, start_date=datetime(2024, 5, 1), end_date=T1
        )


def test_dump_timestamp_converts_aware_datetime_to_utc() -> None:
    local = datetime(2024, 5, 1, 11, 0, tzinfo=timezone(timedelta(hours=2)))
    appointment = AppointmentRead.model_validate(_appointment(startDate=local))
    assert appointment.model_dump(mode="json", by_alias=True)["startDate"] == T0
    assert appointment.model_dump()["start_date"] == datetime(2024, 5, 1, 9, tzinfo=UTC)


def test_dump_day_timestamp_writes_midnight_z() -> None:
    entry = DailyHours.model_validate({"date": "2024-05-01T00:00:00Z", "duration": 7.5})
    assert entry.model_dump(mode="json") == {"date": "2024-05-01T00:00:00.000Z", "duration": 7.5}


# Skill requirements ---------------------------------------------------------------------------


def test_skill_requirement_accepts_condition_group_and_nested_group() -> None:
    body = AppointmentTypeCreate.model_validate(
        {
            "name": "Checkup",
            "length": 30,
            "skillRequirement": {
                "type": "and",
                "entries": [_condition(), {"type": "or", "entries": [_condition("licence")]}],
            },
        }
    )
    requirement = body.skill_requirement
    assert isinstance(requirement, SkillGroup)
    assert isinstance(requirement.entries[0], SkillCondition)
    assert isinstance(requirement.entries[1], SkillNestedGroup)
    alone = AppointmentTypeCreate.model_validate(
        {"name": "Checkup", "length": 30, "skillRequirement": _condition()}
    )
    assert isinstance(alone.skill_requirement, SkillCondition)


def test_skill_requirement_rejects_depth_three() -> None:
    deep = {
        "type": "and",
        "entries": [{"type": "or", "entries": [{"type": "and", "entries": [_condition()]}]}],
    }
    body = {"name": "Checkup", "length": 30, "skillRequirement": deep}
    with pytest.raises(ValidationError) as exc:
        AppointmentTypeCreate.model_validate(body)
    assert _first_error(exc) == (
        ("skillRequirement", "entries", 0, "entries", 0, "type"), "Input should be 'equal'"
    )


def test_skill_requirement_error_locations_name_input_members_only() -> None:
    bad = {"type": "or", "entries": [_condition(), {"type": "and", "entries": [{"type": "equal"}]}]}
    body = {"name": "Checkup", "length": 30, "skillRequirement": bad}
    with pytest.raises(ValidationError) as exc:
        AppointmentTypeCreate.model_validate_json(json.dumps(body))
    locations = {error["loc"] for error in exc.value.errors()}
    assert locations == {
        ("skillRequirement", "entries", 1, "entries", 0, "skill"),
        ("skillRequirement", "entries", 1, "entries", 0, "value"),
    }


@pytest.mark.parametrize(
    "requirement",
    [
        {"type": "and", "entries": []},
        {"type": "or", "entries": [{"type": "and", "entries": []}]},
        {"type": "equal", "skill": "", "value": "fr"},
        {"type": "equal", "skill": "language"},
        {"type": "xor", "entries": [_condition()]},
        {"type": "and", "entries": [_condition()], "extra": 1},
    ],
)
def test_skill_requirement_rejects_bad_shapes(requirement: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        AppointmentTypeCreate.model_validate(
            {"name": "Checkup", "length": 30, "skillRequirement": requirement}
        )


def test_skill_requirement_round_trips_in_camel_case() -> None:
    nested = {"type": "and", "entries": [_condition()]}
    requirement = {"type": "or", "entries": [_condition(), nested]}
    segment = ShiftRead.model_validate(_shift(segments=[_segment(skillRequirement=requirement)]))
    dumped = segment.model_dump(mode="json", by_alias=True)["segments"][0]
    assert dumped["skillRequirement"] == requirement


# Members left out when absent -----------------------------------------------------------------


def test_dump_appointment_omits_cancellation_when_upcoming() -> None:
    dumped = AppointmentRead.model_validate(
        _appointment(cancellationDate=T0, cancellationReason="ignored")
    ).model_dump(mode="json", by_alias=True)
    assert "cancellationDate" not in dumped
    assert "cancellationReason" not in dumped
    assert "version" not in dumped
    assert dumped["memberId"] is None  # required nullable members are always sent


def test_dump_appointment_keeps_null_cancellation_when_cancelled() -> None:
    appointment = AppointmentRead.model_validate(_appointment(status="cancelled", version=3))
    by_alias = appointment.model_dump(mode="json", by_alias=True)
    assert by_alias["cancellationDate"] is None
    assert by_alias["cancellationReason"] is None
    assert by_alias["version"] == 3
    assert appointment.model_dump()["cancellation_reason"] is None
    assert '"cancellationReason":null' in appointment.model_dump_json(by_alias=True)


def test_dump_page_applies_omission_to_each_item() -> None:
    page = AppointmentPage(
        items=[
            AppointmentRead.model_validate(_appointment()),
            AppointmentRead.model_validate(_appointment(status="cancelled", cancellationDate=T1)),
        ],
        cursor=None,
    ).model_dump(mode="json", by_alias=True)
    assert "cancellationDate" not in page["items"][0]
    assert page["items"][1]["cancellationDate"] == T1
    assert page["cursor"] is None


def test_dump_time_off_request_shows_rejection_only_when_rejected() -> None:
    pending = TimeOffRequestRead.model_validate(_time_off_request()).model_dump(
        mode="json", by_alias=True
    )
    for key in ("rejectedById", "rejectedBy", "rejectionReason", "syncError", "policy", "provider"):
        assert key not in pending
    assert pending["conflictResolution"] is None
    assert pending["isFullDay"] is None
    assert pending["dailyHours"] == [{"date": "2024-05-01T00:00:00.000Z", "duration": 8.0}]
    rejected = TimeOffRequestRead.model_validate(
        _time_off_request(status="rejected", rejectedById=str(ID))
    ).model_dump(mode="json", by_alias=True)
    assert rejected["rejectedById"] == str(ID)
    assert rejected["rejectionReason"] is None
    assert "rejectedBy" not in rejected


def test_dump_time_off_request_shows_sync_error_when_set() -> None:
    sync = {"status": "failed", "message": None, "createdAt": T0}
    dumped = TimeOffRequestRead.model_validate(
        _time_off_request(status="pending_sync", syncError=sync)
    ).model_dump(mode="json", by_alias=True)
    assert dumped["syncError"] == sync


def test_dump_report_run_omits_file_until_completed() -> None:
    run = {
        "id": str(ID), "reportId": "timesheet-summary", "createdAt": T0,
        "createdBy": {"id": str(ID), "name": "Ada"}, "status": "running",
    }
    assert "file" not in ReportRunRead.model_validate(run).model_dump(mode="json", by_alias=True)
    done = ReportRunRead.model_validate(
        {**run, "status": "completed",
         "file": {"name": "a.csv", "mediaType": "text/csv", "sizeBytes": 0}}
    ).model_dump(mode="json", by_alias=True)
    assert done["file"] == {"name": "a.csv", "mediaType": "text/csv", "sizeBytes": 0}


def test_dump_shift_omits_display_names_unless_filled() -> None:
    plain = ShiftRead.model_validate(_shift()).model_dump(mode="json", by_alias=True)
    assert "providerName" not in plain
    assert "roleName" not in plain["segments"][0]
    assert "roleImportedId" not in plain["segments"][0]
    assert plain["payCodes"] == []
    named = ShiftRead.model_validate(
        _shift(providerName="Ada", segments=[_segment(roleName="Nurse", roleColor="#112233")],
               payCodes=[{"payCodeId": str(ID)}], version=1)
    ).model_dump(mode="json", by_alias=True)
    assert named["providerName"] == "Ada"
    assert named["segments"][0]["roleName"] == "Nurse"
    assert named["payCodes"] == [{"payCodeId": str(ID)}]
    assert named["version"] == 1


def test_dump_timecard_me_omits_missing_shifts() -> None:
    me = TimecardMe.model_validate({"punches": [], "nextAction": ["clock_in"]})
    assert me.model_dump(mode="json", by_alias=True) == {"punches": [], "nextAction": ["clock_in"]}


# Names on the wire ----------------------------------------------------------------------------


def test_dump_uses_camel_case_and_spec_quirks() -> None:
    card = TimecardRead(punches=[], next_actions=["clock_out", "break_start"])
    assert card.model_dump(by_alias=True) == {
        "punches": [], "nextActions": ["clock_out", "break_start"]
    }
    me = TimecardMe(punches=[], next_action=["break_end"])
    assert "nextAction" in me.model_dump(by_alias=True)
    shift = ShiftRead.model_validate(_shift()).model_dump(mode="json", by_alias=True)
    assert {"createdAt", "isCallout", "workRuleOverride", "provider", "team"} <= shift.keys()
    assert {"isBreak", "isOnCall", "importedId"} <= shift["segments"][0].keys()


def test_validate_read_model_from_attributes() -> None:
    segment = SimpleNamespace(
        id=ID, imported_id=None, created_at=datetime(2024, 5, 1, tzinfo=UTC), role=None,
        is_break=False, is_on_call=True, type="on_call",
        start_date=datetime(2024, 5, 1, 9, tzinfo=UTC),
        end_date=datetime(2024, 5, 1, 17, tzinfo=UTC),
        skill_requirement={"type": "equal", "skill": "language", "value": "fr"},
        labels=[ID],
    )
    shift = SimpleNamespace(
        id=ID, created_at=segment.created_at, version=2, provider=ID, start_date=segment.start_date,
        end_date=segment.end_date, segments=[segment], pay_codes=[], team=None, note="bring badge",
        is_callout=False, work_rule_override=None,
    )
    dumped = ShiftRead.model_validate(shift).model_dump(mode="json", by_alias=True)
    assert dumped["segments"][0]["type"] == "on_call"
    assert dumped["segments"][0]["labels"] == [str(ID)]
    assert dumped["segments"][0]["skillRequirement"]["skill"] == "language"
    assert dumped["startDate"] == T0


# Extra keys -----------------------------------------------------------------------------------


def test_validate_request_refuses_unknown_keys() -> None:
    with pytest.raises(ValidationError) as exc:
        AppointmentCreate.model_validate(
            {"type": "checkup", "providerId": str(ID), "startDate": T0, "endDate": T1, "colour": 1}
        )
    assert _first_error(exc) == (("colour",), "Extra inputs are not permitted")


def test_validate_allows_extra_keys_where_spec_allows_them() -> None:
    row = DemandForecastRow.model_validate(
        {"role": str(ID), "startDate": T0, "endDate": T1, "demand": 2, "ward": "3B"}
    )
    assert row.model_dump(mode="json", by_alias=True)["ward"] == "3B"
    search = SlotSearch.model_validate(
        {"appointmentTypeId": "x", "startDate": T0, "endDate": T1,
         "requirements": {"providerIds": [str(ID)], "gender": "any"},
         "preferences": {"language": "fr"}}
    )
    assert search.limit == 10
    assert search.requirements is not None
    assert search.requirements.model_extra == {"gender": "any"}
    kind = AppointmentTypeRead.model_validate(
        {"id": str(ID), "name": "Checkup", "length": 30, "allowedRoles": None, "color": "blue"}
    )
    assert kind.model_dump(by_alias=True)["color"] == "blue"


def test_validate_demand_upload_takes_array_of_rows() -> None:
    upload = DemandForecastUpload.model_validate_json(
        f'[{{"role": "{ID}", "startDate": "{T0}", "endDate": "{T1}", "demand": 0}}]'
    )
    assert upload.root[0].demand == 0
    with pytest.raises(ValidationError):
        DemandForecastUpload.model_validate(
            [{"role": str(ID), "startDate": T0, "endDate": T1, "demand": -1}]
        )


# Write constraints ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "path"),
    [
        ({"name": "A", "length": 30}, ("name",)),
        ({"name": "  ", "length": 30}, ("name",)),
        ({"name": "Checkup", "length": 4}, ("length",)),
        ({"name": "Checkup", "length": 7.5}, ("length",)),
        ({"length": 30}, ("name",)),
    ],
)
def test_create_appointment_type_rejects_constraint_edges(
    body: dict[str, Any], path: tuple[str, ...]
) -> None:
    with pytest.raises(ValidationError) as exc:
        AppointmentTypeCreate.model_validate(body)
    assert _first_error(exc)[0] == path


def test_create_appointment_type_accepts_minimums() -> None:
    body = AppointmentTypeCreate.model_validate({"name": "Ab", "length": 5, "allowedRoles": None})
    assert (body.name, body.length, body.allowed_roles) == ("Ab", 5, None)


def test_create_label_rejects_empty_name_and_defaults_color() -> None:
    with pytest.raises(ValidationError):
        LabelCreate.model_validate({"name": ""})
    assert LabelCreate.model_validate({"name": "x"}).color.startswith("#")
    with pytest.raises(ValidationError):
        LabelCreate.model_validate({"name": "x", "color": "red"})


def test_create_shift_rejects_two_pay_codes_and_no_segments() -> None:
    segment = {"role": str(ID), "type": "working", "startDate": T0, "endDate": T1}
    body = {"startDate": T0, "endDate": T1, "segments": [segment]}
    created = ShiftCreate.model_validate(body)
    assert created.is_callout is False
    assert created.segments[0].is_break is False
    pay_codes = [{"payCodeId": str(ID)}, {"payCodeId": str(uuid4())}]
    with pytest.raises(ValidationError) as exc:
        ShiftCreate.model_validate({**body, "payCodes": pay_codes})
    assert _first_error(exc)[0] == ("payCodes",)
    with pytest.raises(ValidationError):
        ShiftCreate.model_validate({**body, "segments": []})


def test_create_shift_segment_rejects_flags_contradicting_type() -> None:
    segment = {"role": str(ID), "type": "unpaid_break", "startDate": T0, "endDate": T1}
    derived = ShiftCreate.model_validate({"startDate": T0, "endDate": T1, "segments": [segment]})
    assert derived.segments[0].is_break is True
    with pytest.raises(ValidationError) as exc:
        ShiftCreate.model_validate(
            {"startDate": T0, "endDate": T1, "segments": [{**segment, "isBreak": False}]}
        )
    assert _first_error(exc)[0] == ("segments", 0, "isBreak")


@pytest.mark.parametrize(
    ("query", "ok"),
    [({"pageSize": 0}, False), ({"pageSize": 201}, False), ({"pageSize": "200"}, True),
     ({"name": "x" * 50}, True), ({"name": "x" * 51}, False), ({"type": ["robot"]}, False)],
)
def test_list_users_query_enforces_limits(query: dict[str, Any], ok: bool) -> None:
    if ok:
        UserListQuery.model_validate(query)
    else:
        with pytest.raises(ValidationError):
            UserListQuery.model_validate(query)


def test_list_users_query_defaults_type_and_status() -> None:
    query = UserListQuery.model_validate({})
    assert (query.type, query.status, query.page_size) == (["user"], ["onboarding", "active"], 20)


def test_list_shifts_query_parses_booleans() -> None:
    query = ShiftListQuery.model_validate({"openOnly": "true", "includeCallouts": "false"})
    assert query.open_only is True
    assert query.include_callouts is False
    assert query.include_display_names is False


def test_timesheet_query_requires_provider_or_team() -> None:
    window = {"startDate": T0, "endDate": T1}
    assert TimesheetQuery.model_validate({**window, "team": str(ID)}).team == ID
    for bad in (window, {**window, "team": str(ID), "provider": str(ID)}):
        with pytest.raises(ValidationError) as exc:
            TimesheetQuery.model_validate(bad)
        assert _first_error(exc)[0] == ("team",)


# Partial updates ------------------------------------------------------------------------------


def test_update_appointment_takes_an_optional_version_and_keeps_fields_set() -> None:
    assert AppointmentUpdate.model_validate({"location": "Room 4"}).version is None
    for bad in (None, -1):
        with pytest.raises(ValidationError) as exc:
            AppointmentUpdate.model_validate({"version": bad})
        assert _first_error(exc)[0] == ("version",)
    body = AppointmentUpdate.model_validate({"version": 2, "location": None})
    assert body.model_fields_set == {"version", "location"}
    assert body.model_dump(exclude_unset=True) == {"version": 2, "location": None}


def test_update_appointment_rejects_null_for_non_nullable_member() -> None:
    with pytest.raises(ValidationError) as exc:
        AppointmentUpdate.model_validate({"version": 2, "startDate": None})
    assert _first_error(exc)[0] == ("startDate",)
    assert "must not be null" in _first_error(exc)[1]


def test_update_appointment_requires_uuid_member_unlike_create() -> None:
    with pytest.raises(ValidationError):
        AppointmentUpdate.model_validate({"version": 1, "memberId": "patient-7"})
    created = AppointmentCreate.model_validate(
        {"type": "checkup", "providerId": str(ID), "startDate": T0, "endDate": T1,
         "memberId": "patient-7"}
    )
    assert created.status == "upcoming"
    assert created.member_id == "patient-7"


def test_update_shift_and_label_accept_omitted_and_nullable_members() -> None:
    shift = ShiftUpdate.model_validate({"version": 4, "provider": None, "note": None})
    assert shift.provider is None
    assert shift.model_fields_set == {"version", "provider", "note"}
    with pytest.raises(ValidationError):
        ShiftUpdate.model_validate({"version": 4, "isCallout": None})
    label = LabelUpdate.model_validate({"description": None})
    assert label.name is None
    with pytest.raises(ValidationError):
        LabelUpdate.model_validate({"name": ""})
    with pytest.raises(ValidationError):
        AppointmentTypeUpdate.model_validate({"length": None})


def test_update_permission_takes_object_or_null() -> None:
    assert PermissionUpdate.model_validate({"conditions": None}).conditions is None
    rule = {"providerId": {"$eq": "$user.providerId"}}
    assert PermissionUpdate.model_validate({"conditions": rule}).conditions == rule
    with pytest.raises(ValidationError):
        PermissionUpdate.model_validate({})


# Modules and schemas --------------------------------------------------------------------------


def test_contract_modules_and_classes_are_documented() -> None:
    for module in _modules():
        assert module.__doc__, module.__name__
    for model in _models():
        assert model.__doc__, model.__name__
        assert model.__doc__ != BaseModel.__doc__, model.__name__


def test_permission_subjects_are_spec_plus_extensions() -> None:
    assert typing.get_args(PermissionSubject) == SPEC_SUBJECTS + EXTENSION_SUBJECTS


@pytest.mark.parametrize("mode", ["validation", "serialization"])
def test_json_schema_builds_for_every_model(mode: str) -> None:
    models = _models()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, schema = models_json_schema(
            [(model, mode) for model in models], ref_template="#/components/schemas/{model}"
        )
    definitions = schema["$defs"]
    assert {model.__name__ for model in models} <= definitions.keys()
    assert EXTENSION == {"x-shiftdesk-extension": True}  # shared dict never mutated


@pytest.mark.parametrize("mode", ["validation", "serialization"])
def test_json_schema_passes_openapi_validator(mode: str) -> None:
    _, schema = models_json_schema(
        [(model, mode) for model in _models()], ref_template="#/components/schemas/{model}"
    )
    validate_openapi(
        {
            "openapi": "3.1.0",
            "info": {"title": "contract", "version": "1"},
            "paths": {},
            "components": {"schemas": schema["$defs"]},
        }
    )


def test_json_schema_marks_extensions_only() -> None:
    _, schema = models_json_schema(
        [(m, "validation") for m in _models()], ref_template="#/components/schemas/{model}"
    )
    definitions = schema["$defs"]
    for name in ("ShiftCreate", "ShiftUpdate", "TimeOffApprove", "UserMe", "TimesheetRead"):
        assert definitions[name].get("x-shiftdesk-extension") is True, name
    for name in ("ShiftRead", "AppointmentRead", "UserRead", "PermissionUpdate", "ReportDownload"):
        assert "x-shiftdesk-extension" not in definitions[name], name


def test_json_schema_shows_patch_members_as_not_nullable() -> None:
    _, schema = models_json_schema(
        [(AppointmentUpdate, "validation")], ref_template="#/components/schemas/{model}"
    )
    properties = schema["$defs"]["AppointmentUpdate"]["properties"]
    assert properties["startDate"]["type"] == "string"
    assert "anyOf" not in properties["startDate"]
    assert "default" not in properties["startDate"]
    assert {"type": "null"} in properties["location"]["anyOf"]
    assert (properties["version"]["type"], properties["version"]["minimum"]) == ("integer", 0)
    assert "anyOf" not in properties["version"]
    assert "required" not in schema["$defs"]["AppointmentUpdate"]


def test_json_schema_leaves_omittable_members_out_of_required() -> None:
    _, schema = models_json_schema(
        [(AppointmentRead, "serialization"), (ShiftRead, "serialization")],
        ref_template="#/components/schemas/{model}",
    )
    appointment = schema["$defs"]["AppointmentRead"]
    assert "cancellationDate" in appointment["properties"]
    assert "cancellationDate" not in appointment["required"]
    assert "memberId" in appointment["required"]
    assert "providerName" not in schema["$defs"]["ShiftRead"]["required"]


def test_id_fields_parse_uuid_strings() -> None:
    read = ShiftRead.model_validate(_shift(provider=str(ID)))
    assert isinstance(read.provider, UUID)
