"""One call per slot: `generate` runs the stages on candidate after candidate until one is accepted.

Determinism: candidate i of a run draws every random choice from a seed derived from (seed, slot, i) alone, so
the candidates, and the first one accepted, are the same on every run and machine. Only *whether* the run gets
that far depends on the clock (`budget_seconds`); `GeneratorConfig.max_candidates` is a budget that does not.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable

import numpy as np

from ..counter import count_solutions
from ..grader import Grade, GradingConfig
from ..puzzle import Cells, InputError, Puzzle
from .board import Board, Counters, Generation
from .config import BANDS, GeneratorConfig, Slot
from .looks import looks_score
from .repair import repair
from .similarity import near_duplicate
from .stages import band_miss, draw_layout, grade_for_slot, grow_regions, judge
from .tuning import tune


def candidate_seed(slot: Slot, seed: int, index: int) -> np.random.SeedSequence:
    """The seed of candidate `index`: a function of the slot, the run's seed and the index only."""
    game = 0 if slot.game == "starbattle" else 1
    return np.random.SeedSequence([seed, game, slot.size, slot.stars, BANDS.index(slot.band), index])


class _Clock:
    """Adds the seconds of each stage to the counters and knows when the budget is spent."""

    def __init__(self, counters: Counters, budget_seconds: float) -> None:
        self.counters = counters
        self.deadline = time.perf_counter() + budget_seconds
        self.mark = time.perf_counter()

    def lap(self, stage: str) -> None:
        now = time.perf_counter()
        self.counters.seconds[stage] += now - self.mark
        self.mark = now

    def out_of_time(self) -> bool:
        return time.perf_counter() >= self.deadline


def try_candidate(
    slot: Slot,
    seed: int,
    index: int,
    config: GeneratorConfig,
    grading: GradingConfig,
    avoid: tuple[Cells, ...],
    counters: Counters,
    clock: _Clock,
) -> Board | None:
    """Run candidate `index` through every stage; count its rejection, or return it accepted."""
    sequence = candidate_seed(slot, seed, index)
    layout_rng = np.random.default_rng(sequence)
    rng = random.Random(int(sequence.generate_state(2, np.uint64)[1]))
    counters.candidates += 1

    layout = draw_layout(slot, layout_rng)
    clock.lap("layout")
    if any(near_duplicate(layout, other, config.similarity_threshold) for other in avoid):
        counters.reject("near_duplicate")
        return None

    growth = grow_regions(slot, layout, rng, config)
    clock.lap("growth")
    if growth.regions is None:
        counters.reject("growth_failed")
        return None

    puzzle = Puzzle(slot.size, slot.stars, growth.regions, slot.game, solution=layout)
    hunted = None
    if slot.band == "easy" and config.easy_hunt_raw:
        # Easy hunting: a capped solve that completes the raw board proves it unique; no count, no repair.
        hunted = grade_for_slot(puzzle, slot, config, grading)
        clock.lap("grading")
        if not hunted.solved:
            hunted = None
    repair_rounds = 0
    if hunted is None:
        mended = repair(puzzle, layout, config.repair_rounds(slot.game), rng, config.repair_sample)
        counters.repair_rounds += mended.rounds
        clock.lap("repair")
        if mended.status != "unique":
            counters.reject(mended.status)
            return None
        puzzle, repair_rounds = mended.puzzle, mended.rounds
    counters.unique_raw += repair_rounds == 0
    counters.unique_repaired += 1

    if looks_score(puzzle) < config.looks_gate:
        clock.lap("looks")
        counters.reject("ugly")
        return None
    clock.lap("looks")

    result = hunted or grade_for_slot(puzzle, slot, config, grading)
    clock.lap("grading")
    reason = judge(result, slot, config, grading)
    tune_rounds = 0
    if reason in ("wrong_band", "low_fun") and _worth_tuning(result, slot, config, grading):
        tuned = tune(puzzle, result, slot, rng, config, grading, clock.out_of_time)
        clock.lap("tuning")
        if clock.out_of_time():
            return None  # a climb cut short by the clock must not decide the board: the run ends here
        if tuned.kept:
            counters.tuned += 1
            puzzle, result, tune_rounds = tuned.puzzle, tuned.grade, tuned.kept
            reason = judge(result, slot, config, grading)
    if reason is not None:
        counters.reject(reason)
        return None

    looks = looks_score(puzzle)
    if looks < config.looks_gate:
        counters.reject("ugly")
        return None

    # Trust, but verify: the full counter must find exactly the intended solution.
    check = count_solutions(puzzle, 2)
    clock.lap("verify")
    if not (check.count == 1 and check.exact and check.solutions[0] == layout):
        counters.reject("ambiguous" if check.count > 1 else "no_solution")
        return None
    return Board(
        puzzle=puzzle,
        band=result.band,
        difficulty=result.difficulty,
        fun=result.experience.fun,
        looks=looks,
        grade=result,
        version=result.version,
        seed=seed,
        repair_rounds=repair_rounds,
        tune_rounds=tune_rounds,
    )


def _worth_tuning(result: Grade, slot: Slot, config: GeneratorConfig, grading: GradingConfig) -> bool:
    """Tune only boards within reach: solved, at most `tune_reach` from the band, and in the band only when the
    fun score is near the gate (a grade costs up to a second on 10x10; hopeless boards are cheaper to replace)."""
    if not result.solved or not config.tune_rounds(slot.game):
        return False
    miss = band_miss(result, slot, grading)
    if miss == 0:
        return result.experience.fun >= config.fun_gate - config.tune_fun_reach
    return miss <= (config.tune_reach_queens if slot.game == "queens" else config.tune_reach)


def generate(
    slot: Slot,
    seed: int,
    budget_seconds: float,
    config: GeneratorConfig | None = None,
    grading: GradingConfig | None = None,
    avoid: Iterable[Cells] = (),
) -> Generation:
    """Make one board for the slot: candidates in turn until one passes every stage or the budget is spent.

    `avoid`: star layouts of boards already chosen that day; a layout that near-duplicates one is rejected.
    The board (or None) comes back with the run's counters; the clock is checked between candidates and
    inside tuning, so a run overshoots its budget by at most one candidate's work.
    """
    if not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed {seed!r} must be a whole number >= 0")
    config = config or GeneratorConfig()
    grading = grading or GradingConfig()
    avoid = tuple(avoid)
    counters = Counters()
    clock = _Clock(counters, budget_seconds)
    index = 0
    while not clock.out_of_time():
        if config.max_candidates is not None and index >= config.max_candidates:
            return Generation(None, counters, budget_hit=True)
        board = try_candidate(slot, seed, index, config, grading, avoid, counters, clock)
        index += 1
        if board is not None:
            return Generation(board, counters)
    return Generation(None, counters, budget_hit=True)
