"""A funnel never waits for ever (flows/watchdog.py): stage tasks that never end fail the run within its bound, a
task runner that says it can no longer finish anything fails it at once, and a task run whose end was never
delivered is taken all the same, giving the boards the normal path gives.

In-process and fast: the flow's own `_run_funnel` on stand-in task runners (no Prefect server), the stage tasks'
functions run at once in this thread on the real engine.
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from concurrent.futures import Future
from typing import Any

import pytest
from prefect.futures import PrefectConcurrentFuture

from flows.daily import _run_funnel
from flows.policy import SlotWork, start_work
from flows.settings import PipelineConfig, Settings, SlotConfig
from flows.watchdog import STALL_FACTOR, FunnelStalled
from starbattle_core.generator.run import SEARCHING

DAY = dt.date(2026, 12, 1)


def _works(budget_seconds: float) -> tuple[Settings, list[SlotWork]]:
    slots = [
        SlotConfig(name="starbattle-6", game="starbattle", size=6, stars=1, band="easy"),
        SlotConfig(name="queens-7", game="queens", size=7, stars=1, band="easy"),
    ]
    settings = Settings(pipeline=PipelineConfig(slots=slots, budget_seconds=budget_seconds))
    return settings, [start_work(settings.pipeline, DAY, i, slot, 0, ()) for i, slot in enumerate(slots)]


def _settle(works: list[SlotWork]) -> Any:
    """The flow's `publish`, reduced to what the funnel needs: a search that ended is done for the run."""

    def publish() -> None:
        for work in works:
            if work.final is None and work.search.status != SEARCHING:
                work.final = work.search.status

    return publish


def _prefect_future(future: Future[Any]) -> PrefectConcurrentFuture[Any]:
    """What the process pool's `submit` gives: Prefect's future around a concurrent one."""
    return PrefectConcurrentFuture(task_run_id=uuid.uuid4(), wrapped_future=future)


class NeverDone:
    """Takes every submission and never finishes one (a lost worker, a pool with no thread left)."""

    def __init__(self, stalled: str | None = None) -> None:
        self.reason = stalled
        self.submitted = 0

    def submit(self, _task: Any, parameters: dict[str, Any]) -> PrefectConcurrentFuture[Any]:  # noqa: ARG002
        self.submitted += 1
        return _prefect_future(Future())

    def stalled(self) -> str | None:
        return self.reason


class LostCallback(Future[Any]):
    """A future whose done-callbacks are dropped: its end is never delivered."""

    def add_done_callback(self, fn: Any) -> None:
        pass


class AtOnce:
    """Runs each stage task's function at once, in this thread, on its batch (an upstream future's result); with
    `lose`, the futures never deliver their ends."""

    def __init__(self, lose: bool) -> None:
        self.lose = lose

    def submit(self, task: Any, parameters: dict[str, Any]) -> PrefectConcurrentFuture[Any]:
        batch = parameters["batch"]
        future: Future[Any] = LostCallback() if self.lose else Future()
        upstream = batch.result() if isinstance(batch, PrefectConcurrentFuture) else batch
        future.set_result(task.fn(**{**parameters, "batch": upstream}))
        return _prefect_future(future)


def test_stage_tasks_that_never_end_fail_the_funnel_within_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("flows.watchdog.STALL_FLOOR_SECONDS", 0.0)  # the floor (minutes) is for loaded machines
    settings, works = _works(budget_seconds=0.5)
    runner = NeverDone()
    started = time.monotonic()
    with pytest.raises(FunnelStalled) as stalled:
        _run_funnel(settings, runner, works, _settle(works))
    took = time.monotonic() - started
    bound = STALL_FACTOR * 0.5
    assert bound <= took < bound + 5.0  # loose above: a loaded machine delays this thread
    assert str(stalled.value) == (
        f"no stage task finished in {bound:g} s; waiting for "
        "2026-12-01 queens-7 sample_layouts, 2026-12-01 starbattle-6 sample_layouts"
    )
    assert runner.submitted == 2 and all(work.final is None for work in works)


def test_a_runner_that_can_no_longer_finish_anything_fails_the_funnel_at_once() -> None:
    settings, works = _works(budget_seconds=3600)
    started = time.monotonic()
    with pytest.raises(FunnelStalled, match=r"^the process pool's manager thread has ended; waiting for 2026-12-01"):
        _run_funnel(settings, NeverDone(stalled="the process pool's manager thread has ended"), works, _settle(works))
    assert time.monotonic() - started < 5.0


def _boards(works: list[SlotWork]) -> list[tuple[object, ...]]:
    boards = []
    for work in works:
        board = work.search.board
        assert work.final == "accepted" and board is not None
        boards.append((work.slot.name, board.puzzle.regions, board.puzzle.solution, board.difficulty))
    return boards


def test_task_runs_whose_ends_were_never_delivered_are_taken_and_give_the_normal_path_s_boards() -> None:
    settings, delivered = _works(budget_seconds=3600)
    _run_funnel(settings, AtOnce(lose=False), delivered, _settle(delivered))
    settings, lost = _works(budget_seconds=3600)
    _run_funnel(settings, AtOnce(lose=True), lost, _settle(lost))
    assert _boards(lost) == _boards(delivered)
    assert [work.search.tried for work in lost] == [work.search.tried for work in delivered]
