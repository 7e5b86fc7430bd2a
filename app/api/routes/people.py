"""People import: `POST /v1/people/import` (extension).

A thin view over `app.api.services.people_import`; needs `create` on `User` (administrators).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.orm import Session

from app.api.auth import Actor
from app.api.routing import endpoint
from app.api.services import people_import as service
from app.config import Settings
from app.contract.people import ImportedPerson, PeopleImport, PeopleImportResult


@endpoint("POST", "/people/import", summary="Import people (users and providers)",
          body=PeopleImport, response=PeopleImportResult,
          codes=["validation", "batch-size-exceeded", "email-in-use", "unauthorized"],
          extension=True, tag="Users",
          permits=[("create", "User")])
def import_people(session: Session, actor: Actor, settings: Settings,
                  body: PeopleImport) -> PeopleImportResult:
    """Create or update people from a JSON array of rows, all or none.

    Each row is matched on `importedId`: a person imported before (or a provider with that
    `importedId`) is updated (name, email and, for a provider, team, default role, employment
    type, pay period template; the team's first manager becomes theirs), anyone else is
    created, active, with the standard Provider role for a provider, and gets a one-time
    set-password link (`people[].passwordLink`; `POST /v1/users/{userId}/password-link` makes
    another). So importing the same rows twice creates no one twice.

    Every row is checked before anything is written: `validation` lists every bad row's path
    (`/N/teamId`, a repeated `/N/importedId` or `/N/email`, provider fields on a `user` row, a
    role of another team, a type that would change); `email-in-use` (409) lists the rows
    (`/N/email`) whose address belongs to another person. At most `maxBatchSize` (1,000) rows:
    beyond, `batch-size-exceeded`, which reports the limit.
    """
    outcomes = service.import_people(session, actor=actor, rows=body.root,
                                     max_batch_size=settings.max_batch_size,
                                     now=datetime.now(UTC))
    created = sum(1 for o in outcomes if o.created)
    return PeopleImportResult(
        created=created, updated=len(outcomes) - created,
        people=[ImportedPerson(index=o.index, id=o.id, imported_id=o.imported_id,
                               outcome="created" if o.created else "updated",
                               password_link=o.link) for o in outcomes])
