"""Shift rules: where segments may lie, which references they may name, and who may claim an open
shift when.

A shift lasts at most `LONGEST_SHIFT`; its segments lie inside it, each ends after it starts, and
they come ordered by start without overlapping (touching is fine). A claim is refused, in this
order, when the shift already has a provider, has started, starts inside the minimum notice
window, needs skills the claimant lacks, or overlaps another (non-callout) shift of the claimant.

Pure code: no Flask, no SQL, no clock (`now` is a parameter). Problems come back as values
(`FieldError`s, a `ClaimRefusal`); the service turns them into problem documents.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence, Set
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
    """An open shift as the claim rules see it."""

    id: uuid.UUID
    provider: uuid.UUID | None
    start: datetime
    end: datetime
    minimum_notice_minutes: int | None = None
    requirements: tuple[Mapping[str, Any] | None, ...] = ()


@dataclass(frozen=True)
class ClaimRefusal:
    """Why a claim is refused: a problem code, a sentence for staff and the code's members."""

    code: ProblemCode
    detail: str
    members: dict[str, Any]


def claim_refusal(
    shift: ClaimTarget,
    *,
    qualifications: Qualifications,
    other_shifts: Iterable[Interval[datetime]],
    now: datetime,
    default_notice_minutes: int,
) -> ClaimRefusal | None:
    """Decide whether a provider may claim `shift` at `now`; None when they may.

    `other_shifts` are the provider's non-callout shifts (any that overlap are conflicts);
    the shift's own minimum notice wins over `default_notice_minutes`.
    """
    shift_id = str(shift.id)
    if shift.provider is not None:
        return ClaimRefusal(ProblemCode.SHIFT_ALREADY_CLAIMED,
                            "Another provider has already claimed this shift; pick another "
                            "open shift.", {})
    if shift.start <= now:
        return ClaimRefusal(ProblemCode.SHIFT_ALREADY_STARTED,
                            f"This shift started at {format_timestamp(shift.start)}; only shifts "
                            "that have not started can be claimed.", {})
    notice = (shift.minimum_notice_minutes if shift.minimum_notice_minutes is not None
              else default_notice_minutes)
    if shift.start - now < timedelta(minutes=notice):
        return ClaimRefusal(
            ProblemCode.SHIFT_CLAIM_WINDOW_CLOSED,
            f"Open shifts must be claimed at least {notice} minutes before they start; ask a "
            "manager to assign this one.",
            {"shiftId": shift_id, "minimumNoticeMinutes": notice,
             "startsAt": format_timestamp(shift.start)},
        )
    missing = list(dict.fromkeys(
        item for requirement in shift.requirements
        for item in missing_skills(requirement, qualifications)
    ))
    if missing:
        names = ", ".join(f"{m.name} {m.value}" for m in missing)
        return ClaimRefusal(
            ProblemCode.SHIFT_MISSING_SKILLS,
            f"This shift requires skills the provider lacks: {names}.",
            {"shiftId": shift_id, "missingSkills": [m.wire() for m in missing]},
        )
    window = Interval(shift.start, shift.end)
    conflicts = sorted(other for other in other_shifts if other.overlaps(window))
    if conflicts:
        return ClaimRefusal(
            ProblemCode.SHIFT_SCHEDULE_CONFLICT,
            f"The provider already works {len(conflicts)} overlapping shift(s); "
            "free that time first.",
            {"shiftId": shift_id,
             "conflicts": [{"startDate": format_timestamp(c.start),
                            "endDate": format_timestamp(c.end)} for c in conflicts]},
        )
    return None
