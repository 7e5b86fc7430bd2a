"""Forms: shape errors re-rendered with 422 and accessible markup; API problems mapped onto the
fields their JSON pointers name, nothing dropped."""

from __future__ import annotations

import pytest
from wtforms import FieldList, FormField, StringField
from wtforms.form import Form

from app.client.errors import problem_exception
from app.contract.problems import Problem
from app.web.forms import BaseForm, apply_problem, field_for


class BreakForm(Form):
    start = StringField("Break start")


class ShiftForm(BaseForm):
    start_date = StringField("Start date")
    provider_id = StringField("Provider")
    breaks = FieldList(FormField(BreakForm), min_entries=2)
    note = StringField("Note")
    pointer_map = {"/requirements/providerIds/0": "provider_id"}


def _problem(status=400, code="validation", detail="Some fields are not right.", **members):
    return problem_exception(Problem.model_validate({
        "type": f"https://errors.test/v1/errors#{code}", "title": code.title(), "status": status,
        "detail": detail, **members}))


@pytest.fixture
def form(web):
    with web.app.test_request_context("/", method="POST"):
        yield ShiftForm(formdata=None)


def test_pointer_finds_fields_by_snake_case_and_index(form):
    assert field_for(form, "/startDate") is form.start_date
    assert field_for(form, "/breaks/1/start") is form.breaks.entries[1].form.start
    assert field_for(form, "/requirements/providerIds/0") is form.provider_id
    assert field_for(form, "/breaks/7/start") is None
    assert field_for(form, "/nothing") is None
    assert field_for(form, "") is None


def test_apply_problem_puts_every_message_on_its_field(form):
    apply_problem(form, _problem(errors=[
        {"path": "/startDate", "message": "must be before the end"},
        {"path": "/breaks/0/start", "message": "must be inside the shift"},
        {"path": "/unknown", "message": "is not a known field"},
    ], path="/startDate", message="must be before the end"))
    assert form.start_date.errors == ["must be before the end"]
    assert form.breaks.entries[0].form.start.errors == ["must be inside the shift"]
    assert form.form_errors == ["Some fields are not right.", "is not a known field"]


def test_apply_problem_uses_single_path_when_no_list(form):
    apply_problem(form, _problem(path="/note", message="is too long"))
    assert form.note.errors == ["is too long"]


def test_apply_problem_without_paths_shows_detail(form):
    apply_problem(form, _problem(status=409, code="shift-schedule-conflict",
                                 detail="Pat already works 07:00-19:00 that day."))
    assert form.form_errors == ["Pat already works 07:00-19:00 that day."]
    assert not form.start_date.errors


def test_apply_problem_without_detail_shows_title(form):
    apply_problem(form, _problem(status=409, code="conflict", detail=None))
    assert form.form_errors == ["Conflict"]


def test_invalid_form_rerenders_422_with_accessible_errors(web):
    web.sign_in("provider@example.com")
    response = web.client.post("/probe/form", data={"csrf_token": web.csrf(), "start_date": ""})
    assert response.status_code == 422
    body = response.get_data(as_text=True)
    assert "<title>Error: Probe form · Shiftdesk</title>" in body
    assert '<div class="form-errors" role="alert" tabindex="-1">' in body
    assert '<a href="#start_date">Start date: This field is required.</a>' in body
    assert 'aria-invalid="true"' in body
    assert 'aria-describedby="start_date-error"' in body
    assert '<p id="start_date-error" class="field-error">This field is required.</p>' in body
    assert '<label for="start_date">Start date</label>' in body


def test_valid_form_redirects(web):
    web.sign_in("provider@example.com")
    response = web.client.post("/probe/form",
                               data={"csrf_token": web.csrf(), "start_date": "2026-03-02"})
    assert response.status_code == 303


def test_to_contract_builds_contract_model(web):
    from app.contract.labels import LabelCreate

    class LabelForm(BaseForm):
        contract = LabelCreate
        name = StringField("Name")
        color = StringField("Colour")
        description = StringField("Description")

    with web.app.test_request_context("/", method="POST",
                                      data={"name": "Float", "color": "#8C564B",
                                            "description": "Moves between units"}):
        label = LabelForm().to_contract()
    assert isinstance(label, LabelCreate)
    assert label.name == "Float"


def test_apply_problem_puts_api_member_names_in_the_forms_words(form):
    apply_problem(form, _problem(
        detail="endDate must come after startDate; pick a later endDate.",
        errors=[{"path": "/note", "message": "must not mention providerId or isFullDay"}]))
    assert form.form_errors == [
        "end date must come after “Start date”; pick a later end date."]
    assert form.note.errors == ["must not mention “Provider” or is full day"]
