"""Board geometry the generator needs on every hot path: 4-neighbour growth of cell masks and flood fills.

Regions are 4-connected (edge to edge), so growth and connectivity here use the four orthogonal directions only;
the eight-way `Puzzle.neighbours` is about stars touching, a different question.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..puzzle import Cells, iter_cells


@dataclass(frozen=True)
class Grid:
    """The masks of an empty size x size board, computed once per size."""

    size: int
    all_cells: Cells
    not_left: Cells  # every cell but the left column: may move one step left
    not_right: Cells  # every cell but the right column: may move one step right
    sides: tuple[Cells, ...]  # for each cell, its up to four orthogonal neighbours

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
    all_cells = (1 << (size * size)) - 1
    left_edge = sum(1 << (r * size) for r in range(size))
    not_left = all_cells & ~left_edge
    not_right = all_cells & ~(left_edge << (size - 1))
    partial = Grid(size, all_cells, not_left, not_right, ())
    sides = tuple(partial.grow(1 << cell) for cell in range(size * size))
    return Grid(size, all_cells, not_left, not_right, sides)


def region_masks(regions: list[int] | tuple[int, ...], count: int) -> list[Cells]:
    masks = [0] * count
    for cell, region in enumerate(regions):
        masks[region] |= 1 << cell
    return masks


def cell_list(mask: Cells) -> list[int]:
    return list(iter_cells(mask))
