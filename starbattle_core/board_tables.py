"""One immutable geometry per board: every mask the counter, the grader and the generator read, built once.

Two layers, each built once and cached by what it depends on:

- `Grid` (per size): rows, columns, the neighbourhood of every cell (eight-way: stars must not touch), the 2x2
  blocks, the bands of two neighbouring rows or columns, orthogonal growth (regions are 4-connected), and
  transposition (cell r*size+c <-> c*size+r, so what the counter reasons about rows it reasons about columns with the
  same code).
- `BoardGeometry` (per region map and star count): the region masks, every unit (rows, columns, regions), the units
  of each cell, the strips of two rows cut by region, and the same for the transposed board.

`Puzzle.geometry`, the counter's search and the grader's `Geometry` all hold the same `BoardGeometry` object (a test
checks identity), so a mask is never built twice for one board. The reasoning both read off the masks is here too,
written once: the cells touching all or any of a set, the room on a path of cells (`path_room`: the counter's
strips, the grader's rows, columns and bands) and every way to place stars (`way_families`: the counter's small
regions, the grader's cases and room in a region); each side keeps its own loop around them. Both layers are
frozen: what a solve remembers lives with the solve, never here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import NamedTuple

Cells = int

# A strip of two neighbouring rows: (top row, the piece of each region inside it as (region index, mask)).
Strip = tuple[int, tuple[tuple[int, Cells], ...]]


def touching_all(cells: Cells, candidates: Cells, closes: tuple[Cells, ...]) -> Cells:
    """The candidates that touch (or are) every one of `cells`: whichever of them holds the star, these end up
    empty. `closes[cell]` is the cell with its neighbours; pass candidates outside `cells` to get the touching ones."""
    while cells and candidates:
        low = cells & -cells
        candidates &= closes[low.bit_length() - 1]
        cells ^= low
    return candidates


def touching_any(cells: Cells, neighbours: tuple[Cells, ...]) -> Cells:
    """Every cell that touches some cell of `cells` (cells of `cells` included when they touch each other)."""
    seen = 0
    while cells:
        low = cells & -cells
        seen |= neighbours[low.bit_length() - 1]
        cells ^= low
    return seen


class PathRoom(NamedTuple):
    """The room on a path of cells (a row, a column, or a band of two folded onto one line; see `path_room`)."""

    capacity: int  # the most stars the path holds, no two touching
    # When the path must hold exactly `capacity` stars, every run of neighbouring cells holds as many as it can: a
    # run of odd length has a star on every other cell from its ends (`stars`) and none between (`empties`); a run
    # of two holds one star on one of its two cells (`pairs`: the cells of every such run).
    stars: Cells
    empties: Cells
    pairs: Cells


@lru_cache(maxsize=1 << 16)
def path_room(path: Cells, step: int = 1) -> PathRoom:
    """The room on a path whose cells are `step` bits apart, read run by run: the counter's strips and the grader's
    rows, columns and bands all ask it. Stars on a path touch when they are neighbours along it (a band folded onto
    one line: stars in the same or neighbouring columns of two neighbouring rows touch), so a run of length m holds
    at most (m + 1) // 2, and a set of runs holds the sum: choosing in one run never constrains another.

    Cached: a path of a size-n board is one of 2**n patterns per step, and the grader's hypotheticals ask the same
    few thousand times: a hit costs 0.5 us where reading a path greedily costs 1.2)."""
    capacity = stars = empties = pairs = 0
    while path:
        low = path & -path
        run = low
        length = 1
        following = low << step
        while path & following:
            run |= following
            length += 1
            following <<= step
        path ^= run
        capacity += (length + 1) // 2
        if length % 2:
            cell = low
            for offset in range(length):
                if offset % 2:
                    empties |= cell
                else:
                    stars |= cell
                cell <<= step
        elif length == 2:
            pairs |= run
    return PathRoom(capacity, stars, empties, pairs)


class UnitLimits(NamedTuple):
    """What caps the ways to place stars (see `way_families`) besides touching: the unit masks, for each cell the
    positions of its units among them, and the most stars each unit may still take."""

    masks: tuple[Cells, ...]
    units_of_cell: tuple[tuple[int, ...], ...]
    lack: tuple[int, ...]


_NO_LIMITS = UnitLimits((), (), ())


def way_families(
    free: Cells, need: int, neighbours: tuple[Cells, ...], limits: UnitLimits | None = None
) -> Iterator[tuple[Cells, Cells]]:
    """Every way to put `need` (one or more) stars on the cells `free`, no two touching (`neighbours[cell]`: the
    cells touching it) and, with `limits`, no unit getting more than it may take. The ways come in families that
    share all their stars but the last, as (those stars, the cells any one of which completes them: never empty),
    in lexicographic order of cells (every way holding the lowest cell first, a family's ways by their last cell).

    The counter's small regions, the grader's cases and its room in a region are all this enumeration, each folding
    the ways its own way and stopping when it has learnt enough; a family folds in one go what its ways share."""
    masks, units_of_cell, lack = limits if limits is not None else _NO_LIMITS
    if limits is not None:
        for mask, most in zip(masks, lack, strict=True):
            if most <= 0:
                free &= ~mask
    if need == 1:
        if free:
            yield 0, free
        return
    # Depth first, the ways taking the lowest allowed cell before those skipping it: (cells that may still join,
    # stars still to place, the stars chosen so far). A cell taken closes its neighbours and every unit of its own
    # that the stars chosen fill to their limit.
    stack = [(free, need, 0)]
    while stack:
        allowed, left, chosen = stack.pop()
        if left == 2:  # the last two stars as a plain loop (most units need two: the common case)
            while allowed:
                low = allowed & -allowed
                allowed ^= low
                cell = low.bit_length() - 1
                partners = allowed & ~neighbours[cell]
                grown = chosen | low
                if limits is not None:
                    for j in units_of_cell[cell]:
                        if (grown & masks[j]).bit_count() >= lack[j]:
                            partners &= ~masks[j]
                if partners:
                    yield grown, partners
            continue
        if allowed.bit_count() < left:
            continue
        low = allowed & -allowed
        rest = allowed ^ low
        stack.append((rest, left, chosen))
        grown = chosen | low
        cell = low.bit_length() - 1
        rest &= ~neighbours[cell]
        if limits is not None:
            for j in units_of_cell[cell]:
                if (grown & masks[j]).bit_count() >= lack[j]:
                    rest &= ~masks[j]
        stack.append((rest, left - 1, grown))


@dataclass(frozen=True)
class Grid:
    """The masks of an empty size x size board."""

    size: int
    all_cells: Cells
    rows: tuple[Cells, ...]
    columns: tuple[Cells, ...]
    # For each cell: the cells touching it (king moves), itself excluded; and the same with the cell itself (what a
    # star there closes).
    neighbours: tuple[Cells, ...]
    closes: tuple[Cells, ...]
    # For each cell: the 2x2 block with the cell at its top-left corner, clipped to the board.
    blocks: tuple[Cells, ...]
    # Rows i and i+1, columns i and i+1 (i = 0 .. size-2).
    row_bands: tuple[Cells, ...]
    column_bands: tuple[Cells, ...]
    # How to read each row, then each column, as a path of bits: (shift of its first cell, step between cells).
    line_paths: tuple[tuple[int, int], ...]
    # For each cell: the masks of its row and column, and their positions among the units (rows, then columns).
    cell_lines: tuple[tuple[Cells, Cells], ...]
    cell_line_positions: tuple[tuple[int, int], ...]
    not_left: Cells  # every cell but the left column: may move one step left
    not_right: Cells  # every cell but the right column: may move one step right
    sides: tuple[Cells, ...]  # for each cell, its up to four orthogonal neighbours
    transposed_cell: tuple[int, ...]
    # Transposition by table: for each chunk of a row, (bit offset, width, table of that chunk's bits spread to the
    # transposed positions).
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

    def grow(self, mask: Cells) -> Cells:
        """The cells orthogonally next to `mask`, mask itself excluded."""
        n = self.size
        spread = (mask << n) | (mask >> n) | ((mask & self.not_right) << 1) | ((mask & self.not_left) >> 1)
        return spread & self.all_cells & ~mask

    def reach(self, start: Cells, passable: Cells) -> Cells:
        """Every cell of `passable | start` that a 4-connected walk from `start` can reach."""
        room = passable | start
        seen = start
        while True:
            more = self.grow(seen) & room
            if not more:
                return seen
            seen |= more

    def connected(self, mask: Cells) -> bool:
        """Whether mask is one non-empty 4-connected piece."""
        if not mask:
            return False
        return self.reach(mask & -mask, mask) == mask


@lru_cache(maxsize=64)
def grid(size: int) -> Grid:
    """The grid of a size (cached: every board of that size shares it)."""
    n = size
    all_cells = (1 << (n * n)) - 1
    rows = tuple(((1 << n) - 1) << (r * n) for r in range(n))
    left_edge = sum(1 << (r * n) for r in range(n))
    columns = tuple(left_edge << c for c in range(n))
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
    not_left = all_cells & ~left_edge
    not_right = all_cells & ~(left_edge << (n - 1))
    sides = []
    for cell in range(n * n):
        mask = 1 << cell
        spread = (mask << n) | (mask >> n) | ((mask & not_right) << 1) | ((mask & not_left) >> 1)
        sides.append(spread & all_cells & ~mask)
    return Grid(
        size=n,
        all_cells=all_cells,
        rows=rows,
        columns=columns,
        neighbours=tuple(mask & ~(1 << cell) for cell, mask in enumerate(closes)),
        closes=tuple(closes),
        blocks=tuple(blocks),
        row_bands=tuple(rows[i] | rows[i + 1] for i in range(n - 1)),
        column_bands=tuple(columns[i] | columns[i + 1] for i in range(n - 1)),
        line_paths=tuple((i * n, 1) for i in range(n)) + tuple((i, n) for i in range(n)),
        cell_lines=tuple((rows[cell // n], columns[cell % n]) for cell in range(n * n)),
        cell_line_positions=tuple((cell // n, n + cell % n) for cell in range(n * n)),
        not_left=not_left,
        not_right=not_right,
        sides=tuple(sides),
        transposed_cell=tuple((cell % n) * n + cell // n for cell in range(n * n)),
        spread=_spread_tables(n),
    )


@dataclass(frozen=True)
class BoardGeometry:
    """The masks of one board (region map and star count). The grid's tables are repeated as fields so that the
    counter's hot loops read them in one attribute look-up; they are the grid's own tuples, not copies."""

    grid: Grid
    size: int
    stars: int
    all_cells: Cells
    neighbours: tuple[Cells, ...]
    closes: tuple[Cells, ...]
    block: tuple[Cells, ...]
    region_masks: tuple[Cells, ...]
    # Every unit: rows, then columns, then regions (the order the counter's branching and the grader's units use).
    units: tuple[Cells, ...]
    # For each cell: the masks of its row, column and region.
    cell_units: tuple[tuple[Cells, Cells, Cells], ...]
    # The region masks of the transposed board, for the column-wise band analysis.
    regions_transposed: tuple[Cells, ...]
    # Every strip of two neighbouring rows, then the same for the transposed board (strips of columns).
    strips: tuple[Strip, ...]
    strips_transposed: tuple[Strip, ...]
    # The region index of every cell (row-major), what the tables the grader alone reads are built from.
    regions: tuple[int, ...]

    # Two tables only the grader reads, built on its first look so that a count (the generator makes thousands) does
    # not pay for them: derived from the fields above and never changed, like them.

    @cached_property
    def units_of_cell(self) -> tuple[tuple[int, int, int], ...]:
        """For each cell: the positions in `units` of its row, its column and its region."""
        first = 2 * self.size
        return tuple(
            [
                (row, column, first + g)
                for (row, column), g in zip(self.grid.cell_line_positions, self.regions, strict=True)
            ]
        )

    @cached_property
    def zones(self) -> tuple[Cells, ...]:
        """For every unit of `units`: the cells of every unit crossing it (their stars decide what it may take). A
        row or column is crossed by every column or row, so its zone is the board; a region by the lines it meets."""
        lines = self.grid.rows + self.grid.columns
        zones = [self.all_cells] * len(lines)
        for region in self.region_masks:
            zone = region
            for line in lines:
                if line & region:
                    zone |= line
            zones.append(zone)
        return tuple(zones)


@lru_cache(maxsize=256)
def board_geometry(size: int, stars: int, regions: tuple[int, ...]) -> BoardGeometry:
    """The geometry of a board (cached: the generator re-counts many variants of a few region maps, and a puzzle,
    its counts and its grading share one)."""
    n = size
    shared = grid(n)
    region_masks = [0] * n
    transposed_regions = [0] * n
    transposed_cell = shared.transposed_cell
    for cell, region in enumerate(regions):
        region_masks[region] |= 1 << cell
        transposed_regions[region] |= 1 << transposed_cell[cell]
    units = shared.rows + shared.columns + tuple(region_masks)
    return BoardGeometry(
        grid=shared,
        size=n,
        stars=stars,
        all_cells=shared.all_cells,
        neighbours=shared.neighbours,
        closes=shared.closes,
        block=shared.blocks,
        region_masks=units[2 * n :],
        units=units,
        cell_units=tuple(
            [(row, column, region_masks[g]) for (row, column), g in zip(shared.cell_lines, regions, strict=True)]
        ),
        regions_transposed=tuple(transposed_regions),
        strips=_strips(shared.row_bands, region_masks),
        strips_transposed=_strips(shared.row_bands, transposed_regions),
        regions=regions,
    )


def _strips(bands: tuple[Cells, ...], regions: list[Cells]) -> tuple[Strip, ...]:
    """Each band of two rows (the grid's `row_bands`) cut by region."""
    return tuple(
        (top, tuple((index, mask & band) for index, mask in enumerate(regions) if mask & band))
        for top, band in enumerate(bands)
    )


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
