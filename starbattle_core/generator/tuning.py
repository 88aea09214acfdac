"""Hill-climb tuning (stage 9): nudge one region boundary at a time towards the slot's band, or, inside the band,
towards a higher fun score.

A nudge moves one boundary cell (never an intended star) into a region beside it, keeping both regions
connected, so the intended solution stays a solution. The nudged board is kept only when the counter still finds
it unique, the step solver still finishes it, and it is closer to the band (or, in the band, more fun).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from ..counter import count_solutions
from ..grader import Grade, GradingConfig
from ..puzzle import Puzzle
from .config import GeneratorConfig, Slot
from .looks import looks_score
from .repair import apply_move, boundary_moves
from .stages import band_miss, grade_for_slot, judge


@dataclass(frozen=True)
class Tuning:
    """Where the climb ended: the board and its grade (the input ones when nothing helped), the nudges kept and
    tried."""

    puzzle: Puzzle
    grade: Grade
    kept: int
    tried: int


def _standing(result: Grade, slot: Slot, grading: GradingConfig) -> tuple[float, float]:
    """Lower is better: first the distance to the band, then (inside it) minus the fun score."""
    return band_miss(result, slot, grading), -result.experience.fun


def tune(
    puzzle: Puzzle,
    result: Grade,
    slot: Slot,
    rng: random.Random,
    config: GeneratorConfig,
    grading: GradingConfig,
    out_of_time: Callable[[], bool] = lambda: False,
) -> Tuning:
    """Up to `config.tune_rounds(game)` nudges; stops early once the board passes the band and fun gates."""
    intended = puzzle.solution
    assert intended is not None, "tuning needs the intended solution"
    best = _standing(result, slot, grading)
    kept = tried = 0
    for _ in range(config.tune_rounds(slot.game)):
        if judge(result, slot, config, grading) is None or out_of_time():
            break
        moves = boundary_moves(puzzle.regions, puzzle.size, puzzle.all_cells & ~intended, intended)
        if not moves:
            break
        tried += 1
        move = rng.choice(moves)
        nudged = Puzzle(
            puzzle.size, puzzle.stars, apply_move(puzzle.regions, move), puzzle.game, id=puzzle.id, solution=intended
        )
        if looks_score(nudged) < config.looks_gate:
            continue
        counted = count_solutions(nudged, 2)
        if counted.count != 1 or not counted.exact:
            continue
        graded = grade_for_slot(nudged, slot, config, grading)
        standing = _standing(graded, slot, grading)
        if graded.solved and standing < best:
            puzzle, result, best = nudged, graded, standing
            kept += 1
    return Tuning(puzzle, result, kept, tried)
