"""The trivial marks and the one-star attack: the techniques every player uses from the first minute.

Each technique is a pure function (geometry, state, **variant) -> Deduction | None that reports the first place
it applies, scanning rows, then columns, then regions, lowest index first.
"""

from __future__ import annotations

from ..puzzle import iter_cells
from .geometry import Geometry, State
from .step import Deduction


def star_neighbours(geometry: Geometry, state: State) -> Deduction | None:
    """A star's neighbours are empty."""
    open_cells = geometry.open_cells(state)
    for cell in iter_cells(state.stars):
        gone = geometry.neighbours[cell] & open_cells
        if gone:
            name = geometry.cell_name(cell)
            return Deduction(
                0,
                gone,
                (),
                f"{name} is a {geometry.words.star}, so the cells touching it are empty: {geometry.names(gone)}",
            )
    return None


def unit_complete(geometry: Geometry, state: State) -> Deduction | None:
    """A row, column or region that has all its stars: its other cells are empty."""
    open_cells = geometry.open_cells(state)
    for unit in geometry.units:
        gone = unit.mask & open_cells
        if gone and geometry.need(unit, state) == 0:
            return Deduction(
                0,
                gone,
                (unit.label,),
                f"{unit.label} has all its {geometry.words.stars}, so its other cells are empty: "
                f"{geometry.names(gone)}",
            )
    return None


def unit_fill(geometry: Geometry, state: State, *, need_min: int, need_max: int) -> Deduction | None:
    """A unit whose open cells are exactly as many as the stars it still needs: they are all stars."""
    open_cells = geometry.open_cells(state)
    words = geometry.words
    for unit in geometry.units:
        need = geometry.need(unit, state)
        own = unit.mask & open_cells
        if need_min <= need <= need_max and own and own.bit_count() == need:
            if need == 1:
                sentence = f"{geometry.names(own)} must be a {words.star}: it is the last cell left for {unit.label}"
            else:
                sentence = (
                    f"{unit.label} needs {need} more {words.stars} and has exactly {need} open cells: "
                    f"{geometry.names(own)} are {words.stars}"
                )
            return Deduction(own, 0, (unit.label,), sentence)
    return None


def one_star_attack(geometry: Geometry, state: State, *, max_open: int) -> Deduction | None:
    """A unit needing one more star, with at most `max_open` open cells: a cell touching all of them would be
    touched by that star wherever it goes, so it is empty."""
    open_cells = geometry.open_cells(state)
    for unit in geometry.units:
        own = unit.mask & open_cells
        count = own.bit_count()
        if count < 2 or count > max_open or geometry.need(unit, state) != 1:
            continue
        gone = geometry.seen_by_all(own) & open_cells
        if gone:
            return Deduction(
                0,
                gone,
                (unit.label,),
                f"{unit.label} needs one more {geometry.words.star} among {geometry.names(own)}; each of those touches "
                f"{geometry.names(gone)}, so {'it is' if gone.bit_count() == 1 else 'they are'} empty",
            )
    return None
