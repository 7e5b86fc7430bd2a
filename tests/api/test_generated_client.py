"""A Python client generated from /v1/openapi.json by openapi-python-client gets typed problems.

The generator (a pinned dev dependency) runs once per session as a subprocess, into a temporary
folder, on the document the app serves; the generated package is then used against the app over
httpx's WSGI transport. Generating must finish without a warning (each warning is a response the
client silently drops), and a 409 `version-conflict`, a 400 `validation` and a 404 must arrive as
instances of their codes' own classes.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest

from app import create_app
from tests.conftest import Api, make_settings
from tests.factories import uid

GENERATOR = "openapi-python-client"
GENERATOR_SERIES = "0.29."
PACKAGE = "shiftdesk_generated_client"
SCHEDULER = "scheduler@example.com"


def _generator_version() -> str:
    if importlib.util.find_spec("openapi_python_client") is None:
        pytest.fail(f"{GENERATOR} is not installed; it is a pinned dev dependency: run "
                    "`pip install -e '.[dev]'` (or `make install-dev`).", pytrace=False)
    version = importlib.metadata.version(GENERATOR)
    if not version.startswith(GENERATOR_SERIES):
        pytest.fail(f"{GENERATOR} {version} is installed; this test is written for "
                    f"{GENERATOR_SERIES}x as pinned in pyproject.toml.", pytrace=False)
    return version


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory, signing_key_path: Path,
              ) -> Iterator[SimpleNamespace]:
    """The generated client package, imported: its `client`, `api` and `models` modules."""
    _generator_version()
    folder = tmp_path_factory.mktemp("generated-client")
    # Only /v1/openapi.json is read, which needs no database.
    app = create_app(make_settings(f"sqlite:///{folder / 'unused.db'}", signing_key_path))
    document = app.test_client().get("/v1/openapi.json")
    app.extensions["shiftdesk"].db.dispose()
    assert document.status_code == 200
    (folder / "openapi.json").write_text(json.dumps(document.get_json()))
    bin_dir = str(Path(sys.executable).parent)  # the generator's post-hooks call ruff from here
    run = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate",
         "--path", str(folder / "openapi.json"), "--output-path", str(folder / PACKAGE),
         "--meta", "none"],
        capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")},
    )
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "warning" not in output.lower(), output
    sys.path.insert(0, str(folder))
    try:
        yield SimpleNamespace(
            client=importlib.import_module(f"{PACKAGE}.client"),
            models=importlib.import_module(f"{PACKAGE}.models"),
            get_appointment=importlib.import_module(f"{PACKAGE}.api.appointments.get_appointment"),
            update_appointment=importlib.import_module(
                f"{PACKAGE}.api.appointments.update_appointment"),
            list_appointments=importlib.import_module(
                f"{PACKAGE}.api.appointments.list_appointments"),
        )
    finally:
        sys.path.remove(str(folder))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


def _client(generated: SimpleNamespace, api: Api, user: str) -> Any:
    return generated.client.AuthenticatedClient(
        base_url="http://localhost", token=api.token(user),
        httpx_args={"transport": httpx.WSGITransport(app=api.app)},
    )


def test_generated_client_reads_a_version_conflict_as_its_typed_problem(fresh_api, generated):
    appointment_id = uid("appt:0")
    with _client(generated, fresh_api, SCHEDULER) as client:
        read = generated.get_appointment.sync(appointment_id, client=client)
        assert isinstance(read, generated.models.AppointmentRead)
        changed = generated.update_appointment.sync(
            appointment_id, client=client,
            body=generated.models.AppointmentUpdate(version=read.version, location="Room 9"))
        assert isinstance(changed, generated.models.AppointmentRead)

        stale = generated.update_appointment.sync_detailed(
            appointment_id, client=client,
            body=generated.models.AppointmentUpdate(version=read.version, location="Room 1"))

    assert stale.status_code == 409
    problem = stale.parsed
    assert isinstance(problem, generated.models.VersionConflictProblem), problem
    assert problem.current_version == changed.version == read.version + 1
    assert problem.type_.endswith("#version-conflict")
    assert problem.status == 409


def test_generated_client_reads_validation_as_its_typed_problem(api, generated):
    with _client(generated, api, SCHEDULER) as client:
        response = generated.list_appointments.sync_detailed(client=client, page_size=0)

    assert response.status_code == 400
    problem = response.parsed
    assert isinstance(problem, generated.models.ValidationProblem), problem
    assert problem.path == "pageSize"
    assert problem.message
    assert [(e.path, e.message) for e in problem.errors] == [("pageSize", problem.message)]
    assert all(isinstance(e, generated.models.FieldError) for e in problem.errors)


def test_generated_client_reads_not_found_as_its_typed_problem(api, generated):
    with _client(generated, api, SCHEDULER) as client:
        response = generated.get_appointment.sync_detailed(uid("appt:none"), client=client)

    assert response.status_code == 404
    assert isinstance(response.parsed, generated.models.AppointmentNotFoundProblem)
