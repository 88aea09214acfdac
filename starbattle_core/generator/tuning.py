"""Hill-climb tuning (stage 9): nudge one region boundary at a time towards the slot's band, over the fun gate,
and (Star Battle) towards the middle of the band rather than just inside its edge.

A nudge moves one boundary cell (never an intended star) into a region beside it, keeping both regions
connected, so the intended solution stays a solution. The nudged board is kept only when the counter still finds
it unique, the step solver still finishes it, and it stands better: closer to the band, then less short of the
fun gate, then closer to the band's target, then more fun. The climb stops once the board passes the gates
inside the middle half of its band.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from ..counter import count_solutions
from ..grader import Grade, GradingConfig
from ..puzzle import Puzzle
from .config import BANDS, GeneratorConfig, Slot
from .looks import gives_away, looks_score
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


def band_middle(slot: Slot, grading: GradingConfig) -> tuple[float, float, float] | None:
    """The Star Battle band's middle half on a log scale and its centre, (low, target, high); None for Queens (its
    bands are the techniques needed, not a number). Easy and expert are open at one end: that end is taken one
    neighbouring band's ratio beyond their only edge."""
    if slot.game == "queens":
        return None
    sized = grading.cutoffs(slot.size)
    edges = (sized.easy_below, sized.medium_below, sized.hard_below)
    cutoffs = (
        edges[0] * edges[0] / edges[1],
        *edges,
        edges[2] * edges[2] / edges[1],
    )
    index = BANDS.index(slot.band)
    low, high = cutoffs[index], cutoffs[index + 1]
    quarter = (high / low) ** 0.25
    return low * quarter, math.sqrt(low * high), high / quarter


def _off_centre(result: Grade, slot: Slot, grading: GradingConfig) -> float:
    middle = band_middle(slot, grading)
    if middle is None:
        return 0.0
    return abs(math.log(max(result.difficulty, 1) / middle[1]))


def _centred(result: Grade, slot: Slot, grading: GradingConfig) -> bool:
    middle = band_middle(slot, grading)
    return middle is None or middle[0] <= result.difficulty <= middle[2]


def standing(
    result: Grade, slot: Slot, config: GeneratorConfig, grading: GradingConfig
) -> tuple[float, float, float, float]:
    """Lower is better: the distance to the band, the shortfall under the fun gate, the distance to the band's
    target, then minus the fun score."""
    fun = result.experience.fun
    return (
        band_miss(result, slot, grading),
        max(0.0, config.fun_gate - fun),
        _off_centre(result, slot, grading),
        -fun,
    )


def _queens_giveaway(puzzle: Puzzle, slot: Slot, config: GeneratorConfig) -> bool:
    """Queens: a nudge that shrinks a region into a give-away would be kept by the climb and then fail the final
    gate (tune_stage), losing the whole climb; it is skipped instead. Star Battle boards are left as they were."""
    return slot.game == "queens" and gives_away(puzzle, slot.band, config.allow_giveaways)


def tune(
    puzzle: Puzzle,
    result: Grade,
    slot: Slot,
    rng: random.Random,
    config: GeneratorConfig,
    grading: GradingConfig,
    out_of_time: Callable[[], bool] = lambda: False,
) -> Tuning:
    """Up to `config.tune_rounds(game)` nudges; stops early once the board passes the band and fun gates in the
    middle half of its band."""
    intended = puzzle.solution
    assert intended is not None, "tuning needs the intended solution"
    best = standing(result, slot, config, grading)
    kept = tried = 0
    for _ in range(config.tune_rounds(slot.game)):
        if (judge(result, slot, config, grading) is None and _centred(result, slot, grading)) or out_of_time():
            break
        moves = boundary_moves(puzzle.regions, puzzle.size, puzzle.all_cells & ~intended, intended)
        if not moves:
            break
        tried += 1
        move = rng.choice(moves)
        nudged = Puzzle(
            puzzle.size, puzzle.stars, apply_move(puzzle.regions, move), puzzle.game, id=puzzle.id, solution=intended
        )
        if looks_score(nudged) < config.looks_gate or _queens_giveaway(nudged, slot, config):
            continue
        counted = count_solutions(nudged, 2)
        if counted.count != 1 or not counted.exact:
            continue
        graded = grade_for_slot(nudged, slot, config, grading)
        placed = standing(graded, slot, config, grading)
        if graded.solved and placed < best:
            puzzle, result, best = nudged, graded, placed
            kept += 1
    return Tuning(puzzle, result, kept, tried)
