"""Region growth: draw the regions around a star layout so that it is a solution (stages 2 and 3).

Star Battle: the stars are grouped K at a time (nearby stars together); each group's region is seeded on one of its
stars and grows cell by cell until it has swallowed the other K - 1, never swallowing another group's star. Every
cell added must leave each unfinished region a path to its missing stars; when no cell does, the last moves are
undone (backtracking). Leftover cells then go, one at a time, to the smallest region next to them.

Queens: one region per queen, grown from the queen's cell. Each region gets an appetite: some sprawl, some stay
small; a bit more than half the boards plant one or two single-cell regions (a free opening move).

Every function here is pure given its `random.Random`, so a seed fixes the board.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..puzzle import Cells
from .config import GeneratorConfig
from .shape import Grid, cell_list, grid


@dataclass(frozen=True)
class Growth:
    """What a growth attempt made: the region of every cell (row-major), or None with the reason it gave up."""

    regions: tuple[int, ...] | None
    backtracks: int
    reason: str = ""


def _distance(a: int, b: int, size: int) -> int:
    return abs(a // size - b // size) + abs(a % size - b % size)


def group_stars(layout: Cells, size: int, stars: int, rng: random.Random, swaps: int = 200) -> list[list[int]]:
    """Split the layout's stars into groups of `stars`, nearby stars together.

    A random greedy grouping (pick a star, add its nearest free stars) followed by random swaps between groups that
    shorten the total spread; the randomness keeps the grouping from being the same for the same layout.
    """
    cells = cell_list(layout)
    if stars == 1:
        return [[cell] for cell in cells]
    rng.shuffle(cells)
    left = list(cells)
    groups: list[list[int]] = []
    while left:
        first = left.pop(rng.randrange(len(left)))
        left.sort(key=lambda cell: (_distance(first, cell, size), rng.random()))
        groups.append([first, *left[: stars - 1]])
        del left[: stars - 1]

    def spread(group: list[int]) -> int:
        return sum(_distance(a, b, size) for i, a in enumerate(group) for b in group[i + 1 :])

    for _ in range(swaps):
        g, h = rng.sample(range(len(groups)), 2)
        i, j = rng.randrange(stars), rng.randrange(stars)
        before = spread(groups[g]) + spread(groups[h])
        groups[g][i], groups[h][j] = groups[h][j], groups[g][i]
        if spread(groups[g]) + spread(groups[h]) > before:
            groups[g][i], groups[h][j] = groups[h][j], groups[g][i]
    return groups


def _weighted_order(cells: list[int], weights: list[float], rng: random.Random) -> list[int]:
    """The cells in a random order where heavier cells tend to come first (Efraimidis-Spirakis keys)."""
    keys = [rng.random() ** (1.0 / w) for w in weights]
    return [cell for _, cell in sorted(zip(keys, cells, strict=True), reverse=True)]


def grow_starbattle_regions(
    size: int,
    stars: int,
    layout: Cells,
    rng: random.Random,
    config: GeneratorConfig | None = None,
    pull: float | None = None,
) -> Growth:
    """Regions for a Star Battle layout: each holds exactly `stars` stars of the layout and is 4-connected.

    `pull` (default `config.growth_pull`): how strongly a region leans towards its missing stars."""
    config = config or GeneratorConfig()
    pull = config.growth_pull if pull is None else pull
    g = grid(size)
    groups = group_stars(layout, size, stars, rng)
    region = [1 << group[0] for group in groups]
    missing = [sum(1 << cell for cell in group[1:]) for group in groups]
    foreign = [layout & ~sum(1 << cell for cell in group) for group in groups]
    free = g.all_cells & ~sum(region)
    history: list[tuple[int, int, Cells]] = []  # (region, cell, what `missing` was before)
    backtracks = 0

    def feasible() -> bool:
        for h, need in enumerate(missing):
            if need and g.reach(region[h], free & ~foreign[h]) & need != need:
                return False
        return True

    while any(missing):
        active = [h for h, need in enumerate(missing) if need]
        i = rng.choice(active)
        frontier = cell_list(g.grow(region[i]) & free & ~foreign[i])
        targets = cell_list(missing[i])
        near = [min(_distance(cell, t, size) for t in targets) for cell in frontier]
        closest = min(near, default=0)
        weights = [pull ** (closest - d) for d in near]
        placed = False
        for cell in _weighted_order(frontier, weights, rng):
            bit = 1 << cell
            before = missing[i]
            region[i] |= bit
            free &= ~bit
            missing[i] &= ~bit
            if feasible():
                history.append((i, cell, before))
                placed = True
                break
            region[i] &= ~bit
            free |= bit
            missing[i] = before
        if placed:
            continue
        backtracks += 1
        if backtracks > config.growth_backtracks:
            return Growth(None, backtracks, "regions painted into a corner")
        for _ in range(min(len(history), rng.randint(1, 2 + backtracks // 4))):
            h, cell, before = history.pop()
            region[h] &= ~(1 << cell)
            free |= 1 << cell
            missing[h] = before

    appetite = [rng.lognormvariate(0.0, config.growth_size_spread) for _ in region]
    return Growth(_fill_leftovers(g, region, free, appetite, rng), backtracks)


def _fill_leftovers(
    g: Grid, region: list[Cells], free: Cells, appetite: list[float], rng: random.Random
) -> tuple[int, ...]:
    """Give every free cell, one at a time, to the smallest region beside it (ties broken at random).

    "Smallest" is measured against each region's appetite (size / appetite): with equal appetites every region
    ends the same size, which real boards never do (their size spread is measured in bench_generator.py).
    """
    owner = [-1] * (g.size * g.size)
    sizes = [mask.bit_count() / want for mask, want in zip(region, appetite, strict=True)]
    for index, mask in enumerate(region):
        for cell in cell_list(mask):
            owner[cell] = index
    while free:
        edge = cell_list(free & g.grow(g.all_cells & ~free))
        cell = rng.choice(edge)
        beside = {owner[side] for side in cell_list(g.sides[cell])} - {-1}
        smallest = min(sizes[index] for index in beside)
        chosen = rng.choice(sorted(index for index in beside if sizes[index] == smallest))
        owner[cell] = chosen
        sizes[chosen] += 1 / appetite[chosen]
        free &= ~(1 << cell)
    return tuple(owner)


def grow_queens_regions(size: int, queens: Cells, rng: random.Random, config: GeneratorConfig | None = None) -> Growth:
    """Regions for a Queens layout: one per queen, grown from the queen's cell with mixed appetites."""
    config = config or GeneratorConfig()
    g = grid(size)
    seeds = cell_list(queens)
    count = len(seeds)
    region = [1 << cell for cell in seeds]
    owner = [-1] * (size * size)
    for index, cell in enumerate(seeds):
        owner[cell] = index
    singles: set[int] = set()
    if rng.random() < config.queens_single_cell_share:
        singles = set(rng.sample(range(count), rng.choice((1, 2))))
    appetite = []
    for index in range(count):
        roll = rng.random()
        if index in singles:
            appetite.append(0.0)
        elif roll < config.queens_sprawl_share:
            appetite.append(config.queens_sprawl_appetite)
        elif roll < config.queens_sprawl_share + config.queens_small_share:
            appetite.append(config.queens_small_appetite)
        else:
            appetite.append(1.0)
    free = g.all_cells & ~queens
    # Every region not planted as a single cell takes one cell first, so single cells are only ever planted.
    for i in rng.sample(range(count), count):
        frontier = g.grow(region[i]) & free
        if appetite[i] and frontier:
            cell = rng.choice(cell_list(frontier))
            region[i] |= 1 << cell
            owner[cell] = i
            free &= ~(1 << cell)
    while free:
        frontiers = [g.grow(mask) & free if appetite[i] else 0 for i, mask in enumerate(region)]
        growable = [i for i in range(count) if frontiers[i]]
        if growable:
            i = rng.choices(growable, weights=[appetite[j] for j in growable])[0]
            cell = rng.choice(cell_list(frontiers[i]))
        else:
            # Only single-cell regions border what is left: the smallest of them gives up being single.
            cell = rng.choice(cell_list(free & g.grow(g.all_cells & ~free)))
            beside = [owner[side] for side in cell_list(g.sides[cell]) if owner[side] >= 0]
            i = min(beside, key=lambda j: (region[j].bit_count(), j))
            appetite[i] = 1.0
        region[i] |= 1 << cell
        owner[cell] = i
        free &= ~(1 << cell)
    return Growth(tuple(owner), 0)
