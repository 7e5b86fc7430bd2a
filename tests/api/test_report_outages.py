"""Every report run ends, whatever happens to the job queue: Redis down when the run starts, the
worker's job process killed mid-run, the whole worker killed mid-run.

Real Redis and a real `shiftdesk worker` process: the run's row is held locked by the test, so
that the job waits at its last write while the test kills what runs it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from app import create_app
from app.api import models as m
from app.api.jobs.queue import HEARTBEAT_LAPSE, RedisQueue
from tests.api.test_reports_runs import REDIS_URL, RUNS, _redis_reachable, start_run, window
from tests.conftest import Api, make_settings
from tests.factories import DAYS, START

pytestmark = pytest.mark.xdist_group("redis-worker")


def _poll(what: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = what()
        if value:
            return value
        assert time.monotonic() < deadline, "gave up waiting"
        time.sleep(0.1)


def test_run_fails_at_once_with_the_reason_when_redis_is_down(fresh_api, world,
                                                              signing_key_path: Path):
    # Nothing listens on port 1: the queue is unreachable from the start.
    app = create_app(make_settings(fresh_api.db.url, signing_key_path,
                                   redis_url="redis://127.0.0.1:1/0"))
    api = Api(app, world, fresh_api.backend)
    try:
        response = api.post(RUNS, user="admin@example.com", json={
            "reportId": "appointments-by-provider",
            "parameters": window(START, START + timedelta(days=DAYS))})
        assert response.status_code == 201, response.get_json()
        run = response.get_json()
        assert run["status"] == "failed"
        assert "job queue could not take the run" in run["error"]
        assert api.get(f"{RUNS}/{run['id']}").get_json()["status"] == "failed"
    finally:
        app.extensions["shiftdesk"].jobs.close()
        app.extensions["shiftdesk"].db.dispose()


@pytest.fixture
def redis_api(fresh_api, world, signing_key_path: Path) -> Iterator[Api]:
    if not _redis_reachable():
        if os.environ.get("CI"):
            pytest.fail("Redis is not running at 127.0.0.1:6379", pytrace=False)
        pytest.skip("Redis is not running at 127.0.0.1:6379")
    app = create_app(make_settings(fresh_api.db.url, signing_key_path, redis_url=REDIS_URL))
    jobs = app.extensions["shiftdesk"].jobs
    assert isinstance(jobs, RedisQueue)
    jobs.queue.empty()
    yield Api(app, world, fresh_api.backend)
    jobs.queue.empty()
    jobs.close()
    app.extensions["shiftdesk"].db.dispose()


@contextmanager
def _held(api: Api, run_id: str) -> Iterator[Session]:
    """Hold the run's row locked (SQLite: the write lock) until the block ends."""
    with api.db.unit_of_work(write=True) as session:
        session.get(m.ReportRun, uuid.UUID(run_id), with_for_update=True)
        yield session


def _worker(api: Api) -> subprocess.Popen[bytes]:
    env = {**os.environ, "SHIFTDESK_DATABASE_URL": api.db.url,
           "SHIFTDESK_REDIS_URL": REDIS_URL,
           "SHIFTDESK_SIGNING_KEY_PATH": str(api.settings.signing_key_path)}
    return subprocess.Popen([sys.executable, "-m", "app", "worker"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def _horses(pid: int) -> list[int]:
    """The work horses among the children of worker `pid`: rq puts each in a process group of
    its own (the worker's scheduler, also a child, stays in the worker's)."""
    path = Path(f"/proc/{pid}/task/{pid}/children")
    children = [int(p) for p in path.read_text().split()] if path.exists() else []
    return [child for child in children if _process_group(child) == child]


def _process_group(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None  # gone meanwhile
    return int(stat.rsplit(")", 1)[1].split()[2])


def _started(api: Api, run_id: str, worker: subprocess.Popen[bytes]) -> int:
    """Wait until the worker's job process (its work horse) runs the job; answer its pid."""
    from rq.registry import StartedJobRegistry

    queue = api.app.extensions["shiftdesk"].jobs.queue
    registry = StartedJobRegistry(queue=queue)
    _poll(lambda: registry.count > 0 and queue.count == 0)
    [horse] = _poll(lambda: _horses(worker.pid))
    time.sleep(0.5)  # the horse reaches its last write, where the held row stops it
    return horse


def _start(api: Api) -> str:
    run = start_run(api, "appointments-by-provider",
                    window(START, START + timedelta(days=DAYS)))
    assert run["status"] == "running"
    return str(run["id"])


def test_run_fails_when_the_workers_job_process_is_killed(redis_api: Api):
    run_id = _start(redis_api)
    worker = _worker(redis_api)
    try:
        with _held(redis_api, run_id):
            horse = _started(redis_api, run_id, worker)
            os.kill(horse, signal.SIGKILL)
        done = _poll(lambda: (r := redis_api.get(f"{RUNS}/{run_id}").get_json())["status"]
                     != "running" and r)
        assert done["status"] == "failed"
        assert "was killed (signal 9)" in done["error"]
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)


def test_run_fails_once_rq_finds_the_job_of_a_dead_worker_abandoned(redis_api: Api):
    from rq.registry import StartedJobRegistry

    run_id = _start(redis_api)
    worker = _worker(redis_api)
    try:
        with _held(redis_api, run_id):
            horse = _started(redis_api, run_id, worker)
            for pid in (worker.pid, horse):  # the worker and its job process (own session)
                os.kill(pid, signal.SIGKILL)
            worker.wait(timeout=30)
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
    registry = StartedJobRegistry(queue=redis_api.app.extensions["shiftdesk"].jobs.queue)
    registry.cleanup()  # now: the dead worker's heartbeat has not lapsed yet
    assert redis_api.get(f"{RUNS}/{run_id}").get_json()["status"] == "running"

    # What any worker's maintenance (or the API's sweep) does once the heartbeat has lapsed.
    registry.cleanup(timestamp=time.time() + HEARTBEAT_LAPSE + 1)

    done = redis_api.get(f"{RUNS}/{run_id}").get_json()
    assert done["status"] == "failed"
    assert "stopped without finishing" in done["error"]
