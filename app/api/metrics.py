"""Prometheus metrics of this process: requests by route and status, latencies, report jobs.

The instruments live in prometheus-client's default registry, one per process (each gunicorn
worker counts its own requests unless `PROMETHEUS_MULTIPROC_DIR` is set: then every worker
writes its values to files there and `/metrics` adds them up). Labels are bounded: routes are
URL rule templates (`/v1/shifts/<uuid:shift_id>`), never raw paths. Gauges of one app's
database pool and job queue are read at each scrape (`scrape`). No Flask here: the jobs record
their durations through this module.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily

UNMATCHED = "(unmatched)"
"""The route label of a request no URL rule matched (404s): one label, whatever the path."""

REQUESTS = Counter("shiftdesk_http_requests", "HTTP requests answered, by route and status",
                   ["method", "route", "status"])
LATENCY = Histogram("shiftdesk_http_request_duration_seconds",
                    "Time to answer an HTTP request, by route", ["method", "route"],
                    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
JOB_DURATION = Histogram("shiftdesk_job_duration_seconds",
                         "Time a background job ran, by job and outcome", ["job", "outcome"],
                         buckets=(0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900))

CONTENT_TYPE = CONTENT_TYPE_LATEST


def observe_request(method: str, route: str | None, status: int, seconds: float) -> None:
    """Count one answered request and its latency."""
    label = route or UNMATCHED
    REQUESTS.labels(method, label, str(status)).inc()
    LATENCY.labels(method, label).observe(seconds)


def observe_job(job: str, outcome: str, seconds: float) -> None:
    """Record how long one background job ran and how it ended."""
    JOB_DURATION.labels(job, outcome).observe(seconds)


class _Gauges:
    """A collector of gauges read at the moment of one scrape (never stored in files, even in
    multiprocess mode: they describe this worker's pool as it is now)."""

    def __init__(self, values: Iterable[tuple[str, str, float]]) -> None:
        self.values = list(values)

    def collect(self) -> Iterator[GaugeMetricFamily]:
        for name, documentation, value in self.values:
            yield GaugeMetricFamily(name, documentation, value=value)


def scrape(gauges: Iterable[tuple[str, str, float]], multiprocess_dir: str | None = None,
           ) -> bytes:
    """The text exposition: this process's (or all workers') instruments, then `gauges`
    (name, help, value) as they are now."""
    if multiprocess_dir:
        shared = CollectorRegistry()
        multiprocess.MultiProcessCollector(shared, path=multiprocess_dir)
        body = generate_latest(shared)
    else:
        body = generate_latest(REGISTRY)
    current = CollectorRegistry(auto_describe=True)
    current.register(_Gauges(gauges))
    return body + generate_latest(current)
