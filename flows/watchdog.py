"""A funnel that waits for stage tasks none of which can still finish ends with an error, never a wait for ever.

The funnel (flows/daily.py) learns that a task run ended from its future's done-callback. Twice under load a
backfill waited for ever for one that never came: a future whose end was never delivered (Prefect's process pool
passes on a worker's BaseException to no one, flows/pool.py) or a pool with no thread left to deliver it. So while
the funnel waits, the watchdog looks, every time the wait has gone CHECK_SECONDS without news:
- a future that is done but whose end was not delivered is taken as delivered (its outcome is known);
- a task runner that says it can no longer finish anything (`stalled()`, the process pool's) ends the wait at once;
- no stage task finishing at all for STALL_FACTOR times the largest `budget_seconds` of the slots waited for, and
  never less than STALL_FLOOR_SECONDS, ends it too: an attempt's clock is looked at between batches, so one batch's
  stage is far shorter than that; the floor keeps a loaded machine, whose pool workers may take minutes to start
  (README, Pipeline), from failing a run with a small budget that would have finished.
Either ending is a `FunnelStalled` error naming what was waited for: the run fails (its row `failed`, the flow run
Failed with that message), the boards published before it stay, and the next run generates the slots left. Nothing
is recorded for the stalled attempts, so the next run tries the same seeds and finds the same boards.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

STALL_FACTOR = 2.0  # times the slot's budget_seconds without any stage task finishing: the funnel is stalled
STALL_FLOOR_SECONDS = 600.0  # but never sooner than this


class FunnelStalled(RuntimeError):
    """No stage task the funnel waits for can still finish; the run fails, and the next run tries those slots."""


class Watchdog:
    """Looks at the task runs a funnel waits for, each time its wait goes without news (see the module docstring)."""

    def __init__(self, runner: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.runner = runner
        self.clock = clock
        self.last_news = clock()

    def delivered(self) -> None:
        """A task run's end came (by its callback, or taken by `look`)."""
        self.last_news = self.clock()

    def look(self, waiting: Mapping[Any, str], budget_seconds: float) -> Any | None:
        """A future of `waiting` (future -> what it runs) that is done but was never delivered, to be taken as if it
        had been; None to go on waiting. Raises FunnelStalled when none of them can finish any more."""
        for future in waiting:
            # A Prefect future says it is done through the future it wraps (a concurrent or a Dask one).
            if getattr(future, "wrapped_future", future).done():
                self.delivered()
                return future
        stalled = getattr(self.runner, "stalled", None)
        reason = stalled() if callable(stalled) else None
        bound = max(STALL_FACTOR * budget_seconds, STALL_FLOOR_SECONDS)
        if reason is None and self.clock() - self.last_news > bound:
            reason = f"no stage task finished in {bound:g} s"
        if reason is not None:
            raise FunnelStalled(f"{reason}; waiting for {', '.join(sorted(waiting.values()))}")
        return None
