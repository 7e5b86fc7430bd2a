"""The OpenAPI document passes the two tools client authors reach for first, with no finding:
Spectral's `spectral:oas` ruleset, and openapi-typescript (which must generate without a warning).

Both are npm packages, run by `npx` at pinned versions on the document the app serves. Node.js
ships with the machines this project runs on; where it is missing the tests say so and skip,
except under CI, where they fail.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from app import create_app
from tests.conftest import make_settings

SPECTRAL = "@stoplight/spectral-cli@6.16.3"
OPENAPI_TYPESCRIPT = "openapi-typescript@7.13.0"


@pytest.fixture(scope="module")
def document(tmp_path_factory: pytest.TempPathFactory, signing_key_path: Path) -> Path:
    """The served /v1/openapi.json, written to a file."""
    if shutil.which("npx") is None:
        reason = "npx (Node.js) is not installed: apt-get install -y nodejs npm"
        if os.environ.get("CI"):
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("openapi-tools")
    app = create_app(make_settings(f"sqlite:///{folder / 'unused.db'}", signing_key_path))
    served = app.test_client().get("/v1/openapi.json")
    app.extensions["shiftdesk"].db.dispose()
    path = folder / "openapi.json"
    path.write_text(json.dumps(served.get_json()))
    return path


def _npx(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["npx", "--yes", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=240, check=False)


@pytest.mark.xdist_group("npx")
def test_spectral_oas_ruleset_finds_nothing(document: Path) -> None:
    ruleset = document.parent / ".spectral.json"
    ruleset.write_text('{"extends": ["spectral:oas"]}')
    result = _npx(SPECTRAL, "lint", str(document), "--ruleset", str(ruleset),
                  "--fail-severity=hint", "--format=json", "--quiet", cwd=document.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    findings = json.loads(result.stdout or "[]")
    assert findings == []


@pytest.mark.xdist_group("npx")
def test_openapi_typescript_generates_without_a_warning(document: Path) -> None:
    out = document.parent / "shiftdesk.d.ts"
    result = _npx(OPENAPI_TYPESCRIPT, str(document), "-o", str(out), cwd=document.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "warn" not in (result.stdout + result.stderr).lower(), result.stdout + result.stderr
    typed = out.read_text()
    assert "VersionConflictProblem" in typed
    assert "ValidationProblem" in typed
