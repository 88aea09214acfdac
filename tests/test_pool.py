"""The process pool the flows generate on (flows/pool.py), with its real spawned workers and Prefect's initializer
and ours, given plain functions (no Prefect server): a Ctrl-C never reaches anything in a worker, and ending the
workers mid-count leaves neither a worker nor a line on stderr.
"""

from __future__ import annotations

import concurrent.futures
import os
import signal
import time
from pathlib import Path

import pytest

from flows.pool import STOP_SECONDS, StoppablePool, end_workers
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
        assert time.monotonic() - ended < STOP_SECONDS and not worker.is_alive()
        with pytest.raises(concurrent.futures.process.BrokenProcessPool):
            counting.result(timeout=60)
    assert "Traceback" not in capfd.readouterr().err
