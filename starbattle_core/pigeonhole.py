"""Pigeonhole reasoning on bands of rows for the solution counter (columns: the same code on the transposed board).

Stars in a strip of two neighbouring rows sit in distinct, non-adjacent columns (two stars in the same or
neighbouring columns of such a strip would touch), so the open columns of a strip bound how many stars it can take,
and a strip that must take exactly that many fixes the odd runs of its columns.
"""

from __future__ import annotations

from itertools import accumulate

from .board_tables import BoardGeometry, Strip, path_room
from .puzzle import Cells


class _TightTable(dict[Cells, tuple[int, Cells, Cells]]):
    """How many stars fit in a strip of one or two rows whose open columns are `columns`, and, when the strip must
    take exactly that many: the columns that must hold a star (even offsets of odd runs) and the columns that must
    stay empty (odd offsets of odd runs). The room on a path (`board_tables.path_room`, what the grader reads its
    rows, columns and bands with), filled on first use and shared by every board size (at most 2**size patterns
    each, in practice far fewer)."""

    def __missing__(self, columns: Cells) -> tuple[int, Cells, Cells]:
        value = self[columns] = path_room(columns)[:3]
        return value


class _CapacityTable(dict[Cells, int]):
    """Just the capacity, for the hot loop (one lookup instead of a lookup and an index)."""

    def __missing__(self, columns: Cells) -> int:
        value: int = _TIGHT[columns][0]
        self[columns] = value
        return value


_TIGHT = _TightTable()
_CAPACITY = _CapacityTable()


def band_deductions(
    tables: BoardGeometry,
    open_cells: Cells,
    stars: Cells,
    regions: tuple[Cells, ...],
    strips: tuple[Strip, ...],
) -> tuple[Cells, Cells] | None:
    """Pigeonhole on bands of rows: returns (cells to empty, cells to star), or None on a contradiction.

    - A strip of two neighbouring rows holds its stars in distinct, non-adjacent columns, so the open columns of
      the strip bound how many stars it can take (a single row is the unit rules' job). Each region gives a strip
      at most min(its need, what its piece of the strip holds): if that sum is short of the strip's need the
      branch is dead; if it is exactly the need, every region gives all it can (a region that can give its whole
      need has no star outside the strip, one that gives less fills its piece as tightly as possible, which fixes
      the odd runs of its columns).
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
    for top, pieces in strips:
        strip_need = need[top] + need[top + 1]
        if not strip_need:
            continue
        shift = top * n
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
            bottom = (cells.bit_length() - 1) // n
            spans.append((bottom, ((cells & -cells).bit_length() - 1) // n, region_need[index], cells))
    spans.sort()  # by bottom row
    prefix = [0, *accumulate(need)]
    for top in {span[1] for span in spans}:
        inside = [span for span in spans if span[1] >= top]
        inside_need = 0
        inside_cells = 0
        last = len(inside) - 1
        for j, (bottom, _, region_left, cells) in enumerate(inside):
            inside_need += region_left
            inside_cells |= cells
            if j < last and inside[j + 1][0] == bottom:
                continue
            band_need = prefix[bottom + 1] - prefix[top]
            if inside_need >= band_need:
                if inside_need > band_need:
                    return None
                band = ((1 << ((bottom - top + 1) * n)) - 1) << (top * n)
                empty |= open_cells & band & ~inside_cells
    return empty, forced
