"""Block capacity, shape cases and pressure: reasoning about where a unit's remaining stars can go.

- cases: list every way to give a unit (a row, a column, a region, or a band of two rows or columns) the stars it
  lacks; what all ways share is proved. A unit that fits its stars in exactly as many 2x2 blocks, or a region
  whose shape leaves few placements, is settled this way. `limit` is how many ways a person is asked to weigh.
- pressure: a cell whose star would leave some unit without room for the stars it needs is empty.
"""

from __future__ import annotations

from ..puzzle import Cells, iter_cells
from .geometry import Geometry, State, Unit
from .room import capacity, region_fits, tight_marks
from .step import Deduction
from .ways import state_ways


def _units_of_kind(geometry: Geometry, kind: str) -> tuple[Unit, ...]:
    return {"lines": geometry.lines, "regions": geometry.regions, "bands": geometry.bands}[kind]


def unit_cases(geometry: Geometry, state: State, *, kind: str, limit: int) -> Deduction | None:
    """A unit needing two or more stars whose ways to place them number at most `limit`: a cell starred in every
    way is a star; an open cell of the unit starred in none is empty; a cell outside emptied by every way is
    empty."""
    open_cells = geometry.open_cells(state)
    for unit in _units_of_kind(geometry, kind):
        need = geometry.need(unit, state)
        own = unit.mask & open_cells
        if need < 2 or own.bit_count() <= need:
            continue
        found = state_ways(geometry, state, unit.mask, need, limit)
        if found is None or not found.ways:
            continue
        ways, always = found.ways, found.always
        hit = open_cells & ~unit.mask & found.emptied
        never = own & ~found.anywhere
        if always or never or hit:
            return Deduction(
                always, never | hit, (unit.label,), _cases_sentence(geometry, unit, need, ways, always, never, hit)
            )
    return None


def _cases_sentence(
    geometry: Geometry, unit: Unit, need: int, ways: list[Cells], always: Cells, never: Cells, hit: Cells
) -> str:
    verb = "need" if unit.kind in ("rows", "columns") else "needs"
    head = (
        f"{unit.label} {verb} {need} more {geometry.words.stars}, and they fit {ways_counted(len(ways))} "
        f"({ways_shown(geometry, ways)})"
    )
    return head + ": " + what_every_way_agrees(geometry, always, never, hit)


# The sentence pieces of a list of ways, shared with the composite cases (composite.py).
def ways_counted(ways: int) -> str:
    return "one way" if ways == 1 else f"{ways} ways"


def ways_shown(geometry: Geometry, ways: list[Cells]) -> str:
    """The first four ways by their cells, and how many more."""
    shown = "; ".join("+".join(geometry.cell_name(c) for c in iter_cells(way)) for way in ways[:4])
    return shown + (f" and {len(ways) - 4} more" if len(ways) > 4 else "")


def what_every_way_agrees(geometry: Geometry, always: Cells, never: Cells, hit: Cells) -> str:
    """What every way agrees on: the stars all of them place, the open cells none places, the cells all empty."""
    parts = []
    if always:
        parts.append(f"{geometry.names(always)} {geometry.words.are_stars(always)} in every way")
    if never:
        parts.append(f"{geometry.names(never)} {'is' if never.bit_count() == 1 else 'are'} in none, so empty")
    if hit:
        parts.append(f"every way empties {geometry.names(hit)}")
    return "; ".join(parts)


def pressure(geometry: Geometry, state: State, *, kind: str, need: int) -> Deduction | None:
    """A unit needing exactly `need` stars (two or more): an open cell whose star would take away so much of the
    unit that its stars no longer fit (touching cells, and the rest of units that star completes) is empty."""
    open_cells = geometry.open_cells(state)
    units = [u for u in _units_of_kind(geometry, kind) if geometry.need(u, state) == need and u.mask & open_cells]
    if not units:
        return None
    lack = geometry.lacks(state)
    # What a star takes from a unit depends on the open cells near it and on which units lack one star only:
    # the verdict per unit is remembered for the solve under those.
    last_ones = sum(1 << j for j, missing in enumerate(lack) if missing == 1)
    for unit in units:
        own = unit.mask & open_cells
        candidates = (geometry.touched(own) | own) & open_cells
        key = (unit.kind, unit.index, need, own, candidates, last_ones)
        cell = geometry.recall.squeezed.get(key)
        if cell is None:
            cell = geometry.recall.squeezed[key] = _squeezed(geometry, unit, need, own, candidates, lack, open_cells)
        if cell >= 0:
            gone = _removed_by_star(geometry, lack, open_cells, cell)
            return Deduction(
                0,
                1 << cell,
                (unit.label,),
                f"a {geometry.words.star} at {geometry.cell_name(cell)} would take {geometry.names(gone & own)} "
                f"from {unit.label}, leaving no room for its {need} {geometry.words.stars}, so "
                f"{geometry.cell_name(cell)} is empty",
            )
    return None


def _squeezed(
    geometry: Geometry, unit: Unit, need: int, own: Cells, candidates: Cells, lack: tuple[int, ...], open_cells: Cells
) -> int:
    """The first candidate cell whose star would leave the unit (open cells `own`) without room, or -1."""
    regions = unit.kind == "region"  # room in a region is an exact search; lines and bands read it off a path
    rooms = geometry.recall.rooms
    for cell in iter_cells(candidates):
        bit = 1 << cell
        gone = _removed_by_star(geometry, lack, open_cells, cell)
        if not (gone | bit) & own:
            continue
        left = need - (1 if own & bit else 0)
        bits = own & ~gone & ~bit
        if regions:
            room_enough = region_fits(geometry, bits, left)
        else:
            room = rooms.get(bits)
            room_enough = (capacity(geometry, unit, bits) if room is None else room) >= left
        if not room_enough:
            return cell
    return -1


def _removed_by_star(geometry: Geometry, lack: tuple[int, ...], open_cells: Cells, cell: int) -> Cells:
    """The open cells a star at `cell` would empty: its neighbours, and the rest of its row, column and region
    when that star is the last one they need."""
    gone = geometry.neighbours[cell]
    for j in geometry.units_of_cell[cell]:
        if lack[j] == 1:
            gone |= geometry.unit_masks[j]
    return gone & open_cells & ~(1 << cell)


def tight_room(geometry: Geometry, state: State, *, kind: str) -> Deduction | None:
    """A row or column (kind "lines"), or a band of two (kind "bands"), whose open cells have room for exactly the
    stars it needs: every run of open cells must hold as many as it can (see `tight_marks`)."""
    open_cells = geometry.open_cells(state)
    for unit in _units_of_kind(geometry, kind):
        need = geometry.need(unit, state)
        if need <= 0 or capacity(geometry, unit, open_cells) != need:
            continue
        stars, empties = tight_marks(geometry, unit, open_cells)
        if stars or empties:
            verb = "need" if unit.kind in ("rows", "columns") else "needs"
            parts = []
            if stars:
                parts.append(f"{geometry.names(stars)} {geometry.words.are_stars(stars)}")
            if empties:
                parts.append(f"{geometry.names(empties)} {'is' if empties.bit_count() == 1 else 'are'} empty")
            sentence = (
                f"{unit.label} {verb} {need} more {geometry.words.stars} and {'its' if verb == 'needs' else 'their'} "
                "open cells have "
                f"room for exactly {need} with no two touching, so every run of them is full: " + "; ".join(parts)
            )
            return Deduction(stars, empties, (unit.label,), sentence)
    return None
