"""The `/v1` blueprint and `endpoint`, the decorator every API view is declared with.

`endpoint` does the request edge once for all views: authentication, maintenance mode, query and
body parsing into contract models (problems with paths on failure), path identifiers, the unit of
work, and the JSON answer. It also records what it declared, so the OpenAPI document is generated
from the same declarations that run. Views receive by keyword only what they name: `session`,
`actor`, `query`, `body`, `settings`, `pages` (the cursor paginator) and their path parameters.
"""

from __future__ import annotations

import functools
import inspect
import json
import re
import types
import typing
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from flask import Blueprint, Response, current_app, request
from pydantic import BaseModel, TypeAdapter, ValidationError
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from app.api.audit import ACTOR_KEY, AuditActor
from app.api.problems import ProblemError, from_validation_error, validation
from app.contract.common import ApiModel
from app.contract.problems import ProblemCode

if TYPE_CHECKING:
    from app.api.auth import Actor

bp = Blueprint("api", __name__, url_prefix="/v1")

WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
T = typing.TypeVar("T")
_PATH_PARAM = re.compile(r"<(?:[a-z]+:)?([a-z_]+)>")


@dataclass(frozen=True)
class Endpoint:
    """What one API view declares: the source of the OpenAPI document."""

    method: str
    rule: str
    name: str
    summary: str
    description: str | None
    query: type[ApiModel] | None
    body: Any
    response: Any
    status: int
    codes: tuple[str, ...]
    extension: bool
    public: bool
    tag: str
    read_only: bool = False
    permits: tuple[tuple[str, str], ...] = ()
    path_params: tuple[str, ...] = field(default_factory=tuple)
    uuid_params: tuple[str, ...] = field(default_factory=tuple)

    @property
    def openapi_path(self) -> str:
        """`/shifts/<shift_id>` → `/v1/shifts/{shiftId}`."""
        return "/v1" + _PATH_PARAM.sub(lambda m: "{" + camel(m.group(1)) + "}", self.rule)


ENDPOINTS: list[Endpoint] = []


def camel(name: str) -> str:
    """snake_case → camelCase, as the wire spells parameters."""
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _is_list(annotation: Any) -> bool:
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, set):
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_is_list(arg) for arg in typing.get_args(annotation))
    return False


@functools.cache
def _query_parameters(model: type[ApiModel]) -> tuple[tuple[str, bool], ...]:
    """Each query parameter of the model as the wire spells it, and whether it takes a list."""
    return tuple((info.alias or name, _is_list(info.annotation))
                 for name, info in model.model_fields.items())


def _query_input(model: type[ApiModel]) -> dict[str, Any]:
    """The query string as the model's aliases expect it: lists where the field is a list."""
    data: dict[str, Any] = {}
    args = request.args
    for key, is_list in _query_parameters(model):
        if key not in args:
            continue
        if any(NUL in raw for raw in args.getlist(key)):
            raise validation(key, NUL_REFUSED)
        if is_list:
            values: list[str] = []
            for raw in args.getlist(key):
                values.extend(v for v in raw.split(",") if v != "")
            data[key] = values
        else:
            data[key] = args.get(key)
    return data


_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def _adapter(kind: Any) -> TypeAdapter[Any]:
    if kind not in _ADAPTERS:
        _ADAPTERS[kind] = TypeAdapter(kind)
    return _ADAPTERS[kind]


def _receive_body() -> bytes:
    """The request body's bytes (`payload-too-large` beyond the limit), read before the unit of
    work begins so that no transaction waits on a slow upload."""
    return request.get_data(cache=False)


MAX_JSON_DEPTH = 32
"""The deepest a request body's arrays and objects may nest; no body of the API needs more than a
handful of levels, and deep documents cost the parser and the validator dearly."""
NUL = "\x00"
NUL_REFUSED = "must not contain the NUL character (\\u0000)"
"""No text the API keeps may hold NUL: PostgreSQL cannot store it, and no name, note or id needs
it. Refused in every query parameter and every string of a body, keys included."""


def _body_refusal(document: Any, limit: int) -> tuple[str, str] | None:
    """Where and why the parsed body is refused before validation, or None: arrays and objects
    nested more than `limit` levels deep, or a string holding NUL (walked without recursion)."""
    stack: list[tuple[Any, int, str]] = [(document, 1, "")]
    while stack:
        value, depth, path = stack.pop()
        if isinstance(value, str):
            if NUL in value:
                return path or "/", NUL_REFUSED
            continue
        if isinstance(value, dict):
            children: Any = value.items()
        elif isinstance(value, list):
            children = enumerate(value)
        else:
            continue
        if depth > limit:
            return "/", f"the body nests deeper than {limit} levels"
        for key, child in children:
            if isinstance(key, str) and NUL in key:  # the object holding it: no NUL in a path
                return path or "/", NUL_REFUSED
            if isinstance(child, dict | list | str):
                stack.append((child, depth + 1, f"{path}/{_pointer(str(key))}"))
    return None


def _pointer(key: str) -> str:
    """One JSON Pointer reference token (RFC 6901)."""
    return key.replace("~", "~0").replace("/", "~1")


def _parse_body(kind: Any, raw: bytes) -> Any:
    mimetype = request.mimetype
    if mimetype != "application/json" and not mimetype.endswith("+json"):
        raise ProblemError(
            ProblemCode.UNSUPPORTED_MEDIA_TYPE,
            "Send the body as JSON with Content-Type: application/json.",
        )
    if not raw.strip():
        raise validation("/", "a JSON body is required")
    try:
        document = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise validation("/", f"the body is not valid JSON ({exc})") from exc
    except RecursionError as exc:  # thousands of nested brackets: deeper than any body we take
        raise validation("/", f"the body nests deeper than {MAX_JSON_DEPTH} levels") from exc
    refusal = _body_refusal(document, MAX_JSON_DEPTH)
    if refusal is not None:
        raise validation(*refusal)
    try:
        return _adapter(kind).validate_python(document)
    except ValidationError as exc:
        raise from_validation_error(exc) from exc


def _parse_path(params: dict[str, str], annotations: dict[str, Any]) -> dict[str, Any]:
    parsed: dict[str, Any] = {}
    for name, value in params.items():
        if annotations.get(name) in (uuid.UUID, "uuid.UUID", "UUID"):
            try:
                parsed[name] = uuid.UUID(value)
            except ValueError as exc:
                raise validation(camel(name), "must be a UUID") from exc
        elif NUL in value:
            raise validation(camel(name), NUL_REFUSED)
        else:
            parsed[name] = value
    return parsed


def dump(value: Any) -> bytes | str:
    """JSON text of a contract value, camelCase, timestamps in the wire format."""
    if isinstance(value, BaseModel):
        return value.model_dump_json(by_alias=True)
    return _adapter(type(value)).dump_json(value, by_alias=True)


def json_response(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    """A JSON response of a contract value."""
    return Response(dump(value), status=status, mimetype="application/json", headers=headers)


def _once_more_after_a_restart(work: Callable[[list[bool]], T]) -> T:
    """Run `work` (a unit of work, or a read), once more if the database server had closed its
    connection, as a restart does.

    The pool then discards that connection and every other as old, so only the first request
    of each process would fail. Nothing of the unit of work can have been committed unless it
    failed while committing: `work` appends to the list it is given once its body is done, and
    a failure after that (at commit, outcome unknown) is not run again.
    """
    finished: list[bool] = []
    try:
        return work(finished)
    except DBAPIError as exc:
        if not exc.connection_invalidated or finished:
            raise
        return work(finished)


def _request_id() -> str | None:
    """The caller's `X-Request-Id`, kept on the audit events of its writes (at most 100
    characters; anything longer is cut)."""
    value = request.headers.get("X-Request-Id", "").strip()
    return value[:100] or None


def _refusal(actor: Actor, permits: tuple[tuple[str, str], ...]) -> ProblemError | None:
    """The 403 for a caller who may do none of `permits` on any object of its subject."""
    if not permits or any(actor.can(action, subject) for action, subject in permits):
        return None
    try:
        actor.require(*permits[0])
    except ProblemError as refused:
        return refused
    return None  # pragma: no cover - `can` and `require` decide alike


def endpoint(
    method: str,
    rule: str,
    *,
    summary: str,
    query: type[ApiModel] | None = None,
    body: Any = None,
    response: Any = None,
    status: int = 200,
    codes: Sequence[str] = (),
    extension: bool = False,
    public: bool = False,
    tag: str,
    description: str | None = None,
    read_only: bool = False,
    locate: Callable[[Session, Any], object] | None = None,
    permits: Sequence[tuple[str, str]] = (),
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare an API view (see the module docstring); returns the view unchanged.

    `read_only` marks a POST that changes nothing (a search): it runs in a read transaction and
    keeps working in maintenance mode. `locate(session, id)` raises the not-found problem of the
    object the path names: it runs after authentication and before the body is parsed, so an
    unknown id answers 404 whatever the body. `permits` lists the `(action, subject)` pairs of
    which the caller needs at least one on *some* object of the subject (CASL's check without an
    object: conditions aside) for the endpoint to be of any use to them; a caller with none is
    refused 403 `unauthorized` whatever they sent: their bad input is answered with that refusal,
    not described. Valid input goes on to the view, whose services refuse with the precise
    reason. Only pairs that every success of the view requires belong there.

    The order of the checks, the same for every endpoint: maintenance mode (503); the body's size
    (413); the bearer token (401), so that an anonymous caller learns nothing of its input; the
    permission to use the endpoint at all (403), so that a caller without it learns nothing
    either; path and query parameters (400); the object the path names (404); the body (415,
    400); then the view, whose services check permission on the object (403), versions (409)
    and state, in that order.
    """
    method = method.upper()
    permits = tuple(permits)

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        wanted = set(inspect.signature(fn).parameters)
        annotations = typing.get_type_hints(fn)
        write = method in WRITE_METHODS and not read_only

        def view(**path: str) -> Response:
            from app.api.auth import authenticate

            state = current_app.extensions["shiftdesk"]
            settings = state.settings
            if write and _once_more_after_a_restart(lambda _: state.maintenance_mode()):
                raise ProblemError(
                    ProblemCode.MAINTENANCE_MODE,
                    "Shiftdesk is read-only for maintenance; try again shortly.",
                    headers={"Retry-After": "120"},
                )
            kwargs: dict[str, Any] = {}
            raw = _receive_body() if "body" in wanted and body is not None else None
            if "settings" in wanted:
                kwargs["settings"] = settings
            if "pages" in wanted:
                kwargs["pages"] = state.paginator
            def read_input(session: Session, kwargs: dict[str, Any]) -> None:
                kwargs.update(_parse_path(path, annotations))
                if "query" in wanted and query is not None:
                    try:
                        kwargs["query"] = query.model_validate(_query_input(query))
                    except ValidationError as exc:
                        raise from_validation_error(exc, query=True) from exc
                if locate is not None:
                    locate(session, *(kwargs[name] for name in path))
                if raw is not None:
                    kwargs["body"] = _parse_body(body, raw)

            def work(finished: list[bool]) -> Any:
                # A GET only reads, and streams no rows: no transaction (`unit_of_work`).
                with state.db.unit_of_work(write=write,
                                           transaction=method != "GET") as session:
                    refused = None
                    if not public:  # who asks comes first: an anonymous caller learns nothing
                        actor = authenticate(session)
                        if write:  # what this request writes is recorded (app.api.audit)
                            session.info[ACTOR_KEY] = AuditActor(
                                actor.user_id, actor.name, _request_id())
                        refused = _refusal(actor, permits)
                        if "actor" in wanted:
                            kwargs["actor"] = actor
                    try:
                        read_input(session, kwargs)
                        if "session" in wanted:
                            kwargs["session"] = session
                        done = fn(**kwargs)
                        if refused is not None:  # `permits` names what every success needs
                            raise refused
                    except ProblemError as problem:
                        # Nor does one who may not use the endpoint at all: not its input's
                        # faults, not whether the object it names exists. The view's own
                        # refusal stands, with its precise reason.
                        if refused is not None and problem.status != 403:
                            raise refused from None
                        raise
                    finished.append(True)
                return done

            result = _once_more_after_a_restart(work)
            if isinstance(result, Response):
                return result
            headers: dict[str, str] = {}
            if isinstance(result, tuple):
                result, headers = result
            if result is None:
                return Response(status=204)
            return json_response(result, status, headers)

        view.__name__ = fn.__name__
        view.__doc__ = fn.__doc__
        bp.add_url_rule(rule, fn.__name__, view, methods=[method])
        ENDPOINTS.append(
            Endpoint(
                method=method,
                rule=rule,
                name=fn.__name__,
                summary=summary,
                description=description or inspect.getdoc(fn),
                query=query,
                body=body,
                response=response,
                status=status,
                codes=tuple(str(c) for c in codes),
                extension=extension,
                public=public,
                tag=tag,
                read_only=read_only,
                permits=permits,
                path_params=tuple(_PATH_PARAM.findall(rule)),
                uuid_params=tuple(p for p in _PATH_PARAM.findall(rule)
                                  if annotations.get(p) in (uuid.UUID, "uuid.UUID", "UUID")),
            )
        )
        return fn

    return decorate
