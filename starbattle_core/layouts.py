"""The layout bank: count, enumerate, rank and sample full star layouts, regions ignored.

A layout puts ``stars`` stars in every row and every column of a ``size`` x ``size`` board, no two touching (not
even diagonally). It is stored compactly as a 1-D ``uint32`` array of row masks: bit ``c`` of ``rows[r]`` is a
star at (r, c). Layouts are ordered lexicographically by that tuple of row masks (compared as integers); this is
the order of ``enumerate_layouts`` and ``layout_bank``, and ``unrank_layout(size, stars, i)`` is the i-th layout
in it. Counting, ranking and unranking never enumerate: see ``starbattle_core.layout_tables``.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache, lru_cache

import numpy as np

from .layout_tables import LayoutTables, layout_tables
from .puzzle import Cells, InputError

# Largest board the layout tables are built for. With 2+ stars, 14 x 14 is the largest board the project plays
# and bigger tables grow past what a call can afford (14x14 2-star already takes about a minute). One-star
# tables stay small (18 x 18 in about 2 s), and real Queens boards reach 18 x 18.
MAX_LAYOUT_SIZE = 14
MAX_ONE_STAR_LAYOUT_SIZE = 18
# layout_bank refuses banks above this many layouts (10x10 2-star is 146,510; 11x11 1-star is 5,296,790).
MAX_BANK = 1_200_000
# Layouts unranked per numpy batch: bounds the flat candidate arrays (batch x candidates per row) in memory.
_BATCH = 1 << 15


def _check_board(size: int, stars: int) -> None:
    if not isinstance(size, (int, np.integer)) or not 1 <= size <= MAX_ONE_STAR_LAYOUT_SIZE:
        raise InputError(f"layout size {size!r} out of range 1..{MAX_ONE_STAR_LAYOUT_SIZE}")
    if not isinstance(stars, (int, np.integer)) or not 1 <= stars <= size:
        raise InputError(f"layout stars {stars!r} out of range 1..{size} for a {size}x{size} board")
    if stars > 1 and size > MAX_LAYOUT_SIZE:
        raise InputError(
            f"layout size {size} out of range 1..{MAX_LAYOUT_SIZE} for {stars} stars per unit"
            f" (1..{MAX_ONE_STAR_LAYOUT_SIZE} with 1 star)"
        )


@cache
def count_layouts(size: int, stars: int) -> int:
    """Exact number of layouts of a size x size board with `stars` stars per row and column, none touching.

    Computed by the row-by-row transfer, never by enumerating; 0 when none exists.

    >>> count_layouts(6, 1)
    90
    >>> count_layouts(10, 2)
    146510
    """
    _check_board(size, stars)
    return layout_tables(size, stars).total


def _tables_with_layouts(size: int, stars: int) -> LayoutTables:
    _check_board(size, stars)
    tables = layout_tables(size, stars)
    if tables.total == 0:
        raise InputError(f"no valid layout exists for a {size}x{size} board with {stars} stars per unit")
    return tables


def unrank_layout(size: int, stars: int, index: int) -> np.ndarray:
    """The layout at position `index` (0-based) of the enumeration order."""
    tables = _tables_with_layouts(size, stars)
    total = tables.total
    if not 0 <= index < total:
        raise InputError(f"layout index {index} out of range 0..{total - 1} for {size}x{size} {stars}-star")
    return tables.unrank(np.array([index], dtype=np.int64))[0]


def rank_layout(rows: np.ndarray, stars: int) -> int:
    """Position of a layout in the enumeration order; InputError when `rows` is not a valid layout."""
    layout = np.asarray(rows, dtype=np.uint32)
    size = len(layout)
    tables = _tables_with_layouts(size, stars)
    problem = layout_problem(layout, stars)
    if problem:
        raise InputError(f"not a {size}x{size} {stars}-star layout: {problem}")
    return tables.rank(layout)


def layout_problem(rows: np.ndarray, stars: int) -> str:
    """Why row masks are not a layout (first reason found); empty when they are one."""
    size = len(rows)
    all_columns = (1 << size) - 1
    masks = [int(m) for m in rows]
    for r, mask in enumerate(masks):
        if mask & ~all_columns:
            return f"row {r + 1} has stars off the board"
        if mask.bit_count() != stars:
            return f"row {r + 1} has {mask.bit_count()} stars, not {stars}"
        if mask & (mask << 1):
            return f"row {r + 1} has touching stars"
        if r and masks[r - 1] & (mask | (mask << 1) | (mask >> 1)):
            return f"rows {r} and {r + 1} have touching stars"
    for c in range(size):
        in_column = sum((m >> c) & 1 for m in masks)
        if in_column != stars:
            return f"column {c + 1} has {in_column} stars, not {stars}"
    return ""


def enumerate_layouts(size: int, stars: int) -> Iterator[np.ndarray]:
    """Every layout once, in the enumeration order (lexicographic by row masks); nothing when none exists.

    Boards within the bank limit iterate the (cached, read-only) bank; bigger ones unrank batch after batch.
    """
    _check_board(size, stars)
    return _iterate_layouts(size, stars)


def _iterate_layouts(size: int, stars: int) -> Iterator[np.ndarray]:
    tables = layout_tables(size, stars)
    total = tables.total
    if total <= MAX_BANK:
        if total:
            yield from _bank(size, stars)
        return
    for start in range(0, total, _BATCH):
        yield from tables.unrank(np.arange(start, min(start + _BATCH, total), dtype=np.int64))


def layout_bank(size: int, stars: int) -> np.ndarray:
    """All layouts as one (count, size) uint32 array in enumeration order; refuses banks over MAX_BANK.

    Built once per (size, stars) and shared: the array is read-only (copy it to change it).
    """
    _check_board(size, stars)
    total = _tables_with_layouts(size, stars).total
    if total > MAX_BANK:
        raise InputError(
            f"{size}x{size} {stars}-star has {total:,} layouts, more than the bank limit {MAX_BANK:,}: sample instead"
        )
    return _bank(size, stars)


@lru_cache(maxsize=8)
def _bank(size: int, stars: int) -> np.ndarray:
    bank = layout_tables(size, stars).every_layout()
    bank.setflags(write=False)
    return bank


def sample_layouts(size: int, stars: int, count: int, seed_or_rng: int | np.random.Generator) -> np.ndarray:
    """`count` layouts drawn independently and exactly uniformly (with replacement), shape (count, size).

    Each draw is a uniform index into the enumeration order, unranked; the same seed gives the same layouts.
    """
    tables = _tables_with_layouts(size, stars)
    if not isinstance(count, (int, np.integer)) or count < 0:
        raise InputError(f"layout sample count {count!r} must be a whole number >= 0")
    if seed_or_rng is None or isinstance(seed_or_rng, bool):
        raise InputError("layout sampling needs a seed (an int) or a numpy Generator: every draw is seeded")
    rng = np.random.default_rng(seed_or_rng)
    indices = rng.integers(0, tables.total, size=count, dtype=np.int64)
    out = np.empty((count, size), dtype=np.uint32)
    for start in range(0, count, _BATCH):
        stop = min(start + _BATCH, count)
        out[start:stop] = tables.unrank(indices[start:stop])
    return out


def layout_to_cells(rows: np.ndarray) -> Cells:
    """The star cells of a layout: bit r * size + c for a star at (r, c)."""
    size = len(rows)
    mask = 0
    for r, row in enumerate(rows):
        mask |= int(row) << (r * size)
    return mask


def cells_to_layout(mask: Cells, size: int) -> np.ndarray:
    """Row masks of a set of cells on a size x size board (the inverse of layout_to_cells)."""
    if mask < 0 or mask >> (size * size):
        raise InputError(f"cells off the {size}x{size} board")
    row = (1 << size) - 1
    return np.array([(mask >> (r * size)) & row for r in range(size)], dtype=np.uint32)
