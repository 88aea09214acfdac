"""Reasoning over two units at once: the composite shapes (or entanglement) of the Star Battle literature.

Two units that meet need their stars together, and where one puts its stars decides where the other can: list
every joint way to fill both; a cell starred in every way is a star, an open cell of the pair starred in none is
empty, a cell outside that every way empties is empty. The joint ways are fewer than the product of the two units'
own ways (stars of one touch cells of the other, they share lines or cells), which is what makes it stronger than
the cases of one unit; a person weighs one unit's few ways against the other's. The pairs: two touching regions
(`pair_cases`), and a row or column with a region it crosses (`crossing_cases`), whose shared cells count for
both. `limit` is how many joint ways a person is asked to weigh.
"""

from __future__ import annotations

from ..puzzle import Cells
from .cases import ways_counted, ways_shown, what_every_way_agrees
from .geometry import Geometry, State, Unit
from .step import Deduction
from .ways import Ways, state_ways, ways_on, ways_summary


def _touching_pairs(geometry: Geometry) -> tuple[tuple[Unit, Unit], ...]:
    """Every pair of regions with touching cells (a star in one can empty cells of the other), in index order;
    remembered for the solve (it depends on the regions alone)."""
    known = geometry.recall.touching_pairs
    if known is None:
        regions = geometry.regions
        known = geometry.recall.touching_pairs = tuple(
            (a, b) for i, a in enumerate(regions) for b in regions[i + 1 :] if geometry.touched(a.mask) & b.mask
        )
    return known


def pair_cases(geometry: Geometry, state: State, *, limit: int) -> Deduction | None:
    """Two touching regions, each needing at least one star, whose joint ways number at most `limit`: what every
    joint way shares is proved (see the module docstring)."""
    open_cells = geometry.open_cells(state)
    for a, b in _touching_pairs(geometry):
        need_a, need_b = geometry.need(a, state), geometry.need(b, state)
        if need_a < 1 or need_b < 1:
            continue
        area = (a.mask | b.mask) & open_cells
        need = need_a + need_b
        if area.bit_count() <= need:
            continue
        # No unit may take more than it lacks, so `need` stars on the two regions give each exactly its own.
        found = state_ways(geometry, state, a.mask | b.mask, need, limit)
        if found is None or not found.ways:
            continue
        agreed = _shared_by_every_way(found, area, open_cells)
        if agreed is not None:
            head = (
                f"{a.label} and {b.label} touch and need {need_a} and {need_b} more {geometry.words.stars}; together "
                "they fit "
                f"{ways_counted(len(found.ways))} ({ways_shown(geometry, found.ways)})"
            )
            return _deduction(geometry, agreed, (a.label, b.label), head)
    return None


def _shared_by_every_way(found: Ways, area: Cells, open_cells: Cells) -> tuple[Cells, Cells, Cells] | None:
    """What every joint way of two units agrees on: stars in all of them, open cells of the pair in none, and cells
    outside the pair that every way empties (None when there is nothing, before any sentence is built)."""
    always = found.always
    never = area & ~found.anywhere
    hit = open_cells & ~area & found.emptied
    return (always, never, hit) if always or never or hit else None


def _deduction(geometry: Geometry, agreed: tuple[Cells, Cells, Cells], units: tuple[str, str], head: str) -> Deduction:
    always, never, hit = agreed
    return Deduction(always, never | hit, units, head + ": " + what_every_way_agrees(geometry, always, never, hit))


# A person starts from the region's own ways and follows each into the line: at most this many (the largest
# joint limit; a region with more ways is left to other techniques).
_OWN_WAYS = 40


def crossing_cases(geometry: Geometry, state: State, *, limit: int) -> Deduction | None:
    """A region and a row or column crossing it (sharing open cells), each needing at least one star, whose joint
    ways number at most `limit`: what every joint way shares is proved (see the module docstring)."""
    open_cells = geometry.open_cells(state)
    for region in geometry.regions:
        need_region = geometry.need(region, state)
        if need_region < 1 or not region.mask & open_cells:
            continue
        for line in geometry.lines:
            need_line = geometry.need(line, state)
            shared = region.mask & line.mask & open_cells
            # A region inside the line, or a line inside the region, is one unit's cases and confinement.
            if need_line < 1 or not shared or shared in (region.mask & open_cells, line.mask & open_cells):
                continue
            found = _crossing_ways(geometry, state, line, region, limit)
            if found is None:
                continue
            area = (line.mask | region.mask) & open_cells
            agreed = _shared_by_every_way(found, area, open_cells)
            if agreed is not None:
                head = (
                    f"{line.label} needs {need_line} more {geometry.words.stars} and {region.label}, which crosses it, "
                    f"{need_region}; together they fit {ways_counted(len(found.ways))} "
                    f"({ways_shown(geometry, found.ways)})"
                )
                return _deduction(geometry, agreed, (line.label, region.label), head)
    return None


def _crossing_ways(geometry: Geometry, state: State, line: Unit, region: Unit, limit: int) -> Ways | None:
    """The joint ways of a line and a region: each way of the region, completed by every way to give the line the
    stars it still lacks outside the region (touching none of the region's, no unit over what it lacks); None
    when there are none or more than `limit`. Remembered for the solve under the cells a star may take, the
    stars each unit lacks and the limit."""
    free = (line.mask | region.mask) & geometry.open_cells(state) & ~geometry.touched(state.stars)
    lack = geometry.lacks(state)
    key = (line.kind, line.index, region.index, free, lack, limit)
    crossings = geometry.recall.crossings
    if key not in crossings:  # None (no joint way, or too many) is an answer too
        crossings[key] = _joint(geometry, state, line, region, free, lack, limit)
    return crossings[key]


def _joint(
    geometry: Geometry, state: State, line: Unit, region: Unit, free: Cells, lack: tuple[int, ...], limit: int
) -> Ways | None:
    own = state_ways(geometry, state, region.mask, geometry.need(region, state), _OWN_WAYS)
    if own is None:
        return None
    need_line = geometry.need(line, state)
    outside = free & ~region.mask
    joint: list[Cells] = []
    for way in own.ways:
        left = need_line - (way & line.mask).bit_count()
        if left < 0:
            continue
        if left == 0:
            joint.append(way)
        else:
            # The rest of the line's stars: off the region's cells, touching none of its stars, and each unit
            # lacking what it lacks less what this way of the region gives it.
            taken = tuple(  # a list first: faster than a generator here, a hot loop
                [missing - (way & mask).bit_count() for mask, missing in zip(geometry.unit_masks, lack, strict=True)]
            )
            rest = ways_on(geometry, outside & ~geometry.touched(way), left, limit - len(joint), taken)
            if rest is None:
                return None
            joint += [way | more for more in rest]
        if len(joint) > limit:
            return None
    return ways_summary(geometry, sorted(joint), lack) if joint else None
