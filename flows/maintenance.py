"""Flows that keep the database's reference material current: the layout bank and stale solve paths."""

from __future__ import annotations

from typing import Any, cast
from uuid import UUID

from prefect import flow
from prefect.artifacts import create_progress_artifact, create_table_artifact, update_progress_artifact

import starbattle_store as store
from flows import tasks
from flows.settings import load_settings
from flows.tasks import database, regrade_batch, store_layout_batch, untagged
from starbattle_core.grader import SOLVER_VERSION
from starbattle_core.layouts import MAX_BANK, count_layouts
from starbattle_core.puzzle import InputError, layouts_exist

BANK_BATCH = 50_000
REGRADE_BATCH = 50


@flow(name="enumerate-layouts", flow_run_name="enumerate-layouts-{size}x{size}-{stars}")
def enumerate_layouts(size: int, stars: int, config_path: str | None = None) -> int:
    """Store every valid layout of (size, stars) in the layout bank, in enumeration order; a bank that is already
    (partly) stored is completed, not duplicated. Returns the number of layouts in the bank."""
    if not layouts_exist(size, stars):
        raise InputError(f"no layout exists for a {size}x{size} board with {stars} stars per unit")
    total = count_layouts(size, stars)
    if total > MAX_BANK:
        raise InputError(f"{size}x{size} with {stars} stars has {total:,} layouts: more than {MAX_BANK:,} to bank")
    url = load_settings(config_path).pipeline.resolved_database_url()
    if store.stored_layouts(database(url), size, stars) < total:
        # The run keeps its tag (manual); its task runs carry none (flows/tasks.py's `untagged` says why).
        with untagged():
            bank = tasks.enumerate_layouts(size, stars)
            # Prefect types its sync-or-async calls as "result or coroutine"; from a sync flow, it is the result.
            progress = cast(
                UUID, create_progress_artifact(progress=0.0, description=f"layout bank {size}x{size} {stars}-star")
            )
            for start in range(0, len(bank), BANK_BATCH):
                store_layout_batch(url, size, stars, bank[start : start + BANK_BATCH], start)
                update_progress_artifact(progress, progress=100.0 * min(start + BANK_BATCH, len(bank)) / len(bank))
    return store.stored_layouts(database(url), size, stars)


@flow(name="regrade", flow_run_name="regrade-" + SOLVER_VERSION.replace(".", "-"))
def regrade(config_path: str | None = None) -> dict[str, Any]:
    """Grade again, with the current solver, every stored board that has no solve path under SOLVER_VERSION."""
    settings = load_settings(config_path)
    url = settings.pipeline.resolved_database_url()
    stale = store.puzzles_without_path(database(url), SOLVER_VERSION)
    grading = settings.grading
    added = 0
    with untagged():
        for start in range(0, len(stale), REGRADE_BATCH):
            batch = stale[start : start + REGRADE_BATCH]
            added += regrade_batch(url, batch, grading, batch[0], batch[-1])
    create_table_artifact(
        key="regrade",
        table=[{"solver_version": SOLVER_VERSION, "stale": len(stale), "regraded": added}],
        description="Solve paths recomputed under the current solver version.",
    )
    return {"solver_version": SOLVER_VERSION, "stale": len(stale), "regraded": added}
