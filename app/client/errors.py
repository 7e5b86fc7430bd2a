"""What can go wrong calling `/v1`: problem documents as exceptions, and an unreachable API.

Every problem+json answer becomes an `ApiProblem` (or the subclass its code calls for) carrying
the parsed `Problem`, its code, status, detail and extension members, so callers branch on the
code and show `detail` — never on status alone. Must not import Flask or the API.
"""

from __future__ import annotations

from typing import Any

from app.contract.problems import FieldError, Problem


class ApiUnavailable(Exception):
    """The API could not be reached or answered with something that is not a problem."""


class ApiProblem(Exception):
    """The API answered with an RFC 9457 problem document."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.detail or problem.title)
        self.problem = problem

    @property
    def code(self) -> str:
        """The problem code (the fragment of `type`), e.g. `version-conflict`."""
        return self.problem.code

    @property
    def status(self) -> int:
        """The HTTP status."""
        return self.problem.status

    @property
    def title(self) -> str:
        """The code's fixed title."""
        return self.problem.title

    @property
    def detail(self) -> str:
        """The sentence about this occurrence (the title when the API gave none)."""
        return self.problem.detail or self.problem.title

    @property
    def extensions(self) -> dict[str, Any]:
        """The code's extension members (e.g. `currentVersion`, `conflicts`)."""
        return self.problem.extensions

    @property
    def field_errors(self) -> list[FieldError]:
        """Every failed input with its path: `errors`, or the single `path`/`message`."""
        if self.problem.errors:
            return list(self.problem.errors)
        path, message = self.extensions.get("path"), self.extensions.get("message")
        if isinstance(path, str) and isinstance(message, str):
            return [FieldError(path=path, message=message)]
        return []


class Unauthenticated(ApiProblem):
    """401: the token is missing, invalid or expired; sign in again."""


class Forbidden(ApiProblem):
    """403 `unauthorized`: the user may not do this."""

    @property
    def reason(self) -> str | None:
        """Why not, when the rule says."""
        return self.extensions.get("reason")


class NotFound(ApiProblem):
    """404: the object does not exist (or the route does not)."""


class ValidationProblem(ApiProblem):
    """400 `validation` and the other input problems that name a path."""


class Conflict(ApiProblem):
    """409: the request conflicts with the current state (claims, overlaps, …)."""


class VersionConflict(Conflict):
    """409 `version-conflict`: someone changed the object since it was read."""

    @property
    def current_version(self) -> int | None:
        """The object's version now."""
        value = self.extensions.get("currentVersion")
        return int(value) if isinstance(value, (int, float)) else None


class Maintenance(ApiProblem):
    """503 `maintenance-mode`: the API is read-only for now."""


_BY_CODE: dict[str, type[ApiProblem]] = {
    "version-conflict": VersionConflict,
    "maintenance-mode": Maintenance,
    "unauthenticated": Unauthenticated,
    "unauthorized": Forbidden,
}
_BY_STATUS: dict[int, type[ApiProblem]] = {
    400: ValidationProblem, 401: Unauthenticated, 403: Forbidden, 404: NotFound, 409: Conflict,
    503: Maintenance,
}


def problem_exception(problem: Problem) -> ApiProblem:
    """The exception for a problem document: by code first, then by status."""
    kind = _BY_CODE.get(problem.code) or _BY_STATUS.get(problem.status, ApiProblem)
    return kind(problem)
