"""Fit the looks model: a logistic regression per game telling real boards from raw generated candidates.

    python bench/fit_looks.py                 fit, print the held-out separation, write looks_model.json
    python bench/fit_looks.py --check         fit and print only (the model file is left alone)

Real boards: every board of ../shared/data for the game (Star Battle: archive, hand-made, labelled, at the
(size, stars) the generator is measured on; Queens: LinkedIn and community levels of sizes 6-12). Generated:
raw candidates of the current growth (one attempt each, no looks check, no repair), sizes drawn in the real
boards' proportions so that size tells the model nothing. Half of each class is held out; the model is fitted on
the other half (features standardised, L2 penalty, classes weighted equally) and the held-out AUC is printed.
A board outside the range the real training boards span on any feature is out of the model's support and scores
0 (held-out real boards can fall outside it too). The gate offset is the logit at the `--gate-percentile` of the
real training boards: that share of real boards scores under 50, and so does whatever generated board looks less
designed.

Re-run after any change to growth (growth.py, designs.py, symmetry.py, shaping.py, their data files: the generated
side moves) and commit the new looks_model.json; bench/looks_auc.py then measures what still tells the two apart.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from logistic_fit import auc, fit_standardised, model_entry  # noqa: E402

from starbattle_core.formats import read_jsonl  # noqa: E402
from starbattle_core.generator import GeneratorConfig, Slot  # noqa: E402
from starbattle_core.generator.growth import grow_raw  # noqa: E402
from starbattle_core.generator.looks import FEATURES, MODEL_FILE, looks_features  # noqa: E402
from starbattle_core.layouts import layout_to_cells, sample_layouts  # noqa: E402
from starbattle_core.puzzle import Puzzle  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
REAL_FILES = {
    "starbattle": ("starbattle/archive.jsonl", "starbattle/handmade.jsonl", "starbattle/labelled.jsonl"),
    "queens": ("queens/linkedin.jsonl", "queens/community.jsonl"),
}
STARBATTLE_SHAPES = {(6, 1), (8, 1), (10, 2), (14, 3)}
QUEENS_SIZES = range(6, 13)
BANDS = {"starbattle": ("easy", "medium", "hard", "expert"), "queens": ("easy", "medium", "hard")}


def real_boards(game: str) -> list[Puzzle]:
    boards = [p for name in REAL_FILES[game] for p in read_jsonl(str(SHARED / name))]
    if game == "queens":
        return [p for p in boards if p.size in QUEENS_SIZES]
    return [p for p in boards if (p.size, p.stars) in STARBATTLE_SHAPES]


def raw_candidates(game: str, real: list[Puzzle], count: int, seed: int) -> list[Puzzle]:
    """`count` raw growths, (size, stars, band) drawn in the real boards' size proportions."""
    rng = random.Random(seed)
    shapes = Counter((p.size, p.stars) for p in real)
    keys = sorted(shapes)
    # Shaped without its spread offset: the offset lowers the size spread on purpose, for the repair and selection
    # that widen it after the looks gate; a model fitted against it would learn to gate the offset away.
    config = GeneratorConfig(shaping_spread_offset={})
    boards: list[Puzzle] = []
    index = 0
    while len(boards) < count:
        size, stars = rng.choices(keys, weights=[shapes[k] for k in keys])[0]
        band = rng.choice(BANDS[game])
        slot = Slot(game, size, stars, band)
        layout_rng = np.random.default_rng([seed, index])
        layout = layout_to_cells(sample_layouts(size, stars, 1, layout_rng)[0])
        growth = grow_raw(slot, layout, random.Random(f"{seed}-{index}"), config)
        index += 1
        if growth.regions is not None:
            boards.append(Puzzle(size, stars, growth.regions, game, solution=layout))
    return boards


def matrix(boards: list[Puzzle]) -> np.ndarray:
    return np.array([[looks_features(p)[f] for f in FEATURES] for p in boards])


def fit_game(game: str, generated_count: int, percentile: float, penalty: float, seed: int) -> dict[str, object]:
    real = real_boards(game)
    generated = raw_candidates(game, real, generated_count, seed)
    x_real, x_gen = matrix(real), matrix(generated)
    split = np.random.default_rng(seed)
    held_real = split.random(len(real)) < 0.5
    held_gen = split.random(len(generated)) < 0.5
    train = np.vstack([x_real[~held_real], x_gen[~held_gen]])
    labels = np.concatenate([np.ones((~held_real).sum()), np.zeros((~held_gen).sum())])
    fit = fit_standardised(train, labels, penalty)

    low, high = x_real[~held_real].min(axis=0), x_real[~held_real].max(axis=0)

    def logits(x: np.ndarray) -> np.ndarray:
        inside = ((x >= low) & (x <= high)).all(axis=1)
        return np.where(inside, fit.logits(x), -np.inf)

    offset = float(np.percentile(logits(x_real[~held_real]), percentile))
    test_real, test_gen = logits(x_real[held_real]), logits(x_gen[held_gen])
    print(
        f"{game}: {len(real)} real, {len(generated)} raw generated; held-out AUC {auc(test_real, test_gen):.3f} "
        f"(train {auc(logits(x_real[~held_real]), logits(x_gen[~held_gen])):.3f}); gate at the real boards' "
        f"{percentile:g}th percentile passes {np.mean(test_real >= offset):.1%} of held-out real boards and "
        f"{np.mean(test_gen >= offset):.1%} of held-out raw generated ones"
    )
    for name, weight in sorted(zip(FEATURES, fit.weights, strict=True), key=lambda t: -abs(t[1])):
        real_median = float(np.median(x_real[:, FEATURES.index(name)]))
        gen_median = float(np.median(x_gen[:, FEATURES.index(name)]))
        print(f"    {name:11s} weight {weight:+.2f}  median real {real_median:.3f}  generated {gen_median:.3f}")
    return {
        **model_entry(FEATURES, fit, offset, low, high),
        "gate_percentile": percentile,
        "real_boards": len(real),
        "generated_boards": len(generated),
        "held_out_auc": round(auc(test_real, test_gen), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="print only; do not write the model file")
    parser.add_argument("--generated", type=int, default=800, help="raw generated candidates per game")
    parser.add_argument("--gate-percentile", type=float, default=10.0)
    parser.add_argument("--penalty", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    games = {
        game: fit_game(game, args.generated, args.gate_percentile, args.penalty, args.seed)
        for game in ("starbattle", "queens")
    }
    if not args.check:
        fitted = {"fitted_by": "bench/fit_looks.py", "seed": args.seed, "games": games}
        MODEL_FILE.write_text(json.dumps(fitted, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {MODEL_FILE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
