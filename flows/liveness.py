"""Runs that died: a run killed mid-way leaves its `run` row `running` and its Prefect flow run RUNNING. Each new run
looks at the rows still `running` and marks the dead ones crashed, in the database and in Prefect, so `stats` and
the dashboard tell the truth.

A run is dead when Prefect says it ended (its process died before recording the end in our database), or when it
is RUNNING but has given no sign of life (a heartbeat event, or its state change) for HEARTBEAT_MISSES heartbeats,
or for the config's `pipeline.stale_run_seconds` when set.
Concurrent live runs send heartbeats and are left alone. `is_dead` is the plain rule; `mark_dead_runs` asks Prefect.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, cast

from sqlalchemy.engine import Engine

import starbattle_store as store

HEARTBEAT_MISSES = 3
ENDED = ("COMPLETED", "FAILED", "CRASHED", "CANCELLED")
UNDER_WAY = ("RUNNING", "PENDING", "CANCELLING")


def is_dead(
    state_type: str,
    last_sign: dt.datetime,
    now: dt.datetime,
    heartbeat_seconds: float,
    stale_seconds: float | None = None,
) -> bool:
    """Whether a run our database still calls `running` is dead, from its Prefect state type and its last sign of
    life (latest heartbeat or state change): silent for `stale_seconds`, or HEARTBEAT_MISSES heartbeats if None."""
    if state_type in ENDED:
        return True
    if state_type in UNDER_WAY:
        bound = HEARTBEAT_MISSES * heartbeat_seconds if stale_seconds is None else stale_seconds
        return (now - last_sign).total_seconds() > bound
    return False  # scheduled or paused: not started, so not dead


def mark_dead_runs(engine: Engine, own_run_id: int, stale_seconds: float | None = None) -> list[int]:
    """Mark every dead `running` run but this one crashed (database row, and the Prefect flow run when Prefect
    still calls it under way); returns their ids. `stale_seconds` as in `is_dead`. Needs a Prefect API (it runs
    inside a flow)."""
    from prefect.client.orchestration import get_client
    from prefect.events.filters import EventFilter, EventNameFilter, EventOccurredFilter, EventResourceFilter
    from prefect.exceptions import ObjectNotFound
    from prefect.settings import get_current_settings
    from prefect.states import Crashed

    heartbeat = float(max(get_current_settings().flows.heartbeat_frequency or 180, 30))
    now = dt.datetime.now(dt.UTC)
    marked = []
    with get_client(sync_client=True) as client:
        for run in store.running_runs(engine):
            if run.id is None or run.id == own_run_id or run.flow_run_id is None:
                continue
            try:
                flow_run = client.read_flow_run(run.flow_run_id)  # type: ignore[arg-type]
            except (ObjectNotFound, ValueError):
                continue  # recorded in another Prefect server: not ours to judge
            state = flow_run.state
            if state is None:
                continue
            last_sign: dt.datetime = state.timestamp
            beats: Any = client.read_events(
                EventFilter(
                    occurred=EventOccurredFilter(since=cast(Any, last_sign), until=cast(Any, now)),
                    event=EventNameFilter(name=["prefect.flow-run.heartbeat"]),
                    resource=EventResourceFilter(id=[f"prefect.flow-run.{flow_run.id}"]),
                ),
                limit=50,
            )
            for beat in beats.events:
                last_sign = max(last_sign, beat.occurred)
            if not is_dead(state.type.value, last_sign, now, heartbeat, stale_seconds):
                continue
            if not state.is_final():
                silence = f"{HEARTBEAT_MISSES} heartbeats" if stale_seconds is None else f"{stale_seconds:g} s"
                client.set_flow_run_state(
                    flow_run.id,
                    Crashed(message=f"no sign of life for over {silence}: marked by a later run"),
                    force=True,
                )
            store.finish_run(engine, run.id, "crashed")
            marked.append(run.id)
    return marked
