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
    regions: tuple[Cells, ...]
    # The region masks of the transposed board (cell r*size+c <-> c*size+r), for the column-wise band analysis.
    regions_transposed: tuple[Cells, ...]
    # For every band of one or two rows: (top row, the pieces of each region in the band as (region, mask)); then
    # the same for the transposed board.
    strips: tuple[tuple[int, int, tuple[tuple[int, Cells], ...]], ...]
    strips_transposed: tuple[tuple[int, int, tuple[tuple[int, Cells], ...]], ...]
    # Transposition by table: for each chunk of a row, (bit offset, width, table of that chunk's bits spread to
    # the transposed positions).
    spread: tuple[tuple[int, int, tuple[Cells, ...]], ...]

    def transpose(self, cells: Cells) -> Cells:
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
    transposed_regions = [0] * n
    for cell, region in enumerate(regions):
        r, c = divmod(cell, n)
        transposed_regions[region] |= 1 << (c * n + r)
    return _Tables(
        n,
        stars,
        tuple(rows + cols + region_masks),
        tuple(closes),
        cell_units,
        tuple(blocks),
        tuple(region_masks),
        tuple(transposed_regions),
        _strips(n, region_masks),
        _strips(n, transposed_regions),
        _spread_tables(n),
    )


def _strips(n: int, regions: list[Cells]) -> tuple[tuple[int, int, tuple[tuple[int, Cells], ...]], ...]:
    strips = []
    for height in (1, 2):
        for top in range(n - height + 1):
            band = ((1 << (height * n)) - 1) << (top * n)
            pieces = tuple((index, mask & band) for index, mask in enumerate(regions) if mask & band)
            strips.append((top, height, pieces))
    return tuple(strips)


@lru_cache(maxsize=None)
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


def _strip_tightness(columns: Cells) -> tuple[int, Cells, Cells]:
    """How many stars fit in a strip of one or two rows whose open columns are `columns` (stars in a strip sit in
    distinct, non-adjacent columns), and, when the strip must take exactly that many: the columns that must hold
    a star (even offsets of odd runs) and the columns that must stay empty (odd offsets of odd runs)."""
    capacity = 0
    star_columns = 0
    empty_columns = 0
    while columns:
        low = columns & -columns
        run = ((columns + low) & ~columns) - low  # the run of ones starting at `low`
        length = run.bit_count()
        capacity += (length + 1) // 2
        if length % 2:
            evens = 0
            for i in range(0, length, 2):
                evens |= low << i
            star_columns |= evens
            empty_columns |= run & ~evens
        columns &= ~run
    return capacity, star_columns, empty_columns


class _TightTable(dict):  # type: ignore[type-arg]
    """Strip tightness by open columns, filled on first use (shared by every board size)."""

    def __missing__(self, columns: Cells) -> tuple[int, Cells, Cells]:
        value = self[columns] = _strip_tightness(columns)
        return value


class _CapacityTable(dict):  # type: ignore[type-arg]
    def __missing__(self, columns: Cells) -> int:
        value = self[columns] = _TIGHT[columns][0]
        return value


_TIGHT = _TightTable()
_CAPACITY = _CapacityTable()


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
        units = len(tables.units)
        search.run(*state, [-1] * units, [_NEVER] * units)
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


def _unit_options(cells: Cells, need: int, closes: tuple[Cells, ...]) -> tuple[int, Cells, Cells, Cells]:
    """All placements of `need` non-touching stars on `cells`: how many there are, the cells used by some, the
    cells used by all, and the cells outside `cells` touched by every placement."""
    ways = 0
    anywhere = 0
    everywhere = cells
    attacked = -1
    stack = [(cells, need, 0, 0)]
    while stack:
        free, left, placed, touched = stack.pop()
        if not left:
            ways += 1
            anywhere |= placed
            everywhere &= placed
            attacked &= touched
            continue
        if free.bit_count() < left:
            continue
        low = free & -free
        stack.append((free ^ low, left, placed, touched))
        around = closes[low.bit_length() - 1]
        stack.append((free & ~around, left - 1, placed | low, touched | around))
    if not ways:
        return 0, 0, 0, 0
    return ways, anywhere, everywhere, attacked & ~cells


def _placements(cells: Cells, need: int, closes: tuple[Cells, ...]) -> list[Cells]:
    """Every set of `need` non-touching cells among `cells`."""
    found = []
    stack = [(cells, need, 0)]
    while stack:
        free, left, placed = stack.pop()
        if not left:
            found.append(placed)
            continue
        if free.bit_count() < left:
            continue
        low = free & -free
        stack.append((free ^ low, left, placed))
        stack.append((free & ~closes[low.bit_length() - 1], left - 1, placed | low))
    return found


_NEVER = 1 << 60  # the branching score of a unit with nothing left to place


class _Search:
    def __init__(self, tables: _Tables, limit: int) -> None:
        self.tables = tables
        self.limit = limit
        self.solutions: list[Cells] = []
        self.nodes = 0
        self.total = tables.size * tables.stars
        # (open cells * 16 + need) of a unit -> what `_unit_options` says about them.
        self.options: dict[int, tuple[int, Cells, Cells, Cells]] = {}

    def run(self, stars: Cells, open_cells: Cells, seen: list[Cells], scores: list[int]) -> None:
        """Depth-first search from a state; returns when the subtree is done or the limit is reached.

        `seen` and `scores` are the parent's per-unit memo (see `propagate`); this call may change them.
        """
        self.nodes += 1
        result = self.propagate(stars, open_cells, seen, scores)
        if result is None:
            return
        stars, open_cells, choice, need = result
        if stars.bit_count() == self.total:
            self.solutions.append(stars)
            return
        # Branch on every placement of the unit's remaining stars: the branches are disjoint and cover all.
        closes = self.tables.closes
        cell_units = self.tables.cell_units
        quota = self.tables.stars
        for placement in _placements(choice, need, closes):
            child_stars = stars | placement
            child_open = open_cells & ~choice
            rest = placement
            while rest:
                bit = rest & -rest
                rest ^= bit
                cell = bit.bit_length() - 1
                child_open &= ~closes[cell]
                for unit in cell_units[cell]:
                    if (child_stars & unit).bit_count() >= quota:
                        child_open &= ~unit
            self.run(child_stars, child_open, seen[:], scores[:])
            if len(self.solutions) >= self.limit:
                return

    def propagate(
        self, stars: Cells, open_cells: Cells, seen: list[Cells], scores: list[int]
    ) -> tuple[Cells, Cells, Cells, int] | None:
        """Apply the unit rules until nothing changes; None on a contradiction.

        Returns the new state and the unit to branch on (its open cells and remaining need). A unit is examined
        again only when its open cells differ from `seen` (what they were when it was last examined, in this
        node or its parent); `scores` keeps each unit's branching score (how many branches it would give).
        """
        tables = self.tables
        quota = tables.stars
        units = tables.units
        closes = tables.closes
        cell_units = tables.cell_units
        block = tables.block
        never = _NEVER
        memo = self.options
        while True:
            changed = False
            for index, unit in enumerate(units):
                cells = open_cells & unit
                if cells == seen[index]:
                    continue
                seen[index] = cells
                scores[index] = never
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
                        if count <= 4:
                            # One star among a few cells: the cells touching all of them are empty.
                            common = open_cells & ~cells
                            rest = cells
                            while rest and common:
                                low = rest & -rest
                                common &= closes[low.bit_length() - 1]
                                rest ^= low
                            if common:
                                open_cells &= ~common
                                changed = True
                        scores[index] = count
                        continue
                    # Every way to place the unit's remaining stars on its open cells (memoised by cells).
                    key = cells * 16 + need
                    options = memo.get(key)
                    if options is None:
                        options = memo[key] = _unit_options(cells, need, closes)
                    ways, anywhere, everywhere, attacked = options
                    if not ways:
                        return None
                    # Cells in no placement, and cells outside touched by every placement, are empty.
                    dead = (cells & ~anywhere) | (attacked & open_cells)
                    if dead:
                        open_cells &= ~dead
                        changed = True
                    forced = everywhere
                    if not forced:
                        scores[index] = ways
                        continue
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
            if changed:
                continue
            # The unit rules stall: look at bands of rows, then (on the transposed board) bands of columns.
            found = _band_deductions(tables, open_cells, stars, tables.regions, tables.strips)
            if found is None:
                return None
            empty, forced = found
            transpose = tables.transpose
            found = _band_deductions(
                tables, transpose(open_cells), transpose(stars), tables.regions_transposed, tables.strips_transposed
            )
            if found is None:
                return None
            empty |= transpose(found[0])
            forced |= transpose(found[1])
            if not (empty & open_cells or forced):
                best = min(range(len(units)), key=scores.__getitem__)
                unit = units[best]
                return stars, open_cells, open_cells & unit, quota - (stars & unit).bit_count()
            open_cells &= ~empty
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


def _band_deductions(
    tables: _Tables,
    open_cells: Cells,
    stars: Cells,
    regions: tuple[Cells, ...],
    strips: tuple[tuple[int, int, tuple[tuple[int, Cells], ...]], ...],
) -> tuple[Cells, Cells] | None:
    """Pigeonhole on bands of rows: returns (cells to empty, cells to star), or None on a contradiction.

    - Strips of one or two rows hold their stars in distinct, non-adjacent columns, so the open columns of a strip
      bound how many stars it can take. Each region gives a strip at most min(its need, what its piece of the
      strip holds): if that sum is short of the strip's need the branch is dead; if it is exactly the need, every
      region gives all it can (a region that can give its whole need has no star outside the strip, one that gives
      less fills its piece as tightly as possible, which fixes the odd runs of columns).
    - Regions whose open cells all lie in rows a..b must take their remaining stars there: more than those rows
      still need is a contradiction; exactly as many means every other open cell of those rows is empty.
    """
    n = tables.size
    quota = tables.stars
    full = (1 << n) - 1
    capacity_of = _CAPACITY
    tight_of = _TIGHT
    need = [quota - ((stars >> shift) & full).bit_count() for shift in range(0, n * n, n)]
    region_need = [quota - (stars & region).bit_count() for region in regions]
    empty = 0
    forced = 0
    both_rows = 1 | (1 << n)
    for top, height, pieces in strips:
        shift = top * n
        if height == 1:
            strip_need = need[top]
            if not strip_need:
                continue
        else:
            strip_need = need[top] + need[top + 1]
            if not strip_need:
                continue
            # The whole pair of rows: its open columns may hold fewer stars than its pieces together.
            part = open_cells >> shift
            upper = part & full
            lower = (part >> n) & full
            capacity, star_columns, empty_columns = tight_of[upper | lower]
            if capacity <= strip_need:
                if capacity < strip_need:
                    return None
                empty |= (empty_columns * both_rows) << shift
                lone = star_columns & (upper ^ lower)
                if lone:
                    forced |= ((lone & upper) | ((lone & lower) << n)) << shift
        total = 0
        for index, piece in pieces:
            cells = open_cells & piece
            if cells:
                cells >>= shift
                capacity = capacity_of[(cells | (cells >> n)) & full]
                region_left = region_need[index]
                total += capacity if capacity < region_left else region_left
        if total > strip_need:
            continue
        if total < strip_need:
            return None
        for index, piece in pieces:
            cells = open_cells & piece
            if cells:
                part = cells >> shift
                upper = part & full
                lower = part >> n
                capacity, star_columns, empty_columns = tight_of[upper | lower]
                if region_need[index] <= capacity:
                    empty |= open_cells & regions[index] & ~piece
                else:
                    empty |= ((empty_columns * both_rows) << shift) & cells
                    lone = star_columns & (upper ^ lower)
                    if lone:
                        forced |= ((lone & upper) | ((lone & lower) << n)) << shift
    # Regions confined to a band of rows (bands of any height).
    spans = []
    for index, region in enumerate(regions):
        cells = open_cells & region
        if cells:
            spans.append(
                (
                    (cells.bit_length() - 1) // n,
                    ((cells & -cells).bit_length() - 1) // n,
                    region_need[index],
                    cells,
                )
            )
    spans.sort()  # by bottom row
    prefix = [0]
    for value in need:
        prefix.append(prefix[-1] + value)
    count = len(spans)
    for top in sorted({span[1] for span in spans}):
        inside_need = 0
        inside_cells = 0
        for j in range(count):
            bottom, low, region_left, cells = spans[j]
            if low < top:
                continue
            inside_need += region_left
            inside_cells |= cells
            if j + 1 < count and spans[j + 1][0] == bottom:
                continue
            band_need = prefix[bottom + 1] - prefix[top]
            if inside_need >= band_need:
                if inside_need > band_need:
                    return None
                band = ((1 << ((bottom - top + 1) * n)) - 1) << (top * n)
                empty |= open_cells & band & ~inside_cells
    return empty, forced
