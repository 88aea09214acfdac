"""The process pool the flows generate on, made stoppable: Ctrl-C and SIGTERM are the parent's business.

A terminal's Ctrl-C reaches the whole foreground job, the pool's workers too, and each worker used to print its own
KeyboardInterrupt traceback; and Prefect's runner, leaving its block, waits for the stage tasks still running, which
kept a stopped `daily` going for minutes. So the workers ignore SIGINT and block it (the CLI in the parent handles
it), and a block left by an interrupt or SIGTERM (a KeyboardInterrupt from the CLI's handler, a SystemExit) ends the
workers before Prefect shuts the pool down. The work they drop was never written: boards are published in the
parent, each in its own transaction (flows/daily.py), so the next run generates them again.

Ignoring SIGINT is not enough: the counter's SAT solver (python-sat, starbattle_core/sat_counter.py) installs its own
C handler for SIGINT for the length of every solve on the main thread, whatever the disposition before, and a Ctrl-C
landing then raised `pysolvers.error('Caught keyboard interrupt')` inside `count_solutions`: the stage task failed
and its traceback reached the terminal (about 1 Ctrl-C of `daily` in 13), and the handler, left installed, crashed
the worker at the next SIGINT (a BrokenProcessPool, or `double free or corruption`). A blocked signal reaches no
handler, and a worker's threads inherit the block from the initializer, which runs before any of them starts
(`python bench/stop_stress.py`, README).

A task run goes to a worker the way flows/submission.py ships it to a Dask worker too: the settings as objects,
one API client per worker process, its upstream edges collected before Prefect resolves the futures. Prefect's
per-task environment (the flow's settings as variables, set in the worker for the task run) is kept.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import signal
import threading
from collections.abc import Iterable
from typing import Any, cast
from uuid import UUID

from prefect.engine import handle_engine_signals
from prefect.events.worker import EventsWorker
from prefect.futures import PrefectFuture, wait
from prefect.logging import get_logger
from prefect.task_runners import ProcessPoolTaskRunner
from prefect.utilities.callables import cloudpickle_wrapped_call
from prefect.utilities.engine import resolve_inputs_sync

from flows.submission import run_in_worker, upstream_inputs, with_shipped_settings
from flows.watchdog import FunnelStalled

STOP_SECONDS = 5.0  # a worker given SIGTERM that has not ended by then is killed


def ignore_interrupts() -> None:
    """Run in each worker when it starts: a Ctrl-C is for the parent alone, and no library's handler sees it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})


class StoppablePool(ProcessPoolTaskRunner):
    """Prefect's process pool whose workers ignore Ctrl-C and end at once when the run is stopped."""

    def __init__(self, max_workers: int | None = None, **options: Any) -> None:
        super().__init__(max_workers=max_workers, initializer=ignore_interrupts, **options)
        self._workers_ended = False

    def submit(
        self,
        task: Any,
        parameters: dict[str, Any],
        wait_for: Iterable[PrefectFuture[Any]] | None = None,
        dependencies: dict[str, set[Any]] | None = None,
    ) -> Any:
        if task.isasync:
            return super().submit(task, parameters, wait_for, dependencies)
        # Prefect's submission, with the edges taken while the parameters still hold their futures, and the context it
        # serialises for the worker carrying the settings as objects.
        inputs = upstream_inputs(parameters, dependencies, PrefectFuture)
        return with_shipped_settings(super().submit, task, parameters, wait_for, inputs)

    def _resolve_futures_and_submit(
        self,
        task: Any,
        task_run_id: UUID,
        parameters: dict[str, Any],
        wait_for: Iterable[PrefectFuture[Any]] | None,
        dependencies: dict[str, set[Any]] | None,
        context: dict[str, Any],
        env: dict[str, str],
    ) -> concurrent.futures.Future[bytes]:
        """On one of Prefect's resolver threads: wait for the upstream runs, resolve the futures among the
        parameters to their values, and send the run to a worker: Prefect's own steps, to `run_in_pool_worker`."""
        if task.isasync:
            return super()._resolve_futures_and_submit(
                task, task_run_id, parameters, wait_for, dependencies, context, env
            )
        assert self._executor is not None
        upstream = list(wait_for or ())
        wait(upstream)
        call = cloudpickle_wrapped_call(
            run_in_pool_worker,
            task,
            env=env,
            task_run_id=task_run_id,
            parameters=resolve_inputs_sync(parameters, return_data=True, max_depth=-1),
            wait_for=[future.state for future in upstream] or None,
            dependencies=dependencies,
            context=context,
        )
        return self._executor.submit(call)

    def stalled(self) -> str | None:
        """Why none of the task runs submitted can finish any more, or None (for flows/watchdog.py): the thread
        that hands the workers' results back has ended, or one of the threads that send runs to the workers."""
        executor, resolvers = self._executor, self._resolver_executor
        if executor is None or resolvers is None:
            return "the process pool is shut down"
        manager = cast(threading.Thread | None, executor._executor_manager_thread)  # typeshed says _ThreadWakeup
        # Not started yet (ident None) is not ended: the pool sets the thread before it starts it, its work first.
        if (
            manager is not None
            and manager.ident is not None
            and not manager.is_alive()
            and executor._pending_work_items
        ):
            return "the process pool's manager thread has ended"
        if any(not thread.is_alive() for thread in resolvers._threads):
            return "a thread of the process pool's resolver has ended"
        return None

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        # A stalled funnel too: a worker may be stuck in its task, and Prefect's shutdown would wait for it for ever.
        if exc_type is not None and (not issubclass(exc_type, Exception) or issubclass(exc_type, FunnelStalled)):
            end_workers()
            self._workers_ended = True
        try:
            super().__exit__(exc_type, exc_value, traceback)
        finally:
            self._workers_ended = False

    def _stop_message_forwarding(self) -> None:
        """Prefect's, unless the workers were ended: then the thread that forwards their events and logs is left
        waiting (a daemon thread, gone with the process). A worker ended while writing to their queue holds its
        lock for ever and may leave half a message: Prefect's shutdown sentinel then never reached the thread
        (after 5 s it warned, an extra line on the terminal), and the thread writing the sentinel held up the
        process's exit for ever (a `daily` stopped by Ctrl-C that printed its line and never ended)."""
        if not self._workers_ended:
            super()._stop_message_forwarding()
            return
        self._subprocess_message_queue = None
        self._message_forwarding_thread = None


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


class PoolWorkerExit(RuntimeError):
    """Prefect's task engine in a pool worker asked to end the process: the task run is over, without a state."""


def run_in_pool_worker(task: Any, *, env: dict[str, str], **run: Any) -> Any:
    """In a pool worker: one task run (its final state) with the flow's environment set for its length, as Prefect's
    own worker function does, then the run's events flushed to the parent before the result goes back.

    Prefect's `handle_engine_signals` ends the process when its task engine fails (`exit(1)`, after logging the error)
    or has already settled the run (`exit(0)`). In a pool worker that SystemExit only goes back to the parent as the
    call's exception, and Prefect's chained future there passes on an Exception alone: the SystemExit escaped the
    pool's manager thread, which ended, and no task run's end reached the funnel again (it waited for ever). So it
    goes back as an ordinary error, which fails the run that waits for it."""
    outside = os.environ.copy()
    os.environ.update(env)
    try:
        with handle_engine_signals(run["task_run_id"]):
            state = run_in_worker(task, **run)
            try:
                # Every task run emits its state events; they reach the parent through the pool's queue.
                EventsWorker.instance().wait_until_empty()
            except Exception:  # a lost event is not worth the run: Prefect's own worker function does the same
                get_logger("task_runner").debug("could not flush the worker's events to the parent", exc_info=True)
            return state
    except SystemExit as ended:
        name = getattr(task, "name", "a task")
        raise PoolWorkerExit(
            f"Prefect's task engine ended {name}'s run in pool worker {os.getpid()} with exit({ended.code}) "
            "(its error is in the run's log)"
        ) from None
    finally:
        os.environ.clear()
        os.environ.update(outside)
