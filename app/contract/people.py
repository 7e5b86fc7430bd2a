"""People import and set-password links on the wire (extensions): `POST /v1/people/import` and
`POST /v1/users/{userId}/password-link`.

Shape only: which team, role and employment type exist, and whose e-mail is taken, is the API's
business.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, RootModel

from app.contract.common import EXTENSION, ApiModel, Id, NonEmptyStr, Timestamp
from app.contract.providers import PayPeriodTemplate

PersonType = Literal["user", "provider"]
"""A staff member who signs in (`user`) or one who is also scheduled (`provider`)."""

MAX_PEOPLE_BATCH = 1000
"""The most people one `POST /v1/people/import` takes (the server's `maxBatchSize`; a
`batch-size-exceeded` answer reports a smaller one)."""

NAME_MAX = 200
EMAIL_MAX = 254
IMPORTED_ID_MAX = 100

Email = Annotated[str, Field(max_length=EMAIL_MAX, pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$",
                             examples=["pat@example.org"])]


class PersonImportRow(ApiModel):
    """One person to create, or to update when a person with the same `importedId` exists."""

    name: Annotated[NonEmptyStr, Field(max_length=NAME_MAX)]
    email: Email = Field(description="Unique among people; stored lower-cased.")
    type: PersonType
    imported_id: Annotated[NonEmptyStr, Field(max_length=IMPORTED_ID_MAX)] = Field(
        description="The person's id in the system they come from: an import updates the "
        "person with this id, or creates one.")
    team_id: Id | None = Field(default=None, description="A provider's team.")
    role_id: Id | None = Field(default=None,
                               description="A provider's default role: one of the team's roles.")
    employment_type_id: Id | None = Field(default=None,
                                          description="A provider's employment type.")
    pay_period_template: PayPeriodTemplate | None = Field(
        default=None, description="A provider's pay periods.")


class PeopleImport(RootModel[list[PersonImportRow]]):
    """Body of POST /v1/people/import: a JSON array of people (at most `maxBatchSize`)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)


class PasswordLink(ApiModel):
    """A one-time link with which a person chooses their password (extension).

    The embedded sign-in service takes it at `{issuer}/set-password/{token}`; it is good once,
    until `expiresAt`, and a newer link for the same person ends it.
    """

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    user_id: Id
    token: str
    expires_at: Timestamp


class ImportedPerson(ApiModel):
    """What an import did with one row."""

    index: int = Field(ge=0, description="The row's position in the batch.")
    id: Id = Field(description="The person's user id (their provider id too).")
    imported_id: str
    outcome: Literal["created", "updated"]
    password_link: PasswordLink | None = Field(
        description="For a person the import created: their first set-password link.")


class PeopleImportResult(ApiModel):
    """Answer of POST /v1/people/import (extension)."""

    model_config = ConfigDict(json_schema_extra=EXTENSION)

    created: int = Field(ge=0)
    updated: int = Field(ge=0)
    people: list[ImportedPerson]
