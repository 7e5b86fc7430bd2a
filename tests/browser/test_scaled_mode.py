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


def test_a_session_a_token_and_a_report_cross_processes(site, tab):
    assert site.mode == "scaled"
    ui1, ui2 = site.ui_urls
    tab.goto(f"{ui1}/")  # a visitor on UI #1 is sent to sign in
    tab.fill_credentials("admin@example.com")
    expect(tab.page.get_by_role("heading", level=1)).to_have_text("Hello, Ada Admin")
    assert tab.url.startswith(ui1)

    tab.goto(f"{ui2}/manage/time-off")  # the same cookie on UI #2: no sign-in asked
    expect(tab.page.get_by_role("heading", level=1)).to_contain_text("Time-off queue")
    assert tab.url.startswith(f"{ui2}/manage/time-off")

    token = site.session(tab.context)["auth"]["access_token"]  # signed by one API process
    first, second = (httpx.Client(base_url=api, timeout=10,
                                  headers={"Authorization": f"Bearer {token}"})
                     for api in site.api_urls)
    with first, second:
        for client in (first, second):  # verified by both
            me = client.get("/v1/users/me")
            assert me.status_code == 200, (client.base_url, me.text)
            assert me.json()["email"] == "admin@example.com"

        # A report: started on API #1, run by the worker, downloaded from API #2 and #1.
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
