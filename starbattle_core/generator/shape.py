"""Board geometry the generator needs on every hot path: 4-neighbour growth of cell masks and flood fills.

Regions are 4-connected (edge to edge), so growth and connectivity use the four orthogonal directions only (the
eight-way `neighbours` is about stars touching, a different question). Both live in the board's one geometry
(`board_tables.Grid`, one per size); here are the pieces of a region map still being grown, which has no geometry
of its own yet.
"""

from __future__ import annotations

from functools import lru_cache

from ..board_tables import Grid, grid
from ..puzzle import Cells, iter_cells

# A region's shape as (row, column) offsets from its top-left corner.
Shape = tuple[tuple[int, int], ...]

__all__ = ["Grid", "Shape", "cell_list", "grid", "placements", "region_masks"]


def region_masks(regions: list[int] | tuple[int, ...], count: int) -> list[Cells]:
    """The mask of every region of a partial map (`count` regions; a finished board's are `Puzzle.region_masks`)."""
    masks = [0] * count
    for cell, region in enumerate(regions):
        masks[region] |= 1 << cell
    return masks


def cell_list(mask: Cells) -> list[int]:
    return list(iter_cells(mask))


@lru_cache(maxsize=1 << 17)
def placements(size: int, queen: int, shape: Shape) -> tuple[tuple[Cells, int, int], ...]:
    """Every placement of `shape` on the board with `queen` on one of its cells: (cells, top row, left column).
    Cached: the setter asks for the same few hundred shapes over the same queens thousands of times a map."""
    row, col = divmod(queen, size)
    height = 1 + max(r for r, _ in shape)
    width = 1 + max(c for _, c in shape)
    at_origin = sum(1 << (r * size + c) for r, c in shape)
    found = []
    for dr, dc in shape:  # the queen sits on each of the shape's cells in turn
        top, left = row - dr, col - dc
        if 0 <= top <= size - height and 0 <= left <= size - width:
            found.append((at_origin << (top * size + left), top, left))
    return tuple(found)
