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
    if unit.kind == "region":
        return None
    bits = unit.mask & open_cells
    # The room is a fact about the cells alone (the most non-touching stars they hold), so one table serves
    # every row, column and band.
    room = geometry.rooms.get(bits)
    if room is None:
        room = geometry.rooms[bits] = _path_capacity(geometry, unit, bits)
    return room


def _path_capacity(geometry: Geometry, unit: Unit, bits: Cells) -> int:
    n = geometry.size
    if unit.kind == "row":
        return chain_capacity(bits >> (unit.index * n), 1)
    if unit.kind == "column":
        return chain_capacity(bits >> unit.index, n)
    if unit.kind == "rows":
        # Two stars in two neighbouring rows touch unless their columns are two apart: fold the rows onto one.
        row = (1 << n) - 1
        folded = ((bits >> (unit.index * n)) | (bits >> ((unit.index + 1) * n))) & row
        return chain_capacity(folded, 1)
    first_column = geometry.columns[0].mask
    folded = ((bits >> unit.index) | (bits >> (unit.index + 1))) & first_column
    return chain_capacity(folded, n)


def tight_marks(geometry: Geometry, unit: Unit, open_cells: Cells, need: int) -> tuple[Cells, Cells]:
    """For a row, column or band whose open cells have room for exactly `need` stars (no more): the cells that
    must be stars and the cells that must be empty. Read along the path (a band folded onto one line), a run of
    odd length holds a star on every other position starting at its ends; a run of two holds one star, so cells
    touching both of its cells are empty."""
    bits = unit.mask & open_cells
    key = ("tight", unit.kind, unit.index, bits)
    known = geometry.lasting.get(key)
    if known is None:
        known = geometry.lasting[key] = _tight_marks(geometry, unit, bits)
    stars, empties = known
    return stars, empties & open_cells


def _tight_marks(geometry: Geometry, unit: Unit, bits: Cells) -> tuple[Cells, Cells]:
    n = geometry.size
    neighbours = geometry.neighbours
    if unit.kind == "row":
        path, step = bits >> (unit.index * n), 1
        def at(position: int) -> Cells:
            return 1 << (unit.index * n + position)
    elif unit.kind == "column":
        path, step = bits >> unit.index, n
        def at(position: int) -> Cells:
            return 1 << (unit.index + position)
    elif unit.kind == "rows":
        path, step = ((bits >> (unit.index * n)) | (bits >> ((unit.index + 1) * n))) & ((1 << n) - 1), 1
        def at(position: int) -> Cells:
            return ((1 << (unit.index * n + position)) | (1 << ((unit.index + 1) * n + position))) & bits
    else:
        path, step = ((bits >> unit.index) | (bits >> (unit.index + 1))) & geometry.columns[0].mask, n
        def at(position: int) -> Cells:
            return ((1 << (position + unit.index)) | (1 << (position + unit.index + 1))) & bits
    stars = empties = 0
    for run in _runs(path, step):
        if len(run) % 2:
            for i, position in enumerate(run):
                cells = at(position)
                if i % 2:
                    empties |= cells
                elif cells.bit_count() == 1:
                    stars |= cells
        elif len(run) == 2:
            block = at(run[0]) | at(run[1])
            common = geometry.all_cells
            for cell in _cells(block):
                common &= neighbours[cell]
            empties |= common & ~block
    return stars, empties


def _runs(path: int, step: int) -> list[list[int]]:
    """Positions (bit indices) of the path's set bits, grouped into runs of neighbours `step` apart."""
    runs: list[list[int]] = []
    while path:
        low = path & -path
        position = low.bit_length() - 1
        if runs and runs[-1][-1] + step == position:
            runs[-1].append(position)
        else:
            runs.append([position])
        path ^= low
    return runs


def unit_fits(geometry: Geometry, unit: Unit, open_cells: Cells, need: int) -> bool:
    """Whether the unit's open cells still hold room for `need` non-touching stars."""
    room = capacity(geometry, unit, open_cells)
    if room is not None:
        return room >= need
    return region_fits(geometry, unit.mask & open_cells, need)


def region_fits(geometry: Geometry, mask: Cells, need: int) -> bool:
    """`fits`, remembered for the solve (the answer depends on the cells and the need alone)."""
    key = (mask << 6) | need
    known = geometry.fitting.get(key)
    if known is None:
        known = geometry.fitting[key] = fits(geometry.neighbours, mask, need)
    return known


def placements(geometry: Geometry, state: State, unit: Unit, limit: int) -> list[Cells] | None:
    """Every way to give the unit the stars it lacks among its open cells (see `placements_in`)."""
    return state_placements(geometry, state, unit.mask, geometry.need(unit, state), limit)


def state_placements(geometry: Geometry, state: State, area: Cells, need: int, limit: int) -> list[Cells] | None:
    """`placements_in` for the solver's state, memoised for the state: the case techniques of rising limits ask
    about the same units, so a list found under one limit answers every limit it fits in, and a search cut off
    at one limit answers every smaller limit."""
    key = ("ways", state.stars, state.empty, area, need)
    known = geometry.memo.get(key)
    if known is not None:
        searched, ways = known
        if ways is not None:
            return ways if len(ways) <= limit else None
        if limit <= searched:
            return None
    ways = placements_in(geometry, state, area, need, limit)
    geometry.memo[key] = (limit, ways)
    return ways


def placements_in(geometry: Geometry, state: State, area: Cells, need: int, limit: int) -> list[Cells] | None:
    """Every way to put `need` stars on the open cells of `area`, no two touching, none touching a star, and no
    row, column or region over its quota; None when there are more than `limit` ways (too many for a person to
    weigh)."""
    if need <= 0:
        return [0]  # one way: place nothing
    open_cells = geometry.open_cells(state)
    candidates = _cells(area & open_cells & ~geometry.touched(state.stars))
    masks = geometry.unit_masks
    lack = geometry.lacks(state)
    units_of_cell = geometry.units_of_cell
    neighbours = geometry.neighbours
    found: list[Cells] = []

    def extend(start: int, chosen: Cells, left: int) -> bool:
        if left == 0:
            found.append(chosen)
            return len(found) <= limit
        for position in range(start, len(candidates) - left + 1):
            cell = candidates[position]
            if neighbours[cell] & chosen:
                continue
            grown = chosen | (1 << cell)
            row, column, region = units_of_cell[cell]
            if (
                (grown & masks[row]).bit_count() > lack[row]
                or (grown & masks[column]).bit_count() > lack[column]
                or (grown & masks[region]).bit_count() > lack[region]
            ):
                continue
            if not extend(position + 1, grown, left - 1):
                return False
        return True

    return found if extend(0, 0, need) else None


def excluded_by(geometry: Geometry, state: State, stars: Cells) -> Cells:
    """The open cells that putting `stars` on the board would empty: their neighbours, and the rest of every
    row, column or region the new stars complete."""
    open_cells = geometry.open_cells(state)
    masks = geometry.unit_masks
    lack = geometry.lacks(state)
    gone = 0
    seen: set[int] = set()
    for cell in _cells(stars):
        gone |= geometry.neighbours[cell]
        for j in geometry.units_of_cell[cell]:
            if j not in seen:
                seen.add(j)
                if (masks[j] & stars).bit_count() == lack[j]:
                    gone |= masks[j]
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
ATTACK = 2  # + cells touching all of a one-star unit's cells; rows, columns and bands of two checked for room,
#              and filled run by run when they have room for exactly their stars (2x2 blocks)
CONFINE = 3  # + room checks on regions; a region inside one line (or a line inside one region) fills it
CASES = 4  # + every way to place each unit's stars: cells in all ways are stars, cells in none are empty

_CASES_LIMIT = 16  # ways per unit the CASES level weighs before it leaves the unit alone
_CASES_SPREAD = 4  # ... and it only weighs units with at most this many open cells per star needed (plus two)


def propagate(
    geometry: Geometry, stars: Cells, empty: Cells, level: int, budget: int = 0, changed: Cells | None = None
) -> Outcome:
    """Apply the rules of `level` until nothing changes, a contradiction appears, or `budget` rounds have run
    (0 = no limit). Sound: every mark it adds follows from the marks it was given.

    `changed`: when the marks were a fixed point of these rules except for these cells (a hypothetical adds one
    cell to a settled board), only the units those cells touch are looked at first; None looks at everything.
    """
    k = geometry.stars
    units = geometry.units
    masks = geometry.unit_masks
    paths = geometry.line_paths
    lines = len(paths)
    neighbours = geometry.neighbours
    all_cells = geometry.all_cells
    rooms, commons, seen_by_all = geometry.rooms, geometry.common, geometry.seen_by_all
    dirty = all_cells if changed is None else changed
    fresh = stars & dirty
    rounds = 0
    while True:
        rounds += 1
        start_empty = empty
        while fresh:
            low = fresh & -fresh
            empty |= neighbours[low.bit_length() - 1]
            fresh ^= low
        if empty & stars:
            return Outcome(stars, empty, rounds, "two stars would touch")
        dirty |= empty & ~start_empty
        open_cells = all_cells & ~stars & ~empty
        add = 0
        for i, mask in enumerate(masks):
            if not mask & dirty:
                continue
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
                common = commons.get(own)
                empty |= seen_by_all(own) if common is None else common
            elif i < lines:
                room = rooms.get(own)
                if room is None:
                    shift, step = paths[i]
                    room = rooms[own] = chain_capacity(own >> shift, step)
                if room < need:
                    return Outcome(stars, empty, rounds, f"{units[i].label} would have no room for its stars")
                if room == need:
                    forced, gone = tight_marks(geometry, units[i], open_cells, need)
                    add |= forced
                    empty |= gone
            elif level >= CONFINE and not region_fits(geometry, own, need):
                return Outcome(stars, empty, rounds, f"{units[i].label} would have no room for its stars")
        if level >= ATTACK:
            for band in geometry.bands:
                if band.mask & dirty:
                    need = band.quota - (band.mask & stars).bit_count()
                    if need <= 0:
                        continue
                    room = capacity(geometry, band, open_cells) or 0
                    if room < need:
                        return Outcome(stars, empty, rounds, f"{band.label} would have no room for their stars")
                    if room == need:
                        forced, gone = tight_marks(geometry, band, open_cells, need)
                        add |= forced
                        empty |= gone
        if level >= CONFINE:
            empty |= _confined(geometry, stars, open_cells, dirty)
        if level >= CASES:
            marks = State(stars, empty)
            for i, mask in enumerate(masks):
                need = k - (mask & stars).bit_count()
                if need <= 0 or not mask & dirty:
                    continue
                count = (mask & open_cells).bit_count()
                if count <= need or count > _CASES_SPREAD * need + 2:
                    continue
                ways = placements_in(geometry, marks, mask, need, _CASES_LIMIT)
                if ways is None:
                    continue
                if not ways:
                    return Outcome(stars, empty, rounds, f"{units[i].label} would have no way to place its stars")
                always, anywhere = all_cells, 0
                for way in ways:
                    always &= way
                    anywhere |= way
                add |= always
                empty |= mask & open_cells & ~anywhere
        if add & empty:
            return Outcome(stars, empty, rounds, "a cell would have to be both a star and empty")
        dirty = (empty & ~start_empty) | add
        if not dirty:
            return Outcome(stars, empty, rounds, None)
        fresh = add
        stars |= add
        if budget and rounds >= budget:
            return Outcome(stars, empty, rounds, None)


def _confined(geometry: Geometry, stars: Cells, open_cells: Cells, dirty: Cells) -> Cells:
    """Cells emptied by one-unit confinement: a region whose open cells lie in one row (or column) needing as
    many stars as the region takes that line's stars; likewise a line inside one region. Only pairs that
    touch the `dirty` cells are looked at."""
    k = geometry.stars
    n = geometry.size
    rows, columns, regions = geometry.rows, geometry.columns, geometry.regions
    region_of = geometry.puzzle.regions
    gone = 0
    pairs = []
    for unit in regions:
        own = unit.mask & open_cells
        if own:
            cell = (own & -own).bit_length() - 1
            pairs.append((unit, own, rows[cell // n]))
            pairs.append((unit, own, columns[cell % n]))
    for unit in geometry.lines:
        own = unit.mask & open_cells
        if own:
            pairs.append((unit, own, regions[region_of[(own & -own).bit_length() - 1]]))
    for unit, own, outer in pairs:
        if own & ~outer.mask or not (unit.mask | outer.mask) & dirty:
            continue
        if (outer.mask & stars).bit_count() == (unit.mask & stars).bit_count():  # equal quotas, so equal needs
            gone |= outer.mask & open_cells & ~own
    return gone
