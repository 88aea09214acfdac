"""The funnel in rounds: every slot still searching sends its next batch through the six stage tasks at once.

A round takes each searching slot's next batch (the engine's `next_batch`, the same policy `generate` runs), deals
the batches out into one chunk per worker, balanced by candidates (a batch bigger than its share is split into
parts of consecutive candidates, `split_batch`), and submits each chunk's six stage tasks as a chain: each stage
gets the previous stage's future, so the task runner hands the chunk on worker-side and the dashboard draws the
edge. When every chain has ended, each slot's parts are joined again (`join_batches`) and settled, and `publish`
runs. So a round costs 6 task runs per chunk whatever the number of slots: a day is tens of task runs, a
backfill's round carries every slot of every date in it.

The boards do not depend on the chunks: a slot's candidates are tried in index order with their own random
streams, and boards are published in (date, slot) order (flows/policy.py). While the round runs, the main thread
waits in short steps and takes a Ctrl-C or SIGTERM there (flows/stop_request.py), never inside Prefect's code.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, cast

from prefect.futures import PrefectWrappedFuture

from flows.policy import SlotWork, take_round
from flows.settings import Settings
from flows.stop_request import safe_point, stops_at_safe_points
from flows.tasks import STAGE_TASKS
from starbattle_core.generator.funnel import Batch, join_batches, split_batch
from starbattle_core.generator.run import next_batch, settle

POLL_SECONDS = 0.05  # how often a round's waiting looks at its chunks and for a stop: well within CHECK_SECONDS
Part = tuple[int, Batch]  # a batch (or a part of one) and the index of its slot's work in the run


def deal(batches: Sequence[tuple[int, Batch]], chunks: int) -> list[list[Part]]:
    """The round's batches as at most `chunks` chunks of about the same number of candidates: a batch bigger than
    an even share is split into parts first, then the biggest parts go first, each to the lightest chunk."""
    total = sum(batch.size for _, batch in batches)
    share = max(1, -(-total // chunks))
    parts = [(index, part) for index, batch in batches for part in split_batch(batch, -(-batch.size // share))]
    parts.sort(key=lambda item: -item[1].size)  # stable: equal sizes keep the slots' order
    dealt: list[list[Part]] = [[] for _ in range(min(chunks, len(parts)))]
    for part in parts:
        min(dealt, key=lambda chunk: sum(batch.size for _, batch in chunk)).append(part)
    return dealt


def chunk_label(round_number: int, number: int, chunks: int, chunk: Sequence[Part], works: Sequence[SlotWork]) -> str:
    """How a chunk's task runs are named in the dashboard: the round, the chunk and whose candidates it carries."""
    slots = sorted({f"{works[index].slot.name} {works[index].date}" for index, _ in chunk})
    shown = ", ".join(slots[:3]) + (f" and {len(slots) - 3} more" if len(slots) > 3 else "")
    candidates = sum(batch.size for _, batch in chunk)
    return f"round {round_number} chunk {number}/{chunks}: {candidates} candidates of {shown}"


@stops_at_safe_points
def run_rounds(
    settings: Settings, runner: Any, chunks: int, works: Sequence[SlotWork], publish: Callable[[], None]
) -> None:
    """Rounds until every slot of `works` is done, `publish`ing after each (see the module docstring)."""
    pipeline = settings.pipeline
    options = {"generator": settings.generator, "grading": settings.grading}
    publish()
    round_number = 0
    while any(work.final is None for work in works):
        batches = []
        for index, work in enumerate(works):
            if work.final is None:
                # The clock is the attempt's own stage seconds, looked at between batches only.
                out_of_time = work.seconds >= pipeline.slot_budget(work.slot)
                batch = next_batch(work.search, pipeline.batch_size, out_of_time, pipeline.batch_growth)
                if batch is not None:
                    batches.append((index, batch))
        if batches:
            round_number += 1
            dealt = deal(batches, chunks)
            ends = [
                submit_chain(runner, chunk, chunk_label(round_number, number, len(dealt), chunk, works), options)
                for number, chunk in enumerate(dealt, 1)
            ]
            wait_for_all(ends)
            parts: dict[int, list[Batch]] = {index: [] for index, _ in batches}
            for chunk, end in zip(dealt, ends, strict=True):
                for (index, _), batch in zip(chunk, end.result(), strict=True):
                    parts[index].append(batch)
            for index, own in parts.items():
                joined = join_batches(own)
                take_round(works[index], joined)
                settle(works[index].search, joined)
        # Searches that ended (a winner, the budget or the clock spent) are published or start their next attempt.
        safe_point()
        publish()


def submit_chain(
    runner: Any, chunk: Sequence[Part], label: str, options: dict[str, Any]
) -> PrefectWrappedFuture[list[Batch], Any]:
    """Submit a chunk's six stage tasks, each given the stage before's future; the last stage's future. The label
    names the slots the chunk carries; the task runs carry no tags (flows/tasks.py's `untagged` says why)."""
    batches: Any = [batch for _, batch in chunk]
    for stage in STAGE_TASKS:
        safe_point()
        batches = runner.submit(stage, parameters={"batches": batches, "label": label, **options})
    return cast(PrefectWrappedFuture[list[Batch], Any], batches)


def wait_for_all(futures: Sequence[PrefectWrappedFuture[Any, Any]]) -> None:
    """Return once every future has ended; a stop asked for meanwhile is taken within CHECK_SECONDS.

    It looks at each future's `done()` between short sleeps instead of waiting on it with a timeout, and names a
    chunk the task runner cancelled (Dask cancels a client's futures when it loses the scheduler, for one): the
    `result()` of a cancelled Dask future, with or without a timeout, fails with an UnboundLocalError of
    distributed's own (dask/distributed#8514), which is all a run stopped so said in CI once."""
    for number, future in enumerate(futures, 1):
        while not future.wrapped_future.done():
            time.sleep(POLL_SECONDS)
            safe_point()
        if future.wrapped_future.cancelled():
            raise RuntimeError(f"the task runner cancelled chunk {number} of {len(futures)} of this round")
