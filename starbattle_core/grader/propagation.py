"""Propagation: the cheap rules applied until nothing changes, a contradiction appears or a budget of rounds runs
out; what a hypothetical watches collapse.

Written for speed rather than narration: it works on plain ints, builds no steps, and builds a sentence only when
it meets a contradiction (the chain a player reads is told again with the techniques themselves, chains.py).

A round applies the rules of its level in this order, each to the units the last round changed; every rule is a
function that marks what it decides in the round's `_Marks` (Norvig's primitives: mark, and report a broken rule)
and returns the rule the marks break, a sentence fragment such as "region C would have no room for its stars", or
None. Every rule reads the open cells as the round began (the cases also honour the cells the rules before them
emptied); the stars it proves are placed when the round ends, and no cell may be proved both a star and empty.

    level     rules
    TRIVIAL   the stars' neighbours (`_star_neighbours`); per row, column and region (`_unit_rules`): a full unit
              (`_full_unit`), a unit with no more open cells than its need (`_last_cells`)
    ATTACK    + per unit: one star among its open cells (`_one_star_attack`), a row or column's room
              (`_line_room`); a band's room (`_band_room`)
    CONFINE   + per unit: a region's room (`_region_room`); one-unit confinement (`_confined`)
    CASES     + every way to place a unit's stars (`_unit_ways`)
"""

from __future__ import annotations

from typing import NamedTuple

from ..board_tables import path_room
from ..puzzle import Cells
from .geometry import Geometry, State
from .room import capacity, region_fits, tight_marks
from .ways import ways_on


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


class _Marks:
    """The marks one propagation works on, changed in place by its rules: the stars and the empty cells so far, the
    stars proved this round (placed when it ends), the open cells as the round began, and the cells changed since
    the round before (only the units they touch are looked at)."""

    __slots__ = ("add", "dirty", "empty", "open", "stars")

    def __init__(self, stars: Cells, empty: Cells, dirty: Cells) -> None:
        self.stars = stars
        self.empty = empty
        self.add: Cells = 0
        self.open: Cells = 0
        self.dirty = dirty


def propagate(
    geometry: Geometry, stars: Cells, empty: Cells, level: int, budget: int = 0, changed: Cells | None = None
) -> Outcome:
    """Apply the rules of `level` until nothing changes, a contradiction appears, or `budget` rounds have run
    (0 = no limit). Sound: every mark it adds follows from the marks it was given.

    `changed`: when the marks were a fixed point of these rules except for these cells (a hypothetical adds one
    cell to a settled board), only the units those cells touch are looked at first; None looks at everything.
    """
    marks = _Marks(stars, empty, geometry.all_cells if changed is None else changed)
    fresh = stars & marks.dirty  # the stars whose neighbours may still be open
    rounds = 0
    while True:
        rounds += 1
        before = marks.empty
        problem = _star_neighbours(geometry, marks, fresh)
        if problem is None:
            marks.dirty |= marks.empty & ~before
            marks.open = geometry.all_cells & ~marks.stars & ~marks.empty
            # The rules of the level, in the order of the module docstring.
            problem = _unit_rules(geometry, marks, level)
            if problem is None and level >= ATTACK:
                problem = _band_room(geometry, marks)
            if problem is None and level >= CONFINE:
                marks.empty |= _confined(geometry, marks.stars, marks.open, marks.dirty)
            if problem is None and level >= CASES:
                problem = _unit_ways(geometry, marks)
            if problem is None and marks.add & marks.empty:
                problem = f"a cell would have to be both a {geometry.words.star} and empty"
        if problem is not None:
            return Outcome(marks.stars, marks.empty, rounds, problem)
        fresh = marks.add
        marks.dirty = (marks.empty & ~before) | fresh
        if not marks.dirty:
            return Outcome(marks.stars, marks.empty, rounds, None)
        marks.stars |= fresh
        marks.add = 0
        if budget and rounds >= budget:
            return Outcome(marks.stars, marks.empty, rounds, None)


def _star_neighbours(geometry: Geometry, marks: _Marks, fresh: Cells) -> str | None:
    """Decides: the neighbours of the stars placed since the last round (`fresh`; the others' already are) are
    empty. Broken when that empties a star: two stars would touch."""
    neighbours = geometry.neighbours
    empty = marks.empty
    while fresh:
        low = fresh & -fresh
        empty |= neighbours[low.bit_length() - 1]
        fresh ^= low
    marks.empty = empty
    return f"two {geometry.words.stars} would touch" if empty & marks.stars else None


def _unit_rules(geometry: Geometry, marks: _Marks, level: int) -> str | None:
    """The rules of one row, column or region, for every one the last round changed, in the order of
    `geometry.units` (the first broken rule is the one reported). One rule speaks for each unit, chosen by its need
    and its open cells: it has its stars, or it has no more open cells than it needs; from ATTACK on, it needs one
    star, or it is a row or column; from CONFINE on, a region. A rule is called only when it may decide something:
    a full unit already emptied, a one-star unit whose open cells are known to have no common neighbour, a row or
    column known to have room to spare and a region known to have room enough are passed over (the common cases)."""
    k = geometry.stars
    stars, open_cells, dirty = marks.stars, marks.open, marks.dirty
    lines = 2 * geometry.size
    recall = geometry.recall
    commons, rooms, fitting = recall.common, recall.rooms, recall.fitting
    for i, mask in enumerate(geometry.unit_masks):
        if not mask & dirty:
            continue
        need = k - (mask & stars).bit_count()
        own = mask & open_cells
        if need <= 0:
            if not need and not own:
                continue
            problem = _full_unit(geometry, marks, i, need, own)
        elif own.bit_count() <= need:
            problem = _last_cells(geometry, marks, i, need, own)
        elif level < ATTACK:
            continue
        elif need == 1:
            if commons.get(own, -1):
                _one_star_attack(geometry, marks, own)
            continue
        elif i < lines:
            if rooms.get(own, 0) > need:
                continue
            problem = _line_room(geometry, marks, i, need, own)
        elif level >= CONFINE:
            if fitting.get((own << 6) | need):
                continue
            problem = _region_room(geometry, i, need, own)
        else:
            continue
        if problem is not None:
            return problem
    return None


def _full_unit(geometry: Geometry, marks: _Marks, i: int, need: int, own: Cells) -> str | None:
    """Decides: a unit with all its stars (`need` 0) has its other open cells (`own`) empty. Broken when it has
    more."""
    if need < 0:
        return f"{geometry.units[i].label} would hold too many {geometry.words.stars}"
    marks.empty |= own
    return None


def _last_cells(geometry: Geometry, marks: _Marks, i: int, need: int, own: Cells) -> str | None:
    """Decides: a unit with exactly as many open cells (`own`) as the stars it needs has a star on each. Broken
    when it has fewer."""
    if own.bit_count() < need:
        return f"{geometry.units[i].label} would have no room for its {geometry.words.stars}"
    marks.add |= own
    return None


def _one_star_attack(geometry: Geometry, marks: _Marks, own: Cells) -> None:
    """Decides: in a unit needing one star, the cells touching all its open cells (`own`) are empty, wherever the
    star goes."""
    common = geometry.recall.common.get(own)
    marks.empty |= geometry.seen_by_all(own) if common is None else common


def _line_room(geometry: Geometry, marks: _Marks, i: int, need: int, own: Cells) -> str | None:
    """Decides: a row or column whose open cells (`own`) have room for exactly the stars it needs fills every run
    of them as tightly as it can (`tight_marks`). Broken when they have room for fewer."""
    rooms = geometry.recall.rooms
    room = rooms.get(own)
    if room is None:
        shift, step = geometry.line_paths[i]
        room = rooms[own] = path_room(own >> shift, step).capacity
    if room < need:
        return f"{geometry.units[i].label} would have no room for its {geometry.words.stars}"
    if room == need:
        stars, empties = tight_marks(geometry, geometry.units[i], marks.open)
        marks.add |= stars
        marks.empty |= empties
    return None


def _region_room(geometry: Geometry, i: int, need: int, own: Cells) -> str | None:
    """Decides nothing: broken when a region's open cells (`own`) cannot hold the stars it needs, no two touching
    (an exact search, remembered)."""
    room_enough = geometry.recall.fitting.get((own << 6) | need)
    if room_enough is None:
        room_enough = region_fits(geometry, own, need)
    return None if room_enough else f"{geometry.units[i].label} would have no room for its {geometry.words.stars}"


def _band_room(geometry: Geometry, marks: _Marks) -> str | None:
    """Decides, for every band of two rows or columns the last round changed: one whose open cells have room for
    exactly the stars it needs fills every run of them as tightly as it can (`tight_marks`). Broken when a band has
    room for fewer."""
    stars, open_cells, dirty = marks.stars, marks.open, marks.dirty
    rooms = geometry.recall.rooms
    for band in geometry.bands:
        mask = band.mask
        if not mask & dirty:
            continue
        need = band.quota - (mask & stars).bit_count()
        if need <= 0:
            continue
        room = rooms.get(mask & open_cells)
        if room is None:
            room = capacity(geometry, band, open_cells)
        if room < need:
            return f"{band.label} would have no room for their {geometry.words.stars}"
        if room == need:
            forced, gone = tight_marks(geometry, band, open_cells)
            marks.add |= forced
            marks.empty |= gone
    return None


def _confined(geometry: Geometry, stars: Cells, open_cells: Cells, dirty: Cells) -> Cells:
    """Decides (returns) the cells emptied by one-unit confinement: a region whose open cells lie in one row (or
    column) needing as many stars as the region takes that line's stars; likewise a line inside one region. Only
    pairs that touch the `dirty` cells are looked at."""
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


class Agreement(NamedTuple):
    """What every way to place a unit's stars agrees on: the cells starred in all of them, and in any of them (none
    when there is no way). Too many ways to weigh agree on nothing: no cell in all, every cell in some."""

    always: Cells
    anywhere: Cells


def _unit_ways(geometry: Geometry, marks: _Marks) -> str | None:
    """Decides, for every row, column and region the last round changed that needs stars among a few open cells
    (at most `_CASES_SPREAD` per star, plus two): listing every way to place them (up to `_CASES_LIMIT`), a cell in
    all of them is a star and an open cell of the unit in none is empty. Broken when there is no way."""
    k = geometry.stars
    stars, open_cells, dirty = marks.stars, marks.open, marks.dirty
    agreements = geometry.recall.agreements
    zones = geometry.zones
    lack = None
    for i, mask in enumerate(geometry.unit_masks):
        if not mask & dirty:
            continue
        need = k - (mask & stars).bit_count()
        if need <= 0:
            continue
        count = (mask & open_cells).bit_count()
        if count <= need or count > _CASES_SPREAD * need + 2:
            continue
        # The stars' neighbours are already empty here, so the cells not empty are where a star may go (the
        # earlier rules of this round count). The ways depend on those cells and on the stars of the units crossing
        # this one (their lacks).
        free = mask & ~stars & ~marks.empty
        key = (free, need, stars & zones[i])
        agreed = agreements.get(key)
        if agreed is None:
            if lack is None:
                lack = geometry.lacks(State(stars, marks.empty))
            ways = ways_on(geometry, free, need, _CASES_LIMIT, lack)
            agreed = agreements[key] = _agreement(ways, geometry.all_cells)
        if not agreed.anywhere:
            return f"{geometry.units[i].label} would have no way to place its {geometry.words.stars}"
        marks.add |= agreed.always
        marks.empty |= mask & open_cells & ~agreed.anywhere
    return None


def _agreement(ways: list[Cells] | None, all_cells: Cells) -> Agreement:
    """What the ways agree on (None: too many ways, see `Agreement`)."""
    if ways is None:
        return Agreement(0, all_cells)
    always, anywhere = all_cells, 0
    for way in ways:
        always &= way
        anywhere |= way
    return Agreement(always, anywhere)
