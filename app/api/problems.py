"""RFC 9457 problem documents: the exception services raise and the responses the API sends.

Every error under /v1 leaves through `problem_response`, so each carries `type`, `title`,
`status`, `detail`, `instance` and its code's extension members. Must not import routes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from flask import Response, current_app, request
from pydantic import ValidationError

from app.contract.problems import REGISTRY, FieldError, ProblemCode

PROBLEM_JSON = "application/problem+json"


class ProblemError(Exception):
    """A problem a service or route raises; the API renders it as a problem document."""

    def __init__(
        self,
        code: ProblemCode | str,
        detail: str | None = None,
        *,
        errors: Sequence[FieldError] | None = None,
        headers: dict[str, str] | None = None,
        **members: Any,
    ) -> None:
        code = str(code)
        if code not in REGISTRY:
            raise ValueError(f"undocumented problem code {code!r}")
        super().__init__(detail or REGISTRY[code].title)
        self.code = code
        self.detail = detail or REGISTRY[code].title
        self.errors = list(errors or [])
        self.headers = headers or {}
        self.members = members

    @property
    def status(self) -> int:
        """The HTTP status of this problem's code."""
        return REGISTRY[self.code].status


def validation(path: str, message: str, errors: Sequence[FieldError] | None = None) -> ProblemError:
    """A 400 `validation` problem for one failed input (and optionally all of them)."""
    every = list(errors) if errors else [FieldError(path=path, message=message)]
    return ProblemError(
        ProblemCode.VALIDATION,
        f"{path or 'The request'}: {message}",
        errors=every,
        path=path,
        message=message,
    )


def negative_range(path: str = "endDate") -> ProblemError:
    """A 400 `negative-range`: the end named by `path` does not come after its start."""
    return ProblemError(ProblemCode.NEGATIVE_RANGE,
                        f"{path} must come after the start; swap them or widen the window.",
                        path=path)


def not_found(resource: str, ident: object) -> ProblemError:
    """A 404 for the named resource (`shift` → `shift-not-found`)."""
    name = resource.replace("-", " ").capitalize()
    return ProblemError(f"{resource}-not-found", f"{name} {ident} does not exist.")


def _pointer(loc: Iterable[Any], *, query: bool) -> str:
    parts = [str(p) for p in loc if not (isinstance(p, str) and p.startswith("function-"))]
    if query:
        return parts[0] if parts else ""
    return "/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)


def _message(error: dict[str, Any]) -> str:
    msg = str(error.get("msg", "invalid value"))
    return msg.removeprefix("Value error, ")


def from_validation_error(exc: ValidationError, *, query: bool = False) -> ProblemError:
    """Turn a pydantic error into `validation`: the first failure in `path`, all in `errors`.

    Paths follow the wire (alias) names: a JSON Pointer into the body, or the query parameter.
    """
    errors = [
        FieldError(path=_pointer(e["loc"], query=query), message=_message(e))
        for e in exc.errors(include_url=False)
    ]
    first = errors[0] if errors else FieldError(path="", message="invalid input")
    return validation(first.path, first.message, errors)


def errors_base_url() -> str:
    """The base of every problem `type`: the configured errors URL or this server's page."""
    configured = current_app.config["SHIFTDESK"].errors_url
    return configured or request.host_url.rstrip("/") + "/v1/errors"


def problem_document(problem: ProblemError) -> dict[str, Any]:
    """The JSON body of a problem, members in the order RFC 9457 lists them."""
    info = REGISTRY[problem.code]
    body: dict[str, Any] = {
        "type": f"{errors_base_url()}#{problem.code}",
        "title": info.title,
        "status": info.status,
        "detail": problem.detail,
        "instance": request.path,
    }
    body.update(problem.members)
    if problem.errors:
        body["errors"] = [e.model_dump(mode="json") for e in problem.errors]
    return body


def problem_response(problem: ProblemError) -> Response:
    """Render a problem as `application/problem+json` with its status and headers."""
    response = Response(
        json.dumps(problem_document(problem), default=str),
        status=problem.status,
        mimetype=PROBLEM_JSON,
    )
    for name, value in problem.headers.items():
        response.headers[name] = value
    return response
