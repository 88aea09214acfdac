"""The puzzle model: a board cut into regions, and the masks every other module works with.

Vocabulary (used everywhere in this project, and nothing else is called these):

- cell: a square of the board, numbered ``r * size + c`` (row-major, 0-based).
- Cells: a set of cells, stored as the bits of a Python int (bit ``i`` is cell ``i``).
- unit: a row, a column or a region; each must hold exactly ``stars`` stars.
- neighbours of a cell: the up to eight cells that touch it, diagonals included; no two stars touch.
- layout: a full placement of stars that satisfies rows, columns and touching, regions ignored.
- solution: a layout that also puts ``stars`` stars in every region (and honours the givens).

Queens is Star Battle with one star per unit; the game name only changes how boards are described.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

from .board_tables import BoardGeometry, board_geometry, grid
from .board_tables import Cells as Cells  # the type every module imports from here

GAMES = ("starbattle", "queens")
MAX_SIZE = 30
# Region symbols in the order the text formats use them: A-Z, then a-z, then digits.
REGION_SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


class InputError(ValueError):
    """Bad input of any kind (a puzzle, a config file, a date range). The message is one line that names the
    problem and where it is; the CLI prints it and exits with status 2."""


class PuzzleError(InputError):
    """A puzzle that cannot be read or is not a valid board."""


def iter_cells(mask: Cells) -> Iterator[int]:
    """The cells of a mask, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def cell_name(cell: int, size: int) -> str:
    """Human name of a cell, 1-based as puzzle players write it: R3C5."""
    return f"R{cell // size + 1}C{cell % size + 1}"


def region_name(region: int) -> str:
    return REGION_SYMBOLS[region] if region < len(REGION_SYMBOLS) else f"#{region}"


def cells_to_coords(mask: Cells, size: int) -> list[tuple[int, int]]:
    return [divmod(cell, size) for cell in iter_cells(mask)]


def coords_to_cells(coords: Sequence[Sequence[int]], size: int, what: str = "cell") -> Cells:
    """Cells from [row, col] pairs; a pair off the board is a PuzzleError naming it."""
    mask = 0
    for pair in coords:
        r, c = pair
        if not (0 <= r < size and 0 <= c < size):
            raise PuzzleError(f"{what} [{r}, {c}] is off the {size}x{size} board")
        mask |= 1 << (r * size + c)
    return mask


def layouts_exist(size: int, stars: int) -> bool:
    """Whether any layout exists for (size, stars): `stars` stars in every row and column, none touching.

    Necessary: two neighbouring rows hold at most one star per 2x2 block, so 2 * stars <= ceil(size / 2);
    when size is odd and that bound is met exactly, every such pair of rows must use the even columns only,
    which starves the odd columns. Together: 4 * stars <= size (or the 1x1 board). Sufficient on every board
    the tests count exactly (tests/test_layouts.py compares this with the layout counter up to 14x14).
    """
    if size == 1:
        return stars == 1
    return stars >= 1 and 4 * stars <= size


@dataclass(frozen=True)
class Puzzle:
    """An immutable Star Battle or Queens board.

    ``regions`` holds the region index (0..size-1) of every cell in row-major order. Construction validates
    the board and raises PuzzleError with a one-line reason. Its masks are the board's `geometry`.
    """

    size: int
    stars: int
    regions: tuple[int, ...]
    game: str = "starbattle"
    given_stars: Cells = 0
    given_empty: Cells = 0
    id: str | None = field(default=None, compare=False)
    # The published answer, when the input carried one: checked by tests and `verify`, never used to solve.
    solution: Cells | None = field(default=None, compare=False)
    # The names the input gave the regions (region i is `region_names[i]`), so that walkthroughs and errors speak
    # the player's letters; None: A, B, C, ... in reading order.
    region_names: tuple[str, ...] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        n = self.size
        if self.game not in GAMES:
            raise PuzzleError(f"unknown game {self.game!r}: expected one of {', '.join(GAMES)}")
        if not isinstance(n, int) or not 1 <= n <= MAX_SIZE:
            raise PuzzleError(f"size {n!r} out of range 1..{MAX_SIZE}")
        if len(self.regions) != n * n:
            raise PuzzleError(f"regions has {len(self.regions)} cells, a {n}x{n} board needs {n * n}")
        for cell, region in enumerate(self.regions):
            if not isinstance(region, int) or not 0 <= region < n:
                raise PuzzleError(f"{cell_name(cell, n)}: region index {region!r} out of range 0..{n - 1}")
        present = set(self.regions)
        if len(present) != n:
            raise PuzzleError(f"{len(present)} regions on a {n}x{n} board: it needs exactly {n}")
        for region in range(n):
            if not is_connected(self.region_masks[region], n):
                raise PuzzleError(f"region {region_name(region)} is not connected")
        if not isinstance(self.stars, int) or self.stars < 1:
            raise PuzzleError(f"stars {self.stars!r} out of range: at least 1 per unit")
        if self.game == "queens" and self.stars != 1:
            raise PuzzleError(f"queens has one queen per unit, not {self.stars}")
        if not layouts_exist(n, self.stars):
            raise PuzzleError(f"no valid layout exists for a {n}x{n} board with {self.stars} stars per unit")
        self._check_givens()
        if self.solution is not None and self.solution & ~self.all_cells:
            raise PuzzleError("solution has cells off the board")
        if self.region_names is not None and len(set(self.region_names)) != n:
            raise PuzzleError(f"{len(set(self.region_names))} distinct region names for {n} regions")

    def _check_givens(self) -> None:
        n = self.size
        for name, mask in (("given star", self.given_stars), ("given empty cell", self.given_empty)):
            if mask & ~self.all_cells:
                raise PuzzleError(f"a {name} is off the {n}x{n} board")
        clash = self.given_stars & self.given_empty
        if clash:
            cell = next(iter_cells(clash))
            raise PuzzleError(f"{cell_name(cell, n)} is given both as a star and as empty")
        for cell in iter_cells(self.given_stars):
            touching = self.neighbours[cell] & self.given_stars
            if touching:
                other = next(iter_cells(touching))
                raise PuzzleError(f"given stars {cell_name(cell, n)} and {cell_name(other, n)} touch")
        for kind, index, mask in self.units:
            if (mask & self.given_stars).bit_count() > self.stars:
                raise PuzzleError(f"{kind} {self.unit_label(kind, index)} has more than {self.stars} given stars")

    # --- masks: the board's one geometry (board_tables.py), shared with the counter and the grader ----------

    @property
    def geometry(self) -> BoardGeometry:
        """The board's masks, built once per region map and star count and shared by every puzzle, count and
        grading of that board (the same object, not a copy)."""
        return board_geometry(self.size, self.stars, self.regions)

    @property
    def all_cells(self) -> Cells:
        return self.geometry.all_cells

    @property
    def row_masks(self) -> tuple[Cells, ...]:
        return self.geometry.grid.rows

    @property
    def col_masks(self) -> tuple[Cells, ...]:
        return self.geometry.grid.columns

    @property
    def region_masks(self) -> tuple[Cells, ...]:
        return self.geometry.region_masks

    @property
    def neighbours(self) -> tuple[Cells, ...]:
        """For each cell, the cells that touch it (king moves), itself excluded."""
        return self.geometry.neighbours

    @cached_property
    def units(self) -> tuple[tuple[str, int, Cells], ...]:
        """Every unit as (kind, index, mask): rows, then columns, then regions."""
        return (
            tuple(("row", i, m) for i, m in enumerate(self.row_masks))
            + tuple(("column", i, m) for i, m in enumerate(self.col_masks))
            + tuple(("region", i, m) for i, m in enumerate(self.region_masks))
        )

    def unit_label(self, kind: str, index: int) -> str:
        """How a player names a unit: row 3, column 5, region C (the input's own name for it, when known)."""
        if kind != "region":
            return str(index + 1)
        return region_name(index) if self.region_names is None else self.region_names[index]

    def cell_name(self, cell: int) -> str:
        return cell_name(cell, self.size)

    # --- conversions ------------------------------------------------------------------------------

    @classmethod
    def from_grid(
        cls,
        grid: Sequence[Sequence[int]],
        stars: int,
        game: str = "starbattle",
        *,
        given_stars: Cells = 0,
        given_empty: Cells = 0,
        id: str | None = None,
        solution: Cells | None = None,
        region_names: tuple[str, ...] | None = None,
    ) -> Puzzle:
        """A puzzle from rows of region indices; a ragged or non-square grid is a PuzzleError."""
        n = len(grid)
        flat: list[int] = []
        for r, row in enumerate(grid):
            if len(row) != n:
                raise PuzzleError(f"row {r + 1} has {len(row)} cells, expected {n} (the grid must be square)")
            flat.extend(row)
        return cls(n, stars, tuple(flat), game, given_stars, given_empty, id, solution, region_names)

    def in_reading_order(self) -> Puzzle:
        """The same board with its regions numbered in reading order of their first cell (A holds the top-left
        cell, B the next region met along the rows, ...), as every parsed input is and every real board in the
        shared data; the region names, when the input gave any, follow their regions."""
        order: dict[int, int] = {}
        for region in self.regions:
            order.setdefault(region, len(order))
        if all(old == new for old, new in order.items()):
            return self
        names = self.region_names and tuple(self.region_names[old] for old in order)
        return replace(self, regions=tuple(order[region] for region in self.regions), region_names=names)

    def region_grid(self) -> list[list[int]]:
        n = self.size
        return [list(self.regions[r * n : (r + 1) * n]) for r in range(n)]

    def region_rows(self) -> list[str]:
        """Rows of region symbols, A for region 0 and so on."""
        return ["".join(region_name(x) for x in row) for row in self.region_grid()]


def is_connected(mask: Cells, size: int) -> bool:
    """Whether the cells of mask form one 4-connected piece (an empty mask is not)."""
    return grid(size).connected(mask)


def solution_problems(puzzle: Puzzle, stars: Cells) -> list[str]:
    """Why a set of star cells is not a solution of the puzzle; empty when it is one.

    Independent of every solver, so tests can assert it on whatever a solver returns.
    """
    problems = []
    if stars & ~puzzle.all_cells:
        problems.append("stars off the board")
    for kind, index, mask in puzzle.units:
        count = (stars & mask).bit_count()
        if count != puzzle.stars:
            problems.append(f"{kind} {puzzle.unit_label(kind, index)} has {count} stars, not {puzzle.stars}")
    problems.extend(
        f"star {puzzle.cell_name(cell)} touches another star"
        for cell in iter_cells(stars)
        if puzzle.neighbours[cell] & stars
    )
    if puzzle.given_stars & ~stars:
        problems.append("a given star is missing")
    if puzzle.given_empty & stars:
        problems.append("a star stands on a cell given as empty")
    return problems


def is_solution(puzzle: Puzzle, stars: Cells) -> bool:
    return not solution_problems(puzzle, stars)
