"""The generator's stages for one candidate, each a plain function that returns what it made or why it rejected.

draw_layout      stage 1: a uniformly random star layout (never "least used first")
grow_regions     stages 2-3: Star Battle or Queens region growth around it
repair_for_slot  stage 4 (repair.py): impostor moves until the intended solution is the only one; Star Battle
                 boards of the kinds measured are then shaped again (shaping.py), unique all the way
grade_for_slot   stages 5-6: the step solver, capped for the easier bands (easy hunting by volume)
judge            stages 5, 7: stuck, band and fun verdicts
looks_score      stage 8 (looks.py)
tune             stage 9 (tuning.py)
near_duplicate   stage 10 (similarity.py)
"""

from __future__ import annotations

import math
import random
from dataclasses import replace

import numpy as np

from ..counter import count_solutions
from ..grader import QUEENS_TECHNIQUES, Grade, GradingConfig, grade
from ..layouts import layout_to_cells, sample_layouts
from ..puzzle import Cells, Puzzle
from .config import BANDS, GeneratorConfig, Slot
from .designs import SYMMETRIES, symmetry_share
from .growth import Growth, grow_gated
from .looks import smallest_allowed
from .repair import Repair, paired_symmetry, repair, still_unique, tidy_queens, undo_moves, whittle
from .shaping import kind_key, shape_model, shape_towards

# The cheapest tier-4 (hypothetical) Queens technique: a Queens board below hard never needs a step that costly.
QUEENS_HYPOTHETICAL_COST = min(t.cost for t in QUEENS_TECHNIQUES if t.tier >= 4)


def draw_layout(slot: Slot, rng: np.random.Generator) -> Cells:
    """One layout drawn uniformly from every valid layout of the slot's size and stars (helper C's bank)."""
    return layout_to_cells(sample_layouts(slot.size, slot.stars, 1, rng)[0])


def grow_regions(slot: Slot, layout: Cells, rng: random.Random, config: GeneratorConfig) -> Growth:
    return grow_gated(slot, layout, rng, config)


def repair_for_slot(puzzle: Puzzle, slot: Slot, rng: random.Random, config: GeneratorConfig) -> Repair:
    """Repair with the config's rounds, sample and give-back, never shrinking a region into a give-away."""
    assert puzzle.solution is not None, "repair needs the intended solution"
    least = smallest_allowed(slot.game, slot.stars, slot.band, config.allow_giveaways)
    rounds = config.repair_rounds(slot.game)
    roomy = config.repair_roomy_queens if slot.game == "queens" else 0
    exact = exact_mirror(puzzle) if slot.game == "queens" and config.queens_mirror_whittle else None
    if exact is not None and paired_symmetry(puzzle, puzzle.solution) is None:
        # A left-right or top-bottom mirror map: never unique as grown, and repair towards its layout takes it out of
        # symmetry; whittled in image pairs it ends near symmetric.
        return whittle_for_slot(puzzle, rounds, rng, least, config.repair_undo, exact)
    mended = repair(
        puzzle, puzzle.solution, rounds, rng, config.repair_sample, least=least, undo=config.repair_undo, roomy=roomy
    )
    kind = kind_key(slot.size, slot.stars)
    model = shape_model(slot.size, slot.stars) if slot.game == "starbattle" else None
    if mended.status != "unique" or not mended.rounds or model is None or kind not in config.reshaping_spread_offset:
        return mended
    # Repair's moves carry arms and odd sizes into the map that shaping drew: shape it again, unique all the way.
    intended, offset = puzzle.solution, config.reshaping_spread_offset[kind]
    unique = still_unique(mended.puzzle, intended)
    regions = shape_towards(
        mended.puzzle.regions, slot.size, intended, least, model, rng, config.reshaping_moves, offset, unique
    )
    return replace(mended, puzzle=replace(mended.puzzle, regions=tuple(regions)))


def exact_mirror(puzzle: Puzzle) -> str | None:
    """The symmetry a map is its own image under, if any (the first in designs.SYMMETRIES' order)."""
    return next((name for name in SYMMETRIES if symmetry_share(puzzle.regions, puzzle.size, name) == 1.0), None)


def whittle_for_slot(
    puzzle: Puzzle, rounds: int, rng: random.Random, least: int, undo: bool, mirror: str | None
) -> Repair:
    """A grown Queens map whittled down to whichever of its solutions survives (repair.whittle), then given back
    what it can spare of the grown map and drawn towards symmetry and figures, as repair's boards are."""
    whittled = whittle(puzzle, rounds, rng, least, mirror)
    if whittled.status != "unique" or not whittled.rounds:
        return whittled
    board, intended = whittled.puzzle, whittled.puzzle.solution
    assert intended is not None
    if undo:
        board = undo_moves(board, puzzle.regions, intended, rng, count_solutions, least)
    return replace(whittled, puzzle=tidy_queens(board, intended, rng, count_solutions, least))


def band_cap(slot: Slot, config: GeneratorConfig, grading: GradingConfig) -> int | None:
    """The most one step may cost on a board of the slot's band, or None when any step may be needed.

    A step costing more than the band's upper cutoff would carry the sum past it, so a solver capped there loses
    nothing on boards of the band and gives up early on the others; for the easy bands the cap is the cheap
    techniques of easy hunting, and completion under it proves uniqueness by itself.
    """
    if slot.band == "easy":
        return config.easy_max_cost(slot.game)
    if slot.game == "queens":
        return QUEENS_HYPOTHETICAL_COST - 1 if slot.band == "medium" else None
    cutoffs = grading.cutoffs(slot.size)
    if slot.band == "medium":
        return cutoffs.medium_below - 1
    if slot.band == "hard" and config.cap_hard_from_size is not None and slot.size >= config.cap_hard_from_size:
        return cutoffs.hard_below - 1
    return None


def band_ceiling(slot: Slot, config: GeneratorConfig, grading: GradingConfig) -> int | None:
    """The difficulty a board of the slot's band stays below, for Star Battle medium and hard slots of boards of at
    least `cap_hard_from_size` (None elsewhere): their solve stops once the next step would reach it. On 14x14 the
    per-step cap alone leaves the whole-board chains of chains (3,600-3,840) under the hard cutoff (5,300), and one
    uncapped 14x14 grade can run for minutes; the daily 10x10 slots keep the per-step cap they were measured with."""
    big = config.cap_hard_from_size is not None and slot.size >= config.cap_hard_from_size
    if slot.game == "queens" or not big or slot.band not in ("medium", "hard"):
        return None
    cutoffs = grading.cutoffs(slot.size)
    return cutoffs.medium_below if slot.band == "medium" else cutoffs.hard_below


def grade_for_slot(puzzle: Puzzle, slot: Slot, config: GeneratorConfig, grading: GradingConfig) -> Grade:
    return grade(
        puzzle, grading, max_cost=band_cap(slot, config, grading), max_difficulty=band_ceiling(slot, config, grading)
    )


def band_miss(result: Grade, slot: Slot, grading: GradingConfig) -> float:
    """How far a graded board is from the slot's band: 0 inside it, else a positive distance (log of the
    difficulty ratio for Star Battle, band steps for Queens); a capped solve that got stuck is further than any
    solved board, less so the fewer cells it left open."""
    if not result.solved:
        return 100.0 + result.open.bit_count() / 100.0
    if slot.game == "queens":
        # Band steps, plus a fraction that shrinks as the difficulty moves the right way: Queens bands are set by
        # the techniques needed, and a dearer path is closer to needing the next tier.
        order = ("easy", "medium", "hard")
        steps = order.index(slot.band) - order.index(result.band)
        if steps == 0:
            return 0.0
        lean = math.exp(-result.difficulty / 100)
        return abs(steps) + 0.5 * (lean if steps > 0 else 1 - lean)
    edges = grading.cutoffs(slot.size)
    cutoffs = (0, edges.easy_below, edges.medium_below, edges.hard_below, math.inf)
    index = BANDS.index(slot.band)
    low, high = cutoffs[index], cutoffs[index + 1]
    difficulty = max(result.difficulty, 1)
    if difficulty < low:
        return math.log(low / difficulty)
    if difficulty >= high:
        return math.log(difficulty / high) + 1e-9
    return 0.0


def judge(result: Grade, slot: Slot, config: GeneratorConfig, grading: GradingConfig) -> str | None:
    """The rejection reason of a graded candidate (stuck, wrong_band, low_fun), or None when it passes.

    The experience gate is the fitted fun score alone: where the hardest step falls is one of its features (a fixed
    cut at 25% of the solve rejected 28% of designed Star Battle boards)."""
    if not result.solved:
        # Under a band cap, getting stuck means a step dearer than the band allows (or no logical path at all).
        return "stuck" if result.max_cost is None else "wrong_band"
    if band_miss(result, slot, grading) > 0:
        return "wrong_band"
    if result.experience.fun < config.fun_gate:
        return "low_fun"
    return None
