"""Running the pipeline's flows for the CLI: one run in this process (daily, backfill, regrade, enumerate-layouts)
or the served deployments (serve); the third way, a worker on the `starbattle` pool, needs no code here
(prefect.yaml, flows/deployments.py).

Both point Prefect at the project's home first (flows/environment.py) and at the project's server (flows/server.py),
and import Prefect only then: Prefect fixes its settings when first imported.

A run's start is three waits in a row unless they overlap: the Prefect server's start (on a fresh home mostly one
core migrating Prefect's database), this process importing Prefect and the flows, and the process pool's workers
importing Prefect, numpy and the engine for their first stage task. So the imports happen while the server starts,
and a run that generates on the pool (`pool=True`) starts its workers then too: the flow takes that pool
(`take_prestarted_pool`) instead of starting its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import TYPE_CHECKING, Any

from flows.environment import prepare_prefect
from flows.server import prefect_api
from flows.settings import Settings

if TYPE_CHECKING:
    from flows.pool import StoppablePool

# The pool started for this process's run, until its flow takes it (one run at a time per CLI process).
_prestarted: list[StoppablePool] = []


def run_flow(settings: Settings, kind: str, call: Callable[[], Any], *, pool: bool = False) -> Any:
    """The final state of `call()` (a flow called with return_state=True), run tagged `kind` against the
    dashboard's server or one started for the run. `call` imports the flow it runs. `pool`: the run generates on
    the process pool (`pipeline.workers` > 1, no Dask cluster), whose workers start while the server does."""
    prepare_prefect(settings)
    workers = settings.pipeline.workers
    on_pool = pool and workers > 1 and not settings.pipeline.dask_address

    def meanwhile() -> None:
        import flows.daily  # noqa: F401 (Prefect, the flows and the engine: what `call` imports first)

        if on_pool:
            _prestarted.append(_start_pool(workers))

    try:
        with prefect_api(settings, meanwhile=meanwhile):
            from prefect import tags

            with tags(kind):
                return call()
    except BaseException as error:  # a Ctrl-C or SIGTERM ends the workers of a pool the flow never took at once
        _close_prestarted(type(error), error, error.__traceback__)
        raise
    finally:
        _close_prestarted(None, None, None)  # a pool the flow never took (it failed first, or had nothing to do)


def _close_prestarted(*exc: Any) -> None:
    while _prestarted:
        _prestarted.pop().__exit__(*exc)


def _start_pool(workers: int) -> StoppablePool:
    """A started process pool whose `workers` workers are already spawned and importing what a stage task needs."""
    from flows.pool import StoppablePool

    started = StoppablePool(max_workers=workers)
    started.__enter__()
    assert started._executor is not None
    # One call each: the executor spawns a worker for every call it has no idle worker for.
    for _ in range(workers):
        started._executor.submit(_import_generation)
    return started


def _import_generation() -> None:
    """In a new pool worker: import the stage tasks (Prefect, numpy, the engine) before the first one arrives."""
    import flows.tasks  # noqa: F401


def take_prestarted_pool(workers: int) -> AbstractContextManager[StoppablePool] | None:
    """The pool `run_flow` started for this run, as a block that closes it as the flow's own pool would be closed;
    None when there is none of `workers` workers."""
    if not _prestarted or _prestarted[-1]._max_workers != workers:
        return None
    return _closing(_prestarted.pop())


@contextmanager
def _closing(started: StoppablePool) -> Iterator[StoppablePool]:
    try:
        yield started
    except BaseException as error:
        started.__exit__(type(error), error, error.__traceback__)
        raise
    started.__exit__(None, None, None)


def serve(settings: Settings, announce: Callable[[str], None]) -> None:
    """Serve the three deployments until stopped, on the dashboard's server (or one started on `ui_port`); the
    schedule stays active when this process stops, so a restart carries on."""
    prepare_prefect(settings, quiet=False)
    pipeline = settings.pipeline
    with prefect_api(settings, port=pipeline.ui_port) as api:
        from prefect import serve as prefect_serve

        from flows.deployments import served_deployments

        deployments = served_deployments(settings)
        announce(
            f"serving nightly ({pipeline.nightly_cron}, {pipeline.timezone}), backfill and regrade; "
            f"dashboard {api.removesuffix('/api')}\n"
            f"in another shell: export PREFECT_API_URL={api}"
        )
        prefect_serve(*deployments, pause_on_shutdown=False, print_starting_message=False)
