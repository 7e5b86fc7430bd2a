"""Importing people (`POST /v1/people/import`) and their one-time set-password links
(`POST /v1/users/{userId}/password-link`).

An import is all or nothing per batch: every row is checked first (shape by the contract, then
teams, roles, employment types, repeats within the batch, a type that would change, e-mail
addresses of other people), and only then written, with bulk statements: a batch costs the
same few statements whatever its size. Rows are matched on `importedId` (the `user_imports`
table, or a provider's own `imported_id`), so importing the same file twice updates, never
duplicates. Each person the import creates gets a set-password link; links are stored only as
SHA-256 hashes. Must not commit, read the request or know Flask.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import insert, select, text, update
from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.models import (
    EmploymentType,
    PasswordSetToken,
    Provider,
    RbacRole,
    Role,
    Team,
    User,
    UserImport,
    team_managers,
    user_rbac_roles,
)
from app.api.problems import ProblemError, not_found, validation
from app.api.subjects import USER
from app.contract.people import PasswordLink, PersonImportRow
from app.contract.problems import FieldError, ProblemCode

PASSWORD_LINK_TTL = timedelta(days=7)
"""How long a set-password link is good for."""

IMPORT_LOCK = 0x5EED_1A7E
"""PostgreSQL advisory lock key that makes imports take turns (SQLite writers do anyway)."""

PROVIDER_RBAC_ROLE = "Provider"
"""The standard role an imported provider is given (when the organisation has it)."""

_PROVIDER_ONLY = (("team_id", "teamId"), ("role_id", "roleId"),
                  ("employment_type_id", "employmentTypeId"),
                  ("pay_period_template", "payPeriodTemplate"))


def hash_password_token(token: str) -> str:
    """The stored form of a set-password token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _new_link(user_id: uuid.UUID, *, now: datetime, created_by: uuid.UUID | None,
              ) -> tuple[dict[str, Any], PasswordLink]:
    token = secrets.token_urlsafe(32)
    expires_at = now + PASSWORD_LINK_TTL
    row = {"id": uuid.uuid4(), "user_id": user_id, "token_hash": hash_password_token(token),
           "created_at": now, "expires_at": expires_at, "used_at": None,
           "created_by_id": created_by}
    return row, PasswordLink(user_id=user_id, token=token, expires_at=expires_at)


def create_password_link(session: Session, *, actor: Actor, user_id: uuid.UUID,
                         now: datetime) -> PasswordLink:
    """Make a new set-password link for a person, ending their earlier ones.

    Raises `user-not-found`, `unauthorized` (needs `edit` User), `invalid-state-transition`
    (a bot, or a dismissed person: neither signs in with a password).
    """
    user = session.get(User, user_id, with_for_update=True)
    if user is None:
        raise not_found("user", user_id)
    actor.require("edit", "User", USER.of(user))
    if user.type != "user" or user.status == "dismissed":
        state = "bot" if user.type != "user" else user.status
        raise ProblemError(ProblemCode.INVALID_STATE_TRANSITION,
                           "Only people who may sign in get a set-password link: this one is "
                           f"{'an API client' if user.type != 'user' else 'dismissed'}.",
                           currentState=state)
    session.execute(update(PasswordSetToken)
                    .where(PasswordSetToken.user_id == user_id,
                           PasswordSetToken.used_at.is_(None))
                    .values(used_at=now))
    row, link = _new_link(user_id, now=now, created_by=actor.user_id)
    session.execute(insert(PasswordSetToken), [row])
    return link


@dataclass
class Outcome:
    """What the import did with one row."""

    index: int
    id: uuid.UUID
    imported_id: str
    created: bool
    link: PasswordLink | None


@dataclass
class _Known:
    """A person already stored under a row's importedId."""

    id: uuid.UUID
    is_provider: bool
    has_import_row: bool


def _repeats(rows: list[PersonImportRow]) -> list[FieldError]:
    """Rows repeating an earlier row's importedId or e-mail address."""
    errors: list[FieldError] = []
    ids: dict[str, int] = {}
    emails: dict[str, int] = {}
    for index, row in enumerate(rows):
        first = ids.setdefault(row.imported_id, index)
        if first != index:
            errors.append(FieldError(path=f"/{index}/importedId",
                                     message=f"row {first} has the same importedId"))
        email = row.email.strip().lower()
        first = emails.setdefault(email, index)
        if first != index:
            errors.append(FieldError(path=f"/{index}/email",
                                     message=f"row {first} has the same email"))
    return errors


def _known(session: Session, imported_ids: set[str]) -> dict[str, _Known]:
    """The stored people of these imported ids: by the import table, then by providers' own."""
    found: dict[str, _Known] = {}
    if not imported_ids:
        return found
    for imported_id, user_id, provider_id in session.execute(
            select(UserImport.imported_id, UserImport.user_id, Provider.id)
            .outerjoin(Provider, Provider.id == UserImport.user_id)
            .where(UserImport.imported_id.in_(imported_ids))).tuples():
        found[imported_id] = _Known(user_id, provider_id is not None, True)
    rest = imported_ids - set(found)
    if rest:
        for imported_id, provider_id in session.execute(
                select(Provider.imported_id, Provider.id)
                .where(Provider.imported_id.in_(rest)).order_by(Provider.created_at)).tuples():
            if imported_id is not None:
                found.setdefault(imported_id, _Known(provider_id, True, False))
    return found


def _references(session: Session, rows: list[PersonImportRow]) -> list[FieldError]:
    """Rows naming a team, role or employment type that does not exist or does not fit."""
    teams = {r.team_id for r in rows if r.team_id}
    roles = {r.role_id for r in rows if r.role_id}
    kinds = {r.employment_type_id for r in rows if r.employment_type_id}
    known_teams = set(session.scalars(select(Team.id).where(Team.id.in_(teams)))) \
        if teams else set()
    role_teams = dict(list(session.execute(
        select(Role.id, Role.team_id).where(Role.id.in_(roles))).tuples())) if roles else {}
    known_kinds = set(session.scalars(select(EmploymentType.id)
                                      .where(EmploymentType.id.in_(kinds)))) if kinds else set()
    errors: list[FieldError] = []
    for index, row in enumerate(rows):
        if row.type == "user":
            for attribute, wire in _PROVIDER_ONLY:
                if getattr(row, attribute) is not None:
                    errors.append(FieldError(path=f"/{index}/{wire}",
                                             message="only providers have this; leave it out "
                                             "for a user or make the row a provider"))
            continue
        if row.team_id is not None and row.team_id not in known_teams:
            errors.append(FieldError(path=f"/{index}/teamId",
                                     message=f"there is no team {row.team_id}"))
        if row.role_id is not None:
            if row.role_id not in role_teams:
                errors.append(FieldError(path=f"/{index}/roleId",
                                         message=f"there is no role {row.role_id}"))
            elif row.team_id is None:
                errors.append(FieldError(path=f"/{index}/teamId",
                                         message="a role needs the team it belongs to"))
            elif role_teams[row.role_id] != row.team_id:
                errors.append(FieldError(path=f"/{index}/roleId",
                                         message="the role belongs to another team"))
        if row.employment_type_id is not None and row.employment_type_id not in known_kinds:
            errors.append(FieldError(
                path=f"/{index}/employmentTypeId",
                message=f"there is no employment type {row.employment_type_id}"))
    return errors


def _type_changes(rows: list[PersonImportRow], known: dict[str, _Known]) -> list[FieldError]:
    errors = []
    for index, row in enumerate(rows):
        person = known.get(row.imported_id)
        if person is not None and person.is_provider != (row.type == "provider"):
            was = "a provider" if person.is_provider else "a user"
            errors.append(FieldError(path=f"/{index}/type",
                                     message=f"this person was imported as {was}; an import "
                                     "does not change a person's type"))
    return errors


def _email_clashes(session: Session, rows: list[PersonImportRow],
                   known: dict[str, _Known]) -> list[FieldError]:
    """Rows whose e-mail address belongs to someone else."""
    emails = {row.email.strip().lower() for row in rows}
    owners = dict(list(session.execute(
        select(User.email, User.id).where(User.email.in_(emails))).tuples())) if emails else {}
    errors = []
    for index, row in enumerate(rows):
        owner = owners.get(row.email.strip().lower())
        person = known.get(row.imported_id)
        if owner is not None and (person is None or person.id != owner):
            errors.append(FieldError(path=f"/{index}/email",
                                     message="another person already has this email"))
    return errors


def _first_managers(session: Session, teams: set[uuid.UUID]) -> dict[uuid.UUID, uuid.UUID]:
    """Each team's first manager by name: the manager an imported provider is given."""
    if not teams:
        return {}
    found: dict[uuid.UUID, uuid.UUID] = {}
    for team_id, user_id in session.execute(
            select(team_managers.c.team_id, User.id)
            .join(User, User.id == team_managers.c.user_id)
            .where(team_managers.c.team_id.in_(teams))
            .order_by(team_managers.c.team_id, User.name, User.id)).tuples():
        found.setdefault(team_id, user_id)
    return found


def _provider_values(row: PersonImportRow, managers: dict[uuid.UUID, uuid.UUID],
                     ) -> dict[str, Any]:
    template = (row.pay_period_template.model_dump(mode="json", by_alias=True)
                if row.pay_period_template else None)
    return {"name": row.name, "email": row.email.strip().lower(), "team_id": row.team_id,
            "default_role_id": row.role_id, "employment_type_id": row.employment_type_id,
            "pay_period_template": template, "imported_id": row.imported_id,
            "manager_id": managers.get(row.team_id) if row.team_id else None}


def import_people(session: Session, *, actor: Actor, rows: list[PersonImportRow],
                  max_batch_size: int, now: datetime) -> list[Outcome]:
    """Create or update every row's person, or none; return what happened to each row.

    Raises `unauthorized` (needs `create` User), `batch-size-exceeded`, `validation` (every
    bad row listed in `errors` with its path: a repeated importedId or email, an unknown team,
    role or employment type, a role of another team, provider fields on a user, a type that
    would change) and `email-in-use` (an address of another person, each such row's
    `/N/email` in `errors`).
    """
    actor.require("create", "User")
    if len(rows) > max_batch_size:
        raise ProblemError(
            ProblemCode.BATCH_SIZE_EXCEEDED,
            f"An import takes at most {max_batch_size} people and this one has {len(rows)}; "
            "split it into smaller batches.",
            batchSize=len(rows), maxBatchSize=max_batch_size)
    if not rows:
        return []
    if session.get_bind().dialect.name == "postgresql":
        # Two imports of the same new people at once would both find them new and one would
        # fail on the unique keys: they take turns, and the second finds the first's people
        # (READ COMMITTED: each statement sees what committed before it).
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": IMPORT_LOCK})
    known = _known(session, {row.imported_id for row in rows})
    errors = _repeats(rows) + _references(session, rows) + _type_changes(rows, known)
    if errors:
        errors.sort(key=lambda e: (int(e.path.split("/")[1]), e.path))
        raise validation(errors[0].path, errors[0].message, errors)
    clashes = _email_clashes(session, rows, known)
    if clashes:
        raise ProblemError(
            ProblemCode.EMAIL_IN_USE,
            f"{len(clashes)} row{'s have' if len(clashes) != 1 else ' has'} the email of "
            "another person; nothing was imported.",
            errors=clashes)
    managers = _first_managers(session, {row.team_id for row in rows if row.team_id})
    provider_role = session.scalar(select(RbacRole.id).where(RbacRole.name == PROVIDER_RBAC_ROLE))
    outcomes: list[Outcome] = []
    new_users: list[dict[str, Any]] = []
    new_providers: list[dict[str, Any]] = []
    new_imports: list[dict[str, Any]] = []
    new_links: list[dict[str, Any]] = []
    new_roles: list[dict[str, Any]] = []
    user_updates: list[dict[str, Any]] = []
    provider_updates: list[dict[str, Any]] = []
    for index, row in enumerate(rows):
        email = row.email.strip().lower()
        person = known.get(row.imported_id)
        if person is not None:
            user_updates.append({"id": person.id, "name": row.name, "email": email})
            if row.type == "provider":
                provider_updates.append({"id": person.id, **_provider_values(row, managers),
                                         "updated_at": now})
            if not person.has_import_row:
                new_imports.append({"user_id": person.id, "imported_id": row.imported_id})
            outcomes.append(Outcome(index, person.id, row.imported_id, False, None))
            continue
        user_id = uuid.uuid4()
        new_users.append({"id": user_id, "type": "user", "name": row.name, "email": email,
                          "status": "active", "is_admin": False, "password_hash": None,
                          "created_at": now})
        new_imports.append({"user_id": user_id, "imported_id": row.imported_id})
        if row.type == "provider":
            new_providers.append({"id": user_id, **_provider_values(row, managers),
                                  "status": "active", "licensed_regions": [],
                                  "custom_fields": {}, "created_at": now, "updated_at": now})
            if provider_role is not None:
                new_roles.append({"user_id": user_id, "rbac_role_id": provider_role})
        link_row, link = _new_link(user_id, now=now, created_by=actor.user_id)
        new_links.append(link_row)
        outcomes.append(Outcome(index, user_id, row.imported_id, True, link))
    if user_updates:
        session.execute(update(User), user_updates)
    if provider_updates:
        session.execute(update(Provider), provider_updates)
    if new_users:
        session.execute(insert(User), new_users)
    if new_providers:
        session.execute(insert(Provider), new_providers)
    if new_imports:
        session.execute(insert(UserImport), new_imports)
    if new_roles:
        session.execute(insert(user_rbac_roles), new_roles)
    if new_links:
        session.execute(insert(PasswordSetToken), new_links)
    return outcomes
