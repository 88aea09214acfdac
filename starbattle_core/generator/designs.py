"""Designed Queens maps: the drawings LinkedIn's setters make, as the start of a board's region growth.

LinkedIn's levels are pictures more than blobs. Each board is drawn in one design mode:

- organic: no drawing; motifs placed whole and regions grown from their queen (growth.py);
- mirror: the map is its own image under one symmetry of the square (a mirror left-right, top-bottom, along a
  diagonal, or a half turn): exact where the queens allow it, near otherwise (symmetry.py grows it);
- rings: concentric square rings around the centre, each cut into arcs that hold one queen each;
- bars: straight one-wide bars along rows (or along columns), each through its queen;
- frame: the board's outer ring cut into arcs, one per queen on the edge; those regions then sprawl inwards
  (a large appetite) around small inner regions.

How often each mode is drawn, and its parameters (which symmetry, how many rings or bars), are the frequencies
measured on LinkedIn's levels by `design_of` below: bench/fit_designs.py writes them to designs.json beside this
file. `design_of` names the mode a finished map looks drawn in (the first that fits, in the order mirror, rings,
bars, frame, organic), so the same function measures the real levels and checks the generated ones.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from ..puzzle import Cells, Puzzle
from .shape import Shape, cell_list, grid, region_masks

MODES = ("organic", "mirror", "rings", "bars", "frame")
# The symmetries a map can be drawn with: involutions of the square (a quarter turn is not one: a region and its
# image's image would differ, so it cannot be grown pairwise).
SYMMETRIES = ("left_right", "top_bottom", "diagonal", "anti_diagonal", "half_turn")
DESIGNS_FILE = Path(__file__).with_name("designs.json")

# A map is drawn in mirror mode when this share of its neighbouring cell pairs agree with its image on "same
# region or not" (LinkedIn: 2 of 849 levels are exact, 17% reach 0.9).
MIRROR_SHARE = 0.9
# A frame: at most this share of the regions touch the board's edge (LinkedIn median: 2 in 3).
FRAME_EDGE_SHARE = 0.45


@dataclass(frozen=True)
class Designs:
    """The measured design frequencies (designs.json)."""

    modes: dict[str, float]
    symmetries: dict[str, float]
    rings: dict[int, float]  # ring arcs per ring-mode board
    bars: dict[int, float]  # bars per bar-mode board
    bars_along_rows: float  # share of bar-mode boards whose bars run along rows
    # A level's idea drawn several times: the shapes LinkedIn repeats most (repeated_shapes), each as its cells, and
    # how many regions the largest repeated shape of a level has.
    repeated: dict[Shape, float]
    copies: dict[int, float]
    # How many of a frame level's queens lie on the board's edge (`edge_queens`): each is an arc of the frame.
    frame_edge_queens: dict[int, float]


@lru_cache(maxsize=2)
def load_designs(path: Path = DESIGNS_FILE) -> Designs:
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return Designs(
        modes={k: float(v) for k, v in data["modes"].items()},
        symmetries={k: float(v) for k, v in data["symmetries"].items()},
        rings={int(k): float(v) for k, v in data["rings"].items()},
        bars={int(k): float(v) for k, v in data["bars"].items()},
        bars_along_rows=float(data["bars_along_rows"]),
        repeated={shape_from_text(k): float(v) for k, v in data["repeated"].items()},
        copies={int(k): float(v) for k, v in data["copies"].items()},
        frame_edge_queens={int(k): float(v) for k, v in data["frame_edge_queens"].items()},
    )


def shape_text(shape: Shape) -> str:
    """A shape's cells as designs.json keeps them: "0,0 0,1 1,0"."""
    return " ".join(f"{r},{c}" for r, c in shape)


def shape_from_text(text: str) -> Shape:
    return tuple((int(r), int(c)) for r, c in (cell.split(",") for cell in text.split()))


def orientations(shape: Shape) -> tuple[Shape, ...]:
    """A shape's distinct images under the square's turns and mirrors, each moved to the top-left corner."""
    images = set()
    for turn in range(4):
        for flip in (False, True):
            cells = list(shape)
            for _ in range(turn):
                cells = [(c, -r) for r, c in cells]
            if flip:
                cells = [(r, -c) for r, c in cells]
            top, left = min(r for r, _ in cells), min(c for _, c in cells)
            images.add(tuple(sorted((r - top, c - left) for r, c in cells)))
    return tuple(sorted(images))


Key = TypeVar("Key", str, int, Shape)


def pick(weights: dict[Key, float], rng: random.Random) -> Key:
    """One key, drawn with its weight (keys in sorted order, so the draw depends on the seed alone)."""
    keys = sorted(weights)
    return rng.choices(keys, weights=[weights[k] for k in keys])[0]


# --- geometry --------------------------------------------------------------------------------------------------


def mirror_cell(cell: int, size: int, symmetry: str) -> int:
    """The image of a cell under one of SYMMETRIES."""
    row, col = divmod(cell, size)
    last = size - 1
    image = {
        "left_right": (row, last - col),
        "top_bottom": (last - row, col),
        "diagonal": (col, row),
        "anti_diagonal": (last - col, last - row),
        "half_turn": (last - row, last - col),
    }[symmetry]
    return image[0] * size + image[1]


def depth(cell: int, size: int) -> int:
    """How many rings in from the board's edge a cell lies (0: on the edge)."""
    row, col = divmod(cell, size)
    return min(row, col, size - 1 - row, size - 1 - col)


def edge_queens(queens: Cells, size: int) -> int:
    """How many of the queens lie on the board's edge (the outermost ring)."""
    return sum(1 for cell in cell_list(queens) if depth(cell, size) == 0)


def ring_cells(size: int, level: int) -> list[int]:
    """The cells of the ring `level` rings in from the edge, in order round the ring (clockwise from its top-left)."""
    low, high = level, size - 1 - level
    if low > high:
        return []
    if low == high:
        return [low * size + low]
    top = [(low, c) for c in range(low, high + 1)]
    right = [(r, high) for r in range(low + 1, high + 1)]
    bottom = [(high, c) for c in range(high - 1, low - 1, -1)]
    left = [(r, low) for r in range(high - 1, low, -1)]
    return [r * size + c for r, c in top + right + bottom + left]


# Cuts drawn per ring, the one with the fewest straight arcs kept: cut at random, a quarter of a ring's arcs of 3 or
# more cells were straight bars (LinkedIn's rings: 9% of 114 arcs on 9x9); the fewest of 4 draws gives 15%.
RING_CUT_DRAWS = 4


def cut_ring(ring: list[int], queens: Cells, taken: Cells, least: int, rng: random.Random) -> list[Cells] | None:
    """The ring cut into arcs, one per queen on it, each at least `least` cells and clear of `taken`; None when
    the ring holds no queen, crosses a taken cell, or cannot be cut so. Each cut falls at random between two
    neighbouring queens (a ring with one queen stays closed); of RING_CUT_DRAWS such cuttings the one with the
    fewest straight arcs is kept."""
    if any(taken >> cell & 1 for cell in ring):
        return None
    spots = [i for i, cell in enumerate(ring) if queens >> cell & 1]
    if not spots:
        return None
    length = len(ring)
    if len(spots) == 1:
        return [sum(1 << cell for cell in ring)] if length >= least else None
    side = length // 4  # the ring's corners are every `side` cells round it, from index 0
    best: tuple[int, list[Cells]] | None = None
    for _ in range(RING_CUT_DRAWS):
        cuts = []  # the index where each arc after a queen ends (exclusive), going round
        for here, there in zip(spots, [*spots[1:], spots[0] + length], strict=True):
            cuts.append(rng.randint(here + 1, there))  # the arc of `here` ends somewhere before `there`
        # Arc k runs from the previous cut to its own: it holds queen k (going round, modulo the length).
        spans = [(cuts[k - 1] - length if k == 0 else cuts[k - 1], cuts[k]) for k in range(len(spots))]
        if any(stop - start < least for start, stop in spans):
            continue
        # A straight arc of 3 or more cells: no corner of the ring strictly inside it.
        straight = sum(stop - start >= 3 and all(i % side for i in range(start + 1, stop - 1)) for start, stop in spans)
        if best is None or straight < best[0]:
            best = (straight, [sum(1 << ring[i % length] for i in range(start, stop)) for start, stop in spans])
    return best[1] if best else None


def bar_through(size: int, queen: int, along_rows: bool, length: int, taken: Cells, rng: random.Random) -> Cells:
    """A straight bar of `length` cells along the queen's row (or column) holding the queen and no taken cell;
    0 when none fits."""
    row, col = divmod(queen, size)
    at = col if along_rows else row
    starts = list(range(max(0, at - length + 1), min(at, size - length) + 1))
    rng.shuffle(starts)
    for start in starts:
        cells = (
            [row * size + c for c in range(start, start + length)]
            if along_rows
            else [r * size + col for r in range(start, start + length)]
        )
        mask = sum(1 << cell for cell in cells)
        if not mask & taken:
            return mask
    return 0


# --- what a finished map looks drawn in ------------------------------------------------------------------------


def symmetry_share(regions: tuple[int, ...] | list[int], size: int, symmetry: str) -> float:
    """The share of neighbouring cell pairs (across and down) on which the map and its image agree about whether
    the two cells share a region (1.0: the map is its own image up to the regions' names)."""
    agree = total = 0
    for cell in range(size * size):
        row, col = divmod(cell, size)
        image = mirror_cell(cell, size, symmetry)
        for other in ((cell + 1) if col + 1 < size else -1, (cell + size) if row + 1 < size else -1):
            if other < 0:
                continue
            total += 1
            agree += (regions[cell] == regions[other]) == (
                regions[image] == regions[mirror_cell(other, size, symmetry)]
            )
    return agree / total if total else 1.0


def figure_share(mask: Cells, size: int) -> float:
    """How symmetric one region is as a figure of its own: the largest share of its cells that a mirror of its
    bounding box (left-right, top-bottom, a half turn, and both diagonals when the box is square) maps onto its
    cells. A bar, a plus, a ring, a T or a U score 1.0; LinkedIn's setters draw such figures (half of a 9x9
    level's regions score 1.0), growth draws blobs (a third of a published board's did)."""
    cells = [divmod(cell, size) for cell in cell_list(mask)]
    if len(cells) <= 2:
        return 1.0
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    top, left = min(rows), min(cols)
    flip_rows, flip_cols = top + max(rows), left + max(cols)
    images = [
        [(flip_rows - r, c) for r, c in cells],
        [(r, flip_cols - c) for r, c in cells],
        [(flip_rows - r, flip_cols - c) for r, c in cells],
    ]
    if flip_rows - 2 * top == flip_cols - 2 * left:  # a square box: its two diagonals too
        images.append([(top + c - left, left + r - top) for r, c in cells])
        images.append([(flip_rows - (top + c - left), flip_cols - (left + r - top)) for r, c in cells])
    own = set(cells)
    return max(sum(cell in own for cell in image) for image in images) / len(cells)


def shape_key(mask: Cells, size: int) -> Shape:
    """A region's shape up to where it lies, turns and mirror images: the least of its images' sorted (row, column)
    cells (`orientations`: the square's symmetries), each moved to the top-left corner. Two regions are congruent
    when their keys are equal."""
    return orientations(tuple(divmod(cell, size) for cell in cell_list(mask)))[0]


def repeated_shapes(puzzle: Puzzle, least: int = 4) -> int:
    """The regions of `least` cells or more whose shape another region of the board repeats (turned or mirrored
    too). LinkedIn's setters build a level on one idea, crosses or Ts or squares drawn several times: 60% of their
    9x9 levels have such regions, 2.3 a level. Growth draws one such shape several times (growth.place_repeats),
    and repair and its tidying spare the regions this counts (repeated_cells)."""
    masks = list(puzzle.region_masks)
    repeated = repeated_cells(masks, puzzle.size, least)
    return sum(1 for mask in masks if mask & repeated)


def repeated_cells(masks: list[Cells], size: int, least: int = 4) -> Cells:
    """The cells of the regions repeated_shapes counts."""
    keys = [shape_key(mask, size) if mask.bit_count() >= least else None for mask in masks]
    seen = Counter(key for key in keys if key is not None)
    return sum(mask for mask, key in zip(masks, keys, strict=True) if key is not None and seen[key] >= 2)


# A symmetric figure this large is a picture's centrepiece (LinkedIn's 9x9 levels: 58% hold one, growth.CENTREPIECES).
CENTREPIECE_LEAST = 8


def largest_figure(masks: list[Cells], size: int) -> Cells:
    """The cells of the largest region of CENTREPIECE_LEAST cells or more that is a symmetric figure (figure_share
    1.0; the first such in region order on a tie), 0 when there is none."""
    figures = [mask for mask in masks if mask.bit_count() >= CENTREPIECE_LEAST and figure_share(mask, size) == 1.0]
    return max(figures, key=int.bit_count, default=0)


def spared_cells(masks: list[Cells], size: int) -> Cells:
    """What repair and its tidying leave alone while another move will do: the regions whose shape another repeats
    (a setter's idea drawn several times) and the largest symmetric figure (a picture's centrepiece): the plainest
    marks of a designed level, which repair and the tidying had reshaped as readily as any blob."""
    return repeated_cells(masks, size) | largest_figure(masks, size)


def notches(regions: tuple[int, ...] | list[int], size: int, shares: list[float] | None = None) -> list[int]:
    """The bumps of blobs: cells with three sides on one other region (a one-cell tooth of their own region, a notch
    in the other's outline) whose own region is not a symmetric figure (figure_share below 1.0; a plus's arms and a
    bar's ends are teeth by design). A player picked generated Queens boards out by them: LinkedIn's 9x9 levels have
    1.3 a board (half of them none), published boards had 2.4 before the looks draw saw them (nine in ten had one).
    `shares`: the regions' figure shares when the caller has them already."""
    if shares is None:
        shares = [figure_share(mask, size) for mask in region_masks(regions, max(regions) + 1)]
    sides = grid(size).sides
    found = []
    for cell, region in enumerate(regions):
        if shares[region] == 1.0:
            continue
        others = [regions[side] for side in cell_list(sides[cell]) if regions[side] != region]
        if others and max(others.count(other) for other in others) >= 3:
            found.append(cell)
    return found


def ring_arcs(puzzle: Puzzle) -> int:
    """Regions of 3 or more cells lying on one ring and turning one of its corners (an arc, not a straight bar)."""
    n = puzzle.size
    count = 0
    for mask in puzzle.region_masks:
        cells = cell_list(mask)
        levels = {depth(cell, n) for cell in cells}
        if len(cells) < 3 or len(levels) != 1:
            continue
        rows = {cell // n for cell in cells}
        cols = {cell % n for cell in cells}
        count += len(rows) > 1 and len(cols) > 1
    return count


def straight_bars(puzzle: Puzzle) -> tuple[int, int]:
    """Regions of 3 or more cells in one row, and in one column."""
    n = puzzle.size
    along_rows = along_cols = 0
    for mask in puzzle.region_masks:
        cells = cell_list(mask)
        if len(cells) < 3:
            continue
        along_rows += len({cell // n for cell in cells}) == 1
        along_cols += len({cell % n for cell in cells}) == 1
    return along_rows, along_cols


def edge_share(puzzle: Puzzle) -> float:
    n = puzzle.size
    edge = {region for cell, region in enumerate(puzzle.regions) if depth(cell, n) == 0}
    return len(edge) / len(puzzle.region_masks)


def design_of(puzzle: Puzzle) -> tuple[str, str | int]:
    """The mode a map looks drawn in and its parameter (the symmetry, the rings' arcs, the bars; "" otherwise)."""
    shares = {name: symmetry_share(puzzle.regions, puzzle.size, name) for name in SYMMETRIES}
    best = max(SYMMETRIES, key=lambda name: shares[name])
    if shares[best] >= MIRROR_SHARE:
        return "mirror", best
    arcs = ring_arcs(puzzle)
    if arcs >= 2:
        return "rings", arcs
    rows, cols = straight_bars(puzzle)
    if max(rows, cols) >= 2:
        return "bars", rows if rows >= cols else -cols  # negative: along columns
    if edge_share(puzzle) <= FRAME_EDGE_SHARE:
        return "frame", ""
    return "organic", ""
