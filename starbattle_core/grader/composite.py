"""Reasoning over two regions at once: the composite shapes (or entanglement) of the Star Battle literature.

Two touching regions need their stars together, and where one puts its stars decides where the other can: list
every joint way to fill both; a cell starred in every way is a star, an open cell of the pair starred in none is
empty, a cell outside that every way empties is empty. The joint ways are fewer than the product of the two
regions' own ways (stars of one touch cells of the other, and they share rows and columns), which is what makes it
stronger than region cases; a person weighs one region's few ways against the other's. `limit` is how many joint
ways a person is asked to weigh.
"""

from __future__ import annotations

from ..puzzle import Cells, iter_cells
from .geometry import Geometry, State, Unit
from .propagation import state_ways
from .step import Deduction


def _touching_pairs(geometry: Geometry) -> tuple[tuple[Unit, Unit], ...]:
    """Every pair of regions with touching cells (a star in one can empty cells of the other), in index order;
    remembered for the solve (it depends on the regions alone)."""
    key = ("touching pairs",)
    known: tuple[tuple[Unit, Unit], ...] | None = geometry.recall.lasting.get(key)
    if known is None:
        regions = geometry.regions
        known = tuple(
            (a, b) for i, a in enumerate(regions) for b in regions[i + 1 :] if geometry.touched(a.mask) & b.mask
        )
        geometry.recall.lasting[key] = known
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
        always = found.always
        never = area & ~found.anywhere
        hit = open_cells & ~area & found.emptied
        if always or never or hit:
            head = (
                f"{a.label} and {b.label} touch and need {need_a} and {need_b} more stars; together they fit "
                f"{_count(len(found.ways))} ({_shown(geometry, found.ways)})"
            )
            return Deduction(
                always, never | hit, (a.label, b.label), head + ": " + _parts(geometry, always, never, hit)
            )
    return None


def _count(ways: int) -> str:
    return "one way" if ways == 1 else f"{ways} ways"


def _shown(geometry: Geometry, ways: list[Cells]) -> str:
    shown = "; ".join("+".join(geometry.cell_name(c) for c in iter_cells(way)) for way in ways[:4])
    return shown + (f" and {len(ways) - 4} more" if len(ways) > 4 else "")


def _parts(geometry: Geometry, always: Cells, never: Cells, hit: Cells) -> str:
    parts = []
    if always:
        parts.append(f"{geometry.names(always)} {'is a star' if always.bit_count() == 1 else 'are stars'} in every way")
    if never:
        parts.append(f"{geometry.names(never)} {'is' if never.bit_count() == 1 else 'are'} in none, so empty")
    if hit:
        parts.append(f"every way empties {geometry.names(hit)}")
    return "; ".join(parts)
