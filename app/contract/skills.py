"""Skill requirements on the wire: a condition, or an and/or group at most two levels deep.

Used by appointment types, shift segments and slot search. Only the shape lives here; whether a
provider meets a requirement is decided in `app.api.domain`, never in these models.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    GetJsonSchemaHandler,
    ValidationError,
    ValidatorFunctionWrapHandler,
    WrapValidator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, InitErrorDetails

from app.contract.common import ApiModel


class _WithoutDiscriminatorHint:
    """Document a tagged union as plain `oneOf` (its members' `type` values already exclude each
    other). openapi-schema-validator 0.6 crashes on a `discriminator` checked against null, as the
    nullable requirement members' `default: null` is."""

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        json_schema.pop("discriminator", None)
        return json_schema


GroupOperator = Literal["and", "or"]
"""How a group combines its entries: all of them (`and`) or any of them (`or`)."""


class SkillCondition(ApiModel):
    """Require a provider's skill to have a given value."""

    type: Literal["equal"]
    skill: str = Field(min_length=1, description="Name of the skill to test.")
    value: str = Field(description="Value the provider's skill must equal.")


class SkillNestedGroup(ApiModel):
    """Combine conditions inside a group; a nested group holds conditions only."""

    type: GroupOperator
    entries: list[SkillCondition] = Field(min_length=1)


SkillGroupEntry = Annotated[
    SkillCondition | SkillNestedGroup, Field(discriminator="type"), _WithoutDiscriminatorHint()
]
"""An entry of a top-level group: a condition or a nested group (told apart by `type`)."""


class SkillGroup(ApiModel):
    """Combine conditions and nested groups."""

    type: GroupOperator
    entries: list[SkillGroupEntry] = Field(min_length=1)


_TAGS = frozenset({"equal", "and", "or"})


def _input_path(value: Any, loc: tuple[int | str, ...]) -> tuple[int | str, ...]:
    """Keep the parts of an error location that name keys or indexes of the input.

    A discriminated union puts the tag it chose (`equal`, `and`, `or`) into the location; that is
    no member of the document, and would break the JSON pointer of a `validation` problem.
    """
    path: list[int | str] = []
    node = value
    for part in loc:
        in_object = isinstance(node, dict) and part in node
        in_array = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if in_object or in_array:
            node = node[part]
        elif isinstance(node, dict) and part in _TAGS:
            continue  # the tag of the union member chosen for this object
        else:
            node = None  # a member the input lacks
        path.append(part)
    return tuple(path)


def _without_union_tags(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """Validate a skill requirement, reporting errors at locations that exist in the input."""
    try:
        return handler(value)
    except ValidationError as exc:
        details: list[InitErrorDetails] = []
        for error in exc.errors(include_url=False):
            detail: InitErrorDetails = {
                "type": error["type"],
                "loc": _input_path(value, error["loc"]),
                "input": error["input"],
            }
            if "ctx" in error:
                detail["ctx"] = error["ctx"]
            details.append(detail)
        raise ValidationError.from_exception_data(exc.title, details) from None


SkillRequirement = Annotated[
    SkillCondition | SkillGroup,
    Field(discriminator="type"),
    WrapValidator(_without_union_tags),
    _WithoutDiscriminatorHint(),
]
"""A skill requirement: a condition, or a group of conditions and nested groups.

A nested group is a group whose entries are all conditions, so `SkillGroup` covers it at the top
level; anything deeper than group → nested group → condition is refused.
"""
