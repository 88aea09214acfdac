"""Confinement and counting over unions of units.

If the open cells of some regions all lie inside some rows, the rows' remaining stars are the regions' stars plus
the rest: when both sides need as many stars, every other open cell of the rows is empty (`union_confinement`);
when the rows need d more, the rest of the rows holds exactly d stars, which may fit only a few ways
(`union_remainder`). The converse holds with rows inside regions, and both with columns. `size` is the number of
units on the larger side of the argument (1 = one region inside one row, the simplest confinement); larger unions
are harder to see.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..puzzle import Cells, iter_cells
from .geometry import Geometry, State, Unit
from .step import Deduction
from .ways import state_ways


@dataclass(frozen=True)
class Confinement:
    """Inner units whose open cells lie inside the outer units; `extra` = outer need minus inner need."""

    inner: tuple[Unit, ...]
    outer: tuple[Unit, ...]
    inside: Cells  # open cells of the inner units
    rest: Cells  # open cells of the outer units outside the inner ones
    extra: int


def confinements(
    geometry: Geometry, state: State, inner: str, size: int, *, tight: bool = False
) -> Iterator[Confinement]:
    """Every confinement of inner units ("regions" or "lines") in units of the other kind with `size` units on
    the larger side, rows before columns, in index order: with `tight`, only those whose two sides need as many
    stars (read lazily: the first one is a deduction); otherwise only those whose outer side needs more
    (memoised on the geometry: two families read them)."""
    if tight:
        return _confinements(geometry, state, inner, size, True)
    key = (state.stars, state.empty, inner, size)
    found = geometry.recall.confinements.get(key)
    if found is None:
        found = geometry.recall.confinements[key] = list(_confinements(geometry, state, inner, size, False))
    return iter(found)


def _confinements(geometry: Geometry, state: State, inner: str, size: int, tight: bool) -> Iterator[Confinement]:
    for side in _sides(geometry, state, inner):
        yield from _search(geometry, side, size, tight)


@dataclass(frozen=True)
class Side:
    """One pairing of inner and outer units (regions in rows, regions in columns, rows in regions, columns in
    regions) read off a state: the inner units with open cells, their open cells, needs and spans (bits =
    positions of the outer units their open cells reach), and the outer units' open cells and needs."""

    inner_units: tuple[Unit, ...]
    outer_units: tuple[Unit, ...]
    active: tuple[Unit, ...]
    opens: tuple[Cells, ...]
    needs: tuple[int, ...]
    spans: tuple[int, ...]
    outer_open: tuple[Cells, ...]
    outer_need: tuple[int, ...]


def _sides(geometry: Geometry, state: State, inner: str) -> list[Side]:
    """The two pairings for `inner`, read once per state (every union size uses them)."""
    key = (state.stars, state.empty, inner)
    found = geometry.recall.sides.get(key)
    if found is not None:
        return found
    open_cells = geometry.open_cells(state)
    n = geometry.size
    region_of = geometry.puzzle.regions
    if inner == "regions":
        pairs = [
            (geometry.regions, geometry.rows, lambda cell: cell // n),
            (geometry.regions, geometry.columns, lambda cell: cell % n),
        ]
    else:
        pairs = [
            (geometry.rows, geometry.regions, region_of.__getitem__),
            (geometry.columns, geometry.regions, region_of.__getitem__),
        ]
    found = []
    for inner_units, outer_units, outer_of in pairs:
        active = tuple(u for u in inner_units if u.mask & open_cells)
        opens = tuple(u.mask & open_cells for u in active)
        # A span depends on the open cells alone: remembered for the solve, per kind of outer unit.
        known = geometry.recall.spans.setdefault(outer_units[0].kind, {})
        spans = tuple(_span(known, own, outer_of) for own in opens)
        found.append(
            Side(
                inner_units,
                outer_units,
                active,
                opens,
                tuple(geometry.need(u, state) for u in active),
                spans,
                tuple(u.mask & open_cells for u in outer_units),
                tuple(geometry.need(u, state) for u in outer_units),
            )
        )
    geometry.recall.sides[key] = found
    return found


def _span(known: dict[Cells, int], own: Cells, outer_of: Callable[[int], int]) -> int:
    span = known.get(own)
    if span is None:
        span = known[own] = sum({1 << outer_of(cell) for cell in iter_cells(own)})
    return span


def _search(geometry: Geometry, side: Side, size: int, tight: bool) -> Iterator[Confinement]:
    # Which inner units fit in which outer ones depends on the spans alone, and spans change far less often than
    # the marks: the search is kept across steps, keyed by them (the needs and cells are read afresh below).
    key = (
        side.inner_units[0].kind,
        side.outer_units[0].kind,
        size,
        tuple(u.index for u in side.active),
        side.spans,
    )
    combos = geometry.recall.unions.get(key)
    if combos is None:
        combos = geometry.recall.unions[key] = _unions(side.spans, size)
    opens, needs, outer_open, outer_need = side.opens, side.needs, side.outer_open, side.outer_need
    for chosen, outer in combos:
        inside = 0
        need = 0
        for i in chosen:
            inside |= opens[i]
            need += needs[i]
        outer_cells = 0
        extra = -need
        for j in outer:
            outer_cells |= outer_open[j]
            extra += outer_need[j]
        if (extra == 0 if tight else extra > 0) and outer_cells & ~inside:
            yield Confinement(
                tuple(side.active[i] for i in chosen),
                tuple(side.outer_units[j] for j in outer),
                inside,
                outer_cells & ~inside,
                extra,
            )


def _unions(spans: tuple[int, ...], size: int) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Every set of inner units (positions in `spans`, in search order) whose spans together reach outer units
    such that the larger side has `size` units, with those outer units."""
    found = []

    def grow(start: int, chosen: tuple[int, ...], span: int) -> None:
        if chosen and max(len(chosen), span.bit_count()) == size:
            found.append((chosen, tuple(iter_cells(span))))
        if len(chosen) == size:
            return
        for i in range(start, len(spans)):
            wider = span | spans[i]
            if wider.bit_count() <= size:
                grow(i + 1, (*chosen, i), wider)

    grow(0, (), 0)
    return found


def union_confinement(geometry: Geometry, state: State, *, inner: str, size: int) -> Deduction | None:
    """Inner units whose open cells lie in outer units needing as many stars: the rest of the outer units is
    empty."""
    for found in confinements(geometry, state, inner, size, tight=True):
        if found.extra == 0:
            outer_text = _join([u.label for u in found.outer])
            verb, need = ("lies", "needs") if len(found.inner) == 1 else ("lie", "need")
            sentence = (
                f"{_join([u.label for u in found.inner])} {verb} inside {outer_text} and {need} as many "
                f"{geometry.words.stars}, "
                f"so the other cells of {outer_text} are empty: {geometry.names(found.rest)}"
            )
            return Deduction(0, found.rest, _labels(found), sentence)
    return None


def union_remainder(geometry: Geometry, state: State, *, inner: str, size: int, limit: int) -> Deduction | None:
    """Inner units inside outer units that need `extra` more stars: the rest of the outer units holds exactly
    that many; when they fit at most `limit` ways, what every way shares is proved (cells starred in all ways,
    cells of the rest in none, cells every way empties)."""
    open_cells = geometry.open_cells(state)
    for found in confinements(geometry, state, inner, size):
        if found.extra == 0:
            continue
        summary = state_ways(geometry, state, found.rest, found.extra, limit)
        if summary is None or not summary.ways:
            continue
        ways, always = summary.ways, summary.always
        hit = open_cells & ~found.rest & summary.emptied
        never = found.rest & ~summary.anywhere
        if not (always | never | hit):
            continue
        parts = []
        if always:
            parts.append(f"{geometry.names(always)} {geometry.words.are_stars(always)}")
        if never | hit:
            parts.append(f"{geometry.names(never | hit)} {'is' if (never | hit).bit_count() == 1 else 'are'} empty")
        outer_text = _join([u.label for u in found.outer])
        verb = "lies" if len(found.inner) == 1 else "lie"
        sentence = (
            f"{_join([u.label for u in found.inner])} {verb} inside {outer_text}, so the rest of {outer_text} holds "
            f"exactly {found.extra} {geometry.words.stars if found.extra > 1 else geometry.words.star}, which "
            f"fit{'s' if len(ways) == 1 else ''} "
            f"{'one way' if len(ways) == 1 else f'{len(ways)} ways'}: " + "; ".join(parts)
        )
        return Deduction(always, never | hit, _labels(found), sentence)
    return None


def _labels(found: Confinement) -> tuple[str, ...]:
    return tuple(u.label for u in found.inner + found.outer)


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
