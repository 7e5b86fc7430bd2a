"""Shift rules: where segments may lie, which references they may name, and who may claim an open
shift when.

A shift lasts at most `LONGEST_SHIFT`; its segments lie inside it, each ends after it starts, and
they come ordered by start without overlapping (touching is fine). A claim is refused, in this
order, when the shift already has a provider, has started, starts inside the minimum notice
window, needs a role the claimant does not hold, needs skills the claimant lacks, falls in the
claimant's approved time off, overlaps another (non-callout) shift of the claimant, or touches
an active timesheet sign-off of the claimant (whose punches and shifts are frozen).
`claim_refusals` gives every reason at once (what a page shows beside a shift the provider
cannot take); `claim_refusal` the first (what a claim answers).

Pure code: no Flask, no SQL, no clock (`now` is a parameter). Problems come back as values
(`FieldError`s, a `ClaimRefusal`); the service turns them into problem documents.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from app.api.domain.intervals import Interval
from app.contract.common import format_timestamp
from app.contract.problems import FieldError, ProblemCode

SkillType = Literal["custom", "language", "licensed_region", "enrollment"]
"""The kind of a skill a requirement names, as `shift-missing-skills` reports it."""

LICENSED_REGION_NAMES = frozenset({"licensed_region", "licensedRegion", "skillLicensedRegion"})
"""Skill names in a requirement that test the provider's licensed regions."""
ENROLLMENT_NAMES = frozenset({"enrollment", "skillEnrollment"})
"""Skill names in a requirement that test the names of the provider's enrollments."""
LANGUAGE_NAMES = frozenset({"language"})
"""Skill names in a requirement that test the provider's languages (a skill like any other)."""


LONGEST_SHIFT = timedelta(hours=24)
"""The longest a shift may last, as long as a clock-in session may
(`app.api.domain.timecards.MAX_SESSION`): longer duty is entered as consecutive shifts. Slot
search relies on it to bound how far back it looks for segments begun before its window."""


def length_error(start: datetime, end: datetime) -> FieldError | None:
    """`/endDate` when a shift from `start` to `end` lasts longer than `LONGEST_SHIFT`."""
    if end - start <= LONGEST_SHIFT:
        return None
    return FieldError(path="/endDate", message="must be at most 24 hours after startDate: "
                                               "enter longer duty as consecutive shifts")


@dataclass(frozen=True)
class SegmentDraft:
    """A segment as the rules see it: its time, role and labels."""

    start: datetime
    end: datetime
    role: uuid.UUID | None = None
    labels: tuple[uuid.UUID, ...] = ()


def segment_errors(start: datetime, end: datetime,
                   segments: Sequence[SegmentDraft]) -> list[FieldError]:
    """Check that every segment ends after it starts, lies inside the shift, and follows the one
    before it without overlapping; return every failure (paths `/segments/N/...`)."""
    errors: list[FieldError] = []
    previous: SegmentDraft | None = None
    for index, segment in enumerate(segments):
        at = f"/segments/{index}"
        if segment.end <= segment.start:
            errors.append(FieldError(path=f"{at}/endDate",
                                     message="must come after the segment's startDate"))
            continue
        if segment.start < start:
            errors.append(FieldError(
                path=f"{at}/startDate",
                message=f"must not be before the shift's startDate ({format_timestamp(start)})"))
        if segment.end > end:
            errors.append(FieldError(
                path=f"{at}/endDate",
                message=f"must not be after the shift's endDate ({format_timestamp(end)})"))
        if previous is not None and segment.start < previous.end:
            errors.append(FieldError(
                path=f"{at}/startDate",
                message=f"must not be before the end of segment {index - 1} "
                        f"({format_timestamp(previous.end)}); order segments by startDate "
                        "without overlaps"))
        previous = segment
    return errors


def reference_errors(
    segments: Sequence[SegmentDraft],
    *,
    team: uuid.UUID | None,
    role_teams: Mapping[uuid.UUID, uuid.UUID],
    known_labels: Set[uuid.UUID],
    pay_codes: Sequence[uuid.UUID] = (),
    known_pay_codes: Set[uuid.UUID] = frozenset(),
) -> list[FieldError]:
    """Check that segment roles exist (and belong to `team` when given), labels exist and are not
    repeated, and pay codes exist; return every failure.

    `role_teams` maps each existing role to its team.
    """
    errors: list[FieldError] = []
    for index, segment in enumerate(segments):
        at = f"/segments/{index}"
        if segment.role is not None:
            role_team = role_teams.get(segment.role)
            if role_team is None:
                errors.append(FieldError(path=f"{at}/role",
                                         message=f"no role has the id {segment.role}"))
            elif team is not None and role_team != team:
                errors.append(FieldError(
                    path=f"{at}/role",
                    message=f"role {segment.role} belongs to another team than the shift's"))
        for position, label in enumerate(segment.labels):
            if label not in known_labels:
                errors.append(FieldError(path=f"{at}/labels/{position}",
                                         message=f"no label has the id {label}"))
            elif label in segment.labels[:position]:
                errors.append(FieldError(path=f"{at}/labels/{position}",
                                         message=f"label {label} is listed twice"))
    for position, pay_code in enumerate(pay_codes):
        if pay_code not in known_pay_codes:
            errors.append(FieldError(path=f"/payCodes/{position}/payCodeId",
                                     message=f"no pay code has the id {pay_code}"))
    return errors


# Claims ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Qualifications:
    """What a provider brings to a skill requirement."""

    skills: Mapping[str, frozenset[str]] = field(default_factory=dict)
    licensed_regions: frozenset[str] = frozenset()
    enrollments: frozenset[str] = frozenset()


@dataclass(frozen=True)
class MissingSkill:
    """A skill value a requirement asks for and the provider lacks."""

    name: str
    value: str
    type: SkillType

    def wire(self) -> dict[str, str]:
        """The `missingSkills` entry of `shift-missing-skills`."""
        return {"name": self.name, "value": self.value, "type": self.type}


def skill_type(name: str) -> SkillType:
    """The kind of skill a requirement's skill name tests."""
    if name in LICENSED_REGION_NAMES:
        return "licensed_region"
    if name in ENROLLMENT_NAMES:
        return "enrollment"
    if name in LANGUAGE_NAMES:
        return "language"
    return "custom"


def _has(qualifications: Qualifications, name: str, value: str) -> bool:
    kind = skill_type(name)
    if kind == "licensed_region":
        return value in qualifications.licensed_regions
    if kind == "enrollment":
        return value in qualifications.enrollments
    return value in qualifications.skills.get(name, frozenset())


def missing_skills(requirement: Mapping[str, Any] | None,
                   qualifications: Qualifications) -> list[MissingSkill]:
    """The conditions of a skill requirement the provider fails; empty when it is met.

    A failed `and` group reports its failed entries; a failed `or` group reports all of its
    entries' failures (meeting any one of them would do).
    """
    if requirement is None:
        return []
    if requirement["type"] == "equal":
        name, value = str(requirement["skill"]), str(requirement["value"])
        if _has(qualifications, name, value):
            return []
        return [MissingSkill(name=name, value=value, type=skill_type(name))]
    parts = [missing_skills(entry, qualifications) for entry in requirement["entries"]]
    if requirement["type"] == "or" and any(not part for part in parts):
        return []
    return [missing for part in parts for missing in part]


@dataclass(frozen=True)
class ClaimTarget:
    """An open shift as the claim rules see it; `roles` are its working segments' roles, by id
    with their names."""

    id: uuid.UUID
    provider: uuid.UUID | None
    start: datetime
    end: datetime
    minimum_notice_minutes: int | None = None
    requirements: tuple[Mapping[str, Any] | None, ...] = ()
    roles: Mapping[uuid.UUID, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Claimant:
    """The provider who would take the shift, as the claim rules see them."""

    qualifications: Qualifications = field(default_factory=Qualifications)
    roles: Set[uuid.UUID] | None = frozenset()
    """The roles they hold; None when a manager assigns the shift, who may give it to anyone."""
    other_shifts: Sequence[Interval[datetime]] = ()
    """Their non-callout shifts; any that overlap the claimed one are conflicts."""
    time_off: Sequence[tuple[uuid.UUID, Interval[datetime]]] = ()
    """Their approved time off: each request's id and the time it blocks."""
    signed_off: Sequence[tuple[uuid.UUID, Interval[datetime]]] = ()
    """Their active timesheet sign-offs: each one's id and range, earliest first."""


@dataclass(frozen=True)
class ClaimRefusal:
    """Why a claim is refused: a problem code, a sentence for staff and the code's members."""

    code: ProblemCode
    detail: str
    members: dict[str, Any]


def claim_refusals(shift: ClaimTarget, claimant: Claimant, *, now: datetime,
                   default_notice_minutes: int) -> list[ClaimRefusal]:
    """Every reason the provider may not claim `shift` at `now`, in the module's order; empty
    when they may. The shift's own minimum notice wins over `default_notice_minutes`."""
    shift_id = str(shift.id)
    refusals: list[ClaimRefusal] = []
    if shift.provider is not None:
        refusals.append(ClaimRefusal(ProblemCode.SHIFT_ALREADY_CLAIMED,
                                     "Another provider has already claimed this shift; pick "
                                     "another open shift.", {}))
    if shift.start <= now:
        refusals.append(ClaimRefusal(
            ProblemCode.SHIFT_ALREADY_STARTED,
            f"This shift started at {format_timestamp(shift.start)}; only shifts that have not "
            "started can be claimed.", {}))
    else:
        notice = (shift.minimum_notice_minutes if shift.minimum_notice_minutes is not None
                  else default_notice_minutes)
        if shift.start - now < timedelta(minutes=notice):
            refusals.append(ClaimRefusal(
                ProblemCode.SHIFT_CLAIM_WINDOW_CLOSED,
                f"Open shifts must be claimed at least {notice} minutes before they start; ask "
                "a manager to assign this one.",
                {"shiftId": shift_id, "minimumNoticeMinutes": notice,
                 "startsAt": format_timestamp(shift.start)},
            ))
    held = claimant.roles
    unheld = {} if held is None else {
        role: name for role, name in shift.roles.items() if role not in held}
    if unheld:
        names = ", ".join(sorted(unheld.values()))
        refusals.append(ClaimRefusal(
            ProblemCode.SHIFT_ROLE_NOT_HELD,
            f"This shift is for {names}, a role the provider does not hold; a manager can "
            "assign it to someone who does.",
            {"shiftId": shift_id,
             "roles": [{"id": str(role), "name": name}
                       for role, name in sorted(unheld.items(), key=lambda i: (i[1], i[0]))]},
        ))
    missing = list(dict.fromkeys(
        item for requirement in shift.requirements
        for item in missing_skills(requirement, claimant.qualifications)
    ))
    if missing:
        names = ", ".join(f"{m.name} {m.value}" for m in missing)
        refusals.append(ClaimRefusal(
            ProblemCode.SHIFT_MISSING_SKILLS,
            f"This shift requires skills the provider lacks: {names}.",
            {"shiftId": shift_id, "missingSkills": [m.wire() for m in missing]},
        ))
    window = Interval(shift.start, shift.end)
    leave = sorted((span, request) for request, span in claimant.time_off
                   if span.overlaps(window))
    if leave:
        refusals.append(ClaimRefusal(
            ProblemCode.SHIFT_TIME_OFF_CONFLICT,
            "This shift falls in the provider's approved time off; cancel that time off first.",
            {"shiftId": shift_id,
             "timeOff": [{"id": str(request), "startDate": format_timestamp(span.start),
                          "endDate": format_timestamp(span.end)} for span, request in leave]},
        ))
    conflicts = sorted(other for other in claimant.other_shifts if other.overlaps(window))
    if conflicts:
        refusals.append(ClaimRefusal(
            ProblemCode.SHIFT_SCHEDULE_CONFLICT,
            f"The provider already works {len(conflicts)} overlapping shift(s); "
            "free that time first.",
            {"shiftId": shift_id,
             "conflicts": [{"startDate": format_timestamp(c.start),
                            "endDate": format_timestamp(c.end)} for c in conflicts]},
        ))
    frozen = next((item for item in claimant.signed_off if item[1].overlaps(window)), None)
    if frozen is not None:
        sign_off, span = frozen
        refusals.append(ClaimRefusal(
            ProblemCode.TIMESHEET_SIGNED_OFF,
            f"This shift falls in the provider's timesheets signed off from "
            f"{format_timestamp(span.start)} to {format_timestamp(span.end)}; ask whoever may "
            f"reopen sign-off {sign_off} to reopen it first.",
            {"signOffId": str(sign_off)},
        ))
    return refusals


def claim_refusal(shift: ClaimTarget, claimant: Claimant, *, now: datetime,
                  default_notice_minutes: int) -> ClaimRefusal | None:
    """The first reason the provider may not claim `shift` at `now`; None when they may."""
    refusals = claim_refusals(shift, claimant, now=now,
                              default_notice_minutes=default_notice_minutes)
    return refusals[0] if refusals else None
