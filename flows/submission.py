"""How a stage task reaches a worker process, for both runners (the process pool of flows/pool.py, the Dask
cluster of flows/cluster.py), less three costs Prefect pays on every task run (bench/bench_scale.py and
bench/bench_pipeline.py measure them; the profile is in the README).

- Prefect's settings travel with each task run. Prefect serialises them for every submission
  (`SettingsContext.serialize`: a walk of some 50 nested settings models, most of the flow process's time per
  task), and the worker rebuilds them from that dict (pydantic-settings reading the environment, .env files and
  profiles again for each of those models). Here the settings go as the objects themselves, pickled as they are:
  the same values, and the worker takes them without rebuilding. (Prefect turns paths into strings for a worker on
  another platform; the workers here are the same Python on the same platform, as the README asks.)
- Each task run in a worker opened two new Prefect API clients, each loading the CA bundle into a fresh SSL context
  (slow under OpenSSL 3: python/cpython#95031; PrefectHQ/prefect#19106 asks to share one). Here a worker process
  keeps one client per API (`run_in_worker`).
- Prefect takes a concurrency slot on the server for every task run with tags (its tag-based limits: a request to
  take a lease before the run, one to release it after), also when no tag has a limit, and the stage tasks carry
  their slot's game and band as tags: on the server that doubled a task run's cost (no-op pool tasks 18-19 ms of
  its CPU without tags, 36-91 ms with three, measured under load). Here a worker asks only for the tags that have
  a limit, read from the server once every `TAG_LIMITS_SECONDS` (`limited_tags`): with no limits, no requests;
  with one, that tag's slot is taken as before.
- The upstream edges the dashboard draws (a stage's `batch` came from the stage before) are the futures among the
  parameters, collected here before the futures are resolved to their values: the process pool resolves them in the
  flow's process, and the task run, created in the worker, would otherwise see only values.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable
from typing import Any, TypeVar
from uuid import UUID

import prefect.task_engine
from prefect.client.orchestration import SyncPrefectClient
from prefect.context import SettingsContext, SyncClientContext, get_settings_context, serialize_context
from prefect.task_engine import run_task_sync
from prefect.utilities.engine import collect_task_run_inputs_sync

Result = TypeVar("Result")


class ShippedSettings(SettingsContext):
    """The flow's settings context, serialised as the objects themselves (see the module docstring)."""

    def serialize(self, include_secrets: bool = True) -> dict[str, Any]:  # noqa: ARG002 (they go as they are)
        return {"profile": self.profile, "settings": self.settings}


def with_shipped_settings(call: Callable[..., Result], *args: Any, **kwargs: Any) -> Result:
    """`call(*args, **kwargs)` in a copy of this context whose settings context serialises as the objects
    themselves: whatever Prefect serialises in there for another process carries them so. The flow's own context
    stays Prefect's."""
    current = get_settings_context()
    shipped = ShippedSettings(profile=current.profile, settings=current.settings)

    def shipping() -> Result:
        SettingsContext.__var__.set(shipped)
        return call(*args, **kwargs)

    return contextvars.copy_context().run(shipping)


def shipped_context(asset_ctx_kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
    """Prefect's serialised run context (flow run, tags, settings, assets) for a task run in another process,
    with the settings as objects."""
    return with_shipped_settings(serialize_context, asset_ctx_kwargs=asset_ctx_kwargs)


def upstream_inputs(
    parameters: dict[str, Any], dependencies: dict[str, set[Any]] | None, future_type: type[Any]
) -> dict[str, set[Any]]:
    """Per parameter, the task runs whose futures it holds (plus any `dependencies` given): the run's upstream
    edges on the dashboard."""
    found = {name: collect_task_run_inputs_sync(value, future_type) for name, value in parameters.items()}
    return {name: inputs | (dependencies or {}).get(name, set()) for name, inputs in found.items()}


# A worker process's Prefect API clients, one per API (its URL and credentials), open for the process's life.
_worker_clients: dict[tuple[str | None, ...], SyncClientContext] = {}

TAG_LIMITS_SECONDS = 30.0  # a tag limit created while a worker runs applies to its task runs this much later at most
TAG = "tag:"  # Prefect's tag-based limits are the global concurrency limits named tag:TAG
_tag_limits: dict[tuple[str | None, ...], tuple[float, frozenset[str]]] = {}  # per API: when read, the names
# The limited tags of the task run this worker runs now (None outside run_in_worker: Prefect's own behaviour).
_limited: contextvars.ContextVar[frozenset[str] | None] = contextvars.ContextVar("limited", default=None)
_prefect_concurrency = prefect.task_engine._concurrency


def limited_tags(key: tuple[str | None, ...], client: SyncPrefectClient) -> frozenset[str]:
    """The names (tag:TAG) of the tag-based concurrency limits on the server, read at most every TAG_LIMITS_SECONDS."""
    read, names = _tag_limits.get(key, (float("-inf"), frozenset()))
    if time.monotonic() - read >= TAG_LIMITS_SECONDS:
        found: list[str] = []
        while page := client.read_global_concurrency_limits(limit=200, offset=len(found)):
            found += [limit.name for limit in page]
        names = frozenset(name for name in found if name.startswith(TAG))
        _tag_limits[key] = (time.monotonic(), names)
    return names


def _concurrency_of_limited_tags(names: str | list[str], *args: Any, **kwargs: Any) -> Any:
    """Prefect's concurrency block for a task run, with only the tags that have a limit when run_in_worker knows
    them (an empty list asks the server for nothing)."""
    limited = _limited.get()
    if limited is not None:
        names = [name for name in ([names] if isinstance(names, str) else names) if name in limited]
    return _prefect_concurrency(names, *args, **kwargs)


# The task engine looks the name up when a task run starts; elsewhere (no _limited set) it is Prefect's own.
prefect.task_engine._concurrency = _concurrency_of_limited_tags


def run_in_worker(task: Any, *, context: dict[str, Any], task_run_id: UUID, **run: Any) -> Any:
    """In a worker process: one Prefect task run (its final state), through this process's client of the flow's
    API, with the settings `shipped_context` sent."""
    shipped = context["settings_context"]
    api = shipped["settings"].api
    secrets = (api.key, api.auth_string)
    key = (api.url, *(secret.get_secret_value() if secret else None for secret in secrets))
    if key not in _worker_clients:
        with SettingsContext(**shipped):
            clients = SyncClientContext()
            clients.__enter__()  # never left: the client stays open while the worker lives
        _worker_clients[key] = clients
    clients = _worker_clients[key]
    # Prefect's task engine takes the client of the current client context instead of opening its own.
    token = SyncClientContext.__var__.set(clients)
    limits = _limited.set(limited_tags(key, clients.client))
    try:
        return run_task_sync(task, task_run_id=task_run_id, context=context, return_type="state", **run)
    finally:
        _limited.reset(limits)
        SyncClientContext.__var__.reset(token)
