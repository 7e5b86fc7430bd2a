"""Skill requirements as staff pick them: `skill=value` options, fixed "any of" groups, summaries.

The spec's requirement is a tree (a condition, or an and/or group whose entries are conditions or
one more level of groups). Without JavaScript a form cannot grow a tree, so the UI edits the
shape schedulers actually write: up to `GROUPS` rows, each a multi-select of `skill=value`
options; a provider must meet *every* row and, within a row, *any one* option ("all of these
groups; any of the options in each"). That is an `and` of `or`s, which the spec can express
exactly. A stored requirement of another shape (an `or` of `and`s) is shown as text and kept
unless the editor replaces it. `meets` answers, for the "why is this empty?" hint only, whether a
provider's listed skills satisfy a requirement; the API remains the judge for slots.
Must not call the API.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from app.contract.providers import ProviderWithRelations
from app.contract.skills import SkillCondition, SkillGroup, SkillNestedGroup, SkillRequirement

GROUPS = 3
"""How many "any of" rows the editor offers."""


def option(skill: str, value: str) -> str:
    """The form value of one condition: `language=Spanish`."""
    return f"{skill}={value}"


def parse_option(text: str) -> SkillCondition | None:
    """The condition of a form value, or None when it is not `skill=value`."""
    skill, sep, value = text.partition("=")
    if not sep or not skill.strip() or not value.strip():
        return None
    return SkillCondition(type="equal", skill=skill.strip(), value=value.strip())


def label(text: str) -> str:
    """`language=Spanish` → `language: Spanish`."""
    skill, _, value = text.partition("=")
    return f"{skill}: {value}"


def provider_values(provider: ProviderWithRelations) -> dict[str, set[str]]:
    """Every skill a provider has, by name, as the API's slot search reads them."""
    found: dict[str, set[str]] = {}
    for skill in provider.skills:
        found.setdefault(skill.skill_name, set()).update(skill.values)
    found.setdefault("licensed_region", set()).update(
        [*provider.licensed_regions, *provider.skill_licensed_region])
    found.setdefault("enrollment", set()).update(e.name for e in provider.enrollments)
    return found


def options(providers: Iterable[ProviderWithRelations], extra: Iterable[str] = ()) -> list[
        tuple[str, str]]:
    """Choices for a skill select: every `skill=value` some provider has, plus `extra`."""
    seen: set[str] = set(extra)
    for provider in providers:
        for skill in provider.skills:
            seen.update(option(skill.skill_name, value) for value in skill.values)
    return [(value, label(value)) for value in sorted(seen, key=str.casefold)]


def meets(requirement: SkillRequirement | SkillNestedGroup | None,
          values: dict[str, set[str]]) -> bool:
    """Whether a provider with skill `values` satisfies `requirement` (None: anyone does)."""
    if requirement is None:
        return True
    if isinstance(requirement, SkillCondition):
        return requirement.value in values.get(requirement.skill, set())
    results = (meets(entry, values) for entry in requirement.entries)
    return all(results) if requirement.type == "and" else any(results)


def all_of(conditions: Sequence[SkillCondition]) -> SkillRequirement | None:
    """One requirement that needs every condition (None for none)."""
    if not conditions:
        return None
    if len(conditions) == 1:
        return conditions[0]
    return SkillGroup(type="and", entries=list(conditions))


def any_of(conditions: Sequence[SkillCondition]) -> SkillRequirement | None:
    """One requirement met by any condition (None for none)."""
    if not conditions:
        return None
    if len(conditions) == 1:
        return conditions[0]
    return SkillGroup(type="or", entries=list(conditions))


def both(first: SkillRequirement | None, second: SkillRequirement | None,
         ) -> SkillRequirement | None:
    """A requirement needing `first` and `second` (either may be None)."""
    if first is None or second is None:
        return first or second
    return SkillGroup(type="and", entries=[*_as_entries(first), *_as_entries(second)])


def _as_entries(requirement: SkillRequirement) -> list[SkillCondition | SkillNestedGroup]:
    if isinstance(requirement, SkillCondition):
        return [requirement]
    if requirement.type == "and":
        return list(requirement.entries)
    return [SkillNestedGroup(type="or", entries=[e for e in requirement.entries
                                                 if isinstance(e, SkillCondition)])]


def from_groups(groups: Sequence[Sequence[str]]) -> SkillRequirement | None:
    """The requirement of the editor's rows: all rows, any option in each (empty rows skipped)."""
    rows = [[c for c in (parse_option(v) for v in row) if c is not None] for row in groups]
    rows = [row for row in rows if row]
    if not rows:
        return None
    if len(rows) == 1:
        return any_of(rows[0])
    entries: list[SkillCondition | SkillNestedGroup] = [
        row[0] if len(row) == 1 else SkillNestedGroup(type="or", entries=row) for row in rows]
    return SkillGroup(type="and", entries=entries)


def to_groups(requirement: SkillRequirement | None) -> list[list[str]] | None:
    """The editor's rows for a stored requirement, or None when the rows cannot express it."""
    if requirement is None:
        return []
    if isinstance(requirement, SkillCondition):
        return [[option(requirement.skill, requirement.value)]]
    if requirement.type == "or":
        if all(isinstance(e, SkillCondition) for e in requirement.entries):
            return [[option(e.skill, e.value) for e in requirement.entries
                     if isinstance(e, SkillCondition)]]
        return None
    rows: list[list[str]] = []
    for entry in requirement.entries:
        if isinstance(entry, SkillCondition):
            rows.append([option(entry.skill, entry.value)])
        elif entry.type == "or" or len(entry.entries) == 1:
            rows.append([option(c.skill, c.value) for c in entry.entries])
        else:
            rows.extend([option(c.skill, c.value)] for c in entry.entries)
    return rows if len(rows) <= GROUPS else None


def describe(requirement: SkillRequirement | SkillNestedGroup | None) -> str:
    """A sentence fragment: `language: French`, `(language: French or language: Spanish)`."""
    if requirement is None:
        return "none"
    if isinstance(requirement, SkillCondition):
        return f"{requirement.skill}: {requirement.value}"
    joiner = " and " if requirement.type == "and" else " or "
    parts = [describe(entry) for entry in requirement.entries]
    text = joiner.join(f"({p})" if " or " in p or " and " in p else p for p in parts)
    return text
