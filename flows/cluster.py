"""Where generation runs: the task runner of a run, from its config, and the checks of a cluster address.

- one worker (`pipeline.workers: 1`): Prefect's thread pool of one thread, in the flow's own process;
- more: prefect-dask's `DaskTaskRunner` on a local Dask cluster of that many worker processes, one thread each;
- a Dask scheduler's address (`pipeline.dask_address`, `--dask tcp://HOST:PORT`): the same runner connected to that
  cluster, which the operator started (`dask scheduler` on one machine, `dask worker tcp://HOST:8786` on the others).
So a local run and a cluster run are one code path. The workers run each task on a thread that is not their main
thread, so the counter's SAT solver never installs its SIGINT handler there (python-sat does so only on the main
thread), and a local cluster's worker processes end with the run, or with its process if that is killed.

A terminal's Ctrl-C reaches every process of the foreground job, a local cluster's workers too, and each worker
printed its KeyboardInterrupt's traceback. So a local cluster starts with SIGINT ignored (`started`): its workers
inherit that, and the run's own process takes the Ctrl-C and closes the cluster. For the second or two that its
workers take to start, this process ignores a Ctrl-C too (a SIGTERM still stops it). Its workers do not log the
scheduler's closing either (flows/worker_logs.py).

No Prefect import at module level: the CLI checks an address before Prefect starts.
"""

from __future__ import annotations

import signal
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flows.settings import PipelineConfig, Settings, parse_dask_address
from starbattle_core.puzzle import InputError

CONNECT_TIMEOUT = 5.0  # seconds to wait for the scheduler's port before saying nobody answers


def check_dask_address(address: str, where: str) -> None:
    """Everything a run on the cluster needs that can be checked before Prefect starts: the address's form and a
    scheduler listening there. An InputError naming `where` (the option or config key)."""
    try:
        host, port = parse_dask_address(address)
    except ValueError as error:
        raise InputError(f"{where}: {error}") from None
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT):
            pass
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise InputError(f"{where}: no Dask scheduler answers at {address} ({reason})") from None


def on_cluster(settings: Settings, address: str | None) -> Settings:
    """The settings with the run's `--dask` address in place of the config's (unchanged when None)."""
    if not address:
        return settings
    parse_dask_address(address)
    return settings.model_copy(update={"pipeline": settings.pipeline.model_copy(update={"dask_address": address})})


def generation_runner(pipeline: PipelineConfig) -> Any:
    """The task runner the stage tasks run on (see the module docstring); a block opens it and closes it, a local
    cluster's processes with it."""
    from prefect.task_runners import ThreadPoolTaskRunner
    from prefect_dask import DaskTaskRunner

    if pipeline.dask_address:
        return DaskTaskRunner(address=pipeline.dask_address)
    if pipeline.workers > 1:
        # Processes, one thread each: the engine is pure Python, so threads of one process would share one core.
        # Its dashboard on a free loopback port: Dask's default port, 8787, may be another cluster's.
        cluster = {"n_workers": pipeline.workers, "threads_per_worker": 1, "processes": True}
        return DaskTaskRunner(cluster_kwargs={**cluster, "dashboard_address": "127.0.0.1:0"})
    return ThreadPoolTaskRunner(max_workers=1)


@contextmanager
def started(pipeline: PipelineConfig) -> Iterator[Any]:
    """The run's task runner, open for the block: a local cluster's workers start with SIGINT ignored (see the
    module docstring); closed on the way out, whatever ends the block."""
    runner = generation_runner(pipeline)
    runner.__enter__()
    try:
        local = pipeline.workers > 1 and not pipeline.dask_address
        if local and threading.current_thread() is threading.main_thread():
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
            try:
                runner.client  # noqa: B018 (prefect-dask starts its cluster, and so the workers, on first use)
            finally:
                signal.signal(signal.SIGINT, previous)
        if local:
            from flows.worker_logs import QuietAboutLostScheduler

            runner.client.register_plugin(QuietAboutLostScheduler())
        yield runner
    except BaseException as error:
        runner.__exit__(type(error), error, error.__traceback__)
        raise
    runner.__exit__(None, None, None)


def runner_chunks(runner: Any, pipeline: PipelineConfig) -> int:
    """How many chunks a round is dealt into: one per thread the runner runs tasks on (a cluster's, counted when
    the run starts)."""
    if pipeline.dask_address:
        return max(1, sum(runner.client.nthreads().values()))
    return pipeline.workers
