"""Shaping: one-cell boundary moves that bring a grown Star Battle map's shape statistics to a target drawn from
real boards.

Growth makes regions that hold the right stars but have its own habits: compact blocks, where setters draw long
one-wide arms. So each map gets a target: five statistics drawn from a normal distribution fitted to the real
boards of its size and stars (bench/fit_shapes.py writes the means and the Cholesky
factor of the covariances to shapes.json), and one-cell moves are kept while they bring the map's statistics closer
to it (distance in units of the real boards' spread). A target drawn per board, rather than the real boards'
average, keeps the spread between boards that real boards have.

The statistics (size-free):
- border: internal border segments over all neighbouring cell pairs;
- thin: cells with at most two neighbours in their own region;
- ends: cells with exactly one;
- fill: the mean share of its bounding box a region fills;
- spread: the coefficient of variation of region sizes.

A move passes a cell that is not `fixed` (a star) to a neighbouring region; the region it leaves stays connected
and keeps `least` cells, so every region keeps its stars and the solution stays.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..puzzle import Cells
from .shape import cell_list, grid, region_masks

SHAPE_STATS = ("border", "thin", "ends", "fill", "spread")
SHAPES_FILE = Path(__file__).with_name("shapes.json")


@dataclass(frozen=True)
class ShapeModel:
    """The real boards' statistics for one kind of board: mean, spread and Cholesky factor of the covariance."""

    mean: np.ndarray
    scale: np.ndarray
    factor: np.ndarray

    def draw(self, rng: random.Random) -> np.ndarray:
        """A target drawn from the fitted normal distribution (with the candidate's own stream)."""
        target: np.ndarray = self.mean + self.factor @ np.array([rng.gauss(0.0, 1.0) for _ in self.mean])
        return target


@lru_cache(maxsize=2)
def load_shapes(path: Path = SHAPES_FILE) -> dict[str, ShapeModel]:
    with open(path, encoding="utf-8") as handle:
        data = json.load(handle)
    return {
        key: ShapeModel(np.array(entry["mean"]), np.array(entry["scale"]), np.array(entry["factor"]))
        for key, entry in data["kinds"].items()
    }


def kind_key(size: int, stars: int) -> str:
    return f"{size}x{size} {stars}-star"


def shape_model(size: int, stars: int) -> ShapeModel | None:
    """The model of the size and stars, else of the nearest fitted size with the same stars (None: none)."""
    models = load_shapes()
    fitted = {(int(key.split("x")[0]), int(key.split()[1].split("-")[0])): model for key, model in models.items()}
    near = [size_ for size_, stars_ in fitted if stars_ == stars]
    if not near:
        return None
    return fitted[min(near, key=lambda size_: (abs(size_ - size), size_)), stars]


def shape_stats(board: np.ndarray) -> np.ndarray:
    """SHAPE_STATS of a region map (a size x size array of region numbers 0..count-1)."""
    n = board.shape[0]
    count = int(board.max()) + 1
    across = board[:-1, :] == board[1:, :]
    down = board[:, :-1] == board[:, 1:]
    border = 1.0 - (across.sum() + down.sum()) / (2 * n * (n - 1))
    own = np.zeros((n, n), dtype=np.int8)
    own[:-1, :] += across
    own[1:, :] += across
    own[:, :-1] += down
    own[:, 1:] += down
    thin = float((own <= 2).mean())
    ends = float((own == 1).mean())
    flat = board.ravel()
    rows, cols = np.divmod(np.arange(n * n), n)
    top = np.full(count, n)
    left = np.full(count, n)
    bottom = np.full(count, -1)
    right = np.full(count, -1)
    np.minimum.at(top, flat, rows)
    np.minimum.at(left, flat, cols)
    np.maximum.at(bottom, flat, rows)
    np.maximum.at(right, flat, cols)
    areas = np.bincount(flat, minlength=count)
    fill = float((areas / ((bottom - top + 1) * (right - left + 1))).mean())
    spread = float(areas.std() / areas.mean())
    return np.array([border, thin, ends, fill, spread])


@dataclass(frozen=True)
class RegionShape:
    """One region's share of SHAPE_STATS: its pairs of neighbouring cells, its cells with at most two and with
    exactly one neighbour in it, its bounding box and its size. Every statistic sums or lists these, so a one-cell
    move between two regions changes only theirs."""

    pairs: int
    thin: int
    ends: int
    top: int
    left: int
    bottom: int
    right: int
    area: int


def region_shape(mask: Cells, size: int) -> RegionShape:
    """A region's RegionShape, from its mask: four shifted copies say which of its cells have a neighbour in it
    above, below, left and right."""
    g = grid(size)
    up = mask & (mask << size)  # a cell whose upper neighbour is in the region
    down = mask & (mask >> size)
    left = mask & ((mask & g.not_right) << 1)
    right = mask & ((mask & g.not_left) >> 1)
    two_or_more = (up & down) | (up & left) | (up & right) | (down & left) | (down & right) | (left & right)
    three_or_more = (up & down & (left | right)) | (left & right & (up | down))
    columns_used = [c for c, column in enumerate(g.columns) if mask & column]
    return RegionShape(
        pairs=up.bit_count() + left.bit_count(),
        thin=(mask & ~three_or_more).bit_count(),
        ends=((up ^ down ^ left ^ right) & ~two_or_more).bit_count(),
        top=((mask & -mask).bit_length() - 1) // size,
        left=columns_used[0],
        bottom=(mask.bit_length() - 1) // size,
        right=columns_used[-1],
        area=mask.bit_count(),
    )


def stats_of_regions(shapes: Sequence[RegionShape], size: int) -> np.ndarray:
    """shape_stats of the map whose regions have these shapes: the same numbers, from the same counts by the same
    float operations (the means and the spread still numpy's), without drawing the map again."""
    n = size
    border = 1.0 - sum(s.pairs for s in shapes) / (2 * n * (n - 1))
    thin = sum(s.thin for s in shapes) / (n * n)
    ends = sum(s.ends for s in shapes) / (n * n)
    areas = np.array([s.area for s in shapes], dtype=np.int64)
    boxes = np.array([(s.bottom - s.top + 1) * (s.right - s.left + 1) for s in shapes], dtype=np.int64)
    fill = float((areas / boxes).mean())
    spread = float(areas.std() / areas.mean())
    return np.array([border, thin, ends, fill, spread])


def shape_towards(
    owner: list[int] | tuple[int, ...],
    size: int,
    fixed: Cells,
    least: int,
    model: ShapeModel,
    rng: random.Random,
    attempts: int,
    spread_offset: float = 0.0,
    keep: Callable[[list[int]], bool] | None = None,
) -> list[int]:
    """The map after `attempts` random one-cell boundary moves, each kept when it brings the statistics closer to
    a target drawn from `model` (see the module docstring), its size spread lowered by `spread_offset`, and when
    `keep` (if given) accepts the map it makes."""
    g = grid(size)
    board = list(owner)
    target = model.draw(rng)
    target[SHAPE_STATS.index("spread")] -= spread_offset

    def distance(shapes: list[RegionShape]) -> float:
        return float((((stats_of_regions(shapes, size) - target) / model.scale) ** 2).sum())

    masks = region_masks(board, max(board) + 1)
    shapes = [region_shape(mask, size) for mask in masks]  # a move redraws only the two regions it changes
    current = distance(shapes)
    movable = cell_list(g.all_cells & ~fixed)
    for _ in range(attempts if movable else 0):
        cell = rng.choice(movable)
        loser = board[cell]
        winners = sorted({board[side] for side in cell_list(g.sides[cell])} - {loser})
        lost = masks[loser] & ~(1 << cell)
        if not winners or masks[loser].bit_count() <= least or not g.connected(lost):
            continue
        winner = rng.choice(winners)
        gained = masks[winner] | 1 << cell
        moved_shapes = list(shapes)
        moved_shapes[loser], moved_shapes[winner] = region_shape(lost, size), region_shape(gained, size)
        moved = distance(moved_shapes)
        board[cell] = winner
        if moved < current and (keep is None or keep(list(board))):
            current, shapes = moved, moved_shapes
            masks[loser], masks[winner] = lost, gained
        else:
            board[cell] = loser
    return board
