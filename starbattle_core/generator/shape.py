"""Board geometry the generator needs on every hot path: 4-neighbour growth of cell masks and flood fills.

Regions are 4-connected (edge to edge), so growth and connectivity use the four orthogonal directions only (the
eight-way `neighbours` is about stars touching, a different question). Both live in the board's one geometry
(`board_tables.Grid`, one per size); here are the pieces of a region map still being grown, which has no geometry
of its own yet.
"""

from __future__ import annotations

from ..board_tables import Grid, grid
from ..puzzle import Cells, iter_cells

__all__ = ["Grid", "cell_list", "grid", "region_masks"]


def region_masks(regions: list[int] | tuple[int, ...], count: int) -> list[Cells]:
    """The mask of every region of a partial map (`count` regions; a finished board's are `Puzzle.region_masks`)."""
    masks = [0] * count
    for cell, region in enumerate(regions):
        masks[region] |= 1 << cell
    return masks


def cell_list(mask: Cells) -> list[int]:
    return list(iter_cells(mask))
