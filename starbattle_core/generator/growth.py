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
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ..layouts import layout_to_cells, sample_layouts
from ..puzzle import Cells, Puzzle
from .config import GeneratorConfig, Slot
from .designs import (
    bar_through,
    cut_ring,
    design_of,
    edge_queens,
    load_designs,
    orientations,
    pick,
    ring_cells,
)
from .looks import gives_away, looks_score, smallest_allowed
from .setter import compose_frame, compose_organic
from .shape import Grid, Shape, cell_list, grid, placements, region_masks
from .shaping import kind_key, shape_model, shape_towards
from .symmetry import drawn_appetite, grow_mirrored, symmetric_layouts


@dataclass(frozen=True)
class Growth:
    """What a growth attempt made: the region of every cell (row-major), or None with the reason it gave up."""

    regions: tuple[int, ...] | None
    backtracks: int
    reason: str = ""
    tries: int = 1  # growth attempts made (grow_regions regrows boards the looks model or give-away rule rejects)
    mode: str = ""  # the Queens design mode drawn (designs.MODES; the last attempt's when there were several)
    # The star layout the regions were grown around (0 when growth gave up): the one it was given, except on a mirror
    # Queens board whose symmetry allows queens that are their own image (symmetry.symmetric_layouts): those draw
    # their own, so that the map can stay exact through repair.
    layout: Cells = 0


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
    # A region can still reach its missing stars when some witness exists: a 4-connected set of cells holding the
    # region and its missing stars, the rest free cells it may own. A witness stays one while no cell of it is given
    # to another region (a cell given back by backtracking only adds room), so a placement re-floods only the
    # regions whose witness it cuts: the same verdicts as flooding every region every time, at a fraction of the
    # cost on 14x14 3-star boards (where growth was most of a candidate's seconds). None: not known.
    witness: list[Cells | None] = [None] * len(groups)

    def flood(h: int) -> Cells | None:
        """A witness for region h, grown from the region a ring of cells at a time until it holds every missing
        star (None when none exists)."""
        room = (free & ~foreign[h]) | region[h]
        seen = region[h]
        while missing[h] & ~seen:
            more = g.grow(seen) & room
            if not more:
                return None
            seen |= more
        return seen

    def feasible(i: int, bit: Cells) -> bool:
        """Whether every region can still reach its missing stars once `bit` (already placed) belongs to region i;
        the witnesses are updated only when it can."""
        found: dict[int, Cells] = {}
        for h, need in enumerate(missing):
            if not need:
                continue
            known = witness[h]
            if h == i and known is not None:
                found[h] = known | bit
            elif known is None or known & bit:
                fresh = flood(h)
                if fresh is None:
                    return False
                found[h] = fresh
        for h, need in enumerate(missing):
            witness[h] = found.get(h, witness[h]) if need else None
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
            if feasible(i, bit):
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
    least = smallest_allowed("starbattle", stars, "medium", config.allow_giveaways)
    regions = _fill_leftovers(
        g, region, free, appetite, rng, least, config.growth_compactness, config.growth_straightness
    )
    if regions is None:
        return Growth(None, backtracks, "a region walled in under the minimum")
    model = shape_model(size, stars)
    if model is not None and config.shaping_moves:
        offset = config.shaping_spread_offset.get(kind_key(size, stars), 0.0)
        regions = tuple(shape_towards(regions, size, layout, least, model, rng, config.shaping_moves, offset))
    return Growth(regions, backtracks, layout=layout)


def _fill_leftovers(
    g: Grid,
    region: list[Cells],
    free: Cells,
    appetite: list[float],
    rng: random.Random,
    least: int = 1,
    compactness: float = 0.0,
    straightness: float = 0.0,
) -> tuple[int, ...] | None:
    """Give every free cell, one at a time, to the hungriest region beside it (ties broken at random).

    A region under `least` cells is hungriest; otherwise "hungry" is small for its appetite (size / appetite:
    with equal appetites every region would end the same size, which real boards never do), and a region that
    touches the cell on more sides counts as smaller by a factor 1 + `compactness` per extra side, so notches are
    filled instead of left as one-cell teeth and corridors. None when a region ends under `least` cells.
    """
    owner = [-1] * (g.size * g.size)
    sizes = [mask.bit_count() / want for mask, want in zip(region, appetite, strict=True)]
    counts = [mask.bit_count() for mask in region]
    for index, mask in enumerate(region):
        for cell in cell_list(mask):
            owner[cell] = index
    size = g.size
    while free:
        edge = cell_list(free & g.grow(g.all_cells & ~free))
        if straightness:
            # A cell that carries a straight arm of a region one step further is (1 + straightness) times as
            # likely to be filled next: setters draw regions as long one-wide arms with straight runs.
            weights = [1.0 + straightness * _extends_arm(owner, cell, size) for cell in edge]
            cell = rng.choices(edge, weights=weights)[0]
        else:
            cell = rng.choice(edge)
        sides = [owner[side] for side in cell_list(g.sides[cell]) if owner[side] >= 0]

        hunger = {
            index: (counts[index] >= least, sizes[index] / (1 + compactness * (sides.count(index) - 1)))
            for index in set(sides)
        }
        best = min(hunger.values())
        chosen = rng.choice(sorted(index for index, value in hunger.items() if value == best))
        owner[cell] = chosen
        sizes[chosen] += 1 / appetite[chosen]
        counts[chosen] += 1
        free &= ~(1 << cell)
    if min(counts) < least:
        return None
    return tuple(owner)


def _extends_arm(owner: list[int], cell: int, size: int, region: int | None = None) -> bool:
    """Whether a free cell continues a straight line of two cells of one region (of `region`, if given)."""
    row, col = divmod(cell, size)
    for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        r1, c1, r2, c2 = row + dr, col + dc, row + 2 * dr, col + 2 * dc
        if 0 <= r2 < size and 0 <= c2 < size:
            one, two = owner[r1 * size + c1], owner[r2 * size + c2]
            if one >= 0 and one == two and region in (None, one):
                return True
    return False


def _block(height: int, width: int) -> Shape:
    return tuple((r, c) for r in range(height) for c in range(width))


def _outline(height: int, width: int) -> tuple[tuple[int, int], ...]:
    return tuple((r, c) for r in range(height) for c in range(width) if r in (0, height - 1) or c in (0, width - 1))


def _open_frames() -> tuple[tuple[tuple[int, int], ...], ...]:
    """The outline of a 3x3, 3x4 or 4x3 box with one side's middle cell left out: the region inside it is
    reached through the gap, so a frame never walls in a cell that no queen could own."""
    return tuple(
        tuple(cell for cell in _outline(height, width) if cell != gap)
        for height, width in ((3, 3), (3, 4), (4, 3))
        for gap in ((0, width // 2), (height - 1, width // 2), (height // 2, 0), (height // 2, width - 1))
    )


# A closed ring is the outline of a 4x4 box around a 2x2 block, which must hold exactly one other queen (its region
# then fills the block: 4 cells, no give-away). LinkedIn draws these as a square inside a square.
RING_INSIDE = ((1, 1), (1, 2), (2, 1), (2, 2))

# Queens motifs, as (row, column) offsets: the shapes LinkedIn's designers draw inside a background region.
MOTIFS: dict[str, tuple[tuple[tuple[int, int], ...], ...]] = {
    "bar": tuple(
        tuple((0, i) for i in range(k)) if along else tuple((i, 0) for i in range(k))
        for k in (3, 4, 5)
        for along in (True, False)
    ),
    "rectangle": tuple(_block(h, w) for h in (2, 3) for w in (2, 3, 4)),
    "cross": (((0, 1), (1, 0), (1, 1), (1, 2), (2, 1)),),
    "ell": (
        ((0, 0), (1, 0), (2, 0), (2, 1)),
        ((0, 0), (0, 1), (1, 0), (2, 0)),
        ((0, 0), (0, 1), (1, 1), (2, 1)),
        ((0, 1), (1, 1), (2, 1), (2, 0)),
    ),
    "frame": _open_frames(),
    "ring": (_outline(4, 4),),
}


def place_shape(size: int, queen: int, taken: Cells, rng: random.Random, shapes: Iterable[Shape]) -> Cells:
    """A random placement of one of `shapes` that holds `queen` and no cell of `taken` (0 if none fits)."""
    options = [mask for shape in shapes for mask, _, _ in placements(size, queen, shape) if not mask & taken]
    return rng.choice(options) if options else 0


def place_motif(size: int, queen: int, taken: Cells, rng: random.Random, kind: str, queens: Cells = 0) -> Cells:
    """A random placement of a motif of that kind that holds `queen` and no cell of `taken` (0 if none fits).

    A ring also needs its inside free and holding exactly one of the other `queens`.
    """
    if kind != "ring":
        return place_shape(size, queen, taken, rng, MOTIFS[kind])
    others = queens & ~(1 << queen)
    options: list[Cells] = []
    for shape in MOTIFS[kind]:
        for mask, top, left in placements(size, queen, shape):
            inside = sum(1 << ((top + r) * size + left + c) for r, c in RING_INSIDE)
            if not mask & taken and (inside & others).bit_count() == 1 and not inside & taken & ~others:
                options.append(mask)
    return rng.choice(options) if options else 0


def place_repeats(size: int, seeds: list[int], order: list[int], taken: Cells, rng: random.Random) -> dict[int, Cells]:
    """One shape LinkedIn repeats (designs.json's `repeated`), drawn several times (its `copies`), each around one
    of the queens in `order` (turned and mirrored at random), by queen index. A setter builds a level on one idea:
    60% of LinkedIn's 9x9 levels draw a shape two or more times, 2.3 such regions a level; with motifs placed one by
    one, published boards had 0.7."""
    designs = load_designs()
    shapes = orientations(pick(designs.repeated, rng))
    want = pick(designs.copies, rng)
    placed: dict[int, Cells] = {}
    for index in order:
        if len(placed) >= want:
            break
        mask = place_shape(size, seeds[index], taken & ~(1 << seeds[index]), rng, shapes)
        if mask:
            placed[index] = mask
            taken |= mask
    return placed


# A picture's centrepiece: one large symmetric figure (designs.figure_share 1.0, CENTREPIECE_LEAST cells or more) as
# LinkedIn's setters draw one on a background: a block, a plus, a diamond, a T, a pyramid, a U, an H. Of their 9x9
# levels 58% hold a symmetric figure of 8 cells or more (median 10 cells), 9x9 growth without one 35%.
CENTREPIECES: dict[str, Shape] = {
    "block 2x4": _block(2, 4),
    "block 2x5": _block(2, 5),
    "block 3x3": _block(3, 3),
    "block 3x4": _block(3, 4),
    "block 3x5": _block(3, 5),
    "block 4x4": _block(4, 4),
    "plus": tuple(sorted({(2, c) for c in range(5)} | {(r, 2) for r in range(5)})),
    "diamond": tuple((r, c) for r in range(5) for c in range(5) if abs(r - 2) + abs(c - 2) <= 2),
    "tee": (*((0, c) for c in range(5)), (1, 2), (2, 2), (3, 2)),
    "pyramid": ((0, 2), (1, 1), (1, 2), (1, 3), *((2, c) for c in range(5))),
    "cup": (*((r, 0) for r in range(3)), *((r, 3) for r in range(3)), (2, 1), (2, 2)),
    "aitch": (*((r, 0) for r in range(5)), *((r, 2) for r in range(5)), (2, 1)),
}


def place_centrepiece(
    size: int, seeds: list[int], order: list[int], taken: Cells, rng: random.Random
) -> tuple[int, Cells] | None:
    """One of CENTREPIECES (turned and mirrored at random) placed whole around one of the queens in `order`, the
    kinds and queens tried in random order: (queen index, cells), None when none fits."""
    kinds = rng.sample(sorted(CENTREPIECES), len(CENTREPIECES))
    indices = rng.sample(order, len(order))
    for kind in kinds:
        shapes = orientations(CENTREPIECES[kind])
        for index in indices:
            mask = place_shape(size, seeds[index], taken & ~(1 << seeds[index]), rng, shapes)
            if mask:
                return index, mask
    return None


FRAME_INNER_COMPACTNESS = 1.0
MIRROR_FALLBACK_PULL = 10
# Uniform layouts drawn to find one with a frame's queens on the edge: two on the edge is 2% of 9x9 layouts, so 256
# find one 99% of the time (3.5 ms).
FRAME_LAYOUT_DRAWS = 256


def frame_layout(size: int, queens: Cells, rng: random.Random) -> Cells:
    """The queens of a frame board: LinkedIn's frames are drawn around layouts with few queens on the edge, each of
    them an arc of the frame, the others the small regions inside (of its frame levels 39% have two on the edge, 56%
    three and 6% four; of uniform 9x9 layouts 2%, 35% and 63%). The count is drawn with the levels' frequencies
    (designs.json) and the first of FRAME_LAYOUT_DRAWS uniform layouts with it is taken; `queens` when it has that
    count already, or when no draw does."""
    want = int(pick(load_designs().frame_edge_queens, rng))
    if edge_queens(queens, size) == want:
        return queens
    for rows in sample_layouts(size, 1, FRAME_LAYOUT_DRAWS, rng.getrandbits(63)):
        drawn = layout_to_cells(rows)
        if edge_queens(drawn, size) == want:
            return drawn
    return queens


def draw_mode(rng: random.Random, config: GeneratorConfig) -> str:
    """The design mode of one Queens growth: drawn with the config's mix, or LinkedIn's measured frequencies with
    organic and frame scaled by `queens_organic_draw` and `queens_frame_draw` (the modes the setter draws: its maps
    pass more often than growth's)."""
    if config.queens_design_mix:
        mix = config.queens_design_mix.model_dump()
    else:
        mix = {**load_designs().modes}
        mix["organic"] *= config.queens_organic_draw
        mix["frame"] *= config.queens_frame_draw
    return str(pick(mix, rng))


def draw_design(
    mode: str, size: int, seeds: list[int], queens: Cells, taken: Cells, least: int, rng: random.Random
) -> dict[int, Cells]:
    """The regions a design mode draws before growth (rings, bars, frame), by queen index; empty for the others.
    A ring whose arcs would clash with what is drawn, or come out under `least` cells, is left out."""
    designs = load_designs()
    index_of = {cell: i for i, cell in enumerate(seeds)}
    drawn: dict[int, Cells] = {}

    def add(arcs: list[Cells] | None) -> None:
        nonlocal taken
        for arc in arcs or []:
            drawn[index_of[(arc & queens).bit_length() - 1]] = arc
            taken |= arc

    if mode == "frame":
        add(cut_ring(ring_cells(size, 0), queens, taken & ~queens, least, rng))
    elif mode == "rings":
        want = int(pick(designs.rings, rng))
        levels = list(range((size + 1) // 2))
        rng.shuffle(levels)
        for level in levels:
            if len(drawn) >= want:
                break
            add(cut_ring(ring_cells(size, level), queens, taken & ~queens, least, rng))
    elif mode == "bars":
        want = int(pick(designs.bars, rng))
        along_rows = rng.random() < designs.bars_along_rows
        lines = list(range(size))
        rng.shuffle(lines)
        used: set[int] = set()
        for line in lines:
            if len(drawn) >= want:
                break
            if used & {line - 1, line + 1}:
                continue  # bars side by side would be stripes
            queen = next(cell for cell in seeds if (cell // size if along_rows else cell % size) == line)
            bar = bar_through(size, queen, along_rows, rng.randint(max(3, least), size), taken & ~(1 << queen), rng)
            if bar:
                add([bar])
                used.add(line)
    return drawn


def grow_queens_regions(
    size: int,
    queens: Cells,
    rng: random.Random,
    config: GeneratorConfig | None = None,
    band: str = "medium",
    mode: str | None = None,
    setter: bool = True,
) -> Growth:
    """Regions for a Queens layout: one per queen, from the queen's cell, as LinkedIn levels are drawn.

    First the board's design mode (designs.py; `mode` forces one): mirror grows the map in symmetric pairs
    (symmetry.py; in a half turn or a diagonal around queens of its own that are their own image, which it returns
    as `Growth.layout`; when the queens allow no exact map, the organic growth below, pulled towards that symmetry);
    a frame takes queens with as many on the edge as LinkedIn's frames have (frame_layout, also returned as
    `Growth.layout`); organic and frame boards are first tried by the setter (setter.py, on `queens_setter_share`
    of them but easy boards with a planted single cell), whose map, when it has few enough solutions, is the growth;
    rings, bars and frame draw their regions first. On `queens_centrepiece_share` of the boards
    but bar maps, a large symmetric figure is placed whole around one queen (place_centrepiece), and on
    `queens_repeat_share` one of LinkedIn's repeated shapes several times (place_repeats). Then some regions are
    motifs placed whole around their queen (bars, rectangles, crosses, ells, open frames and closed rings; one kind a
    board) and do not grow; one region is the background with a large appetite (frame: the edge's regions); the rest
    grow with mixed appetites, preferring cells that carry a straight arm on. Single-cell regions are planted only on
    easy boards, on `queens_single_cell_share` of them; above easy every region has at least 3 cells (None
    otherwise). Last, one-cell moves towards the symmetry the map follows best.
    """
    config = config or GeneratorConfig()
    mode = mode or draw_mode(rng, config)
    g = grid(size)
    seeds = cell_list(queens)
    count = len(seeds)
    # Easy boards get their single cells only where planted; a region that ends single by accident regrows.
    least = 2 if band == "easy" or config.allow_giveaways else 3
    plant = (band == "easy" or config.allow_giveaways) and rng.random() < config.queens_single_cell_share
    symmetry = str(pick(load_designs().symmetries, rng)) if mode == "mirror" else None
    own = symmetric_layouts(size, symmetry) if symmetry is not None else ()
    if own:  # queens that are their own image, so that the map can stay exact through repair
        queens = rng.choice(own)
        seeds = cell_list(queens)
    if mode == "frame":
        queens = frame_layout(size, queens, rng)
        seeds = cell_list(queens)
    # Boards differ from each other as LinkedIn's do: how big the background gets and how far the map is pulled
    # towards symmetry are drawn per board.
    big = config.queens_background_appetite * rng.lognormvariate(0.0, config.queens_background_spread)
    moves = rng.randint(0, 2 * config.queens_symmetry_moves)
    if symmetry is not None:
        moves *= MIRROR_FALLBACK_PULL  # a mirror board the queens allow no exact map for: near symmetry instead
    if symmetry is not None:
        mirrored = grow_mirrored(size, queens, symmetry, rng, config, big, least, plant)
        if mirrored is not None:
            return Growth(tuple(mirrored), 0, mode=mode, layout=queens)
    share = config.queens_setter_share if setter and mode in ("organic", "frame") and not plant else 0.0
    if share and rng.random() < share:
        set_map = (compose_organic if mode == "organic" else compose_frame)(size, queens, rng, least)
        if set_map is not None:
            return Growth(tuple(set_map), 0, mode=mode, layout=queens)
    order = rng.sample(range(count), count)
    singles: set[int] = set()
    if plant:
        singles = {order.pop()}
    drawn = draw_design(mode, size, seeds, queens, sum(1 << seeds[i] for i in singles), least, rng)
    order = [i for i in order if i not in drawn]
    region = [1 << cell for cell in seeds]
    appetite = [1.0] * count
    frozen = set(singles)
    taken = queens
    for index, mask in drawn.items():
        region[index] = mask
        taken |= mask
        if mode == "frame":
            appetite[index] = big  # the frame sprawls inwards
        else:
            frozen.add(index)
    background = order.pop() if order and mode != "frame" else None
    placed = None
    if mode != "bars" and config.queens_centrepiece_share and rng.random() < config.queens_centrepiece_share:
        placed = place_centrepiece(size, seeds, order, taken, rng)
    centrepiece = 0
    if placed is not None:
        index, centrepiece = placed
        region[index] = centrepiece
        taken |= centrepiece
        frozen.add(index)
        order.remove(index)
    repeats: dict[int, Cells] = {}
    if config.queens_repeat_share and rng.random() < config.queens_repeat_share:
        repeats = place_repeats(size, seeds, order, taken, rng)
        for index, mask in repeats.items():
            region[index] = mask
            taken |= mask
            frozen.add(index)
        order = [i for i in order if i not in frozen]
    board_kind = None
    for index in order:
        roll = rng.random()
        if roll < config.queens_motif_share:
            mix = config.queens_motifs.model_dump()
            kinds = sorted(mix)
            kind = rng.choices(kinds, weights=[mix[k] for k in kinds])[0]
            if config.queens_one_motif_kind:
                board_kind = board_kind or kind
                kind = board_kind
            # a ring walls in one other queen's region; never a planted single cell's
            unplanted = queens & ~sum(1 << seeds[i] for i in singles)
            motif = place_motif(size, seeds[index], taken & ~(1 << seeds[index]), rng, kind, unplanted)
            if motif:
                region[index] = motif
                taken |= motif
                frozen.add(index)
                continue
        roll = rng.random()  # drawn in every mode, so a frame board's later draws are as before
        framed = mode == "frame"  # the regions inside a frame stay small
        appetite[index] = config.queens_small_appetite if framed else drawn_appetite(roll, config)
    if background is not None:
        appetite[background] = big
    owner = [-1] * (size * size)
    for index, mask in enumerate(region):
        for cell in cell_list(mask):
            owner[cell] = index
    free = g.all_cells & ~taken
    straight = config.queens_straightness
    while free:
        growable = [i for i in range(count) if i not in frozen and g.grow(region[i]) & free]
        if growable:
            # A region under the minimum grows first, so no region is left a give-away by accident.
            short = [i for i in growable if region[i].bit_count() < least]
            i = rng.choice(short) if short else rng.choices(growable, weights=[appetite[j] for j in growable])[0]
            frontier = cell_list(g.grow(region[i]) & free)
            # Inside a frame, the small regions are compact shapes (LinkedIn draws blocks and crosses there).
            lean = 1 + (FRAME_INNER_COMPACTNESS if mode == "frame" and i not in drawn else config.queens_compactness)
            weights = [
                lean ** (g.sides[cell] & region[i]).bit_count() * (1 + straight * _extends_arm(owner, cell, size, i))
                for cell in frontier
            ]
            cell = _weighted_order(frontier, weights, rng)[0]
        else:
            # Only motifs and single cells border what is left: the smallest of them takes a cell and grows on.
            cell = rng.choice(cell_list(free & g.grow(g.all_cells & ~free)))
            beside = [owner[side] for side in cell_list(g.sides[cell]) if owner[side] >= 0]
            i = min(beside, key=lambda j: (region[j].bit_count(), j))
            frozen.discard(i)
        region[i] |= 1 << cell
        owner[cell] = i
        free &= ~(1 << cell)
    if any(region[i].bit_count() < least for i in range(count) if i not in singles):
        return Growth(None, 0, "a region under the band's minimum", mode=mode)
    if moves:
        # A planted single cell stays single, drawn rings and bars stay as drawn; mirror boards the queens allowed
        # no exact map for move towards their own symmetry, the others towards the one they follow best.
        still = sum(drawn.values()) if mode in ("rings", "bars") else 0
        still |= sum(mask for index, mask in repeats.items() if region[index] == mask)  # the idea stays as drawn
        still |= centrepiece
        kept = sum(region[i] for i in singles) | still
        owner = symmetrize(owner, size, queens | still, kept, least, rng, moves, symmetry)
    return Growth(tuple(owner), 0, mode=mode, layout=queens)


def _border_planes(owner: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return owner[:-1, :] != owner[1:, :], owner[:, :-1] != owner[:, 1:]


def _mirror_share(owner: np.ndarray, turns: int, flip: bool) -> float:
    """The share of border segments that one symmetry of the square maps onto border segments."""
    image = np.rot90(owner, turns)
    if flip:
        image = np.fliplr(image)
    across, down = _border_planes(owner)
    other_across, other_down = _border_planes(image)
    total = int(across.sum() + down.sum())
    return float((across & other_across).sum() + (down & other_down).sum()) / total if total else 1.0


# designs.SYMMETRIES as (quarter turns, then a left-right flip) of numpy's rot90 and fliplr
TURNS_AND_FLIPS = {
    "left_right": (0, True),
    "top_bottom": (2, True),
    "diagonal": (3, True),
    "anti_diagonal": (1, True),
    "half_turn": (2, False),
}


def symmetrize(
    owner: list[int],
    size: int,
    fixed: Cells,
    kept: Cells,
    least: int,
    rng: random.Random,
    attempts: int,
    symmetry: str | None = None,
    keep: Callable[[list[int]], bool] | None = None,
) -> list[int]:
    """Partial symmetry, as LinkedIn's designers draw it: take `symmetry` (None: the symmetry of the square the
    map already follows best), then try `attempts` random one-cell boundary moves (a cell not in `fixed` passes
    to a neighbouring region; both stay connected, the loser keeps `least` cells and no region with a cell of
    `kept` grows), keeping those that make more borders match their mirror image (and that `keep`, if given,
    accepts: a repaired board's moves must keep it unique). Queens stay put, so the solution is unchanged."""
    g = grid(size)
    board = np.array(owner).reshape(size, size)
    symmetries = [(turns, flip) for turns in range(4) for flip in (False, True) if turns or flip]
    turns, flip = TURNS_AND_FLIPS[symmetry] if symmetry else max(symmetries, key=lambda t: _mirror_share(board, *t))
    share = _mirror_share(board, turns, flip)
    masks = region_masks(owner, int(board.max()) + 1)
    movable = cell_list(g.all_cells & ~fixed)
    for _ in range(attempts if movable else 0):
        cell = rng.choice(movable)
        row, col = divmod(cell, size)
        loser = int(board[row, col])
        winners = sorted({int(owner_at) for owner_at in (board.flat[side] for side in cell_list(g.sides[cell]))})
        winners = [w for w in winners if w != loser and not masks[w] & kept]
        if not winners or masks[loser].bit_count() <= least or not g.connected(masks[loser] & ~(1 << cell)):
            continue
        winner = rng.choice(winners)
        board[row, col] = winner
        moved = _mirror_share(board, turns, flip)
        if moved > share and (keep is None or keep([int(v) for v in board.ravel()])):
            share = moved
            masks[loser] &= ~(1 << cell)
            masks[winner] |= 1 << cell
        else:
            board[row, col] = loser
    return [int(v) for v in board.ravel()]


def grow_raw(
    slot: Slot, layout: Cells, rng: random.Random, config: GeneratorConfig, mode: str | None = None, setter: bool = True
) -> Growth:
    """One growth attempt for the slot, before any looks check (Queens: in design `mode`, None: drawn)."""
    if slot.game == "queens":
        return grow_queens_regions(slot.size, layout, rng, config, slot.band, mode, setter)
    return grow_starbattle_regions(slot.size, slot.stars, layout, rng, config, config.growth_pull_for(slot.band))


def grow_gated(slot: Slot, layout: Cells, rng: random.Random, config: GeneratorConfig) -> Growth:
    """Regions for the slot that pass the looks model and the give-away rule, in up to `growth_looks_tries`
    growth attempts (regrowing is far cheaper than repairing and grading a board the looks gate rejects later);
    None when every attempt failed, with `tries` saying how many were made. A Queens candidate draws its design
    mode once and keeps it through the attempts, so the gate cannot tilt the mix of modes towards the ones it
    passes most; a map drawn in a design that reads organic (designs.design_of: a near-mirror short of
    MIRROR_SHARE, bars that bent) is grown again, or it would be published as an organic board the mix counts as
    designed."""
    backtracks = 0
    reason = "no attempt"
    mode = draw_mode(rng, config) if slot.game == "queens" else ""
    for attempt in range(1, config.growth_looks_tries + 1):
        growth = grow_raw(slot, layout, rng, config, mode or None, setter=attempt == 1)
        backtracks += growth.backtracks
        if growth.regions is None:
            reason = growth.reason
            continue
        puzzle = Puzzle(slot.size, slot.stars, growth.regions, slot.game, solution=growth.layout)
        if gives_away(puzzle, slot.band, config.allow_giveaways):
            reason = "a give-away region"
        elif looks_score(puzzle) < config.looks_gate:
            reason = "looks below the gate"
        elif mode not in ("", "organic") and design_of(puzzle)[0] == "organic":
            reason = "the design did not hold"
        else:
            return Growth(growth.regions, backtracks, tries=attempt, mode=mode, layout=growth.layout)
    return Growth(None, backtracks, reason, tries=config.growth_looks_tries, mode=mode)
