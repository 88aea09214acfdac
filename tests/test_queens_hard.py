"""Queens hard: the configured slot finds its board within its candidate budget, and the board `starbattle grade`
reads back from the export is hard; the tuning climb's objective, which the steering towards hard relies on."""

from __future__ import annotations

import json

from conftest import run_starbattle, shared_file

from flows.settings import load_settings
from starbattle_core.formats import read_jsonl
from starbattle_core.generator import GeneratorConfig, Slot, board_to_json, generate
from starbattle_core.generator.stages import judge
from starbattle_core.generator.tuning import standing
from starbattle_core.grader import GradingConfig, grade

SEED = 0  # a seed whose search rejects a wrong-band candidate before it finds its board (seconds, not minutes)


def test_queens_hard_slot_finds_a_hard_board_within_its_candidate_budget(tmp_path, capsys) -> None:
    settings = load_settings()
    chosen = next(s for s in settings.pipeline.slots if s.name == "queens-hard")
    budget = settings.pipeline.slot_candidates(chosen)
    config = settings.generator.model_copy(update={"max_candidates": budget})
    # The seconds are far beyond need: the candidate budget, not the clock, must be what bounds the search.
    generation = generate(chosen.as_generator_slot(), SEED, 3600.0, config, settings.grading)
    assert generation.board is not None, f"no board within {budget} candidates: {generation.counters.rejections}"
    assert generation.counters.candidates <= budget
    assert generation.counters.rejections["wrong_band"] + generation.counters.rejections["low_fun"] > 0
    exported = tmp_path / "queens-hard.json"
    exported.write_text(json.dumps(board_to_json(generation.board)), encoding="utf-8")
    status, out, _ = run_starbattle(capsys, "grade", "--json", str(exported))
    assert status == 0
    assert json.loads(out)["band"] == "hard"
    again = generate(chosen.as_generator_slot(), SEED, 3600.0, config, settings.grading)
    assert again.board is not None and again.board.puzzle.regions == generation.board.puzzle.regions


def test_the_climb_objective_is_zero_exactly_when_a_queens_board_passes_its_band_and_fun_gates() -> None:
    """Tuning keeps a nudge only when it lowers `standing`, and stops when the gates pass: for the climb to
    steer rather than wander, its first two terms must vanish exactly on boards the gates accept, and stay
    positive on every board they reject (a hardest step after the climax cut included). Checked on LinkedIn
    levels of every band."""
    config, grading = GeneratorConfig(), GradingConfig()
    boards = list(read_jsonl(str(shared_file("queens/linkedin.jsonl"))))[:60]
    seen = {"pass": 0, "late": 0}
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
        late = result.climax > config.climax_gate and result.experience.fun >= config.fun_gate
        seen["late"] += late
    assert seen["pass"] and seen["late"], seen  # both sides of the property were met
