"""A CLI run's start overlaps its waits (flows/runner.py): the pool's workers are spawned, and import what a stage
task needs, while the Prefect server starts; the flow then takes that pool instead of starting its own. The speed
itself is measured by bench/bench_pipeline.py, not here."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

import pytest

import flows.runner as runner

# A spawned worker importing Prefect, numpy and the engine on a loaded 2-core machine: 120 s was once too short (a
# fresh-clone CI at load 10); the bound only catches a worker that never imports them.
IMPORT_SECONDS = 300.0


def _workers() -> list[multiprocessing.process.BaseProcess]:
    return [child for child in multiprocessing.active_children() if "SpawnProcess" in child.name]


def _modules(pid: int) -> str:
    """The files a process has mapped: a worker that imported numpy has its compiled extensions mapped."""
    return Path(f"/proc/{pid}/maps").read_text()


def test_a_prestarted_pool_has_its_workers_before_any_task_and_is_taken_once() -> None:
    started = runner._start_pool(2)
    runner._prestarted.append(started)
    try:
        workers = _workers()
        assert len(workers) == 2  # spawned before any task was submitted
        deadline = time.monotonic() + IMPORT_SECONDS
        while not all("numpy" in _modules(worker.pid or 0) for worker in workers):
            assert time.monotonic() < deadline, "the workers did not import the engine"
            time.sleep(0.2)
        assert runner.take_prestarted_pool(3) is None  # a run with another pool size starts its own
        taken = runner.take_prestarted_pool(2)
        assert taken is not None
        assert runner.take_prestarted_pool(2) is None  # taken once
        with taken as pool:
            assert pool is started
            assert pool._executor is not None
    finally:
        runner._close_prestarted(None, None, None)
    # Closed with the flow's block: its workers end.
    deadline = time.monotonic() + 30
    while any(worker.is_alive() for worker in workers):
        assert time.monotonic() < deadline, "the pool's workers outlived it"
        time.sleep(0.1)
    assert started._executor is None


def test_a_pool_the_flow_never_took_is_closed_with_the_run() -> None:
    runner._prestarted.append(runner._start_pool(2))
    workers = _workers()
    assert len(workers) == 2
    runner._close_prestarted(KeyboardInterrupt, KeyboardInterrupt(), None)
    assert not runner._prestarted
    deadline = time.monotonic() + 30
    while any(worker.is_alive() for worker in workers):
        assert time.monotonic() < deadline, "the pool's workers outlived the run"
        time.sleep(0.1)


def _slots_held(name: str) -> int:
    """In a task run: the active slots of the global concurrency limit `name`, as the server sees them."""
    from prefect import get_client

    with get_client(sync_client=True) as client:
        return int(client.read_global_concurrency_limit_by_name(name).active_slots)


@pytest.mark.usefixtures("prefect_api")
def test_a_worker_takes_slots_of_the_limited_tags_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Prefect asks the server for a slot of every tag of a task run; a pool worker asks only for the tags with a
    limit (flows/submission.py), and those it still takes."""
    from prefect import flow, get_client, task
    from prefect.cache_policies import NO_CACHE
    from prefect.client.schemas.actions import GlobalConcurrencyLimitCreate

    from flows import submission
    from flows.pool import StoppablePool

    with get_client(sync_client=True) as client:
        client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(name="tag:speed-limited", limit=1))
        client.create_global_concurrency_limit(GlobalConcurrencyLimitCreate(name="speed-not-a-tag", limit=1))
        limited = submission.limited_tags(("test",), client)
    assert "tag:speed-limited" in limited and "speed-not-a-tag" not in limited

    @task(cache_policy=NO_CACHE)
    def held(name: str) -> int:
        return _slots_held(name)

    @flow
    def tagged() -> int:
        with StoppablePool(max_workers=1) as runner:
            run = held.with_options(tags=["speed-limited", "speed-free"])
            return int(runner.submit(run, parameters={"name": "tag:speed-limited"}).result())

    assert tagged() == 1  # the limited tag's slot is held while the run runs

    # The names Prefect's own concurrency block gets: all of them outside a worker's run, the limited ones inside.
    asked: list[list[str]] = []
    monkeypatch.setattr(submission, "_prefect_concurrency", lambda names, *_args, **_options: asked.append(names))
    submission._concurrency_of_limited_tags(["tag:a", "tag:b"])
    token = submission._limited.set(frozenset({"tag:b"}))
    try:
        submission._concurrency_of_limited_tags(["tag:a", "tag:b"])
    finally:
        submission._limited.reset(token)
    assert asked == [["tag:a", "tag:b"], ["tag:b"]]
