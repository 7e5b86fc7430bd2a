"""Shifts as a provider reads them: times, roles, team, breaks, on-call and labels in words.

Shared by the provider pages (clock, my shifts, open shifts, time off). Works on contract
models the views already fetched; must not call the API.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from app.contract.labels import LabelRead
from app.contract.shifts import ShiftRead, ShiftSegmentRead
from app.contract.teams import TeamRead
from app.web.filters import format_minutes

SEGMENT_WORDS = {
    "working": "Working",
    "paid_break": "Paid break",
    "unpaid_break": "Unpaid break",
    "on_call": "On call",
}


@dataclass(frozen=True)
class LabelView:
    """A label's name and colour."""

    name: str
    color: str


@dataclass(frozen=True)
class SegmentView:
    """One segment of a shift."""

    kind: str
    start: datetime
    end: datetime
    role: str | None
    color: str | None
    labels: tuple[LabelView, ...]

    @property
    def is_break(self) -> bool:
        """Whether the segment is a break."""
        return self.kind in ("Paid break", "Unpaid break")


@dataclass(frozen=True)
class ShiftView:
    """A shift with every id turned into words."""

    id: str
    start: datetime
    end: datetime
    roles: tuple[str, ...]
    team: str | None
    note: str | None
    on_call: bool
    segments: tuple[SegmentView, ...]
    labels: tuple[LabelView, ...] = field(default=())
    version: int | None = None

    @property
    def minutes(self) -> int:
        """Length in minutes, breaks included."""
        return int((self.end - self.start).total_seconds() // 60)

    @property
    def break_minutes(self) -> int:
        """Minutes of scheduled breaks."""
        return sum(int((s.end - s.start).total_seconds() // 60)
                   for s in self.segments if s.is_break)


def team_names(teams: Iterable[TeamRead]) -> dict[str, str]:
    """Team id → name."""
    return {str(t.id): t.name for t in teams}


def label_views(labels: Iterable[LabelRead]) -> dict[str, LabelView]:
    """Label id → name and colour."""
    return {str(label.id): LabelView(label.name, label.color) for label in labels}


def _segment(segment: ShiftSegmentRead, labels: Mapping[str, LabelView]) -> SegmentView:
    return SegmentView(
        kind=SEGMENT_WORDS.get(segment.type, segment.type.replace("_", " ").capitalize()),
        start=segment.start_date, end=segment.end_date, role=segment.role_name,
        color=segment.role_color,
        labels=tuple(labels[str(i)] for i in segment.labels if str(i) in labels))


def shift_view(shift: ShiftRead, teams: Mapping[str, str],
               labels: Mapping[str, LabelView] | None = None) -> ShiftView:
    """The shift in words (roles and colours need `includeDisplayNames`)."""
    segments = tuple(_segment(s, labels or {}) for s in shift.segments)
    roles: list[str] = []
    for segment in segments:
        if segment.role and not segment.is_break and segment.role not in roles:
            roles.append(segment.role)
    kinds = {s.type for s in shift.segments}
    shift_labels: list[LabelView] = []
    for segment in segments:
        for label in segment.labels:
            if label not in shift_labels:
                shift_labels.append(label)
    return ShiftView(
        id=str(shift.id), start=shift.start_date, end=shift.end_date, roles=tuple(roles),
        team=teams.get(str(shift.team)) if shift.team else None, note=shift.note,
        on_call="on_call" in kinds, segments=segments, labels=tuple(shift_labels),
        version=shift.version)


def minutes_words(minutes: int) -> str:
    """`7h 30m`, `45m`, `12h`: a length of time (its size; the sign is the caller's words)."""
    return format_minutes(abs(int(minutes)))
