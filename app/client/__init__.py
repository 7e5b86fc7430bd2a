"""The typed `/v1` client (httpx). Imports only `app.contract`; never the API, IdP or Flask."""

from app.client.api import ApiClient, build_http, own_context
from app.client.errors import (
    ApiProblem,
    ApiUnavailable,
    Conflict,
    Forbidden,
    Maintenance,
    NotFound,
    Unauthenticated,
    ValidationProblem,
    VersionConflict,
)

__all__ = [
    "ApiClient",
    "ApiProblem",
    "ApiUnavailable",
    "Conflict",
    "Forbidden",
    "Maintenance",
    "NotFound",
    "Unauthenticated",
    "ValidationProblem",
    "VersionConflict",
    "build_http",
    "own_context",
]
