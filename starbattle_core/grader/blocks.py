"""2x2 block capacity: no 2x2 block holds two stars, so an area covered by m blocks holds at most m stars. When
an area that must hold m stars is covered by exactly m blocks, every block holds exactly one: a cell touching all
of a block's open cells is empty, and a block with one open cell is a star.

The areas: a region, or the rest of some lines (or regions) outside the units confined in them (see counting.py),
which must hold exactly the stars the two sides' needs differ by.
"""

from __future__ import annotations

from ..puzzle import Cells
from .counting import confinements
from .geometry import Geometry, State
from .step import Deduction


def block_cover(geometry: Geometry, area: Cells) -> list[Cells]:
    """A cover of the area by 2x2 blocks (each entry: the area's cells in one block), built greedily from the
    top-left: the first uncovered cell takes the block, anchored on it or one column left, that covers more.
    Remembered for the solve: the same areas come back step after step."""
    known = geometry.recall.covers.get(area)
    if known is None:
        known = geometry.recall.covers[area] = _block_cover(geometry, area)
    return known


def _block_cover(geometry: Geometry, area: Cells) -> list[Cells]:
    n = geometry.size
    squares = geometry.board.block  # the 2x2 block at each top-left cell, the counter's own table
    blocks = []
    left = area
    while left:
        low = left & -left
        cell = low.bit_length() - 1
        r, c = divmod(cell, n)
        best = 0
        for anchor in (c, c - 1):
            if anchor >= 0:
                block = squares[r * n + anchor] & left
                if block.bit_count() > best.bit_count():
                    best = block
        blocks.append(best or low)
        left &= ~(best or low)
    return blocks


def _one_per_block(geometry: Geometry, open_cells: Cells, blocks: list[Cells]) -> tuple[Cells, Cells]:
    stars = empties = 0
    for block in blocks:
        if block.bit_count() == 1:
            stars |= block
        else:
            empties |= geometry.seen_by_all(block)
    return stars, empties & open_cells & ~stars


def region_blocks(geometry: Geometry, state: State) -> Deduction | None:
    """A region needing m stars (two or more) whose open cells are covered by m 2x2 blocks: one star per block."""
    open_cells = geometry.open_cells(state)
    for unit in geometry.regions:
        need = geometry.need(unit, state)
        own = unit.mask & open_cells
        if need < 2 or own.bit_count() <= need:
            continue
        blocks = block_cover(geometry, own)
        if len(blocks) != need:
            continue
        stars, empties = _one_per_block(geometry, open_cells, blocks)
        if stars or empties:
            return Deduction(
                stars, empties, (unit.label,), _sentence(geometry, unit.label, need, blocks, stars, empties)
            )
    return None


def remainder_blocks(geometry: Geometry, state: State, *, inner: str, size: int) -> Deduction | None:
    """The rest of some outer units outside the inner units confined in them must hold `extra` stars; when 2x2
    blocks cover it exactly that many times, one star per block."""
    open_cells = geometry.open_cells(state)
    for found in confinements(geometry, state, inner, size):
        if found.extra < 1 or found.rest.bit_count() <= found.extra:
            continue
        blocks = block_cover(geometry, found.rest)
        if len(blocks) != found.extra:
            continue
        stars, empties = _one_per_block(geometry, open_cells, blocks)
        if stars or empties:
            inner_text = _join([u.label for u in found.inner])
            outer_text = _join([u.label for u in found.outer])
            what = f"the rest of {outer_text} outside {inner_text}"
            labels = tuple(u.label for u in found.inner + found.outer)
            return Deduction(stars, empties, labels, _sentence(geometry, what, found.extra, blocks, stars, empties))
    return None


def _sentence(geometry: Geometry, what: str, need: int, blocks: list[Cells], stars: Cells, empties: Cells) -> str:
    shown = "; ".join(geometry.names(b) for b in blocks[:4]) + ("; ..." if len(blocks) > 4 else "")
    words = geometry.words
    parts = []
    if stars:
        parts.append(f"{geometry.names(stars)} {words.are_stars(stars)}")
    if empties:
        parts.append(
            f"{geometry.names(empties)} {'touches' if empties.bit_count() == 1 else 'touch'} a whole block, so empty"
        )
    return (
        f"{what} must hold {need} {words.stars} and fits in {need} 2x2 blocks ({shown}), one {words.star} each: "
        + "; ".join(parts)
    )


def _join(words: list[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
