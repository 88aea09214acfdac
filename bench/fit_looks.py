"""Fit the looks model: a logistic regression per game telling real boards from raw generated candidates.

    python bench/fit_looks.py                 fit, print the held-out separation, write looks_model.json
    python bench/fit_looks.py --check         fit and print only (the model file is left alone)
    python bench/fit_looks.py --draw          fit the looks draw instead, write looks_draw_model.json (minutes)

Real boards: every board of ../shared/data for the game (Star Battle: archive, hand-made, labelled, at the
(size, stars) the generator is measured on; Queens: LinkedIn and community levels of sizes 6-12). Generated:
raw candidates of the current growth (one attempt each, no looks check, no repair), sizes drawn in the real
boards' proportions so that size tells the model nothing. Half of each class is held out; the model is fitted on
the other half (features standardised, L2 penalty, classes weighted equally) and the held-out AUC is printed.
A board outside the range the real training boards span on any feature is out of the model's support and scores
0 (held-out real boards can fall outside it too). The gate offset is the logit at the `--gate-percentile` of the
real training boards: that share of real boards scores under 50, and so does whatever generated board looks less
designed.

`--draw` fits the looks draw (looks.py) the same way, on looks.DRAW_FEATURES, one model per Queens size with enough
real boards, against the boards `generate` publishes with the draw off (seeds from `--seed` on, bands in turn, on
every core). The draw meets a board after repair, but grading, the band, fun and tuning then choose what is
published: rejection sampling turns what is published into the real boards when its density ratio is real against
published. (Fitted against the boards it meets, the draw left published Queens 9x9 boards further from LinkedIn's:
held-out AUC 0.71 against 0.67 fitted so, on bench/looks_auc.py's features of the time, --accepted 150.) Its offset
is the logit at the `--draw-percentile` (99) of those generated training boards, where the draw's chance reaches 1
(rejection sampling is exact when that is the largest odds; docs/engine.md has what the 95th and the largest cost
and bought). The script prints the share of held-out generated boards the draw keeps and the held-out AUC of real
against them. Fit the gate first: the draw meets what the gate passes. (`--draw --check --draw-games starbattle`
measures a Star Battle draw, which is not in the model file: see docs/engine.md.)

Re-run after any change to growth or repair (growth.py, designs.py, symmetry.py, shaping.py, repair.py, their data
files: the generated side moves) and commit the new looks_model.json and looks_draw_model.json;
bench/looks_auc.py then measures what still tells the two apart.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from logistic_fit import Standardised, auc, fit_standardised, model_entry  # noqa: E402

from starbattle_core.formats import read_jsonl  # noqa: E402
from starbattle_core.generator import GeneratorConfig, Slot, generate  # noqa: E402
from starbattle_core.generator.growth import grow_raw  # noqa: E402
from starbattle_core.generator.looks import (  # noqa: E402
    DRAW_FEATURES,
    DRAW_FILE,
    FEATURES,
    GATE_FEATURES,
    MODEL_FILE,
    draw_features,
    draw_key,
    gate_features,
)
from starbattle_core.layouts import layout_to_cells, sample_layouts  # noqa: E402
from starbattle_core.puzzle import Puzzle  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
REAL_FILES = {
    "starbattle": ("starbattle/archive.jsonl", "starbattle/handmade.jsonl", "starbattle/labelled.jsonl"),
    "queens": ("queens/linkedin.jsonl", "queens/community.jsonl"),
}
STARBATTLE_SHAPES = {(6, 1), (8, 1), (10, 2), (14, 3)}
QUEENS_SIZES = range(6, 13)
# The looks draw is fitted for a size with at least this many real boards (Queens 7x7 to 11x11); other sizes are
# published as they come out of the gate.
DRAW_LEAST_REAL = 100
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
            boards.append(Puzzle(size, stars, growth.regions, game, solution=growth.layout))
    return boards


def published_board(game: str, size: int, stars: int, seed: int) -> Puzzle | None:
    """The board `generate` publishes for the seed with the looks draw off, bands in turn by seed."""
    slot = Slot(game, size, stars, BANDS[game][seed % len(BANDS[game])])
    result = generate(slot, seed, 600.0, GeneratorConfig(looks_draw=False, max_candidates=300))
    return result.board.puzzle if result.board else None


def published_boards(game: str, size: int, stars: int, count: int, seed: int) -> list[Puzzle]:
    """The boards published for seeds seed..seed+count-1 with the draw off, on every core (seconds a board)."""
    with ProcessPoolExecutor() as pool:
        seeds = range(seed, seed + count)
        boards = pool.map(published_board, [game] * count, [size] * count, [stars] * count, seeds)
        return [board for board in boards if board is not None]


def fit_on_halves(
    x_real: np.ndarray, x_gen: np.ndarray, penalty: float, seed: int
) -> tuple[np.ndarray, np.ndarray, Standardised]:
    """Real (1) against generated (0), fitted on the half of each side not held out: the held-out masks and the fit."""
    split = np.random.default_rng(seed)
    held_real = split.random(len(x_real)) < 0.5
    held_gen = split.random(len(x_gen)) < 0.5
    train = np.vstack([x_real[~held_real], x_gen[~held_gen]])
    labels = np.concatenate([np.ones((~held_real).sum()), np.zeros((~held_gen).sum())])
    return held_real, held_gen, fit_standardised(train, labels, penalty)


def fit_draw(
    game: str, real: list[Puzzle], generated_count: int, percentile: float, penalty: float, seed: int
) -> dict[str, object]:
    """The looks draw of one size (and stars): `real` are the real boards of that size."""
    generated = published_boards(game, real[0].size, real[0].stars, generated_count, seed)
    x_real, x_gen = draw_matrix(real), draw_matrix(generated)
    held_real, held_gen, fit = fit_on_halves(x_real, x_gen, penalty, seed)
    train = np.vstack([x_real[~held_real], x_gen[~held_gen]])
    low, high = train.min(axis=0), train.max(axis=0)

    def logits(x: np.ndarray) -> np.ndarray:  # as the model file's reader computes them: features clipped
        return fit.logits(np.clip(x, low, high))

    offset = float(np.percentile(logits(x_gen[~held_gen]), percentile))
    test_real, test_gen = logits(x_real[held_real]), logits(x_gen[held_gen])
    kept = float(np.exp(np.minimum(test_gen - offset, 0.0)).mean())
    key = draw_key(game, real[0].size, real[0].stars)
    print(
        f"{key} draw: {len(real)} real, {len(generated)} boards published with the draw off; held-out AUC "
        f"{auc(test_real, test_gen):.3f}; chance 1 from the generated boards' {percentile:g}th percentile: the draw "
        f"keeps {kept:.1%} of held-out generated boards"
    )
    return {
        **model_entry(DRAW_FEATURES, fit, offset, low, high),
        "draw_percentile": percentile,
        "real_boards": len(real),
        "generated_boards": len(generated),
        "held_out_auc": round(auc(test_real, test_gen), 4),
        "held_out_kept": round(kept, 4),
    }


def matrix(boards: list[Puzzle], features: tuple[str, ...] = FEATURES) -> np.ndarray:
    return np.array([[gate_features(p)[f] for f in features] for p in boards])


def draw_matrix(boards: list[Puzzle]) -> np.ndarray:
    return np.array([[draw_features(p)[f] for f in DRAW_FEATURES] for p in boards])


def fit_game(game: str, generated_count: int, percentile: float, penalty: float, seed: int) -> dict[str, object]:
    real = real_boards(game)
    generated = raw_candidates(game, real, generated_count, seed)
    features = GATE_FEATURES[game]
    x_real, x_gen = matrix(real, features), matrix(generated, features)
    held_real, held_gen, fit = fit_on_halves(x_real, x_gen, penalty, seed)

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
    for name, weight in sorted(zip(features, fit.weights, strict=True), key=lambda t: -abs(t[1])):
        real_median = float(np.median(x_real[:, features.index(name)]))
        gen_median = float(np.median(x_gen[:, features.index(name)]))
        print(f"    {name:11s} weight {weight:+.2f}  median real {real_median:.3f}  generated {gen_median:.3f}")
    return {
        **model_entry(features, fit, offset, low, high),
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
    parser.add_argument("--draw", action="store_true", help="fit the looks draw (looks_draw_model.json)")
    parser.add_argument("--draw-games", nargs="+", default=["queens"], choices=("starbattle", "queens"))
    parser.add_argument("--draw-percentile", type=float, default=99.0)
    parser.add_argument("--draw-largest", type=int, default=12, help="sizes above this are not fitted")
    parser.add_argument("--draw-generated", type=int, default=600, help="boards published with the draw off, per size")
    args = parser.parse_args()
    if args.draw:
        drawn = {}
        for game in args.draw_games:
            real = real_boards(game)
            for (size, stars), seen in sorted(Counter((p.size, p.stars) for p in real).items()):
                if seen >= DRAW_LEAST_REAL and size <= args.draw_largest:
                    same = [p for p in real if (p.size, p.stars) == (size, stars)]
                    drawn[draw_key(game, size, stars)] = fit_draw(
                        game, same, args.draw_generated, args.draw_percentile, args.penalty, args.seed
                    )
        if not args.check:
            fitted = {"fitted_by": "bench/fit_looks.py --draw", "seed": args.seed, "games": drawn}
            DRAW_FILE.write_text(json.dumps(fitted, indent=1) + "\n", encoding="utf-8")
            print(f"wrote {DRAW_FILE.relative_to(ROOT)}")
        return
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
