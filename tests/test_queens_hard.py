"""Queens hard: the configured slot finds its board within its candidate budget, and the board `starbattle grade`
reads back from the export is hard; the tuning climb's objective, which the steering towards hard relies on."""

from __future__ import annotations

import json
import random

import numpy as np
from conftest import run_starbattle, shared_file
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from flows.settings import load_settings
from starbattle_core.counter import count_solutions
from starbattle_core.formats import read_jsonl
from starbattle_core.generator import (
    GeneratorConfig,
    Move,
    Slot,
    board_to_json,
    choose_repair_move,
    generate,
    grow_queens_regions,
    impostor_moves,
)
from starbattle_core.generator.stages import judge
from starbattle_core.generator.tuning import standing
from starbattle_core.grader import GradingConfig, grade
from starbattle_core.layouts import layout_to_cells, sample_layouts
from starbattle_core.puzzle import Puzzle

SEED = 11  # a seed whose search rejects a wrong-band candidate before it finds its board (seconds, not minutes)


def test_queens_hard_slot_finds_a_hard_board_within_its_candidate_budget(tmp_path, capsys) -> None:
    configured = load_settings()
    chosen = next(s for s in configured.pipeline.slots if s.name == "queens-hard")
    budget = configured.pipeline.slot_candidates(chosen)
    config = configured.generator.model_copy(update={"max_candidates": budget})
    # The seconds are far beyond need: the candidate budget, not the clock, must be what bounds the search.
    generation = generate(chosen.as_generator_slot(), SEED, 3600.0, config, configured.grading)
    assert generation.board is not None, f"no board within {budget} candidates: {generation.counters.rejections}"
    assert generation.counters.candidates <= budget
    assert generation.counters.rejections["wrong_band"] + generation.counters.rejections["low_fun"] > 0
    exported = tmp_path / "queens-hard.json"
    exported.write_text(json.dumps(board_to_json(generation.board)), encoding="utf-8")
    status, out, _ = run_starbattle(capsys, "grade", "--json", str(exported))
    assert status == 0
    assert json.loads(out)["band"] == "hard"
    again = generate(chosen.as_generator_slot(), SEED, 3600.0, config, configured.grading)
    assert again.board is not None and again.board.puzzle.regions == generation.board.puzzle.regions


def test_the_climb_objective_is_zero_exactly_when_a_queens_board_passes_its_band_and_fun_gates() -> None:
    """Tuning keeps a nudge only when it lowers `standing`, and stops when the gates pass: for the climb to
    steer rather than wander, its first two terms must vanish exactly on boards the gates accept, and stay
    positive on every board they reject. Checked on LinkedIn levels of every band."""
    config, grading = GeneratorConfig(), GradingConfig()
    boards = list(read_jsonl(str(shared_file("queens/linkedin.jsonl"))))[:60]
    seen = {"pass": 0, "reject": 0}
    for puzzle in boards:
        result = grade(puzzle, grading)
        if not result.solved:
            continue
        slot = Slot("queens", puzzle.size, 1, result.band)
        miss, shortfall = standing(result, slot, config, grading)[:2]
        passes = judge(result, slot, config, grading) is None
        assert miss == 0
        assert (shortfall == 0) == passes, (puzzle.id, result.experience.fun, result.climax)
        seen["pass"] += passes
        seen["reject"] += not passes
    assert seen["pass"] and seen["reject"], seen  # both sides of the property were met


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_repair_picks_the_move_the_per_alternate_search_would_pick(seed: int) -> None:
    """Repair finds an impostor's moves once per round however many alternates star it (the speed-up that made
    Queens repair several times cheaper); the move chosen must be the one a search per alternate picks, the
    same rng draw over the same moves in the same order, so every seed keeps its board."""
    layout = layout_to_cells(sample_layouts(9, 1, 1, np.random.default_rng(seed))[0])
    growth = grow_queens_regions(9, layout, random.Random(seed), band="hard")
    assume(growth.regions is not None)
    assert growth.regions is not None
    layout = growth.layout
    puzzle = Puzzle(9, 1, growth.regions, "queens", solution=layout)
    alternates = tuple(s for s in count_solutions(puzzle, 8).solutions if s != layout)
    assume(alternates)
    per_alternate: dict[tuple[int, int], Move] = {}
    for alternate in alternates:
        for move in impostor_moves(puzzle.regions, 9, layout, alternate):
            per_alternate.setdefault((move.cells, move.target), move)
    sizes = [puzzle.regions.count(region) for region in range(9)]
    allowed = [m for key, m in per_alternate.items() if sizes[m.source] - key[0].bit_count() >= 3]
    chosen = choose_repair_move(puzzle.regions, 9, layout, alternates, random.Random(seed), least=3)
    if not allowed:
        assert chosen is None
        return
    most = max(sum(1 for a in alternates if m.cells & a) for m in allowed)
    best = [m for m in allowed if sum(1 for a in alternates if m.cells & a) == most]
    weights = [
        (0.05 if sizes[m.target] == 1 else 1.0) / sizes[m.target] / (1 + 4 * m.carried.bit_count()) for m in best
    ]
    assert chosen == random.Random(seed).choices(best, weights=weights)[0]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000))
def test_repair_takes_cells_from_roomy_regions_while_it_can(seed: int) -> None:
    """With `roomy`, repair's move leaves its source region that many cells whenever an allowed move does, and
    falls back on the others (never under `least`) when none does."""
    layout = layout_to_cells(sample_layouts(9, 1, 1, np.random.default_rng(seed))[0])
    growth = grow_queens_regions(9, layout, random.Random(seed), band="hard")
    assume(growth.regions is not None)
    assert growth.regions is not None
    puzzle = Puzzle(9, 1, growth.regions, "queens", solution=growth.layout)
    alternates = tuple(s for s in count_solutions(puzzle, 8).solutions if s != growth.layout)
    assume(alternates)
    sizes = [puzzle.regions.count(region) for region in range(9)]
    moves: dict[tuple[int, int], Move] = {}
    for alternate in alternates:
        for move in impostor_moves(puzzle.regions, 9, growth.layout, alternate):
            moves.setdefault((move.cells, move.target), move)
    left = [sizes[m.source] - m.cells.bit_count() for m in moves.values()]
    chosen = choose_repair_move(puzzle.regions, 9, growth.layout, alternates, random.Random(seed), least=3, roomy=4)
    if not any(cells >= 3 for cells in left):
        assert chosen is None
    elif any(cells >= 4 for cells in left):
        assert chosen is not None and sizes[chosen.source] - chosen.cells.bit_count() >= 4
    else:
        assert chosen is not None and sizes[chosen.source] - chosen.cells.bit_count() == 3
