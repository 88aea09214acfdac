"""A deliberately plain solution counter for small boards, the reference the real counter is tested against.

It enumerates every layout (K stars in every row and column, none touching) row by row, with no pruning beyond the
rules themselves, then keeps the layouts that put K stars in every region and honour the givens. Nothing here is
shared with starbattle_core.counter.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations, pairwise

from starbattle_core.puzzle import Puzzle


def row_choices(size: int, stars: int) -> list[tuple[int, ...]]:
    """Every way to put `stars` stars in one row with no two side by side."""
    return [cols for cols in combinations(range(size), stars) if all(b - a > 1 for a, b in pairwise(cols))]


@cache
def all_layouts(size: int, stars: int) -> tuple[frozenset[tuple[int, int]], ...]:
    """Every layout of the board, as sets of (row, column) star positions."""
    choices = row_choices(size, stars)
    layouts: list[frozenset[tuple[int, int]]] = []

    def extend(rows: list[tuple[int, ...]]) -> None:
        if len(rows) == size:
            cells = frozenset((r, c) for r, cols in enumerate(rows) for c in cols)
            if all(sum(1 for (_, c) in cells if c == col) == stars for col in range(size)):
                layouts.append(cells)
            return
        for cols in choices:
            if rows and any(abs(a - b) <= 1 for a in rows[-1] for b in cols):
                continue  # a star would touch one in the row above
            if any(sum(col in row for row in rows) >= stars for col in cols):
                continue  # a column would get more than `stars` stars
            extend([*rows, cols])

    extend([])
    return tuple(layouts)


def brute_force_solutions(puzzle: Puzzle, stars: int = 0, empty: int = 0) -> list[int]:
    """Every solution of the puzzle (as Cells masks, sorted), given extra forced `stars` and `empty` cells."""
    n = puzzle.size
    must = puzzle.given_stars | stars
    never = puzzle.given_empty | empty
    found = []
    for layout in all_layouts(n, puzzle.stars):
        per_region = [0] * n
        for r, c in layout:
            per_region[puzzle.regions[r * n + c]] += 1
        if any(count != puzzle.stars for count in per_region):
            continue
        mask = sum(1 << (r * n + c) for r, c in layout)
        if must & ~mask or never & mask:
            continue
        found.append(mask)
    return sorted(found)
