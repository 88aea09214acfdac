"""One board record: a board as every command prints it (`generate --json`, `show --json`, `export`, the site's
`boards.json`) and as the database keeps it, with the mapping functions to and from each side.

Two versions name what made a board and what measured it, each under its own key: `generator_version` (the
project's code that made it) and `solver_version` (the step solver whose solve path gave its difficulty and band).
`version` stays for readers of the older output and now means the same everywhere: the generator's version.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import metadata
from typing import Any

from ..formats import puzzle_from_json, puzzle_to_json
from ..puzzle import Puzzle
from .board import Board, Counters

# The generator has no version string of its own: the project's version names the code that made a board.
GENERATOR_VERSION = f"starbattle {metadata.version('starbattle')}"


@dataclass(frozen=True)
class BoardRecord:
    """A board in plain values: the shared data's puzzle object, its band and scores, and what made and graded it.
    `repair_rounds` and `tune_rounds` are known only for a board just generated (the database does not keep them)."""

    game: str
    size: int
    stars: int
    regions: tuple[str, ...]  # region symbol rows, as the shared data writes them
    solution: tuple[tuple[int, int], ...]  # (row, col) of each star
    band: str
    difficulty: int
    fun: float
    looks: float
    seed: int
    solver_version: str
    generator_version: str
    repair_rounds: int | None = None
    tune_rounds: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The one JSON shape of a board; callers add what is theirs (date, slot, counters, solve path)."""
        obj: dict[str, Any] = {
            "game": self.game,
            "size": self.size,
            "stars": self.stars,
            "regions": list(self.regions),
            "solution": [[r, c] for r, c in self.solution],
            "band": self.band,
            "difficulty": self.difficulty,
            "fun": self.fun,
            "looks": self.looks,
            "seed": self.seed,
            "solver_version": self.solver_version,
            "generator_version": self.generator_version,
            "version": self.generator_version,
        }
        if self.repair_rounds is not None:
            obj["repair_rounds"] = self.repair_rounds
        if self.tune_rounds is not None:
            obj["tune_rounds"] = self.tune_rounds
        return obj

    def puzzle(self, where: str = "board") -> Puzzle:
        """The engine's puzzle, with its solution."""
        return puzzle_from_json(self.to_json(), where=where)


def board_record(board: Board, generator_version: str = GENERATOR_VERSION) -> BoardRecord:
    """The generator's accepted board as a record."""
    shared = puzzle_to_json(board.puzzle, board.puzzle.solution)
    return BoardRecord(
        game=str(shared["game"]),
        size=int(shared["size"]),
        stars=int(shared["stars"]),
        regions=tuple(shared["regions"]),
        solution=tuple((int(r), int(c)) for r, c in shared["solution"]),
        band=board.band,
        difficulty=int(board.difficulty),
        fun=float(board.fun),
        looks=float(board.looks),
        seed=int(board.seed),
        solver_version=str(board.version),
        generator_version=generator_version,
        repair_rounds=int(board.repair_rounds),
        tune_rounds=int(board.tune_rounds),
    )


def board_to_json(board: Board, counters: Counters | None = None) -> dict[str, Any]:
    """`generate --json`: the board's record, and the run's counters when given."""
    obj = board_record(board).to_json()
    if counters is not None:
        obj["counters"] = counters.to_json()
    return obj


def record_from_json(obj: dict[str, Any]) -> BoardRecord:
    """A record read back from `to_json` (a printed board); a missing key is a KeyError naming it."""
    return BoardRecord(
        game=str(obj["game"]),
        size=int(obj["size"]),
        stars=int(obj["stars"]),
        regions=tuple(str(row) for row in obj["regions"]),
        solution=tuple((int(r), int(c)) for r, c in obj["solution"]),
        band=str(obj["band"]),
        difficulty=int(obj["difficulty"]),
        fun=float(obj["fun"]),
        looks=float(obj["looks"]),
        seed=int(obj["seed"]),
        solver_version=str(obj["solver_version"]),
        generator_version=str(obj["generator_version"]),
        repair_rounds=None if obj.get("repair_rounds") is None else int(obj["repair_rounds"]),
        tune_rounds=None if obj.get("tune_rounds") is None else int(obj["tune_rounds"]),
    )
