"""Reading and writing puzzles.

Formats: the JSON object of the shared data (and of the Meowdoku solver), a plain text picture of the regions,
puzz.link URLs, and JSON Lines of any of these. Every reader raises PuzzleError with a one-line message that
says where the problem is.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

from .puzzle import Cells, Puzzle, PuzzleError, cells_to_coords, coords_to_cells


def puzzle_from_json(obj: Any, where: str = "") -> Puzzle:
    """A puzzle from a decoded JSON object (`size`, `stars`, `regions` as rows of symbols or lists of ints,
    optional `solution` as [[r, c], ...], `game`, `id`)."""
    prefix = f"{where}: " if where else ""
    try:
        if not isinstance(obj, dict):
            raise PuzzleError("expected a JSON object")
        rows = obj.get("regions")
        if not isinstance(rows, list) or not rows:
            raise PuzzleError("missing 'regions'")
        game = obj.get("game", "starbattle")
        stars = obj.get("stars", 1)
        symbols: dict[Any, int] = {}
        grid = []
        for r, row in enumerate(rows):
            cells = list(row) if isinstance(row, (str, list)) else None
            if cells is None:
                raise PuzzleError(f"regions row {r + 1} is neither a string nor a list")
            grid.append([symbols.setdefault(x, len(symbols)) for x in cells])
        size = len(grid)
        solution = obj.get("solution")
        puzzle = Puzzle.from_grid(
            grid,
            stars,
            game,
            id=None if obj.get("id") is None else str(obj["id"]),
            solution=None if solution is None else coords_to_cells(solution, size, "solution cell"),
        )
        return puzzle
    except PuzzleError as error:
        raise PuzzleError(f"{prefix}{error}") from None


def puzzle_to_json(puzzle: Puzzle, solution: Cells | None = None) -> dict[str, Any]:
    """The shared data's JSON object for a puzzle, with `solution` when one is given or known."""
    obj: dict[str, Any] = {"game": puzzle.game, "size": puzzle.size, "stars": puzzle.stars}
    if puzzle.id is not None:
        obj = {"id": puzzle.id, **obj}
    obj["regions"] = puzzle.region_rows()
    if solution is None:
        solution = puzzle.solution
    if solution is not None:
        obj["solution"] = [list(rc) for rc in cells_to_coords(solution, puzzle.size)]
    return obj


def read_jsonl(path: str) -> Iterator[Puzzle]:
    """Every puzzle of a JSON Lines file; an error names the line."""
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as error:
                raise PuzzleError(f"line {number}: not JSON ({error.msg} at column {error.colno})") from None
            yield puzzle_from_json(obj, where=f"line {number}")
