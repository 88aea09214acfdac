"""The static masks a grader works with, and the board state it changes.

A `Geometry` is the board's one geometry (`board_tables.BoardGeometry`, the masks the counter searches with, the
same object) with what a grader adds: its units (rows, columns, regions, bands of two neighbouring rows or columns)
as `Unit`s with the names a player uses, and the words its sentences use for what goes on the board (`Words`: a
star, or a queen on a Queens board). A `State` is the player's pencil marks: the cells known to be stars and the
cells known to be empty; every other cell is open.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..board_tables import BoardGeometry, touching_all, touching_any
from ..puzzle import Cells, Puzzle, iter_cells
from .canonical import View
from .recall import Recall


@dataclass(frozen=True)
class Unit:
    """A set of cells with a known star count: a row, a column or a region (``quota`` = the puzzle's stars), or
    a band of two neighbouring rows or columns (twice that)."""

    kind: str  # "row", "column", "region", "rows", "columns"
    index: int
    mask: Cells
    quota: int
    label: str  # "row 3", "region C", "rows 3-4"


@dataclass(frozen=True)
class Words:
    """What the sentences call the thing a player places: where a Star Battle sentence says "a star" and "its
    stars", a Queens sentence says "a queen" and "its queens"."""

    star: str
    stars: str

    def are_stars(self, cells: Cells) -> str:
        """'is a star' for one cell, 'are stars' for more."""
        return f"is a {self.star}" if cells.bit_count() == 1 else f"are {self.stars}"


STAR_WORDS = Words("star", "stars")
QUEEN_WORDS = Words("queen", "queens")


@dataclass(frozen=True)
class State:
    """Pencil marks: cells known to be stars, cells known to be empty."""

    stars: Cells = 0
    empty: Cells = 0


class Geometry:
    """The board's masks (`board`, shared with the counter) and its units as a player names them; immutable once
    built. What a solve remembers lives in `recall` (a fresh `Recall` per geometry)."""

    def __init__(self, puzzle: Puzzle, view: View | None = None) -> None:
        """`view`: how to name cells and units when `puzzle` is the canonical form of the player's board (see
        canonical.py); without it, the puzzle's own names."""
        n = puzzle.size
        board: BoardGeometry = puzzle.geometry
        grid = board.grid
        self.puzzle = puzzle
        self.board = board
        self.view = view
        self.words = QUEEN_WORDS if puzzle.game == "queens" else STAR_WORDS
        self.size = n
        self.stars = puzzle.stars
        self.all_cells = board.all_cells
        self.neighbours = board.neighbours
        k = puzzle.stars
        if view is None:
            line_labels = tuple(f"row {i + 1}" for i in range(n)) + tuple(f"column {i + 1}" for i in range(n))
            band_labels = tuple(f"rows {i + 1}-{i + 2}" for i in range(n - 1)) + tuple(
                f"columns {i + 1}-{i + 2}" for i in range(n - 1)
            )
            region_labels = tuple(f"region {puzzle.unit_label('region', i)}" for i in range(n))
        else:
            line_labels, band_labels, region_labels = view.lines, view.bands, view.regions
        self.rows = tuple(Unit("row", i, m, k, line_labels[i]) for i, m in enumerate(grid.rows))
        self.columns = tuple(Unit("column", i, m, k, line_labels[n + i]) for i, m in enumerate(grid.columns))
        self.regions = tuple(Unit("region", i, m, k, region_labels[i]) for i, m in enumerate(board.region_masks))
        self.lines = self.rows + self.columns
        # Rows, columns, regions: the units whose quota the rules state.
        self.units = self.lines + self.regions
        self.bands = tuple(Unit("rows", i, m, 2 * k, band_labels[i]) for i, m in enumerate(grid.row_bands)) + tuple(
            Unit("columns", i, m, 2 * k, band_labels[n - 1 + i]) for i, m in enumerate(grid.column_bands)
        )
        # Plain tuples for the hot loops of propagation, the board's own: unit masks in the order of `units`, how to
        # read a line as a path of bits, the cells crossing each unit (`zones`), each cell's units' positions.
        self.unit_masks = board.units
        self.line_paths = grid.line_paths
        self.row_masks = grid.rows
        self.column_masks = grid.columns
        self.region_masks = board.region_masks
        self.line_masks = grid.rows + grid.columns
        self.zones = board.zones
        self.units_of_cell = board.units_of_cell
        self.recall = Recall()
        object.__setattr__(self, "_sealed", True)

    def __setattr__(self, name: str, value: object) -> None:
        if getattr(self, "_sealed", False):
            raise AttributeError(f"a Geometry is immutable: cannot set {name!r}")
        object.__setattr__(self, name, value)

    def initial_state(self) -> State:
        return State(self.puzzle.given_stars, self.puzzle.given_empty)

    def open_cells(self, state: State) -> Cells:
        return self.all_cells & ~state.stars & ~state.empty

    def lacks(self, state: State) -> tuple[int, ...]:
        """Stars each unit of `units` still lacks (cached for the last state asked about)."""
        recall = self.recall
        if recall.lacks_for != state.stars:
            stars = state.stars
            k = self.stars
            recall.lacks = tuple(k - (mask & stars).bit_count() for mask in self.unit_masks)
            recall.lacks_for = stars
        return recall.lacks

    def need(self, unit: Unit, state: State) -> int:
        """Stars the unit still lacks."""
        return unit.quota - (unit.mask & state.stars).bit_count()

    def cell_name(self, cell: int) -> str:
        """The player's name of a cell (R3C5 on the board as the player holds it)."""
        return self.puzzle.cell_name(cell) if self.view is None else self.view.cell_name(cell)

    def names(self, mask: Cells) -> str:
        """'R1C2', 'R1C2 and R3C4', 'R1C2, R3C4 and R5C6', in the player's reading order."""
        found = list(iter_cells(mask))
        if self.view is not None:
            found.sort(key=self.view.cells.__getitem__)
        cells = [self.cell_name(c) for c in found]
        if len(cells) <= 1:
            return "".join(cells)
        return ", ".join(cells[:-1]) + " and " + cells[-1]

    def touched(self, mask: Cells) -> Cells:
        """Every cell that touches some cell of the mask."""
        seen = self.recall.near.get(mask)
        if seen is None:
            seen = self.recall.near[mask] = touching_any(mask, self.neighbours)
        return seen

    def seen_by_all(self, mask: Cells) -> Cells:
        """The cells that touch every cell of a non-empty mask: a star anywhere in the mask empties them."""
        common = self.recall.common.get(mask)
        if common is None:
            common = self.recall.common[mask] = touching_all(mask, self.all_cells & ~mask, self.board.closes)
        return common
