"""Pay rules (blueprint `pay_rules`): the administrator's overview of work, overtime and
rounding rules, a team's rule picked from a preset or an existing rule, and a rule's new dated
version, each previewed on a past window before anything is saved.

`GET /admin/pay-rules` lists every team with the rule it is paid under, the work rules with
their versions, and the overtime and rounding rules, in words. `GET /admin/pay-rules/teams/<id>`
is the draft form (`?source=preset:<id>` or `rule:<id>` picks what it starts from);
`POST …/preview` answers it with each person's hours under today's rule and the draft (htmx:
the preview region alone), and `POST …/teams/<id>` creates the rule and gives it to the team.
`GET /admin/pay-rules/rules/<id>/edit` and `POST /admin/pay-rules/rules/<id>` make a new version
(`PATCH` with `effectiveFrom` and the version the form was opened at), previewed the same way.
Rounding is picked by interval and mode and sent so (`rounding`): the API uses the rounding rule
with those, making one only when the rule is saved — a preview makes nothing.

Only users who may edit the `WorkRule` subject (administrators) open these pages; the API
decides again on every write. Must not import `app.api`; it reaches the API only through
`app.client`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from flask import Blueprint, Response, abort, current_app, flash, request, url_for
from wtforms.fields.choices import SelectChoice

from app.client import ApiClient, ApiProblem
from app.contract.pay_codes import PayCodeListQuery, PayCodeRead
from app.contract.pay_preview import WorkRulePreview, WorkRulePreviewCreate
from app.contract.teams import TeamListQuery, TeamRead
from app.contract.work_rules import (
    OvertimeRuleListQuery,
    OvertimeRuleRead,
    PresetPayCodes,
    RoundingRuleListQuery,
    RoundingRuleRead,
    TeamWorkRule,
    WorkRuleCreate,
    WorkRuleListQuery,
    WorkRulePresetRead,
    WorkRuleRead,
    WorkRuleUpdate,
    WorkRuleVersionRead,
)
from app.web import nav
from app.web.auth import api, current_user
from app.web.filters import format_date, site_today
from app.web.forms import apply_problem
from app.web.htmx import render, see_other
from app.web.pay_rules import words
from app.web.pay_rules.forms import (
    ROUNDING_CHOICES,
    ZONES,
    RuleVersionForm,
    TeamRuleForm,
    WorkRuleForm,
)

bp = Blueprint("pay_rules", __name__, url_prefix="/admin/pay-rules")

PAGE = 200
PERIOD_DAYS = 14
PAST_STARTS, NEXT_STARTS = 4, 8
"""How many workweek (or period) starts before and after today the version form offers."""
FORM_STATUSES = (400, 404, 409, 412, 422)
"""API answers about what the form sent: shown on the form."""
DEFAULT_PRESET = "us-federal"


def _zone() -> ZoneInfo:
    zone: ZoneInfo = current_app.extensions["shiftdesk_web"].settings.zone
    return zone


def _client() -> ApiClient:
    """The API, for a user who may edit pay rules (anyone else gets the not-allowed page)."""
    if not nav.can(current_user(), "edit", "WorkRule"):
        abort(403)
    return api()


@dataclass
class Catalog:
    """Everything the pay-rules pages name: teams, rules, presets and pay codes."""

    teams: list[TeamRead]
    work_rules: list[WorkRuleRead]
    overtime_rules: list[OvertimeRuleRead]
    rounding_rules: list[RoundingRuleRead]
    presets: list[WorkRulePresetRead]
    pay_codes: dict[str, PayCodeRead]

    def team(self, team_id: uuid.UUID) -> TeamRead:
        """The team, or the not-found page."""
        found = next((t for t in self.teams if t.id == team_id), None)
        if found is None:
            abort(404)
        return found

    def rule(self, rule_id: uuid.UUID | None) -> WorkRuleRead | None:
        """The work rule with `rule_id`, if there is one."""
        return next((r for r in self.work_rules if r.id == rule_id), None)

    def preset(self, preset_id: str) -> WorkRulePresetRead | None:
        """The preset with `preset_id`, if there is one."""
        return next((p for p in self.presets if p.id == preset_id), None)

    def teams_using(self, rule_id: uuid.UUID) -> list[TeamRead]:
        """The teams paid under the rule."""
        return [t for t in self.teams if t.work_rule_id == rule_id]


def _catalog(client: ApiClient) -> Catalog:
    teams, rules, overtime, rounding, presets, codes = client.concurrently(
        lambda: list(client.iterate(client.list_teams, TeamListQuery(page_size=PAGE))),
        lambda: list(client.iterate(client.list_work_rules, WorkRuleListQuery(page_size=PAGE))),
        lambda: list(client.iterate(client.list_overtime_rules,
                                    OvertimeRuleListQuery(page_size=PAGE))),
        lambda: list(client.iterate(client.list_rounding_rules,
                                    RoundingRuleListQuery(page_size=PAGE))),
        client.list_work_rule_presets,
        lambda: list(client.iterate(client.list_pay_codes, PayCodeListQuery(page_size=PAGE))))
    return Catalog(teams=sorted(teams, key=lambda t: t.name.casefold()), work_rules=rules,
                   overtime_rules=overtime, rounding_rules=rounding, presets=presets.items,
                   pay_codes={str(c.id): c for c in codes})


def _day_words(day: date) -> str:
    return format_date(day, _zone(), site_today(_zone()), relative=False)


def _latest(rule: WorkRuleRead) -> WorkRuleVersionRead | None:
    """The version in effect today, else the first one (a rule that starts later)."""
    if rule.current is not None:
        return rule.current
    return min(rule.versions, key=lambda v: v.effective_from, default=None)


def _facts(rule: WorkRuleRead | None, catalog: Catalog) -> words.RuleFacts | None:
    version = _latest(rule) if rule is not None else None
    return words.facts(version, catalog.pay_codes, _day_words) if version else None


# Overview -----------------------------------------------------------------------------------

@bp.get("")
def index() -> Response:
    """Every team with its rule, the work rules with their versions, the overtime and rounding
    rules."""
    catalog = _catalog(_client())
    today = site_today(_zone())
    return render("pay_rules/index.html", catalog=catalog, today=today,
                  facts={str(r.id): _facts(r, catalog) for r in catalog.work_rules},
                  overtime_words=lambda o: _overtime_words(o, catalog),
                  rounding_words=words.rounding_words)


# Shared by both forms -------------------------------------------------------------------------

def _fill(form: WorkRuleForm, version: WorkRuleVersionRead | None) -> None:
    """Put a version's members into the form (defaults without one)."""
    form.time_zone.data = version.time_zone if version else _zone().key
    form.week_start_day.data = version.week_start_day if version else 6
    form.week_start_time.data = time.fromisoformat(version.week_start_time if version
                                                   else "00:00")
    form.day_start_time.data = time.fromisoformat(version.day_start_time if version
                                                  else "00:00")
    form.period_anchor.data = version.period_anchor if version else None
    rounding = version.rounding if version else None
    form.rounding.data = f"{rounding.interval_minutes}-{rounding.mode}" if rounding else ""
    form.meal_deduct_minutes.data = version.meal_deduct_minutes if version else None
    form.meal_after_minutes.data = version.meal_after_minutes if version else None
    form.min_unpaid_break_minutes.data = version.min_unpaid_break_minutes if version else 30
    form.overtime_rule_ids.data = [str(o.id) for o in version.overtime] if version else []


def _choices(form: WorkRuleForm, catalog: Catalog) -> None:
    """The zones (the submitted one kept), roundings (existing ones too) and overtime rules."""
    zones = list(ZONES)
    if form.time_zone.data and form.time_zone.data not in zones:
        zones.insert(0, str(form.time_zone.data))
    form.time_zone.choices = [SelectChoice(z, z) for z in zones]
    form.rounding.choices = list(ROUNDING_CHOICES)
    known = {c.value for c in ROUNDING_CHOICES}
    for r in catalog.rounding_rules:
        value = f"{r.interval_minutes}-{r.mode}"
        if value not in known:
            known.add(value)
            form.rounding.choices.append(
                SelectChoice(value, words.rounding_words(r.interval_minutes, r.mode)))
    form.overtime_rule_ids.choices = [
        SelectChoice(str(o.id), f"{o.name}: {_overtime_words(o, catalog)}")
        for o in sorted(catalog.overtime_rules, key=lambda o: o.name.casefold())]


def _overtime_words(rule: OvertimeRuleRead, catalog: Catalog) -> str:
    return words.overtime_words(rule.kind, rule.threshold_minutes, rule.multiplier,
                                catalog.pay_codes.get(str(rule.pay_code_id)))


def _window_default(form: WorkRuleForm, version: WorkRuleVersionRead | None) -> None:
    """The last complete pay period before today: a 14-day period of the rule, else the two
    workweeks before this one, else the 14 days before today."""
    today = site_today(_zone())
    end = today
    if version is not None and version.period_anchor is not None:
        end = today - timedelta(days=(today - version.period_anchor).days % PERIOD_DAYS)
    elif version is not None:
        end = today - timedelta(days=(today.weekday() - version.week_start_day) % 7)
    form.start_date.data = end - timedelta(days=PERIOD_DAYS)
    form.end_date.data = end - timedelta(days=1)


def _window(form: WorkRuleForm) -> tuple[datetime, datetime]:
    """The preview's [start, end) as instants: local midnights of the first day and of the day
    after the last."""
    zone = _zone()
    start: date = form.start_date.data
    end: date = form.end_date.data + timedelta(days=1)
    return (datetime.combine(start, time(), zone).astimezone(UTC),
            datetime.combine(end, time(), zone).astimezone(UTC))


def _members(form: WorkRuleForm) -> dict[str, Any]:
    """The version's members as the contract names them. Rounding goes by interval and mode:
    the API uses the rounding rule with those (making one only when the rule is saved)."""
    choice = form.rounding_choice()
    rounding: dict[str, Any] = {"rounding_rule_id": None} if choice is None else {
        "rounding": {"interval_minutes": choice[0], "mode": choice[1]}}
    return {
        **rounding,
        "time_zone": form.time_zone.data,
        "week_start_day": form.week_start_day.data,
        "week_start_time": form.week_start_time.data.strftime("%H:%M"),
        "day_start_time": form.day_start_time.data.strftime("%H:%M"),
        "period_anchor": form.period_anchor.data,
        "meal_deduct_minutes": form.meal_deduct_minutes.data,
        "meal_after_minutes": form.meal_after_minutes.data,
        "min_unpaid_break_minutes": form.min_unpaid_break_minutes.data,
    }


def _preview(client: ApiClient, form: WorkRuleForm, team_id: uuid.UUID,
             draft: WorkRuleCreate) -> WorkRulePreview:
    start, end = _window(form)
    return client.preview_work_rule(WorkRulePreviewCreate(
        team_id=team_id, start_date=start, end_date=end, work_rule=draft))


def _refused(form: WorkRuleForm, problem: ApiProblem) -> bool:
    """Put a problem about the submission on the form; False for any other problem."""
    if problem.status not in FORM_STATUSES:
        return False
    apply_problem(form, problem)
    return True


# A team's rule --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Source:
    """What a team's draft starts from: a preset, or an existing work rule."""

    value: str
    preset: WorkRulePresetRead | None = None
    rule: WorkRuleRead | None = None


def _source(text: str | None, team: TeamRead, catalog: Catalog) -> Source:
    """The source `text` names; by default the team's rule, else the US federal preset. An
    unknown or tampered value reads as that default."""
    kind, _, ident = (text or "").partition(":")
    if kind == "preset" and (preset := catalog.preset(ident)) is not None:
        return Source(text or "", preset=preset)
    if kind == "rule":
        try:
            rule = catalog.rule(uuid.UUID(ident))
        except ValueError:
            rule = None
        if rule is not None:
            return Source(text or "", rule=rule)
    current = catalog.rule(team.work_rule_id)
    if current is not None and not text:
        return Source(f"rule:{current.id}", rule=current)
    preset = catalog.preset(DEFAULT_PRESET) or (catalog.presets[0] if catalog.presets else None)
    return Source(f"preset:{preset.id}" if preset else "", preset=preset)


def _pay_code_choices(form: TeamRuleForm, catalog: Catalog) -> None:
    """The hours pay codes worth 1.5 and 2 for a preset's overtime and double time; by default
    the one named for it ("Overtime", "Double time"), else the first by name."""
    hours = sorted((c for c in catalog.pay_codes.values() if c.type == "hours"),
                   key=lambda c: c.name.casefold())
    for field, value, word in ((form.overtime_pay_code, 1.5, "overtime"),
                               (form.double_time_pay_code, 2.0, "double")):
        worth = [c for c in hours if c.value == value]
        field.choices = [
            SelectChoice(str(c.id), f"{c.name} (\u00d7{words.multiplier_words(c.value)})")
            for c in worth] or [SelectChoice("", "No pay code worth that yet")]
        if not field.data or field.data not in {str(c.id) for c in worth}:
            named = next((c for c in worth if word in c.name.casefold()), None)
            field.data = str((named or worth[0]).id) if worth else ""


def _preset_codes(form: TeamRuleForm) -> PresetPayCodes:
    """The chosen pay codes (a tampered value is left for the API to refuse)."""
    codes = {"overtime": form.overtime_pay_code.data,
             "double_time": form.double_time_pay_code.data}
    return PresetPayCodes.model_validate({k: v for k, v in codes.items() if v})


def _team_form(source: Source, team: TeamRead, catalog: Catalog) -> TeamRuleForm:
    form = TeamRuleForm(formdata=None)
    form.source.data = source.value
    current = _latest(catalog.rule(team.work_rule_id)) if team.work_rule_id else None
    if source.rule is not None:
        _fill(form, _latest(source.rule))
        form.name.data = source.rule.name
    else:
        _fill(form, current)
        form.overtime_rule_ids.data = []
        form.name.data = f"{team.name}: {source.preset.name}" if source.preset else team.name
        if source.preset is not None and source.preset.requires_period_anchor \
                and form.period_anchor.data is None:
            today = site_today(_zone())
            form.period_anchor.data = today - timedelta(
                days=(today.weekday() - form.week_start_day.data) % 7)
    _window_default(form, current)
    return form


def _draft(client: ApiClient, form: TeamRuleForm, source: Source,
           catalog: Catalog) -> WorkRuleCreate:
    members = _members(form)
    members["name"] = form.name.data.strip()
    if source.preset is not None:
        members["preset"] = source.preset.id
        members["pay_codes"] = _preset_codes(form)
    else:
        members["overtime_rule_ids"] = [uuid.UUID(i) for i in form.overtime_rule_ids.data or []
                                        if _is_uuid(i)]
        version = _latest(source.rule) if source.rule else None
        if version is not None and version.counting_pay_code_ids:
            members["counting_pay_code_ids"] = version.counting_pay_code_ids
        periodic = {str(o.id) for o in catalog.overtime_rules if o.kind == "period"}
        if form.period_anchor.data is not None and periodic & set(form.overtime_rule_ids.data
                                                                  or []):
            members["effective_from"] = _period_start(form)
    return WorkRuleCreate.model_validate(members)


def _period_start(form: WorkRuleForm) -> date:
    """The first day of the 14-day period holding this workweek's start (the API's default
    first day, the week's start, would not start a period)."""
    today = site_today(_zone())
    week = today - timedelta(days=(today.weekday() - form.week_start_day.data) % 7)
    anchor: date = form.period_anchor.data
    return anchor + timedelta(days=(week - anchor).days // PERIOD_DAYS * PERIOD_DAYS)


def _is_uuid(text: str) -> bool:
    try:
        uuid.UUID(str(text))
    except ValueError:
        return False
    return True


def _team_page(form: TeamRuleForm, team: TeamRead, source: Source, catalog: Catalog, *,
               preview: WorkRulePreview | None = None, status: int = 200,
               fragment: str | None = None, retarget: str | None = None) -> Response:
    current = catalog.rule(team.work_rule_id)
    preset_lines = [words.overtime_words(o.kind, o.threshold_minutes, o.multiplier, None)
                    for o in source.preset.overtime] if source.preset else []
    multipliers = [float(o.multiplier) for o in source.preset.overtime] if source.preset else []
    preset_pays = {"overtime": any(m < 2 for m in multipliers),
                   "double": any(m >= 2 for m in multipliers)}
    return render("pay_rules/team.html", form=form, team=team, source=source, catalog=catalog,
                  current=current, preset_lines=preset_lines, preset_pays=preset_pays,
                  preview=preview,
                  preview_rule=form.name.data, status=status, fragment=fragment,
                  retarget=retarget)


@bp.get("/teams/<uuid:team_id>")
def team(team_id: uuid.UUID) -> Response:
    """The draft rule for a team, from the chosen preset or rule, with the preview window."""
    catalog = _catalog(_client())
    found = catalog.team(team_id)
    source = _source(request.args.get("source"), found, catalog)
    form = _team_form(source, found, catalog)
    _choices(form, catalog)
    _pay_code_choices(form, catalog)
    return _team_page(form, found, source, catalog)


def _posted_team(team_id: uuid.UUID) -> tuple[ApiClient, Catalog, TeamRead, Source, TeamRuleForm]:
    client = _client()
    catalog = _catalog(client)
    found = catalog.team(team_id)
    form = TeamRuleForm()
    source = _source(form.source.data or "", found, catalog)
    form.source.data = source.value
    _choices(form, catalog)
    _pay_code_choices(form, catalog)
    return client, catalog, found, source, form


@bp.post("/teams/<uuid:team_id>/preview")
def preview_team(team_id: uuid.UUID) -> Response:
    """Each person's hours under today's rule and the draft; nothing is saved. With htmx only
    the preview region is answered (the whole form when something needs fixing)."""
    client, catalog, found, source, form = _posted_team(team_id)
    if not form.validate():
        return _team_page(form, found, source, catalog, status=422, fragment="rule_form",
                          retarget="#rule-form")
    try:
        result = _preview(client, form, team_id, _draft(client, form, source, catalog))
    except ApiProblem as problem:
        if not _refused(form, problem):
            raise
        return _team_page(form, found, source, catalog, status=422, fragment="rule_form",
                          retarget="#rule-form")
    return _team_page(form, found, source, catalog, preview=result, fragment="rule_preview")


@bp.post("/teams/<uuid:team_id>")
def assign(team_id: uuid.UUID) -> Response:
    """Create the drafted rule and give it to the team."""
    client, catalog, found, source, form = _posted_team(team_id)
    if not form.validate():
        return _team_page(form, found, source, catalog, status=422)
    try:
        created = client.create_work_rule(_draft(client, form, source, catalog))
    except ApiProblem as problem:
        if not _refused(form, problem):
            raise
        return _team_page(form, found, source, catalog, status=422)
    try:
        client.set_team_work_rule(team_id, TeamWorkRule(work_rule_id=created.id))
    except ApiProblem as problem:
        if not _refused(form, problem):
            raise
        form.form_errors = [f"The work rule “{created.name}” was saved, but {found.name} is "
                            f"still paid under its old rule.", *form.form_errors]
        return _team_page(form, found, source, _catalog(client), status=422)
    flash(f"{found.name} is now paid under “{created.name}”.", "success")
    return see_other(url_for("pay_rules.index") + f"#team-{team_id}")


# A rule's new version -------------------------------------------------------------------------

def _starts(version: WorkRuleVersionRead | None, week_start_day: int | None,
            zone: ZoneInfo) -> list[date]:
    """The workweek starts (14-day period starts for period rules) around today."""
    today = datetime.now(UTC).astimezone(zone).date()
    weekday = week_start_day if week_start_day is not None else (
        version.week_start_day if version else 6)
    periodic = version is not None and version.period_anchor is not None and any(
        o.kind == "period" for o in version.overtime)
    if periodic and version is not None and version.period_anchor is not None:
        step = PERIOD_DAYS
        first = today - timedelta(days=(today - version.period_anchor).days % PERIOD_DAYS)
    else:
        step = 7
        first = today - timedelta(days=(today.weekday() - weekday) % 7)
    return [first + timedelta(days=step * i) for i in range(-PAST_STARTS, NEXT_STARTS + 1)]


def _effective_choices(form: RuleVersionForm, rule: WorkRuleRead) -> None:
    version = _latest(rule)
    zone = ZoneInfo(version.time_zone) if version else _zone()
    weekday = form.week_start_day.data if isinstance(form.week_start_day.data, int) else None
    starts = _starts(version, weekday, zone)
    today = datetime.now(UTC).astimezone(zone).date()
    form.effective_from.choices = [
        SelectChoice(d.isoformat(), _day_words(d) + (" (this week)" if d <= today
                                                     < d + timedelta(days=7) else ""))
        for d in starts]
    chosen = form.effective_day()
    if chosen is not None and chosen not in starts:
        form.effective_from.choices.insert(0, SelectChoice(chosen.isoformat(),
                                                           _day_words(chosen)))
    if form.effective_from.data is None:
        form.effective_from.data = next((d for d in starts if d > today),
                                        starts[-1]).isoformat()


def _team_choices(form: RuleVersionForm, rule: WorkRuleRead, catalog: Catalog) -> None:
    using = {t.id for t in catalog.teams_using(rule.id)}
    ordered = sorted(catalog.teams, key=lambda t: (t.id not in using, t.name.casefold()))
    form.team_id.choices = [
        SelectChoice(str(t.id), t.name + (" (uses this rule)" if t.id in using else ""))
        for t in ordered]
    if not form.team_id.data and ordered:
        form.team_id.data = str(ordered[0].id)


def _rule_or_404(catalog: Catalog, rule_id: uuid.UUID) -> WorkRuleRead:
    rule = catalog.rule(rule_id)
    if rule is None:
        abort(404)
    return rule


def _version_page(form: RuleVersionForm, rule: WorkRuleRead, catalog: Catalog, *,
                  preview: WorkRulePreview | None = None, status: int = 200,
                  fragment: str | None = None, retarget: str | None = None) -> Response:
    team = next((t for t in catalog.teams if str(t.id) == form.team_id.data), None)
    current = catalog.rule(team.work_rule_id) if team else None
    return render("pay_rules/edit.html", form=form, rule=rule, catalog=catalog,
                  preview=preview, preview_team=team,
                  preview_current=current.name if current else None,
                  preview_rule=form.name.data, status=status, fragment=fragment,
                  retarget=retarget)


@bp.get("/rules/<uuid:rule_id>/edit")
def edit(rule_id: uuid.UUID) -> Response:
    """The form for a new version of a work rule."""
    catalog = _catalog(_client())
    rule = _rule_or_404(catalog, rule_id)
    form = RuleVersionForm(formdata=None)
    version = _latest(rule)
    _fill(form, version)
    form.name.data, form.version.data = rule.name, rule.version
    _choices(form, catalog)
    _effective_choices(form, rule)
    _team_choices(form, rule, catalog)
    _window_default(form, version)
    return _version_page(form, rule, catalog)


def _posted_version(rule_id: uuid.UUID) -> tuple[ApiClient, Catalog, WorkRuleRead,
                                                 RuleVersionForm]:
    client = _client()
    catalog = _catalog(client)
    rule = _rule_or_404(catalog, rule_id)
    form = RuleVersionForm()
    _choices(form, catalog)
    _effective_choices(form, rule)
    _team_choices(form, rule, catalog)
    return client, catalog, rule, form


def _version_draft(client: ApiClient, form: RuleVersionForm, catalog: Catalog,
                   ) -> dict[str, Any]:
    members = _members(form)
    members["overtime_rule_ids"] = [uuid.UUID(i) for i in form.overtime_rule_ids.data or []
                                    if _is_uuid(i)]
    return members


@bp.post("/rules/<uuid:rule_id>/preview")
def preview_version(rule_id: uuid.UUID) -> Response:
    """The chosen team's hours under its rule today and under the edited version."""
    client, catalog, rule, form = _posted_version(rule_id)
    if not form.validate():
        return _version_page(form, rule, catalog, status=422, fragment="rule_form",
                             retarget="#rule-form")
    try:
        team_id = uuid.UUID(str(form.team_id.data))
    except ValueError:
        form.team_id.errors = ["Choose a team from the list."]
        return _version_page(form, rule, catalog, status=422, fragment="rule_form",
                             retarget="#rule-form")
    try:
        members = _version_draft(client, form, catalog)
        version = _latest(rule)
        if version is not None and version.counting_pay_code_ids:
            members["counting_pay_code_ids"] = version.counting_pay_code_ids
        draft = WorkRuleCreate.model_validate({**members, "name": form.name.data.strip()})
        result = _preview(client, form, team_id, draft)
    except ApiProblem as problem:
        if not _refused(form, problem):
            raise
        return _version_page(form, rule, catalog, status=422, fragment="rule_form",
                             retarget="#rule-form")
    return _version_page(form, rule, catalog, preview=result, fragment="rule_preview")


@bp.post("/rules/<uuid:rule_id>")
def update(rule_id: uuid.UUID) -> Response:
    """Save the new version (from the chosen workweek start)."""
    client, catalog, rule, form = _posted_version(rule_id)
    if not form.validate():
        return _version_page(form, rule, catalog, status=422)
    try:
        members = _version_draft(client, form, catalog)
        body = WorkRuleUpdate.model_validate({
            **members, "name": form.name.data.strip(), "effective_from": form.effective_day(),
            **({"version": form.version.data} if form.version.data is not None else {})})
        saved = client.update_work_rule(rule_id, body)
    except ApiProblem as problem:
        if not _refused(form, problem):
            raise
        latest = problem.extensions.get("currentVersion")
        if problem.code == "version-conflict" and isinstance(latest, int):
            form.version.data = latest
            form.form_errors = [*form.form_errors, "Someone changed this rule since you opened "
                                "it. Check the overview, or save again to apply your changes "
                                "to the latest version."]
        return _version_page(form, rule, catalog, status=422)
    flash(f"“{saved.name}” has a new version from {_day_words(form.effective_day())}.",
          "success")
    return see_other(url_for("pay_rules.index") + f"#rule-{rule_id}")
