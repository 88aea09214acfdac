"""Generation on an existing Dask cluster: the scheduler's address, checked before a run starts, and its task runner.

The cluster is started by the operator (`dask scheduler` on one machine, `dask worker tcp://HOST:8786` on each of
the others); a run only connects to it. prefect-dask is the optional extra `dask` (`pip install -e '.[dask]'`), so
it is imported only when an address is given. No Prefect import at module level: the settings and the CLI check an
address before Prefect starts.
"""

from __future__ import annotations

import importlib.util
import socket
import urllib.parse
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Any

from starbattle_core.puzzle import InputError

if TYPE_CHECKING:
    from .settings import Settings

# The schemes a `dask scheduler` listens on over a network (Dask's inproc:// only works inside one process).
SCHEMES = ("tcp", "tls")
CONNECT_TIMEOUT = 5.0  # seconds to wait for the scheduler's port before saying nobody answers


def parse_dask_address(text: str) -> tuple[str, int]:
    """(host, port) of a scheduler address `tcp://HOST:PORT`; a ValueError saying what is wrong otherwise."""
    parts = urllib.parse.urlsplit(text.strip())
    if parts.scheme not in SCHEMES:
        raise ValueError(f"Dask scheduler address {text!r}: expected tcp://HOST:PORT (or tls://HOST:PORT)")
    try:
        port = parts.port
    except ValueError:
        port = None
    if not parts.hostname or port is None or parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"Dask scheduler address {text!r}: expected tcp://HOST:PORT (or tls://HOST:PORT)")
    return parts.hostname, port


def check_dask_address(address: str, where: str) -> None:
    """Everything a run on the cluster needs that can be checked before Prefect starts: the address's form, the
    `dask` extra, and a scheduler listening there. An InputError naming `where` (the option or config key)."""
    try:
        host, port = parse_dask_address(address)
    except ValueError as error:
        raise InputError(f"{where}: {error}") from None
    if importlib.util.find_spec("prefect_dask") is None:
        raise InputError(f"{where}: running on a Dask cluster needs the dask extra: pip install -e '.[dask]'")
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


def dask_task_runner(address: str) -> Any:
    """Prefect's Dask task runner, connected to the running scheduler at `address` (it starts no cluster), with
    the settings shipped to the workers as they are (see `_cluster_runner`)."""
    return _cluster_runner()(address=address)


@cache
def _cluster_runner() -> type[Any]:
    """prefect-dask's DaskTaskRunner, less the costs of every task run that flows/submission.py describes (the
    settings shipped as objects, one API client per worker process, the upstream edges collected before
    submission), and one of Dask's own: its `pure=True` default hashes every task's arguments (the task, its batch,
    the configs) for a key that can never repeat, since each Prefect task run has a fresh id; `pure=False` gives it
    a random key instead.

    The rest is prefect-dask's own submission (prefect_dask/client.py), for the sync tasks the flows have.
    """
    from uuid import uuid4

    from distributed import Future
    from prefect_dask import DaskTaskRunner
    from prefect_dask.task_runners import PrefectDaskFuture

    from flows.submission import run_in_worker, shipped_context, upstream_inputs

    class ClusterTaskRunner(DaskTaskRunner):
        def submit(
            self,
            task: Any,
            parameters: dict[str, Any],
            wait_for: Iterable[Any] | None = None,
            dependencies: dict[str, set[Any]] | None = None,
        ) -> Any:
            if task.isasync:
                return super().submit(task, parameters, wait_for, dependencies)
            if not self._started:
                raise RuntimeError("The task runner must be started before submitting work.")
            parameters = self._optimize_futures(parameters)
            task_run_id = uuid4()
            inputs = upstream_inputs(parameters, dependencies, Future)
            assets = {"task": task, "task_run_id": task_run_id, "task_inputs": inputs, "copy_to_child_ctx": True}
            future = self.client.submit(
                run_in_worker,
                task,
                task_run_id=task_run_id,
                parameters=parameters,
                wait_for=self._optimize_futures(wait_for) if wait_for else None,
                dependencies=inputs,
                context=shipped_context(asset_ctx_kwargs=assets),
                pure=False,
            )
            return PrefectDaskFuture(wrapped_future=future, task_run_id=task_run_id)

    return ClusterTaskRunner
