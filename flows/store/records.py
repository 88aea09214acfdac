"""The plain values boards and counters travel as between the generator, the tasks and the database: picklable, so
they cross the process pool. A board's printed shape is the engine's `BoardRecord`
(starbattle_core/generator/record.py): `ScheduledBoard.record()` maps a stored board onto it."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from starbattle_core.generator.record import BoardRecord
from starbattle_core.puzzle import Cells, Puzzle, coords_to_cells


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
    """A board the generator accepted, in plain values: the shared-data puzzle object plus scores and solve path."""

    game: str
    size: int
    stars: int
    regions: list[str]  # region symbol rows
    solution: list[list[int]]  # [row, col] pairs
    difficulty: int
    band: str
    fun: float
    looks: float
    seed: int
    generator_version: str
    solver_version: str
    steps: Any  # the grader's walkthrough JSON
    layout_rows: bytes = b""  # the solution as uint32 row masks, to count the layout's use in the bank


@dataclass(frozen=True)
class ScheduledBoard:
    """A published board as the CLI shows it."""

    date: dt.date
    slot: str
    position: int
    puzzle_id: int
    game: str
    size: int
    stars: int
    regions: list[str]
    solution: list[list[int]]
    difficulty: int
    band: str
    fun: float
    looks: float
    seed: int
    generator_version: str
    candidates: int = 0
    steps: Any = field(default=None, compare=False)
    solver_version: str = ""  # the solver of the solve path shown (its difficulty and band)

    def record(self) -> BoardRecord:
        """The board's one record (starbattle_core/generator/record.py), as every command prints it."""
        return BoardRecord(
            game=self.game,
            size=self.size,
            stars=self.stars,
            regions=tuple(self.regions),
            solution=tuple((int(r), int(c)) for r, c in self.solution),
            band=self.band,
            difficulty=self.difficulty,
            fun=self.fun,
            looks=self.looks,
            seed=self.seed,
            solver_version=self.solver_version,
            generator_version=self.generator_version,
        )

    def puzzle(self) -> Puzzle:
        """The engine's puzzle, with its solution."""
        return self.record().puzzle(where=f"{self.date} {self.slot}")

    def board_json(self) -> dict[str, Any]:
        """The board's record as JSON: the shared-data puzzle plus band, scores, seed and both versions."""
        return self.record().to_json()

    @property
    def star_mask(self) -> Cells:
        return coords_to_cells(self.solution, self.size, "solution cell")
