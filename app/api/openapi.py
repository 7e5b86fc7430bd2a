"""The OpenAPI 3.1 document of `/v1`, generated from the `endpoint` declarations and the contract.

Nothing here is written by hand per endpoint: paths, parameters, bodies and responses come from
`routing.ENDPOINTS`; schemas from the pydantic models; error responses from the problem-code
registry. Endpoints, fields and codes the spec lacks carry `x-shiftdesk-extension: true`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, models_json_schema

from app.api.routing import ENDPOINTS, Endpoint, camel
from app.contract.problems import REGISTRY, FieldError
from app.contract.sign_offs import TimesheetBlockingItem

REF = "#/components/schemas/{model}"
_MEMBER_TYPES = {
    "string": {"type": "string"},
    "number": {"type": "number"},
    "integer": {"type": "integer", "minimum": 0},
    "timestamp": {"type": "string"},
    "string[]": {"type": "array", "items": {"type": "string"}},
    "object[]": {"type": "array", "items": {"type": "object"}},
}
_MEMBER_SCHEMAS = {
    "errors": {"type": "array", "items": {"$ref": REF.format(model="FieldError")},
               "description": "Every failed input, the first of them in `path`."},
    "blocking": {"type": "array", "items": {"$ref": REF.format(model="TimesheetBlockingItem")},
                 "description": "Each thing to resolve before the period can be signed off."},
}
"""Members whose shape the registry's plain JSON types leave open."""


class _Schema(GenerateJsonSchema):
    """Pydantic's generator, keeping component names stable and readable."""

    def normalize_name(self, name: str) -> str:
        return super().normalize_name(name).replace("__", ".")


def _model_of(kind: Any) -> type[BaseModel] | None:
    return kind if isinstance(kind, type) and issubclass(kind, BaseModel) else None


def _schema_for(kind: Any, mode: str, defs: dict[str, Any],
                refs: dict[tuple[Any, str], Any]) -> dict[str, Any]:
    if (kind, mode) in refs:
        return refs[(kind, mode)]
    if _model_of(kind) is not None:
        mapping, extra = models_json_schema([(kind, mode)], ref_template=REF,  # type: ignore[list-item]
                                            schema_generator=_Schema)
        defs.update(extra.get("$defs", {}))
        schema = dict(mapping[(kind, mode)])
    else:
        schema = TypeAdapter(kind).json_schema(ref_template=REF, mode=mode,  # type: ignore[arg-type]
                                              schema_generator=_Schema)
        defs.update(schema.pop("$defs", {}))
    refs[(kind, mode)] = schema
    return schema


def problem_schema_name(code: str) -> str:
    """The component name of one code's problem document: `version-conflict` →
    `VersionConflictProblem`."""
    return "".join(part.capitalize() for part in code.split("-")) + "Problem"


def _problem_schema(code: str, errors_url: str) -> dict[str, Any]:
    """The problem document of one code, whole: RFC 9457's members, then the code's own.

    Standalone rather than `allOf` on `Problem`: generators that merge `allOf` (such as
    openapi-python-client) refuse a member declared `integer` in one part and constant in the
    other. `type` and `status` are constants, so a client told several codes are possible
    recognises each document by its `type`, as the spec asks clients to.
    """
    info = REGISTRY[code]
    properties: dict[str, Any] = {
        "type": {"type": "string", "const": f"{errors_url}#{code}",
                 "description": "Identifies the error; match on it."},
        "title": {"type": "string", "description": info.title},
        "status": {"type": "integer", "const": info.status},
        "detail": {"type": "string", "description": "What happened, for staff to act on."},
        "instance": {"type": "string", "description": "The path of the request."},
    }
    required = ["type", "title", "status"]
    for name, kind in info.members.items():
        properties[name] = _MEMBER_SCHEMAS.get(name) or _MEMBER_TYPES[kind.rstrip("?")]
        if not kind.endswith("?"):
            required.append(name)
    schema: dict[str, Any] = {
        "title": problem_schema_name(code),
        "type": "object",
        "description": f"`{code}`: {info.title}.",
        "properties": properties,
        "required": required,
    }
    if info.extension:
        schema["x-shiftdesk-extension"] = True
    return schema


def _query_parameters(endpoint: Endpoint, defs: dict[str, Any]) -> list[dict[str, Any]]:
    if endpoint.query is None:
        return []
    schema = endpoint.query.model_json_schema(ref_template=REF, mode="validation",
                                              schema_generator=_Schema)
    defs.update(schema.pop("$defs", {}))
    required = set(schema.get("required", []))
    parameters = []
    for name, prop in schema.get("properties", {}).items():
        description = prop.pop("description", None)
        extension = prop.pop("x-shiftdesk-extension", False)
        param: dict[str, Any] = {
            "name": name,
            "in": "query",
            "required": name in required,
            "schema": prop,
        }
        if prop.get("type") == "array" or any(
            p.get("type") == "array" for p in prop.get("anyOf", [])
        ):
            param.update(style="form", explode=False)
        if description:
            param["description"] = description
        if extension:
            param["x-shiftdesk-extension"] = True
        parameters.append(param)
    return parameters


def _operation(endpoint: Endpoint, defs: dict[str, Any], refs: dict[tuple[Any, str], Any],
               errors_url: str) -> dict[str, Any]:
    operation: dict[str, Any] = {
        "operationId": endpoint.name,
        "summary": endpoint.summary,
        "tags": [endpoint.tag],
        "parameters": [
            {
                "name": camel(p),
                "in": "path",
                "required": True,
                "schema": {"type": "string", "format": "uuid"} if p in endpoint.uuid_params
                else {"type": "string"},
            }
            for p in endpoint.path_params
        ] + _query_parameters(endpoint, defs),
        "responses": {},
    }
    if endpoint.description:
        operation["description"] = endpoint.description
    if endpoint.extension:
        operation["x-shiftdesk-extension"] = True
    if endpoint.public:
        operation["security"] = []
    if endpoint.permits:  # any one suffices; checked before the request's input is read
        operation["x-shiftdesk-permits"] = [{"action": action, "subject": subject}
                                            for action, subject in endpoint.permits]
    if endpoint.body is not None:
        operation["requestBody"] = {
            "required": True,
            "content": {"application/json": {
                "schema": _schema_for(endpoint.body, "validation", defs, refs)
            }},
        }
    responses = operation["responses"]
    if endpoint.response is None:
        responses[str(endpoint.status)] = {"description": "Done; no content."}
    else:
        responses[str(endpoint.status)] = {
            "description": "Success.",
            "content": {"application/json": {
                "schema": _schema_for(endpoint.response, "serialization", defs, refs)
            }},
        }
    codes = list(endpoint.codes)
    if endpoint.query is not None or endpoint.body is not None or endpoint.path_params:
        codes.append("validation")
    if endpoint.body is not None:
        codes += ["unsupported-media-type", "payload-too-large"]
    if not endpoint.public:
        codes += ["unauthenticated", "unauthorized"]
    if endpoint.method != "GET" and not endpoint.read_only:
        codes.append("maintenance-mode")
    if endpoint.method != "GET":  # every POST, PUT, PATCH and DELETE counts (app.api.limits)
        codes.append("rate-limited")
    by_status: dict[int, list[str]] = {}
    for code in dict.fromkeys(codes):
        by_status.setdefault(REGISTRY[code].status, []).append(code)
    for status, names in sorted(by_status.items()):
        schemas = []
        for name in names:
            defs.setdefault(problem_schema_name(name), _problem_schema(name, errors_url))
            schemas.append({"$ref": REF.format(model=problem_schema_name(name))})
        responses[str(status)] = {
            "description": "Problem: " + ", ".join(f"`{n}`" for n in names),
            "content": {"application/problem+json": {
                "schema": schemas[0] if len(schemas) == 1 else {"oneOf": schemas}
            }},
        }
    return operation


def build_document(errors_url: str, server_url: str = "/") -> dict[str, Any]:
    """The whole OpenAPI 3.1 document, its problem types under `errors_url`."""
    defs: dict[str, Any] = {}
    refs: dict[tuple[Any, str], Any] = {}
    # Each code's problem document is its own component (`_problem_schema`); the generic
    # `Problem` model is the client's, not the wire's, so only the members' own models
    # (`FieldError`, `TimesheetBlockingItem`) are listed.
    _, field_defs = models_json_schema([(FieldError, "serialization"),
                                        (TimesheetBlockingItem, "serialization")],
                                       ref_template=REF, schema_generator=_Schema)
    defs.update(field_defs.get("$defs", {}))
    paths: dict[str, dict[str, Any]] = {}
    for endpoint in sorted(ENDPOINTS, key=lambda e: (e.openapi_path, e.method)):
        paths.setdefault(endpoint.openapi_path, {})[endpoint.method.lower()] = _operation(
            endpoint, defs, refs, errors_url
        )
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Shiftdesk workforce scheduling and timekeeping API",
            "version": "1.0.0",
            "contact": {"name": "Shiftdesk maintainers"},
            "description": (
                "The /v1 API of Shiftdesk. Errors are RFC 9457 problem documents whose `type` "
                "ends in `#<code>`; match on `type`. Operations, fields and codes marked "
                "`x-shiftdesk-extension` are Shiftdesk's additions to the published contract. "
                "An operation's `x-shiftdesk-permits` lists the permissions (action on subject) "
                "of which the caller needs at least one, whatever the conditions; a caller with "
                "none is answered 403 `unauthorized` before its parameters and body are read."
            ),
        },
        "servers": [{"url": server_url}],
        "security": [{"bearer": []}],
        "tags": sorted(({"name": t} for t in {e.tag for e in ENDPOINTS}),
                       key=lambda t: t["name"]),
        "paths": paths,
        "components": {
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
            },
            "schemas": dict(sorted(defs.items())),
        },
    }
