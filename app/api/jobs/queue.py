"""The job queue that executes report runs and notification emails: embedded (a small in-process
thread pool) or Redis (rq).

`make_queue(settings, database)` chooses: rq when `settings.redis_url` is set, else the embedded
pool, started lazily on the first job. Routes never enqueue directly; `enqueue_after_commit` hooks
the request's session so a job starts only once the row it reads is committed (a job started
earlier could miss it, and a rolled-back request must start nothing). `shiftdesk worker` runs rq
workers for the Redis queue. Must not know about Flask requests.

Notification emails (`email_after_commit`): the notices a transaction wrote are enqueued once it
commits, one job each, when SMTP is configured; a failed send is retried after each of
`app.api.jobs.email.RETRY_DELAYS` (rq's `Retry` on Redis, which needs the worker's scheduler; a
timer on the embedded pool). A queue that cannot take the job loses only the email: the notice
itself is committed and shows in the app.

A run always ends. A queue that cannot take the job (Redis down) fails the run at once, with the
reason. On Redis, a job whose work horse is killed fails its run through the worker's
`work_horse_killed_handler`; a job whose whole worker died is found by rq's abandoned-job
handling (its heartbeat lapses within `HEARTBEAT_LAPSE`), which calls `report_job_failed`: any
worker's maintenance (every `WORKER_MAINTENANCE` seconds) and `RedisQueue.sweep`, which the API
calls when someone looks at running runs, both look for them.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Protocol

from sqlalchemy import event
from sqlalchemy.orm import Session

from app.api.db import Database
from app.api.jobs.context import JobContext
from app.api.jobs.email import RETRY_DELAYS, send_notification_email
from app.api.jobs.reports import execute_report_run, fail_run
from app.config import Settings

log = logging.getLogger(__name__)

EMBEDDED_WORKERS = 2
"""Threads of the embedded pool: report runs are short and mostly wait on the database."""

RQ_JOB_TIMEOUT = 600
"""Seconds an rq worker lets one report run take."""

HEARTBEAT_LAPSE = 90
"""Seconds after its worker's last heartbeat that rq holds a job abandoned (rq's job monitoring
interval of 30 s plus its 60 s allowance)."""

WORKER_MAINTENANCE = 30
"""Seconds between a worker's looks for jobs abandoned by dead workers (rq's default is 600)."""

SWEEP_EVERY = 15.0
"""The least seconds between two sweeps of one API process."""

QUEUE_DOWN = "the job queue could not take the run ({error}); start it again once it is back"
HORSE_KILLED = "the worker process running it was killed ({detail}); start the run again"
ABANDONED = "the worker running it stopped without finishing; start the run again"


class JobQueue(Protocol):
    """Where report runs go to be executed."""

    def enqueue_report_run(self, run_id: uuid.UUID) -> None:
        """Execute the (committed) run with this id soon; a queue that cannot take it fails
        the run with the reason."""

    def enqueue_notification_email(self, notification_id: uuid.UUID) -> None:
        """Mail the (committed) notification soon, retrying failures with backoff."""

    def unavailable(self) -> str | None:
        """Why the queue cannot take jobs now, or None when it can."""

    def sweep(self) -> None:
        """Fail the runs whose jobs were abandoned by a worker that died."""

    def depth(self) -> int | None:
        """How many jobs wait to start (None when that cannot be known now)."""

    def close(self) -> None:
        """Stop accepting jobs and release resources."""


def enqueue_after_commit(session: Session, queue: JobQueue, run_id: uuid.UUID) -> None:
    """Enqueue the run once `session` commits; nothing happens if it rolls back."""

    def _enqueue(_session: Session) -> None:
        try:
            queue.enqueue_report_run(run_id)
        except Exception:  # the queue already failed the run; a committed create stays a 201
            log.exception("could not enqueue report run %s", run_id)

    event.listen(session, "after_commit", _enqueue, once=True)


def email_after_commit(sessions: Any, queue: JobQueue) -> None:
    """Enqueue the notification emails of every transaction of `sessions` (a sessionmaker)
    once it commits; a rolled-back transaction's notices are forgotten, never mailed."""
    from app.api.services.notifications import PENDING_EMAILS

    def _enqueue(session: Session) -> None:
        for notification_id in session.info.pop(PENDING_EMAILS, ()):
            try:
                queue.enqueue_notification_email(notification_id)
            except Exception:  # the notice is committed and shows in the app; only mail is lost
                log.exception("could not enqueue the email of notification %s", notification_id)

    def _forget(session: Session) -> None:
        session.info.pop(PENDING_EMAILS, None)

    event.listen(sessions, "after_commit", _enqueue)
    event.listen(sessions, "after_rollback", _forget)


class EmbeddedQueue:
    """Runs jobs on a thread pool inside this process, created on the first job."""

    def __init__(self, context: JobContext, workers: int = EMBEDDED_WORKERS,
                 retry_delays: tuple[float, ...] = RETRY_DELAYS) -> None:
        self.context = context
        self.workers = workers
        self.retry_delays = retry_delays
        self._timers: set[threading.Timer] = set()
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._waiting = 0

    def _executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="shiftdesk-job")
            return self._pool

    def enqueue_report_run(self, run_id: uuid.UUID) -> None:
        """Submit the run to the pool."""
        with self._lock:
            self._waiting += 1
        future: Future[Any] = self._executor().submit(self._run, run_id)
        future.add_done_callback(_log_crash)

    def _run(self, run_id: uuid.UUID) -> str | None:
        with self._lock:
            self._waiting -= 1
        return execute_report_run(self.context, run_id)

    def enqueue_notification_email(self, notification_id: uuid.UUID, attempt: int = 0) -> None:
        """Submit the email to the pool (`attempt`: how many sends failed before)."""
        with self._lock:
            self._waiting += 1
        future: Future[Any] = self._executor().submit(self._mail, notification_id, attempt)
        future.add_done_callback(_log_crash)

    def _mail(self, notification_id: uuid.UUID, attempt: int) -> None:
        with self._lock:
            self._waiting -= 1
        try:
            send_notification_email(self.context, notification_id)
        except Exception:
            if attempt >= len(self.retry_delays):
                log.exception("gave up emailing notification %s after %d attempts",
                              notification_id, attempt + 1)
                return
            delay = self.retry_delays[attempt]
            log.warning("emailing notification %s failed; retrying in %s s", notification_id,
                        delay, exc_info=True)
            self._later(delay, notification_id, attempt + 1)

    def _later(self, delay: float, notification_id: uuid.UUID, attempt: int) -> None:
        """Resubmit after `delay` seconds on a timer, not a pool thread asleep."""
        def fire() -> None:
            with self._lock:
                self._timers.discard(timer)
                closed = self._pool is None
            if not closed:
                self.enqueue_notification_email(notification_id, attempt)

        timer = threading.Timer(delay, fire)
        timer.daemon = True
        with self._lock:
            self._timers.add(timer)
        timer.start()

    def depth(self) -> int | None:
        """Jobs submitted to the pool that no thread has started yet."""
        return self._waiting

    def unavailable(self) -> str | None:
        """Never: the pool lives in this process."""
        return None

    def sweep(self) -> None:
        """Nothing to sweep: the pool's jobs live and end in this process."""

    def close(self) -> None:
        """Let running jobs finish; accept no more."""
        with self._lock:
            pool, self._pool = self._pool, None
            timers, self._timers = self._timers, set()
        for timer in timers:
            timer.cancel()
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


def _context() -> JobContext:
    if _WORKER_CONTEXT is None:
        raise RuntimeError("no database bound; start workers with `shiftdesk worker`")
    return _WORKER_CONTEXT


def run_report_job(run_id: str) -> None:
    """The rq job: execute one report run with the context `bind_worker` set."""
    execute_report_run(_context(), uuid.UUID(run_id))


def run_email_job(notification_id: str) -> None:
    """The rq job: mail one notification with the context `bind_worker` set."""
    send_notification_email(_context(), uuid.UUID(notification_id))


def report_job_failed(job: Any, _connection: Any, kind: type[BaseException] | None,
                      value: BaseException | None, _traceback: Any) -> None:
    """rq's failure callback of a report job: fail its run if the job did not (the job fails
    its own run on any error it catches; this is for the ones it could not: abandoned)."""
    reason = ABANDONED if kind is None or kind.__name__ == "AbandonedJobError" else (
        f"{kind.__name__}: {value}"[:2000])
    fail_run(_context().database, uuid.UUID(job.args[0]), reason)


def report_horse_killed(job: Any, _pid: int, status: int, _rusage: Any) -> None:
    """The worker's handler for a work horse that died mid-job (killed, out of memory)."""
    detail = (f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
              else f"exit status {os.WEXITSTATUS(status)}")
    fail_run(_context().database, uuid.UUID(job.args[0]), HORSE_KILLED.format(detail=detail))


class RedisQueue:
    """Puts jobs on an rq queue in Redis; `shiftdesk worker` processes execute them."""

    def __init__(self, redis_url: str, context: JobContext) -> None:
        from redis import Redis
        from rq import Queue

        # Short timeouts: with Redis down, a request learns it in a second, not a minute.
        self.connection = Redis.from_url(redis_url, socket_connect_timeout=1, socket_timeout=5)
        self.queue = Queue(queue_name(context.settings.database_url), connection=self.connection)
        self.database = context.database
        self._swept = 0.0
        bind_worker(context)  # failure callbacks may run here, during a sweep

    def enqueue_report_run(self, run_id: uuid.UUID) -> None:
        """Push the run onto the Redis queue, or fail the run when Redis cannot take it."""
        from redis.exceptions import RedisError
        from rq import Callback

        try:
            self.queue.enqueue(run_report_job, str(run_id), job_timeout=RQ_JOB_TIMEOUT,
                               description=f"report run {run_id}",
                               on_failure=Callback(report_job_failed))
        except RedisError as exc:
            fail_run(self.database, run_id, QUEUE_DOWN.format(error=type(exc).__name__))
            raise

    def enqueue_notification_email(self, notification_id: uuid.UUID) -> None:
        """Push the email onto the Redis queue, retried by the worker's scheduler."""
        from rq import Retry

        self.queue.enqueue(run_email_job, str(notification_id), job_timeout=120,
                           description=f"notification email {notification_id}",
                           retry=Retry(max=len(RETRY_DELAYS), interval=list(RETRY_DELAYS)))

    def unavailable(self) -> str | None:
        """Why Redis cannot take jobs now (its error's name), or None."""
        from redis.exceptions import RedisError

        try:
            self.connection.ping()
        except RedisError as exc:
            return type(exc).__name__
        return None

    def sweep(self) -> None:
        """Let rq find jobs whose worker died (their heartbeat lapsed) and fail their runs;
        at most once every `SWEEP_EVERY` seconds, and never an error for the caller."""
        from redis.exceptions import RedisError
        from rq.registry import StartedJobRegistry

        moment = time.monotonic()
        if moment - self._swept < SWEEP_EVERY:
            return
        self._swept = moment
        try:
            StartedJobRegistry(queue=self.queue).cleanup()
        except RedisError:
            log.warning("could not sweep the job queue for abandoned report runs")

    def depth(self) -> int | None:
        """The rq queue's length, or None with Redis unreachable."""
        from redis.exceptions import RedisError

        try:
            return int(self.queue.count)
        except RedisError:
            return None

    def close(self) -> None:
        """Drop the Redis connection."""
        self.connection.close()


def make_queue(settings: Settings, database: Database) -> JobQueue:
    """The queue these settings ask for: rq with `redis_url`, else the embedded pool."""
    context = JobContext(database, settings)
    if settings.redis_url:
        return RedisQueue(settings.redis_url, context)
    return EmbeddedQueue(context)
