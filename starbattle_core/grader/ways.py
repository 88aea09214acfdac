"""Every way to place some stars on the solver's state: the cases a person weighs (a unit's, a union's rest, two
units' together), listed in the order of cells and summarised by what they all share. The enumeration is the board
geometry's (`board_tables.way_families`, the counter's too); what is here is the grader's policy around it: the
limits (how many ways a person is asked to weigh), what a solve remembers, what the ways are folded into.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..board_tables import UnitLimits, way_families
from ..puzzle import Cells, iter_cells
from .geometry import Geometry, State, Unit


@dataclass(frozen=True)
class Ways:
    """Every way to place some stars (see `state_ways`), with what they share: the cells starred in all of
    them, the cells starred in any, and the cells every way would empty (whatever their state now)."""

    ways: list[Cells]
    always: Cells
    anywhere: Cells
    emptied: Cells


class SearchedWays(NamedTuple):
    """What `state_ways` remembers of one search: the limit it ran under, and the ways (None: more than that)."""

    limit: int
    found: Ways | None


def placements(geometry: Geometry, state: State, unit: Unit, limit: int) -> list[Cells] | None:
    """Every way to give the unit the stars it lacks among its open cells (see `state_ways`)."""
    return state_placements(geometry, state, unit.mask, geometry.need(unit, state), limit)


def state_placements(geometry: Geometry, state: State, area: Cells, need: int, limit: int) -> list[Cells] | None:
    """The ways alone (see `state_ways`)."""
    found = state_ways(geometry, state, area, need, limit)
    return None if found is None else found.ways


def state_ways(geometry: Geometry, state: State, area: Cells, need: int, limit: int) -> Ways | None:
    """The ways to put `need` stars on the open cells of `area` in the solver's state, no two touching, none
    touching a star, and no row, column or region over its quota; None past `limit` ways (too many for a person
    to weigh).

    Remembered for the whole solve: the ways depend only on the cells a star may take (open, in the area,
    touching no star), the need and the stars each unit lacks, so the same question comes back step after step.
    A list found under one limit answers every limit it fits in; a search cut off at one limit answers every
    smaller limit."""
    if need <= 0:
        return Ways([0], 0, 0, 0)  # one way: place nothing
    free = area & geometry.open_cells(state) & ~geometry.touched(state.stars)
    lack = geometry.lacks(state)
    key = (free, need, lack)
    known = geometry.recall.ways.get(key)
    if known is not None:
        if known.found is not None:
            return known.found if len(known.found.ways) <= limit else None
        if limit <= known.limit:
            return None
    ways = ways_on(geometry, free, need, limit, lack)
    found = None if ways is None else ways_summary(geometry, ways, lack)
    geometry.recall.ways[key] = SearchedWays(limit, found)
    return found


def ways_summary(geometry: Geometry, ways: list[Cells], lack: tuple[int, ...]) -> Ways:
    """What a list of ways shares (see `Ways`), `lack` the stars each unit lacks."""
    masks = geometry.unit_masks
    neighbours = geometry.neighbours
    units_of_cell = geometry.units_of_cell
    always, anywhere, emptied = geometry.all_cells, 0, geometry.all_cells
    for way in ways:
        always &= way
        anywhere |= way
        # What this way empties: its stars' neighbours, and the rest of every unit it completes.
        gone = 0
        for cell in iter_cells(way):
            gone |= neighbours[cell]
            for j in units_of_cell[cell]:
                if (masks[j] & way).bit_count() == lack[j]:
                    gone |= masks[j]
        emptied &= gone
    return Ways(ways, always, anywhere, emptied)


def ways_on(geometry: Geometry, free: Cells, need: int, limit: int, lack: tuple[int, ...]) -> list[Cells] | None:
    """Every way to put `need` (one or more) non-touching stars on the cells `free`, no unit of `units` getting
    more than `lack` of them, in lexicographic order of cells (`way_families`, the counter's enumeration too); None
    past `limit` ways."""
    found: list[Cells] = []
    for stem, lasts in way_families(
        free, need, geometry.neighbours, UnitLimits(geometry.unit_masks, geometry.units_of_cell, lack)
    ):
        rest = lasts
        while rest:
            low = rest & -rest
            found.append(stem | low)
            rest ^= low
        if len(found) > limit:
            return None
    return found
