"""Looks: a 0-100 score of how typical of real, designed boards a region map is (stage 8), and the give-away rule.

The score is a logistic regression on a few size-free shape features, fitted per game by bench/fit_looks.py on the
real boards in ../shared/data against raw generated candidates; its coefficients live in looks_model.json next to
this file, never in code. The features, computed with numpy on the region grid:

- straight: the longest straight border (border segments in a row along one grid line), over the size;
- boxiness: area-weighted share of each region's bounding box that it fills (1.0 for a rectangle);
- rectangles: the share of regions of 3 cells or more that fill their bounding box;
- raggedness: mean region perimeter over the smallest perimeter a region of that area can have;
- turns: border corners per unit of internal border length (how often borders change direction);
- spread: the coefficient of variation of region sizes;
- contacts: the mean number of other regions each region touches;
- teeth: the share of cells with exactly one neighbour in their own region (one-cell spikes and bar ends);
- corridors: the share of cells whose region runs through them one cell wide (own neighbours on two opposite
  sides only, none on the other two);
- symmetry: the best, over the board's 7 non-trivial symmetries, share of internal border segments that the
  symmetry maps onto border segments (1.0 for a symmetric map; LinkedIn levels are often partly symmetric);
- tiny: the share of regions of 2 cells or fewer;
- largest: the biggest region's share of the board (a background region that motifs sit in);
- Queens only (FIGURE_FEATURES, `gate_features`): the share of regions that are symmetric figures and the regions'
  mean figure share (designs.figure_share); the Queens gate does not read symmetry (GATE_FEATURES says why).

A board with any feature outside the range the real boards span (stripes, a grid of blocks) scores 0: a
logistic regression would extrapolate there. Otherwise `looks_score` is the model's score (starbattle_core/logistic.py:
100 * sigmoid(logit - offset), `offset` the logit at the real boards' gate percentile recorded in the model file), so
a score of 50 is that percentile for both games: the config's `looks_gate` of 50 rejects what looks less designed
than that share of real boards.

The gate only cuts the tail; repair, grading, the band and tuning shift the boards that pass it as a whole. The
looks draw (`looks_draw`) turns what is published into what the real boards look like, on these features and nine
more (DRAW_FEATURES: the border shares kept by a half turn, by the better mirror and by the better diagonal, the
share of orthogonally convex regions, the smallest region over the average one, the share of regions on the edge,
the share of regions that are symmetric figures and their mean figure share, designs.figure_share, and the notches
a region has, designs.notches):
a second logistic regression, fitted on the real boards against the boards `generate` publishes with the draw off
(looks_draw_model.json, `python bench/fit_looks.py --draw`), estimates log(real density / published density), since
its classes are weighted equally; a board that passes repair is kept with chance exp(logit - top), at most 1, `top`
being the logit at a high percentile of those published boards. That is rejection sampling with the classifier's
odds as the density ratio (Azadi et al., "Discriminator rejection sampling", 2019); capping the ratio at `top`
trades the last of the likeness for candidates.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

import numpy as np

from ..logistic import load_models
from ..puzzle import Puzzle
from .designs import figure_share, notches

FEATURES = (
    "straight",
    "boxiness",
    "rectangles",
    "raggedness",
    "turns",
    "spread",
    "contacts",
    "teeth",
    "corridors",
    "symmetry",
    "tiny",
    "largest",
)
# The gate sees a map as growth draws it, before repair. A mirror-drawn Queens map is exact then, and repair must break
# that for the board to be unique (the mirror image of the queens solves an exact mirror map), so its symmetry at the
# gate says nothing of the board published: gated on it, 136 of 140 exact mirror maps failed and LinkedIn's mirror
# levels (20% of its 9x9 levels) became 3% of ours. The draw, which meets repaired boards, judges symmetry instead.
# The Queens gate sees figures too (the share of regions that are symmetric figures and the mean figure share,
# designs.figure_share): LinkedIn's setters draw them, and a gate blind to them passed blobs and figures alike. With
# them it passes boards that repair and the draw keep more often: the three Queens slots took 27% less CPU in one run,
# and the published boards look as they did (bench/looks_auc.py over 600 of them: 0.727 with, 0.729 without).
FIGURE_FEATURES = ("figures", "figure_mean")
GATE_FEATURES = {
    "starbattle": FEATURES,
    "queens": (*(name for name in FEATURES if name != "symmetry"), *FIGURE_FEATURES),
}
# The games whose gate reads figures: the others' gate pays nothing for them.
FIGURE_GATES = frozenset(game for game, names in GATE_FEATURES.items() if set(FIGURE_FEATURES) & set(names))
# The looks draw sees nine more: what still told published Queens boards from LinkedIn's (bench/looks_auc.py) when it
# saw only FEATURES: which symmetry a map follows, how many regions are convex, the smallest region, how many regions
# reach the edge, how many regions are symmetric figures (designs.figure_share) and how nearly the rest are, and the
# one-cell bumps of the blobs (designs.notches: a contact sheet showed them).
DRAW_FEATURES = (
    *FEATURES,
    "half_turn",
    "mirror",
    "diagonal",
    "convex",
    "smallest",
    "edge",
    "figures",
    "figure_mean",
    "notches",
)
MODEL_FILE = Path(__file__).with_name("looks_model.json")
DRAW_FILE = Path(__file__).with_name("looks_draw_model.json")


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


def _borders(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """across[r, c]: a border between (r, c) and (r + 1, c); down[r, c]: between (r, c) and (r, c + 1)."""
    return grid[:-1, :] != grid[1:, :], grid[:, :-1] != grid[:, 1:]


def _kept(borders: tuple[np.ndarray, np.ndarray], image: np.ndarray) -> float:
    """The share of a map's border segments (`borders`, its _borders) that lie on border segments of `image` (the
    map moved by a symmetry)."""
    across, down = borders
    total = int(across.sum() + down.sum())
    if not total:
        return 1.0
    other_across, other_down = _borders(image)
    return int((across & other_across).sum() + (down & other_down).sum()) / total


def _symmetry(grid: np.ndarray) -> float:
    """The best share of border segments kept by one of the 7 non-trivial symmetries of the square."""
    images = [np.rot90(grid, turns) for turns in range(1, 4)]
    images += [np.fliplr(np.rot90(grid, turns)) for turns in range(4)]
    borders = _borders(grid)
    return max(_kept(borders, image) for image in images)


def looks_features(puzzle: Puzzle) -> dict[str, float]:
    """The shape features of a board's regions (see the module docstring)."""
    grid = region_grid(puzzle)
    n = puzzle.size
    count = int(grid.max()) + 1
    across, down = _borders(grid)
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

    # Own-region neighbours of each cell, one boolean plane per direction (the board's edge is not own region).
    up = np.zeros_like(grid, dtype=bool)
    below = np.zeros_like(grid, dtype=bool)
    west = np.zeros_like(grid, dtype=bool)
    east = np.zeros_like(grid, dtype=bool)
    up[1:, :] = ~across
    below[:-1, :] = ~across
    west[:, 1:] = ~down
    east[:, :-1] = ~down
    own = up.astype(int) + below + west + east
    teeth = float((own == 1).sum() / (n * n))
    corridors = float((((up & below) & ~(west | east)) | ((west & east) & ~(up | below))).sum() / (n * n))
    return {
        "straight": straight,
        "boxiness": boxiness,
        "rectangles": rectangles,
        "raggedness": raggedness,
        "turns": turns,
        "spread": spread,
        "contacts": contacts,
        "teeth": teeth,
        "corridors": corridors,
        "symmetry": _symmetry(grid),
        "tiny": float((areas <= 2).sum() / count),
        "largest": float(areas.max() / (n * n)),
    }


def figure_features(shares: list[float]) -> dict[str, float]:
    """FIGURE_FEATURES from the regions' figure shares: the share of regions that are symmetric figures
    (designs.figure_share 1.0) and their mean share."""
    return {"figures": sum(share == 1.0 for share in shares) / len(shares), "figure_mean": float(np.mean(shares))}


def gate_features(puzzle: Puzzle) -> dict[str, float]:
    """What the game's looks gate reads: the looks features, and the figure features where its model uses them."""
    features = looks_features(puzzle)
    if puzzle.game in FIGURE_GATES:
        features.update(figure_features([figure_share(mask, puzzle.size) for mask in puzzle.region_masks]))
    return features


def draw_features(puzzle: Puzzle) -> dict[str, float]:
    """The looks features and DRAW_FEATURES' nine more (see the module docstring)."""
    grid = region_grid(puzzle)
    n = puzzle.size
    count = int(grid.max()) + 1
    areas = np.bincount(grid.ravel(), minlength=count)
    # One plane per region; a region is convex along a line when the line enters it at most once.
    planes = grid[None, :, :] == np.arange(count)[:, None, None]
    enters_row = planes & ~np.pad(planes, ((0, 0), (0, 0), (1, 0)))[:, :, :-1]
    enters_col = planes & ~np.pad(planes, ((0, 0), (1, 0), (0, 0)))[:, :-1, :]
    convex = (enters_row.sum(axis=2).max(axis=1) <= 1) & (enters_col.sum(axis=1).max(axis=1) <= 1)
    edge = np.unique(np.concatenate([grid[0], grid[-1], grid[:, 0], grid[:, -1]]))
    borders = _borders(grid)
    figures = [figure_share(mask, n) for mask in puzzle.region_masks]
    return {
        **looks_features(puzzle),
        "half_turn": _kept(borders, np.rot90(grid, 2)),
        "mirror": max(_kept(borders, np.fliplr(grid)), _kept(borders, np.flipud(grid))),
        "diagonal": max(_kept(borders, grid.T), _kept(borders, np.rot90(grid, 2).T)),
        "convex": float(convex.mean()),
        "smallest": float(areas.min() * count / (n * n)),
        "edge": len(edge) / count,
        **figure_features(figures),
        "notches": len(notches(puzzle.regions, n, figures)) / count,
    }


def looks_score(puzzle: Puzzle) -> float:
    """0-100: how typical of real boards of its game the regions look (50: the real boards' gate percentile)."""
    model = load_models(MODEL_FILE)[puzzle.game]
    features = gate_features(puzzle)
    return round(model.score(features), 1) if model.within(features) else 0.0


def draw_key(game: str, size: int, stars: int) -> str:
    """A looks draw model's key: "queens 9x9", "starbattle 10x10 2-star"."""
    return f"{game} {size}x{size}" + (f" {stars}-star" if game == "starbattle" else "")


def draw_chance(puzzle: Puzzle) -> float:
    """The chance the looks draw keeps a board: exp(logit - top), at most 1; 1 for a size the draw model has no
    entry for (Star Battle, and Queens sizes with fewer than 100 real boards: bench/fit_looks.py)."""
    model = load_models(DRAW_FILE).get(draw_key(puzzle.game, puzzle.size, puzzle.stars))
    if model is None:
        return 1.0
    return math.exp(min(model.logit(draw_features(puzzle)) - model.offset, 0.0))


def looks_draw(puzzle: Puzzle, rng: random.Random) -> bool:
    """Whether the looks draw keeps a board; a sure keep draws nothing from `rng`, so boards of a size without a
    draw model meet the same random choices with the draw on or off."""
    chance = draw_chance(puzzle)
    return chance >= 1.0 or rng.random() < chance


def smallest_allowed(game: str, stars: int, band: str, allow_giveaways: bool = False) -> int:
    """The fewest cells a region may have before it gives its stars away.

    A 2-star region of 3 cells can only be a 1x3 bar with stars at both ends (none of 300 archive boards has one);
    a Queens region of 1 or 2 cells places or nearly places its queen, which LinkedIn keeps for easy levels
    (4% of its levels that grade hard have a single cell). Star Battle with K stars needs room for K non-touching
    stars plus a choice: 2K cells (1 for 1-star boards, where a single cell is the classic opening gift and never
    appears on the archive's 1-star boards either, so 2)."""
    if allow_giveaways:
        return 1
    if game == "queens":
        return 1 if band == "easy" else 3
    return max(2, 2 * stars)


def gives_away(puzzle: Puzzle, band: str, allow_giveaways: bool = False) -> bool:
    """Whether a region is too small for the board's band (see `smallest_allowed`)."""
    least = smallest_allowed(puzzle.game, puzzle.stars, band, allow_giveaways)
    return min(mask.bit_count() for mask in puzzle.region_masks) < least
