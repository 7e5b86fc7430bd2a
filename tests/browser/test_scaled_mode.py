"""Scale mode holds nothing on a process's local disk: a session made by UI process #1 is
honoured by UI process #2, a token signed by one API process verifies in the other, and a
report run by the worker downloads from either API process. Runs against the scaled site
only (the Procfile's processes), each process reached at its own address."""

from __future__ import annotations

import csv
import io
import time

import httpx
import pytest
from playwright.sync_api import expect

# Collected for the scaled site alone (`only`): the other sites have one process each.
pytestmark = [pytest.mark.xdist_group("browser-scaled"), pytest.mark.scaled_mode(only=True),
              pytest.mark.real_sign_in]

RUNS = "/v1/reporting/reports/runs"


@pytest.fixture
def scaled(site):
    assert site.mode == "scaled"
    return site


def test_a_session_and_its_token_work_on_every_process(scaled, tab):
    ui1, ui2 = scaled.ui_urls
    tab.goto(f"{ui1}/")  # a visitor on UI #1 is sent to sign in
    tab.fill_credentials("manager@example.com")
    expect(tab.page.get_by_role("heading", level=1)).to_have_text("Hello, Morgan Manager")
    assert tab.url.startswith(ui1)

    tab.goto(f"{ui2}/manage/time-off")  # the same cookie on UI #2: no sign-in asked
    expect(tab.page.get_by_role("heading", level=1)).to_contain_text("Time-off queue")
    assert tab.url.startswith(f"{ui2}/manage/time-off")

    token = scaled.session(tab.context)["auth"]["access_token"]  # signed by one API process
    for api in scaled.api_urls:
        me = httpx.get(f"{api}/v1/users/me", headers={"Authorization": f"Bearer {token}"},
                       timeout=10)
        assert me.status_code == 200, (api, me.text)
        assert me.json()["email"] == "manager@example.com"


def test_a_report_run_by_the_worker_downloads_from_either_api_process(scaled, tab):
    tab.goto(f"{scaled.ui_urls[0]}/")
    tab.fill_credentials("admin@example.com")
    expect(tab.page.get_by_role("heading", level=1)).to_have_text("Hello, Ada Admin")
    token = scaled.session(tab.context)["auth"]["access_token"]
    first, second = (httpx.Client(base_url=api, timeout=10,
                                  headers={"Authorization": f"Bearer {token}"})
                     for api in scaled.api_urls)
    with first, second:
        started = first.post(RUNS, json={"reportId": "appointments-by-provider", "parameters": {
            "startDate": "2026-03-02T00:00:00Z", "endDate": "2026-03-16T00:00:00Z"}})
        assert started.status_code == 201, started.text
        run_id = started.json()["id"]
        deadline = time.monotonic() + 30
        while (run := second.get(f"{RUNS}/{run_id}").json())["status"] == "running":
            assert time.monotonic() < deadline, "the worker did not finish the run in 30 s"
            time.sleep(0.2)
        assert run["status"] == "completed", run
        files = []
        for client in (second, first):
            link = client.get(f"{RUNS}/{run_id}/download")
            assert link.status_code == 200, link.text
            url = link.json()["url"]
            assert url.startswith(str(client.base_url).rstrip("/")), url
            answer = httpx.get(url, timeout=10)  # a signed link: no token needed
            assert answer.status_code == 200, answer.text
            files.append(answer.content)
    assert files[0] == files[1]
    rows = list(csv.DictReader(io.StringIO(files[0].decode())))
    assert rows
    assert "appointments" in rows[0]
