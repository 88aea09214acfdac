"""The process pool the flows generate on, made stoppable: Ctrl-C and SIGTERM are the parent's business.

A terminal's Ctrl-C reaches the whole foreground job, the pool's workers too, and each worker used to print its own
KeyboardInterrupt traceback; and Prefect's runner, leaving its block, waits for the stage tasks still running, which
kept a stopped `daily` going for minutes. So the workers ignore SIGINT (the CLI in the parent handles it), and a
block left by an interrupt or SIGTERM (a KeyboardInterrupt from the CLI's handler, a SystemExit) ends the workers
before Prefect shuts the pool down. The work they drop was never written: boards are published in the parent, each
in its own transaction (flows/daily.py), so the next run generates them again.
"""

from __future__ import annotations

import multiprocessing
import signal
from typing import Any

from prefect.task_runners import ProcessPoolTaskRunner

STOP_SECONDS = 5.0  # a worker given SIGTERM that has not ended by then is killed


def ignore_interrupts() -> None:
    """Run in each worker when it starts: a Ctrl-C is for the parent alone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class StoppablePool(ProcessPoolTaskRunner):
    """Prefect's process pool whose workers ignore Ctrl-C and end at once when the run is stopped."""

    def __init__(self, max_workers: int | None = None, **options: Any) -> None:
        super().__init__(max_workers=max_workers, initializer=ignore_interrupts, **options)

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        if exc_type is not None and not issubclass(exc_type, Exception):
            end_workers()
        super().__exit__(exc_type, exc_value, traceback)


def end_workers() -> None:
    """End the pool's workers: this process's multiprocessing children (a flow run's process has one pool at a
    time, and the Prefect server is a plain subprocess, not among them)."""
    workers = multiprocessing.active_children()
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(STOP_SECONDS)
        if worker.is_alive():
            worker.kill()
            worker.join()
