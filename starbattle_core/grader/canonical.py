"""The canonical form of a board: the one representative of its 8 rotations and reflections and of every
relabelling of its regions, which is what the solver grades.

The step solver scans units and cells in index order, so on its own the path it finds (and with it the difficulty,
the band and the fun score) depends on how the board happens to be turned and lettered. Grading the canonical form
instead makes every one of those numbers a property of the board: two boards that differ only by a symmetry or by
region letters have the same canonical form, hence the same solve path, step for step.

The canonical form: for each of the 8 symmetries, turn the board, number its regions in reading order of their
first cell, and keep the turn whose (regions, given stars, given empty cells) is smallest. A `View` maps the
canonical board back to the player's: cells, and the names of rows, columns, bands and regions, so that a
walkthrough speaks of the board the player holds, in the player's region letters.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from ..puzzle import Cells, Puzzle, iter_cells


def _turn(symmetry: int, r: int, c: int, m: int) -> tuple[int, int]:
    """Where (r, c) goes under one of the 8 symmetries of the square (m = size - 1): the identity, three
    rotations, then four reflections."""
    return (
        (r, c),
        (c, m - r),
        (m - r, m - c),
        (m - c, r),
        (r, m - c),
        (m - r, c),
        (c, r),
        (m - c, m - r),
    )[symmetry]


@cache
def symmetry_maps(size: int) -> tuple[tuple[int, ...], ...]:
    """For each of the 8 symmetries, the cell each cell goes to (row-major numbering)."""
    m = size - 1
    maps = []
    for symmetry in range(8):
        moved = []
        for cell in range(size * size):
            r, c = _turn(symmetry, cell // size, cell % size, m)
            moved.append(r * size + c)
        maps.append(tuple(moved))
    return tuple(maps)


def move_cells(mask: Cells, moved: tuple[int, ...]) -> Cells:
    """A set of cells carried by a cell map."""
    out = 0
    for cell in iter_cells(mask):
        out |= 1 << moved[cell]
    return out


@dataclass(frozen=True)
class View:
    """How the canonical board reads on the player's board: the player's cell of every canonical cell, and the
    player's name of every canonical row, column, band of two rows or columns, and region."""

    player: Puzzle
    cells: tuple[int, ...]  # canonical cell -> the player's cell
    lines: tuple[str, ...]  # canonical rows then columns -> "row 3", "column 8"
    bands: tuple[str, ...]  # canonical bands of rows then of columns -> "rows 3-4", "columns 7-8"
    regions: tuple[str, ...]  # canonical region -> "region C" (the player's letter)

    def cell_name(self, cell: int) -> str:
        return self.player.cell_name(self.cells[cell])

    def to_player(self, mask: Cells) -> Cells:
        return move_cells(mask, self.cells)

    def to_canonical(self, mask: Cells) -> Cells:
        """The canonical cells of a mask of the player's cells (the inverse of `to_player`)."""
        out = 0
        for canonical_cell, player_cell in enumerate(self.cells):
            if mask >> player_cell & 1:
                out |= 1 << canonical_cell
        return out


def canonical_form(puzzle: Puzzle) -> tuple[Puzzle, View]:
    """The canonical board of `puzzle` and the view back onto `puzzle` (see the module docstring)."""
    n = puzzle.size
    best: tuple[tuple[int, ...], Cells, Cells] | None = None
    best_map: tuple[int, ...] = ()
    for moved in symmetry_maps(n):
        regions = [0] * (n * n)
        for cell, region in enumerate(puzzle.regions):
            regions[moved[cell]] = region
        number: dict[int, int] = {}
        renumbered = tuple(number.setdefault(region, len(number)) for region in regions)
        key = (renumbered, move_cells(puzzle.given_stars, moved), move_cells(puzzle.given_empty, moved))
        if best is None or key < best:
            best, best_map = key, moved
    assert best is not None
    numbered, given_stars, given_empty = best
    canonical = Puzzle(n, puzzle.stars, numbered, puzzle.game, given_stars, given_empty, puzzle.id)
    back = [0] * (n * n)
    for cell, target in enumerate(best_map):
        back[target] = cell
    return canonical, _view(puzzle, canonical, tuple(back))


def _view(player: Puzzle, canonical: Puzzle, cells: tuple[int, ...]) -> View:
    n = player.size

    def line_of(canonical_cells: list[int]) -> tuple[str, int]:
        """The player's line holding these canonical cells (a whole canonical row or column)."""
        first, second = cells[canonical_cells[0]], cells[canonical_cells[1]]
        if first // n == second // n:
            return "row", first // n
        return "column", first % n

    if n == 1:
        lines = [("row", 0), ("column", 0)]
    else:
        lines = [line_of([i * n, i * n + 1]) for i in range(n)] + [line_of([i, n + i]) for i in range(n)]
    bands = []
    for offset in (0, n):
        for i in range(n - 1):
            kind, a = lines[offset + i]
            _, b = lines[offset + i + 1]
            bands.append(f"{kind}s {min(a, b) + 1}-{max(a, b) + 1}")
    regions = []
    for region in range(n):
        cell = next(c for c in range(n * n) if canonical.regions[c] == region)
        regions.append(f"region {player.unit_label('region', player.regions[cells[cell]])}")
    return View(
        player,
        cells,
        tuple(f"{kind} {index + 1}" for kind, index in lines),
        tuple(bands),
        tuple(regions),
    )
