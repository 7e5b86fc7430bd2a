"""Prometheus metrics at `/metrics`: a request shows up in its route's counter and latency
histogram (route templates, never raw paths), with the database pool and job queue gauges;
only a scraper with the token, or a direct loopback request without one, may read them.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from app import create_app
from tests.conftest import Api, make_settings

LOOPBACK = {"REMOTE_ADDR": "127.0.0.1"}
ROUTE = "/v1/users/<user_id>"


def scrape(api: Api, **kw: object) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = api.client.get("/metrics", environ_base=LOOPBACK, **kw)
    assert response.status_code == 200, response.data
    assert response.mimetype == "text/plain"
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(response.get_data(as_text=True))
            for sample in family.samples}


def requests(samples: dict, route: str, status: str) -> float:
    key = ("shiftdesk_http_requests_total",
           (("method", "GET"), ("route", route), ("status", status)))
    return samples.get(key, 0.0)


def test_a_request_shows_up_in_its_route_counter_and_histogram(api: Api) -> None:
    before = scrape(api)
    path = f"/v1/users/{api.world.provider}"
    status = api.get(path).status_code
    assert status == 200
    after = scrape(api)
    assert requests(after, ROUTE, str(status)) == requests(before, ROUTE, str(status)) + 1
    count = ("shiftdesk_http_request_duration_seconds_count",
             (("method", "GET"), ("route", ROUTE)))
    assert after[count] == before.get(count, 0.0) + 1
    # Raw paths never become labels.
    assert not any(path in str(labels) for _name, labels in after)


def test_unknown_paths_share_one_label(api: Api) -> None:
    before = scrape(api)
    api.get("/v1/nowhere-at-all")
    after = scrape(api)
    assert requests(after, "(unmatched)", "404") == requests(before, "(unmatched)", "404") + 1


def test_pool_and_queue_gauges_are_exposed(api: Api) -> None:
    samples = scrape(api)
    names = {name for name, _labels in samples}
    assert {"shiftdesk_db_pool_checked_out", "shiftdesk_job_queue_depth"} <= names
    assert samples[("shiftdesk_job_queue_depth", ())] >= 0


def test_metrics_are_hidden_from_other_hosts_and_proxied_requests(api: Api) -> None:
    assert api.client.get("/metrics", environ_base={"REMOTE_ADDR": "10.1.2.3"}
                          ).status_code == 404
    assert api.client.get("/metrics", environ_base=LOOPBACK,
                          headers={"X-Forwarded-For": "203.0.113.9"}).status_code == 404


def test_metrics_token_is_required_when_configured(api: Api, signing_key_path: Path) -> None:
    app = create_app(make_settings(api.settings.database_url, signing_key_path,
                                   metrics_token="s3cret-scraper"))
    client = app.test_client()
    assert client.get("/metrics", environ_base=LOOPBACK).status_code == 404
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 404
    ok = client.get("/metrics", environ_base={"REMOTE_ADDR": "10.1.2.3"},
                    headers={"Authorization": "Bearer s3cret-scraper"})
    assert ok.status_code == 200
    assert b"shiftdesk_http_requests_total" in ok.data
    app.extensions["shiftdesk"].db.dispose()


def test_a_job_run_shows_up_in_the_job_durations(api: Api) -> None:
    from app.api.jobs.context import JobContext
    from app.api.jobs.reports import execute_report_run

    key = ("shiftdesk_job_duration_seconds_count",
           (("job", "report-run"), ("outcome", "skipped")))
    before = scrape(api).get(key, 0.0)
    # A run that does not exist: nothing to do, and the job still counts.
    assert execute_report_run(JobContext(api.db, api.settings), uuid.uuid4()) is None
    assert scrape(api)[key] == before + 1
