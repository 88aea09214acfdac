"""Generation on an existing Dask cluster: the scheduler's address, checked before a run starts, and its task runner.

The cluster is started by the operator (`dask scheduler` on one machine, `dask worker tcp://HOST:8786` on each of
the others); a run only connects to it. prefect-dask is the optional extra `dask` (`pip install -e '.[dask]'`), so
it is imported only when an address is given. No Prefect import at module level: the settings and the CLI check an
address before Prefect starts.
"""

from __future__ import annotations

import contextvars
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
    """prefect-dask's DaskTaskRunner, less three costs of every task run it submits (bench/bench_scale.py measures
    both runners side by side; the profile is in the README).

    - Prefect's settings travel with each task run. prefect-dask serialises them for every submission
      (`SettingsContext.serialize`: a walk of some 50 nested settings models, most of the flow process's time
      per task), and the worker rebuilds them from that dict (pydantic-settings reading the environment, .env
      files and profiles again for each of those models). Here the settings go as the objects themselves,
      pickled as they are: the same values, and the worker takes them without rebuilding. (Prefect turns paths
      into strings for a worker on another platform; the workers here are the same Python on the same platform,
      as the README asks.)
    - Each task run on a worker opened two new Prefect API clients, each loading the CA bundle into a fresh SSL
      context (slow under OpenSSL 3: python/cpython#95031; PrefectHQ/prefect#19106 asks to share one). Here a
      worker process keeps one client per API (`run_on_worker`).
    - Dask's `pure=True` default hashes every task's arguments (the task, its batch, the configs) for a key that
      can never repeat, since each Prefect task run has a fresh id: `pure=False` gives it a random key instead.

    The rest is prefect-dask's own submission (prefect_dask/client.py), for the sync tasks the flows have.
    """
    from uuid import uuid4

    from distributed import Future
    from prefect.context import SettingsContext, get_settings_context, serialize_context
    from prefect.utilities.engine import collect_task_run_inputs_sync
    from prefect_dask import DaskTaskRunner
    from prefect_dask.task_runners import PrefectDaskFuture

    class ShippedSettings(SettingsContext):
        def serialize(self, include_secrets: bool = True) -> dict[str, Any]:  # noqa: ARG002 (they go as they are)
            return {"profile": self.profile, "settings": self.settings}

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
            # The inputs Prefect records for the run (its lineage on the dashboard), as prefect-dask collects them.
            inputs = {name: collect_task_run_inputs_sync(value, Future) for name, value in parameters.items()}
            inputs = {name: found | (dependencies or {}).get(name, set()) for name, found in inputs.items()}
            current = get_settings_context()
            shipped = ShippedSettings(profile=current.profile, settings=current.settings)

            def context_with_shipped_settings() -> dict[str, Any]:
                # Only in this copy of the context: the flow's own settings context stays Prefect's.
                SettingsContext.__var__.set(shipped)
                assets = {"task": task, "task_run_id": task_run_id, "task_inputs": inputs, "copy_to_child_ctx": True}
                return serialize_context(asset_ctx_kwargs=assets)

            future = self.client.submit(
                run_on_worker,
                task,
                task_run_id=task_run_id,
                parameters=parameters,
                wait_for=self._optimize_futures(wait_for) if wait_for else None,
                dependencies=inputs,
                context=contextvars.copy_context().run(context_with_shipped_settings),
                pure=False,
            )
            return PrefectDaskFuture(wrapped_future=future, task_run_id=task_run_id)

    return ClusterTaskRunner


# A worker process's Prefect API clients, one per API (its URL and credentials), open for the process's life.
_worker_clients: dict[tuple[str | None, ...], Any] = {}


def run_on_worker(task: Any, *, context: dict[str, Any], **run: Any) -> Any:
    """On a Dask worker: one Prefect task run (its final state), through this process's client of the flow's API."""
    from prefect.context import SettingsContext, SyncClientContext
    from prefect.task_engine import run_task_sync

    shipped = context["settings_context"]
    api = shipped["settings"].api
    secrets = (api.key, api.auth_string)
    key = (api.url, *(secret.get_secret_value() if secret else None for secret in secrets))
    if key not in _worker_clients:
        with SettingsContext(**shipped):
            clients = SyncClientContext()
            clients.__enter__()  # never left: the client stays open while the worker lives
        _worker_clients[key] = clients
    # Prefect's task engine takes the client of the current client context instead of opening its own.
    token = SyncClientContext.__var__.set(_worker_clients[key])
    try:
        return run_task_sync(task, context=context, return_type="state", **run)
    finally:
        SyncClientContext.__var__.reset(token)
