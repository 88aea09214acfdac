"""Confinement and counting over unions of units.

If the open cells of some regions all lie inside some rows, and those regions need as many stars as those rows,
then the rows' stars all go into those regions: every other open cell of the rows is empty. The converse holds
with rows inside regions, and both with columns. `size` is the number of units on the larger side of the
argument (1 = one region inside one row, the simplest confinement); larger unions are harder to see.
"""

from __future__ import annotations

from ..puzzle import Cells
from .geometry import Geometry, State, Unit
from .step import Deduction


def union_confinement(geometry: Geometry, state: State, *, inner: str, size: int) -> Deduction | None:
    """Units of the `inner` kind ("regions" or "lines") whose open cells lie in units of the other kind,
    with equal needs on both sides and `size` units on the larger side: the rest of the outer units is empty."""
    open_cells = geometry.open_cells(state)
    if inner == "regions":
        pairs = [(geometry.regions, geometry.rows), (geometry.regions, geometry.columns)]
    else:
        pairs = [(geometry.rows, geometry.regions), (geometry.columns, geometry.regions)]
    for inner_units, outer_units in pairs:
        found = _search(geometry, state, open_cells, inner_units, outer_units, size)
        if found:
            return found
    return None


def _search(
    geometry: Geometry,
    state: State,
    open_cells: Cells,
    inner_units: tuple[Unit, ...],
    outer_units: tuple[Unit, ...],
    size: int,
) -> Deduction | None:
    active = [u for u in inner_units if u.mask & open_cells]
    outer_open = [u.mask & open_cells for u in outer_units]
    outer_need = [geometry.need(u, state) for u in outer_units]
    # For each active inner unit: the set (bits = positions in outer_units) of outer units its open cells touch.
    spans = []
    for unit in active:
        own = unit.mask & open_cells
        spans.append(sum(1 << j for j, cells in enumerate(outer_open) if cells & own))
    needs = [geometry.need(u, state) for u in active]

    def grow(start: int, chosen: list[int], span: int, need: int, inside: Cells) -> Deduction | None:
        if chosen and max(len(chosen), span.bit_count()) == size:
            outer_need_total = sum(outer_need[j] for j in _bits(span))
            if outer_need_total == need:
                outer_cells = 0
                for j in _bits(span):
                    outer_cells |= outer_open[j]
                gone = outer_cells & ~inside
                if gone:
                    return _sentence(geometry, [active[i] for i in chosen], [outer_units[j] for j in _bits(span)], gone)
        if len(chosen) == size:
            return None
        for i in range(start, len(active)):
            wider = span | spans[i]
            if wider.bit_count() > size:
                continue
            found = grow(i + 1, chosen + [i], wider, need + needs[i], inside | (active[i].mask & open_cells))
            if found:
                return found
        return None

    return grow(0, [], 0, 0, 0)


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _sentence(geometry: Geometry, inner: list[Unit], outer: list[Unit], gone: Cells) -> Deduction:
    labels = tuple(u.label for u in inner + outer)
    inner_text = _join([u.label for u in inner])
    outer_text = _join([u.label for u in outer])
    verb = "lies" if len(inner) == 1 else "lie"
    sentence = (
        f"{inner_text} {verb} inside {outer_text} and need{'s' if len(inner) == 1 else ''} as many stars, "
        f"so the other cells of {outer_text} are empty: {geometry.names(gone)}"
    )
    return Deduction(0, gone, labels, sentence)


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
