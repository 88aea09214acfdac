"""The process pool the flows generate on (flows/pool.py), with its real spawned workers and Prefect's initializer
and ours, given plain functions (no Prefect server): a Ctrl-C never reaches anything in a worker, ending the workers
mid-count leaves neither a worker nor a line on stderr, a task engine that exits in a worker still hands its task's
end back to the parent, and a pool that can no longer finish anything says so (for flows/watchdog.py) and is ended
at once.
"""

from __future__ import annotations

import concurrent.futures
import functools
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any, cast

import pytest
from prefect.futures import PrefectConcurrentFuture
from prefect.task_runners import _ChainedFuture, _UnpicklingFuture
from prefect.utilities.callables import cloudpickle_wrapped_call

from flows.pool import STOP_SECONDS, PoolWorkerExit, StoppablePool, end_workers, run_in_pool_worker
from flows.watchdog import FunnelStalled
from starbattle_core import count_solutions
from starbattle_core.formats import puzzle_from_json

START_SECONDS = 120  # a spawned worker imports Prefect before its first call: slow on a loaded machine
LETTERS = "ABCDEFGHIJKLMN"


def count_until(ready: str, stop: str) -> int:
    """In a worker: count a 14x14 3-star board with a region per row (many solutions: the SAT solver finds them,
    some 80% of the time inside its solve) until the file `stop` exists; say so in `ready` first. The counts made."""
    board = puzzle_from_json({"size": 14, "stars": 3, "regions": [letter * 14 for letter in LETTERS]})
    Path(ready).touch()
    counts = 0
    while not os.path.exists(stop):
        count_solutions(board, limit=200)
        counts += 1
    return counts


def hold_the_message_queue(ready: str) -> None:
    """In a worker: take the lock of the queue that carries the workers' events and logs to the parent, as a worker
    killed halfway through writing an event holds it for ever, and wait."""
    from prefect.logging import handlers

    sink = handlers._api_log_sink
    assert isinstance(sink, functools.partial)
    sink.args[0]._wlock.acquire()
    Path(ready).touch()
    time.sleep(3600)


def sigint_blocked_in_every_thread() -> bool:
    """In a worker: whether each of its threads (Prefect's event and log threads among them) blocks SIGINT."""
    threads = Path("/proc/self/task").iterdir()
    masks = [
        next(line for line in (task / "status").read_text().splitlines() if line.startswith("SigBlk"))
        for task in threads
    ]
    return all(int(mask.split()[1], 16) >> (signal.SIGINT - 1) & 1 for mask in masks)


def _wait_for(path: Path, future: concurrent.futures.Future[int]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while not path.exists():
        assert not future.done(), future.result()
        assert time.monotonic() < deadline, f"the worker did not start counting in {START_SECONDS} s"
        time.sleep(0.05)


def _gone(pid: int | None) -> bool:
    """Whether the process has ended, read from /proc: `Process.is_alive()` says True for ever of a child that
    something else in this test process reaped first (its waitpid then fails with ECHILD), which showed twice."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def _executor(pool: StoppablePool) -> concurrent.futures.ProcessPoolExecutor:
    assert pool._executor is not None
    return pool._executor


def test_a_ctrl_c_never_reaches_a_worker_s_count_and_ending_the_workers_leaves_nothing(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    with StoppablePool(max_workers=1) as pool:
        ready, stop = tmp_path / "ready", tmp_path / "stop"
        counting = _executor(pool).submit(count_until, str(ready), str(stop))
        _wait_for(ready, counting)
        [worker] = _executor(pool)._processes.values()
        # What a terminal's Ctrl-C does to the worker, 20 times over a second: each lands inside a solve 4 times in 5.
        for _ in range(20):
            os.kill(worker.pid or 0, signal.SIGINT)
            time.sleep(0.05)
        stop.touch()
        assert counting.result(timeout=60) > 0  # before: pysolvers.error('Caught keyboard interrupt')
        assert _executor(pool).submit(sigint_blocked_in_every_thread).result(timeout=60)

        # The stop: the workers end at once, mid-count, and print nothing.
        ready.unlink()
        stop.unlink()
        counting = _executor(pool).submit(count_until, str(ready), str(stop))
        _wait_for(ready, counting)
        ended = time.monotonic()
        end_workers()
        assert time.monotonic() - ended < STOP_SECONDS and _gone(worker.pid), multiprocessing.active_children()
        with pytest.raises(concurrent.futures.process.BrokenProcessPool):
            counting.result(timeout=60)
    assert "Traceback" not in capfd.readouterr().err


def _delivered(process_future: concurrent.futures.Future[bytes]) -> tuple[threading.Event, PrefectConcurrentFuture]:
    """Prefect's future for a process-pool task run whose call is `process_future` (the chain its
    ProcessPoolTaskRunner.submit builds), and an event set when the future's completion reaches its callback."""
    resolution: concurrent.futures.Future[concurrent.futures.Future[bytes]] = concurrent.futures.Future()
    future: PrefectConcurrentFuture = PrefectConcurrentFuture(
        task_run_id=uuid.uuid4(), wrapped_future=_UnpicklingFuture(_ChainedFuture(resolution))
    )
    delivered = threading.Event()
    future.add_done_callback(lambda _: delivered.set())
    resolution.set_result(process_future)
    return delivered, future


def test_a_task_engine_that_exits_in_a_worker_still_hands_the_task_s_end_back(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Prefect's `handle_engine_signals` ends the process (`exit(1)`) when its task engine fails, here a run with no
    context; as the call's exception a SystemExit escaped the pool's manager thread, which died, and no task run's
    end reached the funnel again (a hang under load)."""
    with StoppablePool(max_workers=1) as pool:
        call = cloudpickle_wrapped_call(run_in_pool_worker, None, env={}, task_run_id=uuid.uuid4(), context={})
        delivered, future = _delivered(_executor(pool).submit(call))
        assert delivered.wait(START_SECONDS), "the task run's end never reached its future's callback"
        with pytest.raises(PoolWorkerExit, match="exit"):
            future.result(timeout=1)
        # The pool goes on: its manager thread is alive and the worker takes the next call.
        ready, stop = tmp_path / "ready", tmp_path / "stop"
        stop.touch()
        assert _executor(pool).submit(count_until, str(ready), str(stop)).result(timeout=60) == 0
    capfd.readouterr()  # the engine's own error log (its traceback) is the worker's to print


# The manager thread's end is the point: pytest reports the SystemExit that ended it.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_pool_whose_manager_thread_ended_says_it_can_no_longer_finish_anything() -> None:
    with StoppablePool(max_workers=1) as pool:
        assert pool.stalled() is None
        # A bare SystemExit as the call's exception, as Prefect's engine gave before run_in_pool_worker turned it into
        # an error: it escapes the manager thread through Prefect's future chain, and the thread ends.
        delivered, _ = _delivered(_executor(pool).submit(sys.exit, 3))
        manager = cast(threading.Thread, _executor(pool)._executor_manager_thread)
        manager.join(START_SECONDS)
        assert not manager.is_alive() and not delivered.is_set()
        _executor(pool).submit(sigint_blocked_in_every_thread)  # never handed back: nothing is left to do it
        assert pool.stalled() == "the process pool's manager thread has ended"
        end_workers()


def test_a_pool_whose_manager_thread_is_about_to_start_is_not_stalled() -> None:
    """The first submission records its work, then sets the manager thread, then starts it: a look in between
    saw an ended thread (a run under load failed 7 s in)."""
    with StoppablePool(max_workers=1) as pool:
        executor = _executor(pool)
        executor._pending_work_items[0] = cast(Any, None)
        executor._executor_manager_thread = cast(Any, threading.Thread(target=lambda: None))
        try:
            assert pool.stalled() is None
        finally:
            del executor._pending_work_items[0]
            executor._executor_manager_thread = None


def _stall_at_work(ready: Path, never: Path, workers: list[Any]) -> None:
    with StoppablePool(max_workers=1) as pool:
        counting = _executor(pool).submit(count_until, str(ready), str(never))
        _wait_for(ready, counting)
        workers.extend(_executor(pool)._processes.values())
        raise FunnelStalled("a stage task that never ends")


def test_a_stalled_funnel_ends_the_workers_instead_of_waiting_for_their_tasks(tmp_path: Path) -> None:
    """Prefect's pool, left by an error, waits for the task runs still running: for ever, for a stuck one."""
    workers: list[Any] = []
    with pytest.raises(FunnelStalled):
        _stall_at_work(tmp_path / "ready", tmp_path / "never", workers)
    [worker] = workers
    worker.join(STOP_SECONDS)
    assert _gone(worker.pid)


STOPPED_WHILE_A_WORKER_WRITES = """
import sys, tempfile, time
from pathlib import Path
sys.path.insert(0, {tests!r})
from test_pool import _executor, _wait_for, hold_the_message_queue
from flows.pool import StoppablePool

def main():
    ready = Path(tempfile.mkdtemp()) / "ready"
    try:
        with StoppablePool(max_workers=1) as pool:
            _wait_for(ready, _executor(pool).submit(hold_the_message_queue, str(ready)))
            stopped = time.monotonic()
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        print(f"{{time.monotonic() - stopped:.1f}}", flush=True)

if __name__ == "__main__":
    main()
"""


def test_a_worker_ended_while_writing_to_the_message_queue_holds_up_neither_the_stop_nor_the_exit() -> None:
    """In a process of its own, as the CLI: the stop, then the process's exit."""
    script = STOPPED_WHILE_A_WORKER_WRITES.format(tests=str(Path(__file__).parent))
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=START_SECONDS, check=False
    )
    assert done.returncode == 0 and float(done.stdout) < STOP_SECONDS, (done.stdout, done.stderr)
    assert "Timed out waiting" not in done.stderr, done.stderr
