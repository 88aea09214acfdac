"""Looks: a 0-100 score of how hand-drawn a board's regions look (stage 8).

Hand-made boards interlock: regions wrap around each other, borders turn often, regions differ in size. Boards
that read as machine-made have rectangular regions and long straight borders; boards that read as noise have
snakes and confetti. The score is built from measurable shape features, computed with numpy on the region grid:

- straight: the longest straight border (internal border segments in a row along one grid line), over the size;
- boxiness: area-weighted share of each region's bounding box that it fills (1.0 for a rectangle);
- raggedness: mean region perimeter over the smallest perimeter a region of that area can have;
- turns: border corners per unit of internal border length (how often borders change direction);
- spread: the coefficient of variation of region sizes;
- contacts: the mean number of other regions each region touches.

Each feature is scored against a band taken from the real boards in ../shared/data (hand-made and published Star
Battle boards and LinkedIn Queens levels: see bench/bench_generator.py for the measurement): inside the band it is
worth full marks, outside it loses marks linearly until a hard limit. The score is the weighted mean times 100.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..puzzle import Puzzle

FEATURES = ("straight", "boxiness", "rectangles", "raggedness", "turns", "spread", "contacts")


@dataclass(frozen=True)
class Band:
    """Marks for one feature: 1 at `best`, 0.75 at `low` and `high`, 0 at `floor` and `ceiling`, linear between."""

    floor: float
    low: float
    best: float
    high: float
    ceiling: float
    weight: float

    def marks(self, value: float) -> float:
        points = (self.floor, self.low, self.best, self.high, self.ceiling)
        return float(np.interp(value, points, (0.0, 0.75, 1.0, 0.75, 0.0)))


# Measured on 2,258 real boards (bench/bench_generator.py --looks): `best` is near their median, `low`/`high` near
# their 5th and 95th percentiles, `floor`/`ceiling` past their extremes, and a board that is all rectangles or all
# stripes lands at the floor on four features.
BANDS: dict[str, Band] = {
    "straight": Band(0.0, 0.0, 0.6, 0.9, 1.5, 1.0),
    "boxiness": Band(0.2, 0.49, 0.6, 0.77, 1.0, 2.0),
    "rectangles": Band(-0.1, 0.0, 0.0, 0.33, 0.8, 1.0),
    "raggedness": Band(0.95, 1.14, 1.3, 1.63, 2.0, 1.0),
    "turns": Band(0.1, 0.38, 0.55, 0.71, 1.0, 1.5),
    "spread": Band(0.0, 0.31, 0.5, 1.29, 2.8, 1.0),
    "contacts": Band(1.4, 2.5, 3.6, 4.3, 6.0, 1.0),
}


def region_grid(puzzle: Puzzle) -> np.ndarray:
    return np.asarray(puzzle.regions, dtype=np.int32).reshape(puzzle.size, puzzle.size)


def _longest_run(lines: np.ndarray) -> int:
    """The longest run of True along the last axis of a 2-D boolean array."""
    if lines.size == 0:
        return 0
    padded = np.zeros((lines.shape[0], lines.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = lines
    steps = np.diff(padded, axis=1)
    starts = np.nonzero(steps == 1)
    ends = np.nonzero(steps == -1)
    return int((ends[1] - starts[1]).max()) if len(starts[1]) else 0


def looks_features(puzzle: Puzzle) -> dict[str, float]:
    """The shape features of a board's regions (see the module docstring)."""
    grid = region_grid(puzzle)
    n = puzzle.size
    count = int(grid.max()) + 1
    # across[r, c]: a border between (r, c) and (r + 1, c); down[r, c]: between (r, c) and (r, c + 1).
    across = grid[:-1, :] != grid[1:, :]
    down = grid[:, :-1] != grid[:, 1:]
    straight = max(_longest_run(across), _longest_run(down.T)) / n

    areas = np.bincount(grid.ravel(), minlength=count).astype(float)
    rows, cols = np.indices(grid.shape)
    flat = grid.ravel()
    top = np.full(count, n)
    bottom = np.full(count, -1)
    left = np.full(count, n)
    right = np.full(count, -1)
    np.minimum.at(top, flat, rows.ravel())
    np.maximum.at(bottom, flat, rows.ravel())
    np.minimum.at(left, flat, cols.ravel())
    np.maximum.at(right, flat, cols.ravel())
    box = (bottom - top + 1) * (right - left + 1)
    boxiness = float((areas * areas / box).sum() / areas.sum())
    # Single cells and dominoes are rectangles by necessity; from three cells on, a full box is a choice.
    rectangles = float(((areas == box) & (areas >= 3)).sum() / count)

    # A region's perimeter: its cells' sides that face another region or the board's edge.
    perimeter = np.zeros(count)
    np.add.at(perimeter, grid[:-1, :][across], 1)
    np.add.at(perimeter, grid[1:, :][across], 1)
    np.add.at(perimeter, grid[:, :-1][down], 1)
    np.add.at(perimeter, grid[:, 1:][down], 1)
    for edge in (grid[0, :], grid[-1, :], grid[:, 0], grid[:, -1]):
        np.add.at(perimeter, edge, 1)
    least = 2 * np.ceil(2 * np.sqrt(areas))
    raggedness = float((perimeter / least).mean())

    # Border corners: grid points (inside the board) where a border running one way meets one running the other.
    vertical_at = down[:-1, :] | down[1:, :]  # a vertical border ends at point (r+1, c+1)
    horizontal_at = across[:, :-1] | across[:, 1:]
    corners = int((vertical_at & horizontal_at).sum())
    length = int(across.sum() + down.sum())
    turns = corners / length if length else 0.0

    spread = float(areas.std() / areas.mean())
    pairs = np.concatenate(
        [np.stack([grid[:-1, :][across], grid[1:, :][across]], 1), np.stack([grid[:, :-1][down], grid[:, 1:][down]], 1)]
    )
    touching = np.zeros((count, count), dtype=bool)
    touching[pairs[:, 0], pairs[:, 1]] = True
    touching |= touching.T
    contacts = float(touching.sum(axis=1).mean())
    return {
        "straight": straight,
        "boxiness": boxiness,
        "rectangles": rectangles,
        "raggedness": raggedness,
        "turns": turns,
        "spread": spread,
        "contacts": contacts,
    }


def looks_score(puzzle: Puzzle) -> float:
    """0-100: how hand-drawn the regions look (100: every feature inside the band real boards occupy)."""
    features = looks_features(puzzle)
    total = sum(band.weight for band in BANDS.values())
    marks = sum(band.weight * band.marks(features[name]) for name, band in BANDS.items())
    return round(100.0 * marks / total, 1)
