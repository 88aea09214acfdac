"""The plain values boards and counters travel as between the generator, the tasks and the database: picklable, so
they cross the process pool. A board's fields live in one place, the engine's `BoardRecord`
(starbattle_core/generator/record.py): the values here hold one, and `puzzle_row` / `solve_path_row` /
`stored_record` map it to and from the database's rows."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any

from starbattle_core.generator.record import BoardRecord
from starbattle_core.puzzle import Cells, Puzzle, coords_to_cells
from starbattle_store.db import PuzzleRecord, SolvePath


@dataclass(frozen=True)
class Effort:
    """What one generator call for a slot cost: its counters, as the database keeps them."""

    attempt: int
    seed: int
    candidates: int
    repair_rounds: int
    rejections: dict[str, int]
    stage_seconds: dict[str, float]
    seconds: float


@dataclass(frozen=True)
class AcceptedBoard:
    """A board the generator accepted, as the database keeps it: its record, solve path and layout."""

    record: BoardRecord
    steps: Any  # the grader's walkthrough JSON
    layout_rows: bytes = b""  # the solution as uint32 row masks, to count the layout's use in the bank


@dataclass(frozen=True)
class ScheduledBoard:
    """A published board as the CLI shows it: where it is published, its record (difficulty, band and solver version
    those of the solve path shown) and the candidates its accepting attempt tried."""

    date: dt.date
    slot: str
    position: int
    puzzle_id: int
    record: BoardRecord
    candidates: int = 0
    steps: Any = field(default=None, compare=False)

    def puzzle(self) -> Puzzle:
        """The engine's puzzle, with its solution."""
        return self.record.puzzle(where=f"{self.date} {self.slot}")

    def board_json(self) -> dict[str, Any]:
        """The board's record as JSON: the shared-data puzzle plus band, scores, seed and both versions."""
        return self.record.to_json()

    @property
    def star_mask(self) -> Cells:
        return coords_to_cells(self.record.solution, self.record.size, "solution cell")


def puzzle_row(record: BoardRecord) -> PuzzleRecord:
    """The `puzzle` row of a board (its canonical keys are the caller's, starbattle_store/variety.py)."""
    return PuzzleRecord(
        game=record.game,
        size=record.size,
        stars=record.stars,
        regions=json.dumps(list(record.regions)),
        solution=json.dumps([list(star) for star in record.solution]),
        difficulty=record.difficulty,
        band=record.band,
        fun=record.fun,
        looks=record.looks,
        seed=record.seed,
        generator_version=record.generator_version,
    )


def solve_path_row(puzzle_id: int, record: BoardRecord, steps: Any) -> SolvePath:
    """The `solvepath` row of a board's solve path, under the record's solver version."""
    return SolvePath(
        puzzle_id=puzzle_id,
        solver_version=record.solver_version,
        difficulty=record.difficulty,
        band=record.band,
        steps=json.dumps(steps),
    )


def stored_record(puzzle: PuzzleRecord, path: SolvePath | None) -> BoardRecord:
    """A stored board's record: difficulty, band and solver version from the solve path shown, else the puzzle row's
    own difficulty and band and no solver version."""
    return BoardRecord(
        game=puzzle.game,
        size=puzzle.size,
        stars=puzzle.stars,
        regions=tuple(json.loads(puzzle.regions)),
        solution=tuple((int(r), int(c)) for r, c in json.loads(puzzle.solution)),
        band=path.band if path else puzzle.band,
        difficulty=path.difficulty if path else puzzle.difficulty,
        fun=puzzle.fun,
        looks=puzzle.looks,
        seed=puzzle.seed,
        solver_version=path.solver_version if path else "",
        generator_version=puzzle.generator_version,
    )
