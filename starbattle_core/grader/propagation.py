"""Fast reasoning on bit masks, shared by the techniques: how many stars fit in a set of cells, every way to put
a unit's stars, and propagation of the cheap rules to a fixed point (what a hypothetical watches collapse). The
room on a path and the enumeration of ways are the board geometry's (`board_tables`), the counter's too; what is
here is the grader's policy around them: what it remembers for a solve, its limits, what it folds the ways into.

Propagation is written for speed rather than narration: it works on plain ints, builds no steps, and builds a
sentence only when it meets a contradiction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..board_tables import UnitLimits, path_room, touching_all, way_families
from ..puzzle import Cells, iter_cells
from .geometry import Geometry, State, Unit


def fits(neighbours: tuple[Cells, ...], mask: Cells, need: int) -> bool:
    """Whether `need` stars fit in `mask` with no two touching (exact: the first way `way_families` finds)."""
    return need <= 0 or next(way_families(mask, need, neighbours), None) is not None


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
    key = ("tight", unit.kind, unit.index, bits)
    known = geometry.recall.lasting.get(key)
    if known is None:
        known = geometry.recall.lasting[key] = _tight_marks(geometry, unit, bits)
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


def region_fits(geometry: Geometry, mask: Cells, need: int) -> bool:
    """`fits`, remembered for the solve (the answer depends on the cells and the need alone)."""
    key = (mask << 6) | need
    known = geometry.recall.fitting.get(key)
    if known is None:
        known = geometry.recall.fitting[key] = fits(geometry.neighbours, mask, need)
    return known


def placements(geometry: Geometry, state: State, unit: Unit, limit: int) -> list[Cells] | None:
    """Every way to give the unit the stars it lacks among its open cells (see `state_ways`)."""
    return state_placements(geometry, state, unit.mask, geometry.need(unit, state), limit)


@dataclass(frozen=True)
class Ways:
    """Every way to place some stars (see `state_ways`), with what they share: the cells starred in all of
    them, the cells starred in any, and the cells every way would empty (whatever their state now)."""

    ways: list[Cells]
    always: Cells
    anywhere: Cells
    emptied: Cells


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
    key = ("ways", free, need, lack)
    known = geometry.recall.lasting.get(key)
    if known is not None:
        searched, found = known
        if found is not None:
            return found if len(found.ways) <= limit else None
        if limit <= searched:
            return None
    ways = ways_on(geometry, free, need, limit, lack)
    found = None if ways is None else ways_summary(geometry, ways, lack)
    geometry.recall.lasting[key] = (limit, found)
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


class Outcome(NamedTuple):
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
    rooms, commons, seen_by_all, fitting = (
        geometry.recall.rooms,
        geometry.recall.common,
        geometry.seen_by_all,
        geometry.recall.fitting,
    )
    band_quota = 2 * k
    zones = geometry.zones
    known_cases = geometry.recall.lasting
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
                    room = rooms[own] = path_room(own >> shift, step).capacity
                if room < need:
                    return Outcome(stars, empty, rounds, f"{units[i].label} would have no room for its stars")
                if room == need:
                    forced, gone = tight_marks(geometry, units[i], open_cells)
                    add |= forced
                    empty |= gone
            elif level >= CONFINE:
                room_enough = fitting.get((own << 6) | need)
                if room_enough is None:
                    room_enough = region_fits(geometry, own, need)
                if not room_enough:
                    return Outcome(stars, empty, rounds, f"{units[i].label} would have no room for its stars")
        if level >= ATTACK:
            for band in geometry.bands:
                band_mask = band.mask
                if band_mask & dirty:
                    need = band_quota - (band_mask & stars).bit_count()
                    if need <= 0:
                        continue
                    own = band_mask & open_cells
                    room = rooms.get(own)
                    if room is None:
                        room = capacity(geometry, band, open_cells)
                    if room < need:
                        return Outcome(stars, empty, rounds, f"{band.label} would have no room for their stars")
                    if room == need:
                        forced, gone = tight_marks(geometry, band, open_cells)
                        add |= forced
                        empty |= gone
        if level >= CONFINE:
            empty |= _confined(geometry, stars, open_cells, dirty)
        if level >= CASES:
            lack = None
            for i, mask in enumerate(masks):
                if not mask & dirty:
                    continue
                need = k - (mask & stars).bit_count()
                if need <= 0:
                    continue
                count = (mask & open_cells).bit_count()
                if count <= need or count > _CASES_SPREAD * need + 2:
                    continue
                # The stars' neighbours are already empty here, so the open cells are where a star may go. The
                # ways depend on those cells and on the stars of the units crossing this one (their lacks).
                free = mask & ~stars & ~empty
                key = ("cases", free, need, stars & zones[i])
                shared = known_cases.get(key, False)
                if shared is False:
                    if lack is None:
                        lack = geometry.lacks(State(stars, empty))
                    shared = known_cases[key] = _shared(ways_on(geometry, free, need, _CASES_LIMIT, lack), all_cells)
                if shared is None:
                    continue
                if not shared:
                    return Outcome(stars, empty, rounds, f"{units[i].label} would have no way to place its stars")
                always, anywhere = shared
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


def _shared(ways: list[Cells] | None, all_cells: Cells) -> tuple[Cells, Cells] | tuple[()] | None:
    """The cells starred in every way and in some way; () when there is no way, None when there are too many."""
    if ways is None:
        return None
    if not ways:
        return ()
    always, anywhere = all_cells, 0
    for way in ways:
        always &= way
        anywhere |= way
    return always, anywhere


def _confined(geometry: Geometry, stars: Cells, open_cells: Cells, dirty: Cells) -> Cells:
    """Cells emptied by one-unit confinement: a region whose open cells lie in one row (or column) needing as
    many stars as the region takes that line's stars; likewise a line inside one region. Only pairs that
    touch the `dirty` cells are looked at."""
    gone = 0
    for region, masks, holders in (
        (True, geometry.region_masks, geometry.recall.region_holders),
        (False, geometry.line_masks, geometry.recall.line_holders),
    ):
        for mask in masks:
            own = mask & open_cells
            if not own:
                continue
            outers = holders.get(own)
            if outers is None:
                outers = holders[own] = _holders(geometry, own, region)
            for outer in outers:
                # Equal quotas, so equal stars mean equal needs.
                if (mask | outer) & dirty and (outer & stars).bit_count() == (mask & stars).bit_count():
                    gone |= outer & open_cells & ~own
    return gone


def _holders(geometry: Geometry, own: Cells, region: bool) -> tuple[Cells, ...]:
    """The units of the other kind holding all of `own` (the open cells of a region: its row, its column; of a
    line: its region)."""
    n = geometry.size
    cell = (own & -own).bit_length() - 1
    outers: tuple[Cells, ...]
    if region:
        outers = (geometry.row_masks[cell // n], geometry.column_masks[cell % n])
    else:
        outers = (geometry.region_masks[geometry.puzzle.regions[cell]],)
    return tuple(outer for outer in outers if not own & ~outer)
