"""`generate`: every board it returns is sound (connected regions, one solution equal to the intended one, the
slot's band, fun and looks over their gates); it is deterministic by seed; a spent budget is a clear result."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from conftest import run_starbattle

from starbattle_core.counter import count_solutions
from starbattle_core.formats import puzzle_from_json
from starbattle_core.generator import REASONS, Generation, GeneratorConfig, Slot, board_to_json, generate
from starbattle_core.generator.funnel import start_candidate
from starbattle_core.generator.looks import gives_away, looks_score
from starbattle_core.generator.stages import exact_mirror, grow_regions
from starbattle_core.grader import grade
from starbattle_core.puzzle import InputError, Puzzle, is_connected

CONFIG = GeneratorConfig(max_candidates=400)  # a budget in candidates too, so these runs never depend on the clock
SLOTS = [
    (Slot("queens", 7, 1, "easy"), 0),
    (Slot("queens", 7, 1, "easy"), 1),
    (Slot("queens", 8, 1, "medium"), 2),
    (Slot("starbattle", 6, 1, "easy"), 0),
    (Slot("starbattle", 10, 2, "medium"), 1),
    (Slot("starbattle", 10, 2, "easy"), 3),
    (Slot("queens", 9, 1, "medium"), 4),
]


@cache
def generated(slot: Slot, seed: int) -> Generation:
    return generate(slot, seed, 120.0, CONFIG)


@pytest.mark.parametrize(("slot", "seed"), SLOTS, ids=str)
def test_every_generated_board_is_sound(slot: Slot, seed: int) -> None:
    generation = generated(slot, seed)
    board = generation.board
    assert board is not None, generation.counters.to_json()
    puzzle = board.puzzle
    assert (puzzle.game, puzzle.size, puzzle.stars) == (slot.game, slot.size, slot.stars)
    assert all(is_connected(mask, puzzle.size) for mask in puzzle.region_masks)
    counted = count_solutions(puzzle, 2)
    assert counted.count == 1 and counted.exact and counted.solutions == (puzzle.solution,)
    regraded = grade(puzzle)
    assert regraded.solved and regraded.band == slot.band == board.band
    assert regraded.difficulty == board.difficulty
    assert board.fun == regraded.experience.fun >= CONFIG.fun_gate
    assert board.looks == looks_score(puzzle) >= CONFIG.looks_gate
    assert not gives_away(puzzle, slot.band)
    counters = generation.counters
    assert counters.candidates == 1 + sum(counters.rejections.values())
    assert set(counters.rejections) == set(REASONS)


def test_generation_is_deterministic_by_seed() -> None:
    slot = Slot("queens", 7, 1, "easy")
    again = generate(slot, 0, 120.0, CONFIG)
    first = generated(slot, 0)
    assert again.board is not None and first.board is not None
    assert again.board.puzzle.regions == first.board.puzzle.regions
    assert again.board.puzzle.solution == first.board.puzzle.solution
    assert again.counters.rejections == first.counters.rejections
    other = generated(slot, 1).board
    assert other is not None and other.puzzle.regions != first.board.puzzle.regions


@pytest.mark.parametrize(("slot", "seed"), [SLOTS[2], SLOTS[4], SLOTS[6]], ids=str)
def test_the_winning_candidate_is_drawn_and_grown_again(slot: Slot, seed: int) -> None:
    """Board.candidate names the candidate that won: drawn again (funnel.start_candidate) it grows the map that
    repair started from, around the board's own solution (what `contact_sheet.py --source grown` draws). An exact
    left-right or top-bottom mirror map is whittled (repair.whittle): cells move until one of its solutions, not
    necessarily the one it was grown around, is the only one left."""
    generation = generated(slot, seed)
    board = generation.board
    assert board is not None and board.candidate < generation.counters.candidates
    start = start_candidate(slot, seed, board.candidate)
    growth = grow_regions(slot, start.layout, start.rng, CONFIG)
    assert growth.regions is not None
    solution = board.puzzle.solution
    assert solution is not None
    if growth.layout != solution:
        grown = Puzzle(slot.size, slot.stars, growth.regions, slot.game)
        assert growth.mode == "mirror" and exact_mirror(grown) in ("left_right", "top_bottom")
    assert start_candidate(slot, seed, board.candidate + 1).layout != start.layout


def test_a_spent_budget_returns_no_board_and_the_counters() -> None:
    impossible = GeneratorConfig(fun_gate=100, looks_gate=100, max_candidates=3)
    result = generate(Slot("queens", 7, 1, "easy"), 5, 60.0, impossible)
    assert result.board is None and result.budget_hit
    assert result.counters.candidates == 3 == sum(result.counters.rejections.values())
    timed_out = generate(Slot("starbattle", 10, 2, "expert"), 5, 0.0)
    assert timed_out.board is None and timed_out.budget_hit and timed_out.counters.candidates == 0


def test_layouts_to_avoid_are_rejected_as_near_duplicates() -> None:
    config = GeneratorConfig(similarity_threshold=0.0, max_candidates=4)
    every_cell = (1 << 49) - 1
    result = generate(Slot("queens", 7, 1, "easy"), 0, 60.0, config, avoid=[every_cell])
    assert result.board is None
    assert result.counters.rejections["near_duplicate"] == 4


def test_impossible_slots_are_input_errors() -> None:
    with pytest.raises(InputError, match="no valid layout"):
        Slot("starbattle", 6, 2, "easy")
    with pytest.raises(InputError, match="band 'expert'"):
        Slot("queens", 8, 1, "expert")
    with pytest.raises(InputError, match="band 'tricky'"):
        Slot("starbattle", 10, 2, "tricky")
    with pytest.raises(InputError, match="seed -1"):
        generate(Slot("queens", 7, 1, "easy"), -1, 1.0)


def test_board_json_is_the_shared_puzzle_object_plus_scores() -> None:
    generation = generated(Slot("queens", 7, 1, "easy"), 0)
    board = generation.board
    assert board is not None
    obj = board_to_json(board, generation.counters)
    for key in (
        "game",
        "size",
        "stars",
        "regions",
        "solution",
        "band",
        "difficulty",
        "fun",
        "looks",
        "seed",
        "version",
        "counters",
    ):
        assert key in obj
    back = puzzle_from_json(json.loads(json.dumps(obj)))
    assert back.solution == board.puzzle.solution
    # The JSON letters regions in reading order; the partition into regions is what must survive.
    assert set(back.region_masks) == set(board.puzzle.region_masks)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    return run_starbattle(capsys, *argv)


def test_cli_prints_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["generate", "--game", "queens", "--size", "7", "--stars", "1", "--band", "easy", "--seed", "0", "--json"],
        capsys,
    )
    assert code == 0
    obj = json.loads(out)
    assert obj["band"] == "easy" and obj["seed"] == 0 and obj["counters"]["candidates"] >= 1
    assert puzzle_from_json(obj).solution is not None


def test_cli_shows_the_board_and_its_scores(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["generate", "--game", "queens", "--size", "7", "--band", "easy", "--ascii"], capsys)
    assert code == 0 and "*" not in out  # the puzzle, not its answer
    code, with_stars, _ = run(
        ["generate", "--game", "queens", "--size", "7", "--band", "easy", "--ascii", "--solution"], capsys
    )
    assert code == 0 and with_stars.count("*") == 7
    assert "easy, difficulty" in out and "fun" in out and "looks" in out and "candidates" in out


def test_cli_bad_slot_is_one_line_and_status_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["generate", "--game", "queens", "--size", "8", "--band", "expert"], capsys)
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "expert" in err


def test_cli_makes_a_named_extra_slot(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`generate --slot NAME` takes the slot's board and budgets from the config (here a small extra slot)."""
    extra = {"name": "weekend", "game": "queens", "size": 7, "stars": 1, "band": "easy", "candidate_budget": 50}
    config = tmp_path / "starbattle.yaml"
    config.write_text(json.dumps({"pipeline": {"extra_slots": [extra]}}))
    monkeypatch.setenv("STARBATTLE_CONFIG", str(config))
    code, out, _ = run(["generate", "--slot", "weekend", "--seed", "1", "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert (obj["game"], obj["size"], obj["band"], obj["seed"]) == ("queens", 7, "easy", 1)
    assert obj["counters"]["candidates"] <= 50
    # The same board as the slot's game, size and band spelled out: --slot only names them.
    code, spelled, _ = run(
        ["generate", "--game", "queens", "--size", "7", "--band", "easy", "--seed", "1", "--json"], capsys
    )
    assert code == 0 and puzzle_from_json(json.loads(spelled)).regions == puzzle_from_json(obj).regions


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["generate", "--slot", "no-such-slot"], ("--slot 'no-such-slot'", "starbattle-14-easy")),
        (["generate", "--slot", "starbattle-14-easy", "--size", "9"], ("--slot", "leave out --size")),
    ],
)
def test_cli_bad_slot_name_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: list[str], words: tuple[str, ...]
) -> None:
    monkeypatch.delenv("STARBATTLE_CONFIG", raising=False)
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and all(word in err for word in words)
