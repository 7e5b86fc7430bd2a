"""Browser tests never vanish silently: without Chromium, CI fails naming it and a local run
says in its last line how many were skipped and how to install it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ONE_BROWSER_TEST = ["tests/browser/test_layout.py", "-k", "sign_in_and_error and embedded"]


def _pytest_without_chromium(*, ci: bool) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "PYTEST_XDIST_WORKER")}
    env["SHIFTDESK_TEST_CHROMIUM"] = "/nonexistent/chromium"
    if ci:
        env["CI"] = "true"
    return subprocess.run(
        [sys.executable, "-m", "pytest", *ONE_BROWSER_TEST, "-n", "0", "-p",
         "no:cacheprovider", "-q"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=240, check=False)


@pytest.mark.xdist_group("subprocess-pytest")
def test_ci_run_without_chromium_fails_naming_it():
    result = _pytest_without_chromium(ci=True)
    assert result.returncode != 0, result.stdout
    assert "no Chromium to drive at /nonexistent/chromium" in result.stdout


@pytest.mark.xdist_group("subprocess-pytest")
def test_local_run_without_chromium_ends_saying_what_was_skipped():
    result = _pytest_without_chromium(ci=False)
    assert result.returncode == 0, result.stdout
    assert result.stdout.rstrip().splitlines()[-1] == (
        "1 browser tests skipped: no Chromium to drive. Install it with "
        "`apt-get install -y chromium-headless-shell` and run `make test` again.")
