"""A solution found by the SAT solver lets the hypothetical scans skip the assumptions that solution makes (they
can never be refuted): the path must be exactly the one found without it, and nothing may be skipped where the
solution does not keep the marks."""

from __future__ import annotations

import json

import pytest
from conftest import shared_file

from starbattle_core.formats import puzzle_from_json
from starbattle_core.grader import Geometry, grade, hypothetical, walkthrough_json
from starbattle_core.grader.canonical import canonical_form
from starbattle_core.grader.geometry import State
from starbattle_core.grader.hypothetical import assumption
from starbattle_core.grader.propagation import CASES
from starbattle_core.puzzle import Puzzle

# Archive 10x10 2-star hard boards whose paths take the dear assumption scans (cases level) several times.
BOARDS = ("6:1525", "6:917")


def _archive_board(board_id: str) -> Puzzle:
    for line in shared_file("starbattle/archive.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row["id"] == board_id:
            return puzzle_from_json(row)
    raise LookupError(board_id)


@pytest.mark.parametrize("board_id", BOARDS)
def test_the_path_is_the_one_found_without_a_solution(board_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    board = _archive_board(board_id)
    looked: list[int] = []
    found = hypothetical.sat_solutions

    def counted(*args: object) -> object:
        looked.append(1)
        return found(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(hypothetical, "sat_solutions", counted)
    with_solution = walkthrough_json(board, grade(board))
    assert looked == [1]  # the scans did look for a solution, once
    monkeypatch.setattr(hypothetical, "sat_solutions", lambda *_: iter(()))
    without = walkthrough_json(board, grade(board))
    assert with_solution == without


def test_skipped_assumptions_are_those_the_solution_makes_and_none_survive_refutation() -> None:
    board = _archive_board(BOARDS[0])
    canonical, view = canonical_form(board)
    geometry = Geometry(canonical, view)
    state = geometry.initial_state()
    all_cells = hypothetical._candidates(geometry, state)
    kept = hypothetical._refutable(geometry, state, all_cells, "empty", look=True)
    witness = geometry.recall.witness
    assert witness is not None and witness.bit_count() == canonical.size * canonical.stars
    # An empty assumption can only be refuted at a star of the (only) solution; every other one is skipped.
    assert kept == [cell for cell in all_cells if witness >> cell & 1]
    skipped = [cell for cell in all_cells if cell not in kept]
    assert skipped and all(
        hypothetical._refute(geometry, state, cell, "empty", CASES, 1).contradiction is None for cell in skipped
    )
    # Inside a chain (a mark the solution breaks) nothing is skipped.
    wrong = next(cell for cell in all_cells if not witness >> cell & 1)
    assumed = State(state.stars | 1 << wrong, state.empty)
    assert hypothetical._refutable(geometry, assumed, all_cells, "star", look=True) == all_cells


def test_a_board_without_a_solution_skips_nothing() -> None:
    # Two regions of one cell side by side: no solution, so no solution to skip by.
    board = Puzzle(4, 1, (0, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3))
    canonical, view = canonical_form(board)
    geometry = Geometry(canonical, view)
    state = geometry.initial_state()
    assert assumption(geometry, state, assume="star", level=CASES, budget=0, depth=1) is not None
    assert geometry.recall.witness_known and geometry.recall.witness is None
