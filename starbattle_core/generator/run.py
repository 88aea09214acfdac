"""One call per slot: `generate` runs the funnel (funnel.py) on batches of candidates until one is accepted.

The search policy is one plain function, `next_batch`, with `settle` to take a batch's outcome: `generate` runs it
in one process, and the pipeline's flow runs the same two functions around its stage tasks, so the policy exists
once. Candidates are tried in index order and the lowest-indexed candidate that passes every stage wins; a batch
only decides how many are in flight at once, so the board is the same whatever the batch size.

Determinism: candidate i draws every random choice from a seed derived from (seed, slot, i) alone, so the
candidates, and the first one accepted, are the same on every run and machine. A budget in candidates decides when
an attempt gives up; the clock (`budget_seconds`) is only an outer limit checked between batches: it ends an
attempt cleanly as timed out, never with a different board.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..grader import GradingConfig
from ..puzzle import Cells, InputError
from .board import Board, Counters, Generation
from .config import GeneratorConfig, Slot
from .funnel import Batch, candidate_seed, new_batch, run_stages, to_board

__all__ = ["Search", "candidate_seed", "generate", "next_batch", "settle"]

SEARCHING, ACCEPTED, EXHAUSTED, TIMED_OUT = "searching", "accepted", "exhausted", "timed_out"


@dataclass
class Search:
    """One attempt at a slot: how many candidates it has tried, its counters, and how it ended (`status`:
    searching, accepted, exhausted = the candidate budget is spent, timed_out = the clock ended it)."""

    slot: Slot
    seed: int
    candidate_budget: int | None
    avoid: tuple[Cells, ...] = ()
    tried: int = 0
    status: str = SEARCHING
    board: Board | None = None
    counters: Counters = field(default_factory=Counters)
    surplus: int = 0  # candidates that passed every stage after a lower-indexed one had won (work, not boards)


def next_batch(search: Search, batch_size: int, out_of_time: bool = False, growth: float = 0.0) -> Batch | None:
    """The next candidates to try, or None when the attempt has ended (and then `search.status` says how).

    Candidates go in index order: first one alone (an easy slot's first candidate often passes: a full first batch
    would be wasted work), then batches of `batch_size`, or of `growth` times the candidates tried so far when that
    is more, up to the candidate budget. Each batch is a round of the pipeline's stage tasks, about 2 s of task runs
    whatever its size: with fixed batches of 8 a slot that tried 217 candidates took 28 rounds (its day 71-80 s),
    growing by half 10 (49-51 s), at the price of at most a third of its candidates tried past the winner. (Batches
    doubling up to `batch_size` wasted a few candidates less, but cost a round per doubling.) The clock is looked at
    only here, between batches, so it can end an attempt but never change which candidate wins."""
    if search.status != SEARCHING:
        return None
    stop = search.tried + (max(batch_size, int(search.tried * growth)) if search.tried else 1)
    if search.candidate_budget is not None:
        stop = min(stop, search.candidate_budget)
    if stop <= search.tried:
        search.status = EXHAUSTED
        return None
    if out_of_time:
        search.status = TIMED_OUT
        return None
    return new_batch(search.slot, search.seed, range(search.tried, stop), search.avoid)


def settle(search: Search, batch: Batch) -> None:
    """Take a batch through the funnel's end: its counters, and the winner when a candidate passed every stage
    (the lowest index: every earlier candidate was in this batch or in an earlier one that had none)."""
    search.tried = batch.first + batch.size
    search.counters.add(batch.counters)
    if batch.candidates:
        winner = min(batch.candidates, key=lambda candidate: candidate.index)
        search.board = to_board(winner, search.seed)
        search.surplus += len(batch.candidates) - 1
        search.status = ACCEPTED
    elif search.candidate_budget is not None and search.tried >= search.candidate_budget:
        search.status = EXHAUSTED


def generate(
    slot: Slot,
    seed: int,
    budget_seconds: float,
    config: GeneratorConfig | None = None,
    grading: GradingConfig | None = None,
    avoid: Iterable[Cells] = (),
    batch_size: int = 1,
    batch_growth: float = 0.0,
) -> Generation:
    """Make one board for the slot: batches of candidates through every stage until one passes, the candidate
    budget (`config.max_candidates`, None: no limit) is spent, or the clock runs out between batches.

    `avoid`: star layouts of boards already chosen that day; a layout that near-duplicates one is rejected.
    `batch_size`, `batch_growth`: how many candidates go through the stages at once (next_batch); in one process
    nothing is gained by more than one, and the board is the same whatever they are.
    The board (or None) comes back with the run's counters; a run overshoots its seconds by at most one batch.
    """
    if not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed {seed!r} must be a whole number >= 0")
    if batch_size < 1:
        raise InputError(f"batch size {batch_size!r} must be at least 1")
    if batch_growth < 0:
        raise InputError(f"batch growth {batch_growth!r} must be at least 0")
    config = config or GeneratorConfig()
    grading = grading or GradingConfig()
    search = Search(slot, seed, config.max_candidates, tuple(avoid))
    deadline = time.perf_counter() + budget_seconds
    while (batch := next_batch(search, batch_size, time.perf_counter() >= deadline, batch_growth)) is not None:
        settle(search, run_stages(batch, config, grading))
    return Generation(search.board, search.counters, budget_hit=search.board is None)
