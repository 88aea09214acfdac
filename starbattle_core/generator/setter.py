"""The setter: an organic or frame Queens map drawn as a LinkedIn setter draws one, shape by shape, counting solutions.

LinkedIn's organic levels that readers never pick out from a sheet are pictures: one large symmetric figure (a
diamond, a long plus, an H, an arch; a median fifth of the board, where growth's largest is a tenth) among shapes a
setter draws again and again, on a background. Growth cannot keep such a figure: the map it grows has hundreds of
solutions, and repair, cutting them down one cell move at a time, reshapes the figure (or leaves the board ambiguous
when it may not) and leaves the spurs and notches readers name. The setter instead keeps the exact set of queen
layouts still alive, those with one queen in every region placed so far (every layout of the board as bit words,
numpy's popcount over them), and places each region where the fewest stay alive: first the figure, then one theme
shape over THEMED queens (a level built on one idea), then LinkedIn's shapes (setter.json, by bench/fit_setter.py)
over the other queens, a beam of partial maps, the last queen's region whatever is left (the background). Then
`settle` cuts the solutions by whole shapes: two touching regions share their cells out again as two of LinkedIn's
shapes (or one and the background). A map whose count ends at most FINISH_ALIVE goes to repair as any grown map
does, with few solutions left to cut; else the setter draws again, and after DRAWS draws growth grows the board.
A frame (compose_frame) is set the same way without the figure: its background is a queen on the edge, and the edge
ring is kept for it but where the shape of another queen on the edge reaches it.

Pure given its `random.Random`, so a seed fixes the map.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..layouts import layout_bank
from ..puzzle import Cells
from .designs import orientations, ring_cells, shape_from_text
from .shape import Shape, cell_list, grid, placements

SETTER_FILE = Path(__file__).with_name("setter.json")
# The figures a picture is built around: all symmetric, 13 cells (0.16 of a 9x9 board; the largest symmetric figure
# of LinkedIn's organic levels that readers never picked is a median 0.21 of the board, of growth's maps 0.10).
FIGURES: dict[str, Shape] = {
    "diamond": tuple((r, c) for r in range(5) for c in range(5) if abs(r - 2) + abs(c - 2) <= 2),
    "long plus": tuple(sorted({(3, c) for c in range(7)} | {(r, 3) for r in range(7)})),
    "big aitch": (*((r, 0) for r in range(5)), *((r, 4) for r in range(5)), (2, 1), (2, 2), (2, 3)),
    "arch": (*((0, c) for c in range(5)), *((r, 0) for r in range(1, 5)), *((r, 4) for r in range(1, 5))),
}
# A map with at most this many solutions goes to repair; more, and growth's own map is cheaper to repair.
FINISH_ALIVE = 12
# A drawn map with at most SETTLE_FROM solutions is settled by whole shapes (settle), in SETTLE_ROUNDS swaps at most,
# a region drawn again as a shape of up to SETTLE_SPREAD cells more or fewer.
SETTLE_FROM = 60
SETTLE_ROUNDS = 8
SETTLE_SPREAD = 3
# The first THEMED regions after the figure are one shape of THEME_CELLS cells, drawn by weight for the map.
THEMED = 3
THEME_CELLS = (4, 5, 6)
# The largest board the setter draws: every 9x9 layout is 47,622 rows of two words; 10x10 has ten times as many.
LARGEST = 9
BEAM = 16  # partial maps kept after each region
TRIES = 5  # placements tried for each partial map and region
FIGURE_TRIES = 40  # figure placements tried
QUEENS_TRIED = 4  # queens tried for each partial map and region
# Draws of a figure, theme and sizes before the board is left to growth: on 9x9 a settled draw ends with few enough
# solutions 61% of the time (110 of 180), so eight leave almost no organic board to growth.
DRAWS = 8


@lru_cache(maxsize=4)
def layout_words(size: int) -> np.ndarray:
    """Every layout of a Queens board (layouts.layout_bank) as its cells in 64-bit words, one row of the array per
    word: bit c % 64 of row c // 64 holds cell c (row-major, as a Cells mask), column j is layout j. Word by word so
    that each is one contiguous array for numpy's popcount. Read-only, shared."""
    bank = layout_bank(size, 1).astype(np.uint64)
    words = np.zeros(((size * size + 63) // 64, len(bank)), dtype=np.uint64)
    for row in range(size):
        shift = row * size
        word, offset = divmod(shift, 64)
        words[word] |= bank[:, row] << np.uint64(offset)
        if offset + size > 64:  # the row runs on into the next word
            words[word + 1] |= bank[:, row] >> np.uint64(64 - offset)
    words.setflags(write=False)
    return words


def mask_words(mask: Cells, width: int) -> list[np.uint64]:
    return [np.uint64((mask >> (64 * i)) & ((1 << 64) - 1)) for i in range(width)]


def cells_held(words: np.ndarray, mask: Cells) -> np.ndarray:
    """How many of its queens each layout (a column of `words`) has in `mask`."""
    held = np.zeros(words.shape[1], dtype=np.uint8)
    for row, word in zip(words, mask_words(mask, len(words)), strict=True):
        if word:
            held += np.bitwise_count(row & word)
    return held


@dataclass(frozen=True)
class SetterData:
    """setter.json: LinkedIn's organic shapes by cell count (every image of each, with its weight) and the region
    sizes of its organic levels by board size (all but the background, smallest first)."""

    shapes: dict[int, tuple[tuple[tuple[Shape, ...], ...], tuple[float, ...]]]
    profiles: dict[int, tuple[tuple[int, ...], ...]]
    keys: frozenset[Shape]  # every shape's key (designs.shape_key: its least image)
    images: frozenset[Shape]  # every image of every shape, moved to the top-left corner (corner_images)


@lru_cache(maxsize=2)
def load_setter_data(path: Path = SETTER_FILE) -> SetterData:
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    by_count: dict[int, tuple[list[tuple[Shape, ...]], list[float]]] = {}
    for text, weight in data["shapes"].items():
        shape = shape_from_text(text)
        images, weights = by_count.setdefault(len(shape), ([], []))
        images.append(orientations(shape))
        weights.append(float(weight))
    return SetterData(
        shapes={count: (tuple(images), tuple(weights)) for count, (images, weights) in sorted(by_count.items())},
        profiles={int(size): tuple(tuple(row) for row in rows) for size, rows in data["profiles"].items()},
        keys=frozenset(images[0] for shapes, _ in by_count.values() for images in shapes),
        images=frozenset(image for shapes, _ in by_count.values() for images in shapes for image in images),
    )


@lru_cache(maxsize=4)
def columns(size: int) -> tuple[Cells, ...]:
    """Each column of the board as a mask, left to right."""
    return tuple(sum(1 << (row * size + col) for row in range(size)) for col in range(size))


def at_corner(mask: Cells, size: int) -> Cells:
    """A region moved to the top-left corner (no cell wraps round: every cell lies right of its leftmost column):
    the image of its shape it is, so that it is one of a set of shapes exactly when this is among their images
    (corner_images), with no turning it eight ways."""
    top = (mask & -mask).bit_length() - 1
    mask >>= top - top % size
    left = next(col for col, column in enumerate(columns(size)) if mask & column)
    return mask >> left


@lru_cache(maxsize=8)
def corner_images(images: frozenset[Shape], size: int) -> frozenset[Cells]:
    """Every one of `images` that fits the board, at the top-left corner, as a mask (cached: every settle asks)."""
    return frozenset(
        sum(1 << (r * size + c) for r, c in image)
        for image in images
        if max(r for r, _ in image) < size and max(c for _, c in image) < size
    )


def pieces(free: Cells, size: int) -> list[Cells]:
    """The 4-connected pieces of `free`."""
    g = grid(size)
    found = []
    while free:
        piece = g.reach(free & -free, free)
        found.append(piece)
        free &= ~piece
    return found


@dataclass(frozen=True)
class Partial:
    """A map being set: the region of each queen placed so far, and the layouts still alive (as words)."""

    regions: dict[int, Cells]
    alive: np.ndarray
    taken: Cells


def no_empty_pocket(free: Cells, waiting: Cells, size: int, least: int, reserved: Cells = 0) -> bool:
    """Whether every piece of the free cells holds a queen still waiting for its region, and a piece holding just one
    has room for a region of `least` cells, and a piece with `reserved` cells a queen on one (only such a queen's
    region may take them): else some cells could never join a region."""
    for piece in pieces(free, size):
        held = (piece & waiting).bit_count()
        if held == 0 or (held == 1 and piece.bit_count() < least):
            return False
        if piece & reserved and not piece & waiting & reserved:
            return False
    return True


def alive_after(partial: Partial, mask: Cells) -> int:
    """How many layouts stay alive when `mask` becomes a region: those with exactly one queen in it."""
    return int(np.count_nonzero(cells_held(partial.alive, mask) == 1))


def place(partial: Partial, queen: int, mask: Cells) -> Partial:
    keep = cells_held(partial.alive, mask) == 1
    return Partial({**partial.regions, queen: mask}, partial.alive[:, keep], partial.taken | mask)


@lru_cache(maxsize=1 << 16)
def all_options(size: int, queen: int, images: tuple[Shape, ...]) -> tuple[Cells, ...]:
    """Every placement of one of `images` over `queen` (cached: the same shapes meet the same queens all day)."""
    return tuple(mask for image in images for mask, _, _ in placements(size, queen, image))


def options(size: int, queen: int, images: tuple[Shape, ...], blocked: Cells) -> list[Cells]:
    """Every placement of one of `images` over `queen` that holds no cell of `blocked`."""
    return [mask for mask in all_options(size, queen, images) if not mask & blocked]


def draw_options(
    size: int, queen: int, count: int, least: int, blocked: Cells, rng: random.Random, data: SetterData
) -> Iterator[Cells]:
    """Placements over `queen` of LinkedIn's shapes that hold no cell of `blocked`: of `count` cells first (at
    least `least`), then of the counts nearest it; within a count the shapes in a random order weighted by how often
    LinkedIn draws them (Efraimidis-Spirakis keys), one random placement of each that fits; 4 * TRIES shapes at most."""
    wanted = max(count, least)
    tried = 0
    for cells in sorted((c for c in data.shapes if c >= least), key=lambda c: (abs(c - wanted), c)):
        shapes, weights = data.shapes[cells]
        keys = [rng.random() ** (1.0 / weight) for weight in weights]
        for _, index in sorted(zip(keys, range(len(shapes)), strict=True), reverse=True):
            fits = options(size, queen, shapes[index], blocked)
            if fits:
                yield rng.choice(fits)
            tried += 1
            if tried == 4 * TRIES:
                return


def every_option(size: int, queen: int, count: int, least: int, blocked: Cells, data: SetterData) -> list[Cells]:
    """Every placement over `queen` of LinkedIn's shapes of about `count` cells (SETTLE_SPREAD either way, at least
    `least`) that holds no cell of `blocked`."""
    return [
        mask
        for cells, (shapes, _) in data.shapes.items()
        if max(least, count - SETTLE_SPREAD) <= cells <= count + SETTLE_SPREAD
        for images in shapes
        for mask in options(size, queen, images, blocked)
    ]


@dataclass(frozen=True)
class SetMap:
    """A whole map: each queen's region, the figure's queen (None on a frame), the background's, its solution count,
    and the cells kept for the background (a frame's edge ring: no region takes them but one whose queen is on one)."""

    regions: dict[int, Cells]
    figure: int | None
    background: int
    solutions: int
    reserved: Cells = 0

    def owner(self, size: int) -> list[int]:
        """The region of every cell, regions numbered by their queens' cells."""
        owner = [0] * (size * size)
        for index, queen in enumerate(sorted(self.regions)):
            for cell in cell_list(self.regions[queen]):
                owner[cell] = index
        return owner


def compose(
    size: int,
    queens: Cells,
    rng: random.Random,
    figure: Shape,
    sizes: list[int],
    least: int,
    data: SetterData | None = None,
    theme: tuple[Shape, ...] = (),
) -> SetMap | None:
    """A map around `queens` (their layout must be a Queens layout): `figure` (any image) over one queen, then one
    region of each of `sizes` (cell counts; LinkedIn's shapes of that count, or the nearest count it has) over the
    other queens but one drawn as the background, whose region is what is left at the end. Each region goes where the
    fewest layouts stay alive among the placements tried (QUEENS_TRIED queens, TRIES placements each, for each of
    the BEAM partial maps kept); a queen alone in a piece of free cells takes the piece. The first THEMED of those
    regions are `theme` (a shape's images) where it fits. Returns the map with its exact solution count, or None
    when no map came out whole."""
    data = data or load_setter_data()
    g = grid(size)
    seeds = cell_list(queens)
    start = Partial({}, layout_words(size), 0)
    # The figure where it leaves the fewest layouts alive (ties: the first drawn)
    images = orientations(figure)
    found = [(queen, mask) for queen in seeds for mask in options(size, queen, images, queens & ~(1 << queen))]
    if not found:
        return None
    found = rng.sample(found, min(FIGURE_TRIES, len(found)))
    found = [(q, m) for q, m in found if no_empty_pocket(g.all_cells & ~m, queens & ~m, size, least)]
    if not found:
        return None
    figure_queen, figure_mask = min(found, key=lambda item: alive_after(start, item[1]))
    first = place(start, figure_queen, figure_mask)
    others = [q for q in seeds if q != figure_queen]
    background = rng.choice(others)  # its region is what is left at the end
    done = set_regions(size, queens, rng, first, background, 0, sizes, least, data, theme)
    if done is None:
        return None
    return SetMap(done.regions, figure_queen, background, done.alive.shape[1])


def set_regions(
    size: int,
    queens: Cells,
    rng: random.Random,
    first: Partial,
    background: int,
    reserved: Cells,
    sizes: list[int],
    least: int,
    data: SetterData,
    theme: tuple[Shape, ...],
) -> Partial | None:
    """From `first`, one region of each of `sizes` over the queens still waiting but `background` (compose says
    how), none on a `reserved` cell unless its queen is on one; then the background takes every cell left. The
    whole map, or None."""
    g = grid(size)
    beam = [first]
    for step, count in enumerate(sizes):
        grown: list[tuple[int, float, Partial, int, Cells]] = []  # alive after, tie-break, parent, queen, region
        for partial in beam:
            waiting = queens & ~partial.taken
            free = g.all_cells & ~partial.taken
            # A queen alone in its piece of free cells takes the piece; else a few queens each try LinkedIn's shapes
            free_pieces = pieces(free, size)
            alone = [(p & waiting, p) for p in free_pieces if (p & waiting).bit_count() == 1]
            alone = [(q.bit_length() - 1, p) for q, p in alone if q != 1 << background]
            if alone:
                tries = [(alone[0][0], iter([alone[0][1]]))]
            else:
                setting = [q for q in cell_list(waiting) if q != background]
                tries = []
                for q in rng.sample(setting, min(QUEENS_TRIED, len(setting))):
                    blocked = partial.taken | (0 if reserved >> q & 1 else reserved) | (waiting & ~(1 << q))
                    themed = options(size, q, theme, blocked) if theme and step < THEMED else []
                    if themed:  # the level's idea: one shape drawn again and again, turned and mirrored
                        tries.append((q, iter(rng.sample(themed, min(TRIES, len(themed))))))
                    else:
                        tries.append((q, draw_options(size, q, count, least, blocked, rng, data)))
            for queen, choices in tries:
                # The region splits only the piece it lies in; the other pieces keep their queens
                home = next(p for p in free_pieces if p >> queen & 1)
                left = waiting & ~(1 << queen)
                kept = 0
                for mask in choices:
                    if mask.bit_count() < least or not no_empty_pocket(home & ~mask, left, size, least, reserved):
                        continue
                    grown.append((alive_after(partial, mask), rng.random(), partial, queen, mask))
                    kept += 1
                    if kept == TRIES:
                        break
        if not grown:
            return None
        grown.sort(key=lambda item: item[:2])
        beam = [place(partial, queen, mask) for _, _, partial, queen, mask in grown[:BEAM]]
    best = beam[0]
    rest = g.all_cells & ~best.taken
    if not rest >> background & 1 or not g.connected(rest) or rest.bit_count() < least:
        return None
    return place(best, background, rest)


def settle(size: int, made: SetMap, rng: random.Random, least: int, data: SetterData) -> SetMap:
    """Cut a map's solutions down by whole shapes, not single cells: two touching regions (neither the figure) share
    their cells out again, one as another of LinkedIn's shapes over its queen, the other the rest, which must be one
    of LinkedIn's shapes too unless it is the background; of every such swap the one leaving the fewest solutions is
    made, while the count falls. Every region then is still one of LinkedIn's shapes, where repair's one-cell moves
    leave spurs and notches.

    Exact and cheap: the layouts a swap can leave alive are those with one queen in every other region (the same
    for every shape tried for that pair), and of those, with all other queens placed, a layout with one queen in the
    one new region has one in the other too."""
    g = grid(size)
    words = layout_words(size)
    queens = sum(1 << q for q in made.regions)
    shapes = corner_images(data.images, size)
    for _ in range(SETTLE_ROUNDS):
        if made.solutions == 1:
            break
        ones = {q: cells_held(words, mask) == 1 for q, mask in made.regions.items()}
        best: tuple[int, float, int, Cells, int] | None = None
        for queen, mask in made.regions.items():
            if queen in (made.figure, made.background):
                continue
            kept = 0 if made.reserved >> queen & 1 else made.reserved
            for partner, other in made.regions.items():
                if partner in (queen, made.figure) or not g.grow(mask) & other:
                    continue
                base = np.ones(words.shape[1], dtype=bool)
                for q, one in ones.items():
                    if q not in (queen, partner):
                        base &= one
                alive = words[:, base]
                union = mask | other
                blocked = (g.all_cells & ~union) | (queens & ~(1 << queen)) | kept
                for shape in every_option(size, queen, mask.bit_count(), least, blocked, data):
                    rest = union & ~shape
                    if rest.bit_count() < least or (rest & made.reserved and not made.reserved >> partner & 1):
                        continue
                    if partner != made.background:
                        if at_corner(rest, size) not in shapes:  # one of LinkedIn's shapes: whole too
                            continue
                    elif not g.connected(rest):
                        continue
                    count = int(np.count_nonzero(cells_held(alive, shape) == 1))
                    key = (count, rng.random(), queen, shape, partner)
                    if count < made.solutions and (best is None or key[:2] < best[:2]):
                        best = key
        if best is None:
            break
        count, _, queen, shape, partner = best
        union = made.regions[queen] | made.regions[partner]
        regions = {**made.regions, queen: shape, partner: union & ~shape}
        made = SetMap(regions, made.figure, made.background, count, made.reserved)
    return made


def compose_organic(size: int, queens: Cells, rng: random.Random, least: int) -> list[int] | None:
    """An organic map around `queens` drawn by the setter, or None (growth grows the board instead): in up to DRAWS
    draws, one of FIGURES and the region sizes of one of LinkedIn's organic levels of this size (the figure taking
    the nearest to its own, the largest left to the background), settled by whole shapes; the first map with at most
    FINISH_ALIVE solutions (repair cuts what is left)."""
    data = load_setter_data()
    if size > LARGEST or size not in data.profiles:
        return None
    for _ in range(DRAWS):
        figure = FIGURES[rng.choice(sorted(FIGURES))]
        sizes = list(rng.choice(data.profiles[size]))
        sizes.remove(min(sizes, key=lambda s: (abs(s - len(figure)), s)))
        rng.shuffle(sizes)
        made = compose(size, queens, rng, figure, sizes, least, data, draw_theme(rng, data))
        owner = finish(size, made, rng, least, data)
        if owner is not None:
            return owner
    return None


def compose_frame(size: int, queens: Cells, rng: random.Random, least: int) -> list[int] | None:
    """A frame map around `queens` (growth.frame_layout's, a few on the edge) drawn by the setter, or None (growth
    grows the board instead): as LinkedIn draws a frame, one queen on the edge is the background, which keeps the
    edge ring but where the shapes of the other queens on it reach the edge, and takes every cell left inside;
    every other queen gets one of LinkedIn's shapes (the sizes of one of its organic levels), placed as compose
    places them, and the map is settled. In up to DRAWS draws, the first map with at most FINISH_ALIVE solutions."""
    data = load_setter_data()
    if size > LARGEST or size not in data.profiles:
        return None
    ring = sum(1 << cell for cell in ring_cells(size, 0))
    on_edge = cell_list(queens & ring)
    if not on_edge:
        return None
    for _ in range(DRAWS):
        background = rng.choice(on_edge)
        sizes = list(rng.choice(data.profiles[size]))
        rng.shuffle(sizes)
        start = Partial({}, layout_words(size), 0)
        done = set_regions(size, queens, rng, start, background, ring, sizes, least, data, draw_theme(rng, data))
        if done is None:
            continue
        owner = finish(size, SetMap(done.regions, None, background, done.alive.shape[1], ring), rng, least, data)
        if owner is not None:
            return owner
    return None


def draw_theme(rng: random.Random, data: SetterData) -> tuple[Shape, ...]:
    """The level's idea: one of LinkedIn's shapes of THEME_CELLS cells, by weight (every image of it)."""
    shapes, weights = data.shapes[rng.choice(THEME_CELLS)]
    return rng.choices(shapes, weights)[0]


def finish(size: int, made: SetMap | None, rng: random.Random, least: int, data: SetterData) -> list[int] | None:
    """A composed map settled when it has at most SETTLE_FROM solutions; its owner list if it then has at most
    FINISH_ALIVE (repair cuts what is left), else None."""
    if made is None or made.solutions > SETTLE_FROM:
        return None
    made = settle(size, made, rng, least, data)
    return made.owner(size) if made.solutions <= FINISH_ALIVE else None
