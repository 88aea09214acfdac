"""A published day for the site tests: seven real boards (four 10x10 2-star Star Battle, three 9x9 Queens from the
shared data) graded by the real grader and stored the way the daily flow stores them."""

from __future__ import annotations

import datetime as dt
import itertools
from pathlib import Path

import yaml
from conftest import shared_file

from starbattle_core.formats import puzzle_to_json, read_jsonl
from starbattle_core.generator import record_from_json
from starbattle_core.grader import grade, walkthrough_json
from starbattle_core.puzzle import Puzzle
from starbattle_store import AcceptedBoard, Effort, layout_rows_bytes, save_board
from starbattle_store.db import open_database

DAY = dt.date(2026, 12, 1)
SLOTS = (
    "starbattle-easy",
    "starbattle-medium",
    "starbattle-hard",
    "starbattle-expert",
    "queens-easy",
    "queens-medium",
    "queens-hard",
)


def day_puzzles(later: int = 0) -> list[Puzzle]:
    """Four 10x10 2-star archive boards and three 9x9 LinkedIn levels; `later` days on, the next seven (a board is
    never published twice, so another day needs boards of its own)."""
    starbattle = (p for p in read_jsonl(str(shared_file("starbattle/archive.jsonl"))) if (p.size, p.stars) == (10, 2))
    queens = (p for p in read_jsonl(str(shared_file("queens/linkedin.jsonl"))) if p.size == 9)
    return list(itertools.islice(starbattle, 4 * later, 4 * later + 4)) + list(
        itertools.islice(queens, 3 * later, 3 * later + 3)
    )


def write_config(root: Path) -> Path:
    config = root / "starbattle.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "pipeline": {
                    "database_url": f"sqlite:///{root / 'db' / 'starbattle.db'}",
                    "prefect_home": str(root / "prefect"),
                    "site_dir": str(root / "site"),
                }
            }
        )
    )
    return config


def store_day(root: Path, day: dt.date = DAY, puzzles: list[Puzzle] | None = None) -> list[Puzzle]:
    """Grade and store `puzzles` (default: the seven of `day_puzzles`) as the boards of `day`."""
    engine = open_database(f"sqlite:///{root / 'db' / 'starbattle.db'}")
    puzzles = day_puzzles() if puzzles is None else puzzles
    effort = Effort(attempt=0, seed=1, candidates=1, repair_rounds=0, rejections={}, stage_seconds={}, seconds=0.1)
    for position, (slot, puzzle) in enumerate(zip(SLOTS[: len(puzzles)], puzzles, strict=True)):
        graded = grade(puzzle)
        shared = puzzle_to_json(puzzle, puzzle.solution)
        scores = {"difficulty": graded.difficulty, "band": graded.band, "fun": graded.experience.fun, "looks": 70.0}
        versions = {"seed": position, "generator_version": "test", "solver_version": graded.version}
        board = AcceptedBoard(
            record=record_from_json({**shared, **scores, **versions}),
            steps=walkthrough_json(puzzle, graded),
            layout_rows=layout_rows_bytes(shared["solution"], puzzle.size),
        )
        save_board(engine, run_id=None, date=day, slot=slot, position=position, board=board, effort=effort)
    return puzzles
