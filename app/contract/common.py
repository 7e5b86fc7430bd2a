"""Building blocks shared by every contract model: the camelCase base model, timestamps, pages.

Must not import anything of ours outside `app.contract`, nor Flask or SQLAlchemy.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, Generic, TypeVar
from uuid import UUID

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    PlainSerializer,
    SerializationInfo,
    WithJsonSchema,
)
from pydantic.alias_generators import to_camel
from pydantic_core import CoreSchema, core_schema

DAY_FORMAT = "%Y-%m-%dT00:00:00.000Z"

# YYYY-MM-DDThh:mm:ss, optional fraction, then Z, +hhmm or +hh:mm (docs/architecture.md,
# "Wire conventions").
_TIMESTAMP_IN = re.compile(
    r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:?\d{2})$"
)

_UNENCODED_PLUS = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})? \d{2}:?\d{2}$")


EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(2999, 12, 31, 23, 59, 59, tzinfo=UTC)
"""The instants the API accepts (inclusive): far from the calendar's ends, where a day's margin
or a pay period would overflow, and wide enough for any hospital's records."""

SUPPORTED_RANGE = f"between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d} (UTC)"


def parse_timestamp(value: Any) -> datetime:
    """Parse a wire timestamp into an aware UTC datetime; reject anything without an offset or
    outside the supported range (`EARLIEST` to `LATEST`). Datetimes the API builds itself are
    only converted to UTC."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("timestamp must carry a UTC offset")
        return value.astimezone(UTC)
    if isinstance(value, str) and _UNENCODED_PLUS.match(value):
        # An unencoded "+" in a query string arrives as a space: read it as the "+" it was.
        value = value[:-5] + "+" + value[-4:] if value[-3] != ":" else value[:-6] + "+" + value[-5:]
    if not isinstance(value, str) or not _TIMESTAMP_IN.match(value):
        raise ValueError("expected a timestamp like 2024-05-01T09:00:00+0000")
    text = value[:-1] + "+00:00" if value.endswith("Z") else value
    if text[-3] != ":":
        text = text[:-2] + ":" + text[-2:]
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError("not a valid calendar date and time") from exc
    try:
        instant = parsed.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError(f"must lie {SUPPORTED_RANGE}") from exc
    if not EARLIEST <= instant <= LATEST:
        raise ValueError(f"must lie {SUPPORTED_RANGE}")
    return instant


def format_timestamp(value: datetime) -> str:
    """Format an aware datetime as the wire's `YYYY-MM-DDThh:mm:ss+0000`, always in UTC.

    `isoformat` rather than `strftime`: a third of the cost, and a year before 1000 keeps its
    four digits (glibc's `%Y` drops the leading zeros).
    """
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.isoformat(timespec="seconds")[:19] + "+0000"


def format_day(value: datetime) -> str:
    """Format the day of a per-day time-off entry: `YYYY-MM-DDT00:00:00.000Z`."""
    return value.strftime(DAY_FORMAT)


_TIMESTAMP_SCHEMA = {
    "type": "string",
    "description": f"A UTC instant {SUPPORTED_RANGE}; `Z`, `+hhmm` and `+hh:mm` are accepted, "
                   "`+0000` is written.",
    "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:?\d{2})$",
    "example": "2024-05-01T09:00:00+0000",
}

Timestamp = Annotated[
    datetime,
    BeforeValidator(parse_timestamp),
    PlainSerializer(format_timestamp, return_type=str, when_used="json"),
    WithJsonSchema(_TIMESTAMP_SCHEMA),
]
"""A UTC instant: accepted as `Z`, `+hhmm` or `+hh:mm`, always written as `+0000`."""

DayTimestamp = Annotated[
    datetime,
    BeforeValidator(parse_timestamp),
    PlainSerializer(format_day, return_type=str, when_used="json"),
    WithJsonSchema({"type": "string", "example": "2024-05-01T00:00:00.000Z"}),
]
"""A calendar day of a time-off request, written `YYYY-MM-DDT00:00:00.000Z`."""


def _strip_nonempty(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    return value


Id = UUID
NonEmptyStr = Annotated[str, Field(min_length=1), AfterValidator(_strip_nonempty)]
HexColor = Annotated[
    str, Field(pattern=r"^#[0-9A-Fa-f]{6}$", examples=["#1F77B4"], max_length=7)
]


class ApiModel(BaseModel):
    """Base of every wire model: camelCase on the wire, snake_case in Python, no unknown keys."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="forbid",
        from_attributes=True,
        ser_json_inf_nan="null",
    )


class OpenModel(ApiModel):
    """A wire model that keeps properties it does not know (the spec allows extra keys)."""

    model_config = ConfigDict(extra="allow")


T = TypeVar("T")


class Page(ApiModel, Generic[T]):
    """One page of a cursor-paginated list; `cursor` is null on the last page."""

    items: list[T]
    cursor: str | None = None


class Count(ApiModel):
    """The answer of a `/count` endpoint."""

    count: int = Field(ge=0)


MAX_CURSOR_LENGTH = 2000
"""The longest cursor a list takes; the API's cursors are far shorter."""


class ListQuery(ApiModel):
    """Query parameters every paginated list takes."""

    page_size: int = Field(default=20, ge=1, le=200)
    cursor: str | None = Field(default=None, max_length=MAX_CURSOR_LENGTH)


EXTENSION: dict[str, Any] = {"x-shiftdesk-extension": True}
"""`json_schema_extra` of a model or field the spec lacks (docs/architecture.md decides it);
never mutate."""


def is_absent(value: Any) -> bool:
    """Tell `Field(exclude_if=...)` to leave a response member out when it holds no value."""
    return value is None


def wire_key(model: type[BaseModel], name: str, info: SerializationInfo) -> str:
    """Name the key a field serializes under: its alias when dumping by alias, else its name."""
    if not info.by_alias:
        return name
    field = model.model_fields[name]
    return field.serialization_alias or field.alias or name


def _reject_null(value: Any) -> Any:
    if value is None:
        raise ValueError("must not be null; leave the member out to keep the current value")
    return value


class _NotNull:
    """Refuse an explicit null for `T | None`, and document the member as plain `T` in requests.

    Defaults are not validated, so a member left out still reads as None in Python; serialization
    keeps the nullable schema, so that None dumps as null.
    """

    def __get_pydantic_core_schema__(
        self, source: Any, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        schema = handler(source)
        inner = schema["schema"] if schema["type"] == "nullable" else schema
        return core_schema.no_info_before_validator_function(
            _reject_null, schema, json_schema_input_schema=inner
        )


def _none() -> None:
    return None


# A default factory rather than `= None`: the JSON schema then shows no `default: null`, which
# would contradict the non-null type (openapi-spec-validator checks defaults against it).
Omittable = Annotated[T | None, _NotNull(), Field(default_factory=_none)]
"""A member of a partial update (PATCH, or PUT with optional members) that may be left out but not
be null; it reads as None when left out, so declare it without a default:
`start_date: Omittable[Timestamp]`. Which members were sent is `model_fields_set`."""
