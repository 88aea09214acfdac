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
from collections.abc import Callable
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
    board = np.array(owner, dtype=np.int32).reshape(size, size)
    target = model.draw(rng)
    target[SHAPE_STATS.index("spread")] -= spread_offset

    def distance() -> float:
        return float((((shape_stats(board) - target) / model.scale) ** 2).sum())

    current = distance()
    masks = region_masks(list(owner), int(board.max()) + 1)
    movable = cell_list(g.all_cells & ~fixed)
    for _ in range(attempts if movable else 0):
        cell = rng.choice(movable)
        row, col = divmod(cell, size)
        loser = int(board[row, col])
        winners = sorted({int(board.flat[side]) for side in cell_list(g.sides[cell])} - {loser})
        if not winners or masks[loser].bit_count() <= least or not g.connected(masks[loser] & ~(1 << cell)):
            continue
        winner = rng.choice(winners)
        board[row, col] = winner
        moved = distance()
        if moved < current and (keep is None or keep([int(v) for v in board.ravel()])):
            current = moved
            masks[loser] &= ~(1 << cell)
            masks[winner] |= 1 << cell
        else:
            board[row, col] = loser
    return [int(v) for v in board.ravel()]
