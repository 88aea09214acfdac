"""How many stars fit in a set of cells, no two touching: the room of a unit, asked by the techniques and by
propagation. The room on a path and the enumeration of ways are the board geometry's (`board_tables`), the counter's
too; what is here is the grader's reading of them: rows, columns and bands as paths, regions by exact search, each
answer remembered for the solve (`Recall`).
"""

from __future__ import annotations

from typing import NamedTuple

from ..board_tables import path_room, touching_all, way_families
from ..puzzle import Cells
from .geometry import Geometry, Unit


def fits(neighbours: tuple[Cells, ...], mask: Cells, need: int) -> bool:
    """Whether `need` stars fit in `mask` with no two touching (exact: the first way `way_families` finds)."""
    return need <= 0 or next(way_families(mask, need, neighbours), None) is not None


def region_fits(geometry: Geometry, mask: Cells, need: int) -> bool:
    """`fits`, remembered for the solve (the answer depends on the cells and the need alone)."""
    key = (mask << 6) | need
    known = geometry.recall.fitting.get(key)
    if known is None:
        known = geometry.recall.fitting[key] = fits(geometry.neighbours, mask, need)
    return known


def capacity(geometry: Geometry, unit: Unit, open_cells: Cells) -> int:
    """Most non-touching stars in the unit's open cells, for the unit kinds where a path bound is exact (rows,
    columns, bands of two rows or columns); a region's room is an exact search (`fits`)."""
    if unit.kind == "region":
        raise ValueError("capacity is read off a path: ask `fits` about a region")
    bits = unit.mask & open_cells
    # The room is a fact about the cells alone (the most non-touching stars they hold), so one table serves
    # every row, column and band.
    room = geometry.recall.rooms.get(bits)
    if room is None:
        path = _folded(geometry, unit, bits)
        room = geometry.recall.rooms[bits] = path_room(path.cells, path.step).capacity
    return room


class _Path(NamedTuple):
    """A row, column or band's cells read as a path (`path_room`), shifted to start at bit 0."""

    cells: Cells  # the path: a band's two lines folded onto one
    step: int  # bits between neighbouring cells along it
    first: Cells  # the path's cells open in the unit's (first) line
    second: Cells  # ... and in a band's second line (none for a line)
    shift: int  # where the unit's first line starts
    offset: int  # from a band's first line to its second


def _folded(geometry: Geometry, unit: Unit, bits: Cells) -> _Path:
    """The cells `bits` of a row, column or band as a path. Two stars in two neighbouring lines touch unless they
    are two apart along them, so a band is its two lines folded onto one."""
    n = geometry.size
    if unit.kind in ("row", "rows"):
        shift, step, offset, line = unit.index * n, 1, n, geometry.row_masks[0]
    else:
        shift, step, offset, line = unit.index, n, 1, geometry.column_masks[0]
    first = (bits >> shift) & line
    second = (bits >> (shift + offset)) & line if unit.kind in ("rows", "columns") else 0
    return _Path(first | second, step, first, second, shift, offset)


def tight_marks(geometry: Geometry, unit: Unit, open_cells: Cells) -> tuple[Cells, Cells]:
    """For a row, column or band whose open cells have room for exactly the stars it needs (the caller checks): the
    cells that must be stars and the cells that must be empty. Read along the path (a band folded onto one line), a
    run of odd length holds a star on every other position starting at its ends; a run of two holds one star, so
    cells touching both of its cells are empty."""
    bits = unit.mask & open_cells
    key = (unit.kind, unit.index, bits)
    known = geometry.recall.tight.get(key)
    if known is None:
        known = geometry.recall.tight[key] = _tight_marks(geometry, unit, bits)
    stars, empties = known
    return stars, empties & open_cells


def _tight_marks(geometry: Geometry, unit: Unit, bits: Cells) -> tuple[Cells, Cells]:
    path = _folded(geometry, unit, bits)

    def cells_at(positions: Cells) -> Cells:
        """The unit's open cells at these positions of the path."""
        return ((positions & path.first) << path.shift) | ((positions & path.second) << (path.shift + path.offset))

    room = path_room(path.cells, path.step)
    # A position of a band open in both lines holds its star in either: only a lone open cell is a star.
    stars = cells_at(room.stars & ~(path.first & path.second))
    empties = cells_at(room.empties)
    pairs = room.pairs
    while pairs:
        run = (pairs & -pairs) * (1 | 1 << path.step)
        pair = cells_at(run)
        empties |= touching_all(pair, geometry.all_cells & ~pair, geometry.board.closes)
        pairs ^= run
    return stars, empties
