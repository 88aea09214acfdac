"""Fit the fun model: a logistic regression per game telling designed boards' solve paths from raw generated ones.

    python bench/fit_fun.py --workers 2          fit, print the held-out separation, write grader/fun_model.json
    python bench/fit_fun.py --check              fit and print only (the model file is left alone)
    python bench/fit_fun.py --check --gated      ... and score the pipeline's own (looks-gated) candidates too

Designed boards: Star Battle, the archive's published boards (6x6 and 8x8 1-star, 10x10 2-star; up to
`--per-shape` of each, in file order) and the hand-made ones of 5x5 to 10x10; Queens, LinkedIn and community
levels of sizes 6-11 (up to `--per-shape` of each size). 14x14 3-star boards are left out: a grade there takes
about a minute. Raw: for each designed board, one raw generated candidate of the same (size, stars), grown with
the current growth (a drawn band, no looks gate), made unique by the generator's repair and graded, seeded by its
index (`--seed`). Every board is graded with the default grading config; a board the grader cannot finish is left
out (it has no path to read).

30% of each class is held out; the model is fitted on the rest (features standardised, L2 penalty, classes weighted
equally) and the held-out AUC is printed per game. The hand-made Star Battle boards are few (11 of 5x5-10x10), so the
script also fits the Star Battle model without them and prints how the hand-made boards score against raw boards of
their sizes: how far the published boards carry to the hand-made style. The gate offset is the logit at the
`--gate-percentile` of the designed training boards: that share of designed boards scores under 50.

Re-run after any change to the grader's techniques or costs, or to growth (either side of the fit moves), and
commit the new fun_model.json.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from logistic_fit import auc, fit_standardised, model_entry  # noqa: E402

from starbattle_core.formats import read_jsonl  # noqa: E402
from starbattle_core.generator import GeneratorConfig, Slot, repair  # noqa: E402
from starbattle_core.generator.growth import grow_gated, grow_raw  # noqa: E402
from starbattle_core.grader import GradingConfig, grade  # noqa: E402
from starbattle_core.grader.experience import FEATURES, MODEL_FILE, path_features  # noqa: E402
from starbattle_core.layouts import layout_to_cells, sample_layouts  # noqa: E402
from starbattle_core.puzzle import Puzzle  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
DESIGNED = {
    "starbattle": ("starbattle/archive.jsonl", "starbattle/handmade.jsonl"),
    "queens": ("queens/linkedin.jsonl", "queens/community.jsonl"),
}
HANDMADE = "starbattle/handmade.jsonl"
STARBATTLE_SIZES = range(5, 11)
QUEENS_SIZES = range(6, 12)
BANDS = {"starbattle": ("easy", "medium", "hard", "expert"), "queens": ("easy", "medium", "hard")}


def designed_boards(game: str, per_shape: int, seed: int) -> list[tuple[Puzzle, bool]]:
    """The designed boards of a game, each with whether it is hand-made (always kept, however many per shape);
    each file is shuffled (seeded) first, so a file sorted by label gives every label its share."""
    boards: list[tuple[Puzzle, bool]] = []
    taken: Counter[tuple[str, int, int]] = Counter()
    sizes = QUEENS_SIZES if game == "queens" else STARBATTLE_SIZES
    for name in DESIGNED[game]:
        puzzles = list(read_jsonl(str(SHARED / name)))
        random.Random(seed).shuffle(puzzles)
        for puzzle in puzzles:
            key = (name, puzzle.size, puzzle.stars)
            if puzzle.size in sizes and (name == HANDMADE or taken[key] < per_shape):
                taken[key] += 1
                boards.append((puzzle, name == HANDMADE))
    return boards


def raw_unique(game: str, size: int, stars: int, seed: int, index: int, gated: bool = False) -> Puzzle | None:
    """One raw generated candidate of (size, stars), repaired to a unique solution, or None when it stays ambiguous.
    `gated`: grown as the pipeline grows them, through the looks gate and the give-away rule (what the fun gate
    sees)."""
    config = GeneratorConfig()
    rng = random.Random(f"{seed}-{game}-{index}")
    band = rng.choice(BANDS[game])
    layout = layout_to_cells(sample_layouts(size, stars, 1, np.random.default_rng([seed, index, size, stars]))[0])
    growth = (grow_gated if gated else grow_raw)(Slot(game, size, stars, band), layout, rng, config)
    if growth.regions is None:
        return None
    layout = growth.layout
    puzzle = Puzzle(size, stars, growth.regions, game, solution=layout)
    mended = repair(puzzle, layout, config.repair_rounds(game), rng, config.repair_sample)
    return mended.puzzle if mended.status == "unique" else None


def features_of(puzzle: Puzzle) -> list[float] | None:
    grading = GradingConfig()
    result = grade(puzzle, grading)
    if not result.solved or not result.steps:
        return None
    quick = grading.experience.queens_quick_cost if puzzle.game == "queens" else grading.experience.quick_cost
    measured = path_features(result.steps, grading.experience, quick, puzzle.game)
    return [measured[name] for name in FEATURES]


def _raw_row(job: tuple[str, int, int, int, int, bool]) -> list[float] | None:
    game, size, stars, seed, index, gated = job
    for attempt in range(5):  # the next index's draw when one stays ambiguous or cannot be graded to the end
        puzzle = raw_unique(game, size, stars, seed, index * 5 + attempt, gated)
        row = None if puzzle is None else features_of(puzzle)
        if row is not None:
            return row
    return None


def _map(function: Callable[[Any], Any], jobs: Iterable[Any], workers: int) -> list[Any]:
    jobs = list(jobs)
    if workers <= 1:
        return [function(job) for job in jobs]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(function, jobs, chunksize=4))


def fitted_model(
    x_designed: np.ndarray, x_raw: np.ndarray, percentile: float, penalty: float
) -> tuple[dict[str, object], Callable[[np.ndarray], np.ndarray]]:
    """The model entry for the file and its logit function (features clipped to the designed boards' range)."""
    train = np.vstack([x_designed, x_raw])
    labels = np.concatenate([np.ones(len(x_designed)), np.zeros(len(x_raw))])
    low, high = x_designed.min(axis=0), x_designed.max(axis=0)
    fit = fit_standardised(np.clip(train, low, high), labels, penalty)

    def logits(x: np.ndarray) -> np.ndarray:
        return fit.logits(np.clip(x, low, high))

    offset = float(np.percentile(logits(x_designed), percentile))
    return model_entry(FEATURES, fit, offset, low, high), lambda x: logits(x) - offset


def fit_game(
    game: str, per_shape: int, percentile: float, penalty: float, seed: int, workers: int, gated: bool
) -> dict[str, object]:
    designed = designed_boards(game, per_shape, seed)
    rows = _map(features_of, [p for p, _ in designed], workers)
    kept = [(row, hand, p) for row, (p, hand) in zip(rows, designed, strict=True) if row is not None]
    x_designed = np.array([row for row, _, _ in kept])
    handmade = np.array([hand for _, hand, _ in kept])
    shapes = [(p.size, p.stars) for _, _, p in kept]
    jobs = [(game, size, stars, seed, index, False) for index, (size, stars) in enumerate(shapes)]
    raw_rows = _map(_raw_row, jobs, workers)
    raw_kept = [(row, shape) for row, shape in zip(raw_rows, shapes, strict=True) if row is not None]
    x_raw = np.array([row for row, _ in raw_kept])
    raw_shapes = [shape for _, shape in raw_kept]

    split = np.random.default_rng(seed)
    held_designed = split.random(len(x_designed)) < 0.3
    held_raw = split.random(len(x_raw)) < 0.3
    entry, score = fitted_model(x_designed[~held_designed], x_raw[~held_raw], percentile, penalty)
    test_designed, test_raw = score(x_designed[held_designed]), score(x_raw[held_raw])
    held_auc = auc(test_designed, test_raw)
    print(
        f"{game}: {len(x_designed)} designed ({handmade.sum()} hand-made), {len(x_raw)} raw unique generated "
        f"(of {len(designed)} each drawn); held-out AUC {held_auc:.3f} (train "
        f"{auc(score(x_designed[~held_designed]), score(x_raw[~held_raw])):.3f}); the gate at the designed boards' "
        f"{percentile:g}th percentile passes {np.mean(test_designed >= 0):.1%} of held-out designed boards and "
        f"{np.mean(test_raw >= 0):.1%} of held-out raw ones"
    )
    for shape in sorted(set(shapes)):
        d = np.array([s == shape for s in shapes]) & held_designed
        r = np.array([s == shape for s in raw_shapes]) & held_raw
        if d.sum() >= 5 and r.sum() >= 5:
            shape_auc = auc(score(x_designed[d]), score(x_raw[r]))
            print(f"    {shape[0]}x{shape[0]} {shape[1]}-star: held-out AUC {shape_auc:.3f}")
    weights = entry["weights"]
    assert isinstance(weights, list)
    for i in sorted(range(len(FEATURES)), key=lambda i: -abs(weights[i])):
        print(
            f"    {FEATURES[i]:12s} weight {weights[i]:+.2f}  median designed {np.median(x_designed[:, i]):.3f}  "
            f"raw {np.median(x_raw[:, i]):.3f}"
        )
    if handmade.any():
        # How far the published boards carry: fit without the hand-made boards, score them against raw boards of
        # their own sizes (all of them: none was used to fit).
        hand_shapes = {s for s, hand in zip(shapes, handmade, strict=True) if hand}
        raw_near = np.array([s in hand_shapes for s in raw_shapes])
        _, published = fitted_model(x_designed[~handmade], x_raw[~held_raw], percentile, penalty)
        hand_scores = published(x_designed[handmade])
        print(
            f"    hand-made ({handmade.sum()}) under a fit without them: AUC against held-out raw boards of their "
            f"sizes {auc(hand_scores, published(x_raw[raw_near & held_raw])):.3f}, {np.mean(hand_scores >= 0):.0%} "
            f"pass the gate; under the full fit {np.mean(score(x_designed[handmade]) >= 0):.0%} pass"
        )
    if gated:
        # The pipeline's own candidates (looks-gated, no give-aways), never used to fit: drawn with another seed.
        jobs = [(game, size, stars, seed + 1, index, True) for index, (size, stars) in enumerate(shapes)]
        gated_rows = [row for row in _map(_raw_row, jobs, workers) if row is not None]
        gated_scores = score(np.array(gated_rows))
        print(
            f"    against {len(gated_rows)} looks-gated candidates (what the fun gate sees): AUC "
            f"{auc(test_designed, gated_scores):.3f}, {np.mean(gated_scores >= 0):.1%} pass the gate"
        )
    entry.update(
        gate_percentile=percentile,
        designed_boards=len(x_designed),
        handmade_boards=int(handmade.sum()),
        raw_boards=len(x_raw),
        held_out_auc=round(held_auc, 4),
    )
    return entry


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="print only; do not write the model file")
    parser.add_argument("--per-shape", type=int, default=100, help="designed boards per file and (size, stars)")
    parser.add_argument("--gate-percentile", type=float, default=10.0)
    parser.add_argument("--penalty", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=1, help="grading processes")
    parser.add_argument("--gated", action="store_true", help="also score the pipeline's looks-gated candidates")
    parser.add_argument("--games", nargs="+", default=["starbattle", "queens"], choices=["starbattle", "queens"])
    args = parser.parse_args()
    games = {
        game: fit_game(game, args.per_shape, args.gate_percentile, args.penalty, args.seed, args.workers, args.gated)
        for game in args.games
    }
    if not args.check:
        previous = json.loads(MODEL_FILE.read_text(encoding="utf-8"))["games"] if MODEL_FILE.exists() else {}
        fitted = {"fitted_by": "bench/fit_fun.py", "seed": args.seed, "games": {**previous, **games}}
        MODEL_FILE.write_text(json.dumps(fitted, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
