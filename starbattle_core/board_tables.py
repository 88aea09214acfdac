"""Per-board tables for the solution counter: every mask the search reads at a node, built once per region map.

Besides rows, columns and regions, the tables hold the same board transposed (cell r*size+c <-> c*size+r), so
that what the counter reasons about rows it can reason about columns with the same code.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, lru_cache

from .puzzle import Cells

# A strip of two neighbouring rows: (top row, the piece of each region inside it as (region index, mask)).
Strip = tuple[int, tuple[tuple[int, Cells], ...]]


@dataclass(frozen=True)
class BoardTables:
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
    regions: tuple[Cells, ...]
    # The region masks of the transposed board (cell r*size+c <-> c*size+r), for the column-wise band analysis.
    regions_transposed: tuple[Cells, ...]
    # Every strip of two neighbouring rows, then the same for the transposed board (strips of columns).
    strips: tuple[Strip, ...]
    strips_transposed: tuple[Strip, ...]
    # Transposition by table: for each chunk of a row, (bit offset, width, table of that chunk's bits spread to
    # the transposed positions).
    spread: tuple[tuple[int, int, tuple[Cells, ...]], ...]

    def transpose(self, cells: Cells) -> Cells:
        """The cells mirrored across the main diagonal (its own inverse)."""
        n = self.size
        full = (1 << n) - 1
        result = 0
        for r in range(n):
            row = (cells >> (r * n)) & full
            if row:
                for offset, width, table in self.spread:
                    part = (row >> offset) & ((1 << width) - 1)
                    if part:
                        result |= table[part] << r
        return result


@lru_cache(maxsize=256)
def board_tables(size: int, stars: int, regions: tuple[int, ...]) -> BoardTables:
    """The tables of a board (cached: the generator re-counts many variants of a few region maps)."""
    n = size
    rows, cols, closes, blocks = _geometry(n)
    region_masks = [0] * n
    transposed_regions = [0] * n
    transposed_cell = _transposed_cells(n)
    for cell, region in enumerate(regions):
        region_masks[region] |= 1 << cell
        transposed_regions[region] |= 1 << transposed_cell[cell]
    row_col = _row_col_of_cells(n)
    cell_units = tuple([(row, col, region_masks[region]) for (row, col), region in zip(row_col, regions, strict=True)])
    return BoardTables(
        n,
        stars,
        rows + cols + tuple(region_masks),
        closes,
        cell_units,
        blocks,
        tuple(region_masks),
        tuple(transposed_regions),
        _strips(n, region_masks),
        _strips(n, transposed_regions),
        _spread_tables(n),
    )


@cache
def _geometry(n: int) -> tuple[tuple[Cells, ...], tuple[Cells, ...], tuple[Cells, ...], tuple[Cells, ...]]:
    """What depends on the size only: row masks, column masks, each cell with its neighbours, 2x2 blocks."""
    rows = tuple(((1 << n) - 1) << (r * n) for r in range(n))
    first_col = sum(1 << (r * n) for r in range(n))
    cols = tuple(first_col << c for c in range(n))
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
    return rows, cols, tuple(closes), tuple(blocks)


@cache
def _transposed_cells(n: int) -> tuple[int, ...]:
    return tuple((cell % n) * n + cell // n for cell in range(n * n))


@cache
def _row_col_of_cells(n: int) -> tuple[tuple[Cells, Cells], ...]:
    rows, cols, _, _ = _geometry(n)
    return tuple((rows[cell // n], cols[cell % n]) for cell in range(n * n))


def _strips(n: int, regions: list[Cells]) -> tuple[Strip, ...]:
    strips = []
    for top in range(n - 1):
        band = ((1 << (2 * n)) - 1) << (top * n)
        strips.append((top, tuple((index, mask & band) for index, mask in enumerate(regions) if mask & band)))
    return tuple(strips)


@cache
def _spread_tables(n: int) -> tuple[tuple[int, int, tuple[Cells, ...]], ...]:
    """Tables that transpose a board row chunk by chunk (chunks of at most 10 bits keep them small)."""
    chunks = -(-n // 10)
    width = -(-n // chunks)
    spread = []
    for offset in range(0, n, width):
        w = min(width, n - offset)
        table = [0]
        for bit in range(w):
            single = 1 << ((offset + bit) * n)
            table += [mask | single for mask in table]
        spread.append((offset, w, tuple(table)))
    return tuple(spread)
