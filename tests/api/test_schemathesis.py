"""Property-based conformance: Schemathesis generates requests from /v1/openapi.json for every
operation, writes included, and checks each answer against the same document — never a 500,
documented status codes and content types, bodies matching their schemas, authentication
enforced, invalid input refused.

Runs in process on a SQLite copy of the shared test organisation, fast enough for `make test`: a
few examples per operation, no coverage phase. `SHIFTDESK_FUZZ_EXAMPLES` raises the examples per
operation and, above 100 (`make fuzz`), adds Schemathesis' coverage phase (boundary values of every
parameter) and lifts the time limit; `SHIFTDESK_FUZZ_PATHS` (a regular expression) keeps the
operations whose path it matches (`make fuzz` runs two halves side by side). Each request goes
once as the admin, who sees everything, and once as a provider, whose lists go through the SQL
permission filters.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    ignored_auth,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from app import create_app
from app.api.db import Database
from app.api.migrate import upgrade
from tests.conftest import Api, make_settings
from tests.factories import build_world

EXAMPLES = int(os.environ.get("SHIFTDESK_FUZZ_EXAMPLES", "15"))
PHASES = ["examples", "fuzzing", *(["coverage"] if EXAMPLES > 100 else [])]
ONLY = os.environ.get("SHIFTDESK_FUZZ_PATHS")
"""A regular expression: only the operations whose path it matches (to go back to one)."""
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, ignored_auth, negative_data_rejection]
USERS = ("admin@example.com", "provider@example.com")


@pytest.fixture(scope="module")
def fuzz_api(tmp_path_factory: pytest.TempPathFactory, signing_key_path: Path) -> Iterator[Api]:
    """A client on a SQLite database of its own holding the shared test organisation."""
    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'fuzz.db'}"
    upgrade(url)
    database = Database(url)
    with database.unit_of_work(write=True) as session:
        world = build_world(session)
    database.dispose()
    app = create_app(make_settings(url, signing_key_path))
    yield Api(app, world, "sqlite")
    app.extensions["shiftdesk"].db.dispose()


@pytest.fixture(scope="module")
def fuzz_schema(fuzz_api: Api) -> Any:
    """The app's own OpenAPI document as Schemathesis reads it: every operation, writes too."""
    schema = schemathesis.openapi.from_wsgi("/v1/openapi.json", fuzz_api.app)
    schema.config.phases.update(phases=PHASES)
    return schema


schema = schemathesis.pytest.from_fixture("fuzz_schema")
if ONLY:
    schema = schema.include(path_regex=ONLY)


# One test walks every operation (~130) as two users: minutes in `make test`, and with
# `make fuzz`'s hundreds of examples an operation, as long as it takes.
@pytest.mark.timeout(900 if EXAMPLES <= 100 else 0)
@settings(max_examples=EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@schema.parametrize()
def test_operations_conform_to_the_openapi_document(case: Any, fuzz_api: Api) -> None:
    for user in USERS:
        case.call_and_validate(headers=fuzz_api.headers(user), checks=CHECKS)
