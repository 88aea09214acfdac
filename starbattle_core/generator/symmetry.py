"""Mirror-symmetric Queens maps: regions grown in pairs so that the map is its own image under one symmetry.

An exact mirror map has a second solution whenever its queens are not their own image: the image of the queens.
Repair breaks it, and everything else, one move at a time, and a third of the map was redrawn on the way (published
mirror boards kept 0.8 of their borders' symmetry; LinkedIn's mirror levels keep 0.9 or more). A half turn and the
two diagonals allow queens that are their own image (`symmetric_layouts`): a mirror board in those symmetries
draws its queens from them, repair then moves cells in image pairs and the map can stay exact. A left-right or
top-bottom mirror allows none (a queen's image lies in its own row or column), so those maps grow around the slot's
layout and are whittled in image pairs down to whichever solution survives (repair.whittle): most end a few cells
off exact, as LinkedIn's left-right mirror levels are.

Whether or not the queens are symmetric, the map is grown so: every region's image is a region. So a
region either is its own image (it holds its queen and that queen's image cell) or has a partner region that is
its image (it holds its queen and the image of its partner's queen). A queen whose image is a queen is tied to that
queen's region (its own when it sits on the axis). The other queens are paired, or left self-paired, at random with
a preference for short stretches, then each region is connected from its queen to its second cell by a wandering
path and the rest of the board is filled one cell and its image at a time. A cell on the axis can only join a
self-paired region (they go first); when only paired regions border what is left, such a cell joins its smallest
neighbour and the map is near symmetric instead of exact; a map that would need more than one such cell is given
up (None), and growth.py grows that board organically, pulled towards the symmetry by boundary moves.
"""

from __future__ import annotations

import heapq
import random
from functools import lru_cache

from ..puzzle import Cells
from .config import GeneratorConfig
from .designs import mirror_cell
from .shape import cell_list, grid

MOST_OFF = 1


@lru_cache(maxsize=64)
def symmetric_layouts(size: int, symmetry: str) -> tuple[Cells, ...]:
    """Every Queens layout (a queen a row and a column, no two touching) that is its own image under `symmetry`,
    in a fixed order (9x9: 122 for a half turn, 256 for each diagonal; none for a left-right or top-bottom mirror).
    A queen is placed together with its image, row by row."""
    columns = [-1] * size
    found: list[Cells] = []

    def free(row: int, col: int) -> bool:
        return all(c != col and not (abs(r - row) <= 1 and abs(c - col) <= 1) for r, c in enumerate(columns) if c >= 0)

    def place(row: int) -> None:
        while row < size and columns[row] >= 0:
            row += 1
        if row == size:
            found.append(sum(1 << (r * size + c) for r, c in enumerate(columns)))
            return
        for col in range(size):
            if not free(row, col):
                continue
            image_row, image_col = divmod(mirror_cell(row * size + col, size, symmetry), size)
            columns[row] = col
            if (image_row, image_col) == (row, col):
                place(row + 1)
            elif columns[image_row] < 0 and free(image_row, image_col):
                columns[image_row] = image_col
                place(row + 1)
                columns[image_row] = -1
            columns[row] = -1

    place(0)
    return tuple(found)


def drawn_appetite(roll: float, config: GeneratorConfig) -> float:
    """A Queens region's appetite for a uniform `roll`: it sprawls, stays small or grows as an ordinary region
    (appetite 1) in the config's shares; ordinary and mirror growth draw it alike."""
    if roll < config.queens_sprawl_share:
        return config.queens_sprawl_appetite
    if roll < config.queens_sprawl_share + config.queens_small_share:
        return config.queens_small_appetite
    return 1.0


def _distance(a: int, b: int, size: int) -> int:
    return abs(a // size - b // size) + abs(a % size - b % size)


def pair_queens(seeds: list[int], image: list[int], size: int, rng: random.Random) -> list[int]:
    """Each queen's partner (by index; itself when its region is its own image): forced where a queen's image is
    a queen, otherwise drawn with weight 2^-stretch, the stretch being how far the region must reach (from its
    queen to the image of its partner's queen)."""
    index_of = {cell: i for i, cell in enumerate(seeds)}
    partner = [index_of.get(image[cell], -1) for cell in seeds]
    open_ = [i for i, p in enumerate(partner) if p < 0]
    rng.shuffle(open_)
    while open_:
        i = open_.pop()
        options = [*open_, i]
        weights = [0.5 ** _distance(seeds[i], image[seeds[j]], size) for j in options]
        j = rng.choices(options, weights=weights)[0]
        partner[i], partner[j] = j, i
        if j != i:
            open_.remove(j)
    return partner


def _path(
    size: int, start: int, goal: int, blocked: Cells, rng: random.Random, wander: float = 2.0
) -> list[int] | None:
    """A path of free cells from start to goal (both included), shortest under random cell costs 1..1+wander."""
    g = grid(size)
    cost = [1.0 + wander * rng.random() for _ in range(size * size)]
    best = {start: 0.0}
    back: dict[int, int] = {}
    heap = [(0.0, start)]
    while heap:
        spent, cell = heapq.heappop(heap)
        if cell == goal:
            path = [cell]
            while cell != start:
                cell = back[cell]
                path.append(cell)
            return path[::-1]
        if spent > best[cell]:
            continue
        for side in cell_list(g.sides[cell] & ~(blocked & ~(1 << goal))):
            total = spent + cost[side]
            if total < best.get(side, float("inf")):
                best[side], back[side] = total, cell
                heapq.heappush(heap, (total, side))
    return None


def grow_mirrored(
    size: int,
    queens: Cells,
    symmetry: str,
    rng: random.Random,
    config: GeneratorConfig,
    background: float,
    least: int,
    single: bool = False,
) -> list[int] | None:
    """A map (the region of every cell, by queen index in cell order) that is its own image under `symmetry`, or
    near it; None when a region cannot reach its second cell or ends under `least` cells.

    Regions sprawl or stay small by `config`'s Queens shares and appetites as growth.py draws them (the same for a
    region and its partner), one of them is the background with appetite `background`; `single`: plant a
    single-cell region on a queen that sits on the axis, if one does."""
    g = grid(size)
    seeds = cell_list(queens)
    count = len(seeds)
    image = [mirror_cell(cell, size, symmetry) for cell in range(size * size)]
    partner = pair_queens(seeds, image, size, rng)
    owner = [-1] * (size * size)
    masks = [0] * count
    fixed_cells = sum(1 << cell for cell in range(size * size) if image[cell] == cell)

    def claim(cell: int, region: int) -> None:
        for c, r in ((cell, region), (image[cell], partner[region])):
            owner[c] = r
            masks[r] |= 1 << c

    for i, cell in enumerate(seeds):
        claim(cell, i)
    frozen: set[int] = set()
    if single:
        on_axis = [i for i, cell in enumerate(seeds) if image[cell] == cell]
        if on_axis:
            frozen.add(rng.choice(on_axis))
    # Connect each region's queen to its second cell, the shortest stretches first.
    order = sorted(
        (i for i in range(count) if i <= partner[i]),
        key=lambda i: (_distance(seeds[i], image[seeds[partner[i]]], size), rng.random()),
    )
    for i in order:
        goal = image[seeds[partner[i]]]
        if owner[goal] == i and g.connected(masks[i]):
            continue
        taken = sum(1 << c for c, r in enumerate(owner) if r >= 0)
        blocked = taken | (fixed_cells if partner[i] != i else 0)
        path = _path(size, seeds[i], goal, blocked, rng)
        if path is None:
            return None
        inner = path[1:-1]
        if partner[i] != i and {image[c] for c in inner} & set(inner):
            return None  # the path meets its own image: the two regions would share cells
        for cell in inner:
            claim(cell, i)
    # Fill: a region (drawn by appetite, the short ones first) takes a free cell beside it, its partner the image.
    appetite = [1.0] * count
    for i in range(count):
        if i <= partner[i]:
            appetite[i] = appetite[partner[i]] = drawn_appetite(rng.random(), config)
    big = rng.choice([i for i in range(count) if i not in frozen])
    appetite[big] = appetite[partner[big]] = background
    free = g.all_cells & ~sum(masks)
    breaks = 0
    while free:
        options = []
        for i in range(count):
            if i in frozen:
                continue
            room = g.grow(masks[i]) & free
            if partner[i] != i:
                room &= ~fixed_cells
            if room:
                options.append((i, room))
        if options:
            short = [(i, room) for i, room in options if masks[i].bit_count() < least]
            # Axis cells first: one left until only paired regions surround it costs the map its exactness.
            axis = [(i, room & fixed_cells) for i, room in options if room & fixed_cells]
            pool = short or axis or options
            i, room = rng.choices(pool, weights=[appetite[j] for j, _ in pool])[0]
            frontier = cell_list(room)
            weights = [(1 + config.queens_compactness) ** (g.sides[cell] & masks[i]).bit_count() for cell in frontier]
            cell = rng.choices(frontier, weights=weights)[0]
            claim(cell, i)
        else:
            # Only axis cells beside paired (or frozen) regions are left: near symmetry, one cell at a time; past
            # MOST_OFF such cells the map is no mirror map (growth.py falls back to growth pulled towards one).
            breaks += 1
            if breaks > MOST_OFF:
                return None
            cell = rng.choice(cell_list(free & g.grow(g.all_cells & ~free)))
            beside = {owner[side] for side in cell_list(g.sides[cell]) if owner[side] >= 0} - frozen
            if not beside:
                return None
            region = min(beside, key=lambda j: (masks[j].bit_count(), j))
            owner[cell] = region
            masks[region] |= 1 << cell
        free = g.all_cells & ~sum(masks)
    if any(masks[i].bit_count() < least for i in range(count) if i not in frozen):
        return None
    return owner
