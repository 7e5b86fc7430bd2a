"""The job queue that executes report runs: embedded (a small in-process thread pool) or Redis (rq).

`make_queue(settings, database)` chooses: rq when `settings.redis_url` is set, else the embedded
pool, started lazily on the first job. Routes never enqueue directly; `enqueue_after_commit` hooks
the request's session so a job starts only once the row it reads is committed (a job started
earlier could miss it, and a rolled-back request must start nothing). `shiftdesk worker` runs rq
workers for the Redis queue. Must not know about Flask requests.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from sqlalchemy import event
from sqlalchemy.orm import Session

from app.api.db import Database
from app.api.jobs.context import JobContext
from app.api.jobs.reports import execute_report_run
from app.config import Settings

log = logging.getLogger(__name__)

EMBEDDED_WORKERS = 2
"""Threads of the embedded pool: report runs are short and mostly wait on the database."""

RQ_JOB_TIMEOUT = 600
"""Seconds an rq worker lets one report run take."""


class JobQueue(Protocol):
    """Where report runs go to be executed."""

    def enqueue_report_run(self, run_id: uuid.UUID) -> None:
        """Execute the (committed) run with this id soon."""

    def close(self) -> None:
        """Stop accepting jobs and release resources."""


def enqueue_after_commit(session: Session, queue: JobQueue, run_id: uuid.UUID) -> None:
    """Enqueue the run once `session` commits; nothing happens if it rolls back."""

    def _enqueue(_session: Session) -> None:
        try:
            queue.enqueue_report_run(run_id)
        except Exception:  # a queue outage must not turn a committed create into a 500
            log.exception("could not enqueue report run %s", run_id)

    event.listen(session, "after_commit", _enqueue, once=True)


class EmbeddedQueue:
    """Runs jobs on a thread pool inside this process, created on the first job."""

    def __init__(self, context: JobContext, workers: int = EMBEDDED_WORKERS) -> None:
        self.context = context
        self.workers = workers
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="shiftdesk-job")
            return self._pool

    def enqueue_report_run(self, run_id: uuid.UUID) -> None:
        """Submit the run to the pool."""
        future: Future[Any] = self._executor().submit(execute_report_run, self.context, run_id)
        future.add_done_callback(_log_crash)

    def close(self) -> None:
        """Let running jobs finish; accept no more."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)


def _log_crash(future: Future[Any]) -> None:
    error = future.exception()
    if error is not None:
        log.error("report job crashed", exc_info=error)


def queue_name(database_url: str) -> str:
    """The rq queue of one database: workers of another deployment on the same Redis skip it."""
    return "shiftdesk-" + hashlib.sha256(database_url.encode()).hexdigest()[:12]


_WORKER_CONTEXT: JobContext | None = None


def bind_worker(context: JobContext) -> None:
    """Tell rq jobs executed in this process which database and settings to use."""
    global _WORKER_CONTEXT
    _WORKER_CONTEXT = context


def run_report_job(run_id: str) -> None:
    """The rq job: execute one report run with the context `bind_worker` set."""
    if _WORKER_CONTEXT is None:
        raise RuntimeError("no database bound; start workers with `shiftdesk worker`")
    execute_report_run(_WORKER_CONTEXT, uuid.UUID(run_id))


class RedisQueue:
    """Puts jobs on an rq queue in Redis; `shiftdesk worker` processes execute them."""

    def __init__(self, redis_url: str, database_url: str) -> None:
        from redis import Redis
        from rq import Queue

        self.connection = Redis.from_url(redis_url)
        self.queue = Queue(queue_name(database_url), connection=self.connection)

    def enqueue_report_run(self, run_id: uuid.UUID) -> None:
        """Push the run onto the Redis queue."""
        self.queue.enqueue(run_report_job, str(run_id), job_timeout=RQ_JOB_TIMEOUT,
                           description=f"report run {run_id}")

    def close(self) -> None:
        """Drop the Redis connection."""
        self.connection.close()


def make_queue(settings: Settings, database: Database) -> JobQueue:
    """The queue these settings ask for: rq with `redis_url`, else the embedded pool."""
    if settings.redis_url:
        return RedisQueue(settings.redis_url, settings.database_url)
    return EmbeddedQueue(JobContext(database, settings))
