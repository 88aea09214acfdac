"""Boards for the store's tests (test_db.py, test_variety.py): real archive boards with their published solutions,
standing in for generated ones, as the `AcceptedBoard` the daily flow hands to `save_board`."""

from __future__ import annotations

import itertools

from conftest import shared_file

from starbattle_core.formats import puzzle_to_json, read_jsonl
from starbattle_core.generator import record_from_json
from starbattle_core.puzzle import Puzzle
from starbattle_store import AcceptedBoard, layout_rows_bytes


def archive_boards(count: int) -> list[Puzzle]:
    """The first `count` 10x10 2-star boards of the shared archive."""
    boards = (p for p in read_jsonl(str(shared_file("starbattle/archive.jsonl"))) if p.size == 10 and p.stars == 2)
    return list(itertools.islice(boards, count))


def accepted(puzzle: Puzzle, seed: int = 1, steps: object = None) -> AcceptedBoard:
    """`puzzle` with its solution as an accepted board of fixed grades; `steps` its solve path (one step when None)."""
    shared = puzzle_to_json(puzzle, puzzle.solution)
    scores = {"difficulty": 500, "band": "medium", "fun": 80.5, "looks": 70.0, "seed": seed}
    return AcceptedBoard(
        record=record_from_json({**shared, **scores, "generator_version": "g1", "solver_version": "s1"}),
        steps=steps if steps is not None else {"steps": [{"technique": "t", "cost": 1}]},
        layout_rows=layout_rows_bytes(shared["solution"], shared["size"]),
    )
