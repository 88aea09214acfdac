"""Count the solutions of a puzzle, stopping at a limit: the engine's uniqueness proof.

The search keeps two Cells ints: ``stars`` (cells that hold a star) and ``open`` (cells still undecided); every
other cell is empty. Propagation works unit by unit on bit masks:

- a star empties its neighbours, and a unit that reaches its quota empties the rest of itself;
- a unit whose open cells can no longer reach its remaining need kills the branch, one whose open cells are exactly
  its remaining need fills them;
- pigeonhole on 2x2 blocks: no 2x2 block holds two stars, so a unit whose open cells are covered by fewer blocks
  than it needs is dead, and when the cover is exactly as large as the need, a block with one open cell is a star.

When propagation stalls, the search branches on the most constrained unit (fewest ways to place its remaining
stars): branch i puts the unit's first star on its i-th open cell and empties the cells before it, so the branches
are disjoint and together cover every solution. Per-puzzle tables are built once and cached.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from math import comb

from .puzzle import Cells, InputError, Puzzle


@dataclass(frozen=True)
class CountResult:
    """What a count found: ``count`` solutions (at most the limit), in the order found."""

    count: int
    exact: bool  # True when the search was exhaustive, so `count` is the true number of solutions
    solutions: tuple[Cells, ...]
    nodes: int
    ms: float


@dataclass(frozen=True)
class _Tables:
    """Per-board masks the search reads at every node (built once per region map)."""

    size: int
    stars: int
    units: tuple[Cells, ...]
    # For each cell: the cell itself with its neighbours (what a star there closes).
    closes: tuple[Cells, ...]
    # For each cell: the units it belongs to (row, column, region).
    cell_units: tuple[tuple[Cells, Cells, Cells], ...]
    # For each cell: the 2x2 block with the cell at its top-left corner, clipped to the board.
    block: tuple[Cells, ...]


@lru_cache(maxsize=256)
def _tables(size: int, stars: int, regions: tuple[int, ...]) -> _Tables:
    n = size
    rows = [((1 << n) - 1) << (r * n) for r in range(n)]
    first_col = sum(1 << (r * n) for r in range(n))
    cols = [first_col << c for c in range(n)]
    region_masks = [0] * n
    for cell, region in enumerate(regions):
        region_masks[region] |= 1 << cell
    closes = []
    blocks = []
    for r in range(n):
        for c in range(n):
            mask = 0
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    if 0 <= r + dr < n and 0 <= c + dc < n:
                        mask |= 1 << ((r + dr) * n + c + dc)
            closes.append(mask)
            block = 0
            for dr in (0, 1):
                for dc in (0, 1):
                    if r + dr < n and c + dc < n:
                        block |= 1 << ((r + dr) * n + c + dc)
            blocks.append(block)
    cell_units = tuple((rows[i // n], cols[i % n], region_masks[regions[i]]) for i in range(n * n))
    return _Tables(n, stars, tuple(rows + cols + region_masks), tuple(closes), cell_units, tuple(blocks))


class _Dead(Exception):
    """A contradiction found by propagation (internal control flow only)."""


def count_solutions(puzzle: Puzzle, limit: int = 2, *, stars: Cells = 0, empty: Cells = 0) -> CountResult:
    """Count the puzzle's solutions up to `limit`, honouring its givens plus the extra `stars` and `empty` cells.

    Returns the solutions found (in search order), whether the search was exhaustive (it stops as soon as it
    reaches `limit`, and then `exact` is False), the number of search nodes and the time taken in milliseconds.
    """
    if limit < 1:
        raise InputError(f"limit must be at least 1, not {limit}")
    start = time.perf_counter()
    tables = _tables(puzzle.size, puzzle.stars, puzzle.regions)
    search = _Search(tables, limit)
    forced_stars = puzzle.given_stars | stars
    forced_empty = puzzle.given_empty | empty
    open_cells = puzzle.all_cells & ~forced_empty
    state = _place_all(tables, 0, open_cells, forced_stars)
    if state is not None:
        search.run(*state)
    found = tuple(search.solutions)
    exact = len(found) < limit
    return CountResult(len(found), exact, found, search.nodes, (time.perf_counter() - start) * 1000.0)


def _place_all(tables: _Tables, stars: Cells, open_cells: Cells, new: Cells) -> tuple[Cells, Cells] | None:
    """Put stars on every cell of `new`, or None when one of them is not open (touching, full unit, empty)."""
    quota = tables.stars
    closes = tables.closes
    cell_units = tables.cell_units
    while new:
        bit = new & -new
        new ^= bit
        if not open_cells & bit:
            return None
        cell = bit.bit_length() - 1
        stars |= bit
        open_cells &= ~closes[cell]
        for unit in cell_units[cell]:
            if (stars & unit).bit_count() == quota:
                open_cells &= ~unit
    return stars, open_cells


class _Search:
    def __init__(self, tables: _Tables, limit: int) -> None:
        self.tables = tables
        self.limit = limit
        self.solutions: list[Cells] = []
        self.nodes = 0
        self.total = tables.size * tables.stars

    def run(self, stars: Cells, open_cells: Cells) -> None:
        """Depth-first search from a state; returns when the subtree is done or the limit is reached."""
        self.nodes += 1
        result = self.propagate(stars, open_cells)
        if result is None:
            return
        stars, open_cells, choice, need = result
        if stars.bit_count() == self.total:
            self.solutions.append(stars)
            return
        # Branch on the unit's first star: on its i-th open cell, the cells before it empty.
        closes = self.tables.closes
        cell_units = self.tables.cell_units
        quota = self.tables.stars
        for _ in range(choice.bit_count() - need + 1):
            bit = choice & -choice
            choice ^= bit
            cell = bit.bit_length() - 1
            child_stars = stars | bit
            child_open = open_cells & ~closes[cell]
            for unit in cell_units[cell]:
                if (child_stars & unit).bit_count() == quota:
                    child_open &= ~unit
            self.run(child_stars, child_open)
            if len(self.solutions) >= self.limit:
                return
            open_cells &= ~bit

    def propagate(self, stars: Cells, open_cells: Cells) -> tuple[Cells, Cells, Cells, int] | None:
        """Apply the unit rules until nothing changes; None on a contradiction.

        Returns the new state and the unit to branch on (its open cells and remaining need).
        """
        tables = self.tables
        quota = tables.stars
        units = tables.units
        closes = tables.closes
        cell_units = tables.cell_units
        block = tables.block
        while True:
            changed = False
            best_score = 1 << 60
            best_cells = 0
            best_need = 0
            for unit in units:
                cells = open_cells & unit
                need = quota - (stars & unit).bit_count()
                count = cells.bit_count()
                if count <= need:
                    if count < need:
                        return None
                    if not count:
                        continue
                    forced = cells
                else:
                    if need == 1:
                        if count < best_score:
                            best_score, best_cells, best_need = count, cells, need
                        continue
                    # Cover the open cells greedily with 2x2 blocks (each holds at most one star).
                    rest = cells
                    singles = 0
                    covers = 0
                    while rest and covers <= need:
                        low = rest & -rest
                        piece = rest & block[low.bit_length() - 1]
                        if piece == low:
                            singles |= low
                        rest &= ~piece
                        covers += 1
                    if covers < need:
                        return None
                    if covers > need or not singles:
                        score = comb(count, need)
                        if score < best_score:
                            best_score, best_cells, best_need = score, cells, need
                        continue
                    forced = singles
                # Put a star on every forced cell.
                while forced:
                    bit = forced & -forced
                    forced ^= bit
                    if not open_cells & bit:
                        return None
                    cell = bit.bit_length() - 1
                    stars |= bit
                    open_cells &= ~closes[cell]
                    for other in cell_units[cell]:
                        if (stars & other).bit_count() == quota:
                            open_cells &= ~other
                changed = True
            if not changed:
                return stars, open_cells, best_cells, best_need
