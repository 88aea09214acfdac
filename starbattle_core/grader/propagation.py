"""Fast reasoning on bit masks, shared by the techniques: how many stars fit in a set of cells, every way to put
a unit's stars, and propagation of the cheap rules to a fixed point (what a hypothetical watches collapse).

Propagation is written for speed rather than narration: it works on plain ints, builds no steps, and builds a
sentence only when it meets a contradiction.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..puzzle import Cells
from .geometry import Geometry, State, Unit


def fits(neighbours: tuple[Cells, ...], mask: Cells, need: int) -> bool:
    """Whether `need` stars fit in `mask` with no two touching (exact search; units are small)."""
    if need <= 0:
        return True
    if mask.bit_count() < need:
        return False
    low = mask & -mask
    cell = low.bit_length() - 1
    rest = mask ^ low
    return fits(neighbours, rest & ~neighbours[cell], need - 1) or fits(neighbours, rest, need)


def chain_capacity(bits: int, step: int) -> int:
    """Most stars that fit on a path of cells spaced `step` bits apart (a row, a column, a folded band).

    Taking the lowest free cell each time is optimal on a path."""
    count = 0
    while bits:
        low = bits & -bits
        bits &= ~(low | (low << step))
        count += 1
    return count


def capacity(geometry: Geometry, unit: Unit, open_cells: Cells) -> int | None:
    """Most non-touching stars in the unit's open cells, for the unit kinds where a path bound is exact (rows,
    columns, bands of two rows or columns); None for regions (use `fits`)."""
    n = geometry.size
    bits = unit.mask & open_cells
    if unit.kind == "row":
        return chain_capacity(bits >> (unit.index * n), 1)
    if unit.kind == "column":
        return chain_capacity(bits >> unit.index, n)
    if unit.kind == "rows":
        # Two stars in two neighbouring rows touch unless their columns are two apart: fold the rows onto one.
        row = (1 << n) - 1
        folded = ((bits >> (unit.index * n)) | (bits >> ((unit.index + 1) * n))) & row
        return chain_capacity(folded, 1)
    if unit.kind == "columns":
        first_column = geometry.columns[0].mask
        folded = ((bits >> unit.index) | (bits >> (unit.index + 1))) & first_column
        return chain_capacity(folded, n)
    return None


def unit_fits(geometry: Geometry, unit: Unit, open_cells: Cells, need: int) -> bool:
    """Whether the unit's open cells still hold room for `need` non-touching stars."""
    room = capacity(geometry, unit, open_cells)
    if room is not None:
        return room >= need
    return fits(geometry.neighbours, unit.mask & open_cells, need)


def placements(geometry: Geometry, state: State, unit: Unit, limit: int) -> list[Cells] | None:
    """Every way to give the unit the stars it lacks among its open cells, no two touching and no row, column
    or region over its quota; None when there are more than `limit` ways (too many for a person to weigh)."""
    need = geometry.need(unit, state)
    open_cells = geometry.open_cells(state)
    candidates = _cells(unit.mask & open_cells & ~geometry.touched(state.stars))
    masks = [u.mask for u in geometry.units]
    lack = [geometry.need(u, state) for u in geometry.units]
    units_of_cell = geometry.units_of_cell
    neighbours = geometry.neighbours
    found: list[Cells] = []

    def extend(start: int, chosen: Cells, left: int) -> bool:
        if left == 0:
            found.append(chosen)
            return len(found) <= limit
        for position in range(start, len(candidates) - left + 1):
            cell = candidates[position]
            bit = 1 << cell
            if neighbours[cell] & chosen:
                continue
            grown = chosen | bit
            if any((grown & masks[j]).bit_count() > lack[j] for j in units_of_cell[cell]):
                continue
            if not extend(position + 1, grown, left - 1):
                return False
        return True

    if need <= 0 or not extend(0, 0, need):
        return None if need > 0 else []
    return found


def excluded_by(geometry: Geometry, state: State, stars: Cells) -> Cells:
    """The open cells that putting `stars` on the board would empty: their neighbours, and the rest of every
    row, column or region the new stars complete."""
    open_cells = geometry.open_cells(state)
    gone = geometry.touched(stars)
    for unit in geometry.units:
        placed = (unit.mask & stars).bit_count()
        if placed and placed == geometry.need(unit, state):
            gone |= unit.mask & ~stars
    return gone & open_cells & ~stars


def _cells(mask: Cells) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@dataclass(frozen=True)
class Outcome:
    """Where propagation stopped: the marks it reached, the rounds it took, and the contradiction it met (a
    sentence fragment such as "region C would have no room for its stars"), or None."""

    stars: Cells
    empty: Cells
    rounds: int
    contradiction: str | None


# Propagation levels: what the hypotheticals are allowed to use, in rising strength.
TRIVIAL = 1  # neighbours of stars, full units, units whose open cells equal their need
ATTACK = 2  # + cells touching all of a one-star unit's cells; room checks on rows, columns and bands
CONFINE = 3  # + room checks on regions; a region inside one line (or a line inside one region) fills it


def propagate(geometry: Geometry, stars: Cells, empty: Cells, level: int, budget: int = 0) -> Outcome:
    """Apply the rules of `level` until nothing changes, a contradiction appears, or `budget` rounds have run
    (0 = no limit). Sound: every mark it adds follows from the marks it was given."""
    k = geometry.stars
    units = geometry.units
    masks = [u.mask for u in units]
    lines = len(geometry.lines)
    neighbours = geometry.neighbours
    all_cells = geometry.all_cells
    fresh = stars
    rounds = 0
    while True:
        rounds += 1
        while fresh:
            low = fresh & -fresh
            empty |= neighbours[low.bit_length() - 1]
            fresh ^= low
        if empty & stars:
            return Outcome(stars, empty, rounds, "two stars would touch")
        open_cells = all_cells & ~stars & ~empty
        add = 0
        for i, mask in enumerate(masks):
            need = k - (mask & stars).bit_count()
            own = mask & open_cells
            if need <= 0:
                if need < 0:
                    return Outcome(stars, empty, rounds, f"{units[i].label} would hold too many stars")
                empty |= own
                continue
            count = own.bit_count()
            if count < need:
                return Outcome(stars, empty, rounds, f"{units[i].label} would have no room for its stars")
            if count == need:
                add |= own
                continue
            if level < ATTACK:
                continue
            if need == 1:
                common = all_cells
                bits = own
                while bits:
                    low = bits & -bits
                    common &= neighbours[low.bit_length() - 1]
                    bits ^= low
                empty |= common
            elif i < lines or level >= CONFINE:
                if not unit_fits(geometry, units[i], open_cells, need):
                    return Outcome(stars, empty, rounds, f"{units[i].label} would have no room for its stars")
        if level >= ATTACK:
            for band in geometry.bands:
                need = band.quota - (band.mask & stars).bit_count()
                if need > 0 and (capacity(geometry, band, open_cells) or 0) < need:
                    return Outcome(stars, empty, rounds, f"{band.label} would have no room for their stars")
        if level >= CONFINE:
            empty |= _confined(geometry, stars, open_cells)
        if add & empty:
            return Outcome(stars, empty, rounds, "a cell would have to be both a star and empty")
        open_after = all_cells & ~stars & ~empty
        if not add and open_after == open_cells:
            return Outcome(stars, empty, rounds, None)
        fresh = add
        stars |= add
        if budget and rounds >= budget:
            return Outcome(stars, empty, rounds, None)


def _confined(geometry: Geometry, stars: Cells, open_cells: Cells) -> Cells:
    """Cells emptied by one-unit confinement: a region whose open cells lie in one row (or column) needing as
    many stars as the region takes that line's stars; likewise a line inside one region."""
    k = geometry.stars
    gone = 0
    for inner, outer_families in ((geometry.regions, (geometry.rows, geometry.columns)), (geometry.lines, (geometry.regions,))):
        for unit in inner:
            own = unit.mask & open_cells
            if not own:
                continue
            need = k - (unit.mask & stars).bit_count()
            cell = (own & -own).bit_length() - 1
            for family in outer_families:
                outer = _containing(geometry, family, cell)
                if outer is unit or own & ~outer.mask:
                    continue
                if k - (outer.mask & stars).bit_count() == need:
                    gone |= outer.mask & open_cells & ~own
    return gone


def _containing(geometry: Geometry, family: tuple[Unit, ...], cell: int) -> Unit:
    n = geometry.size
    if family is geometry.rows:
        return family[cell // n]
    if family is geometry.columns:
        return family[cell % n]
    return family[geometry.puzzle.regions[cell]]
