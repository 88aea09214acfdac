"""Generated boards against their bands: published = recomputed, the spread inside each band, the trial share.

For every band, `--seeds` boards (10x10 2-star by default) are generated; each is exported as the JSON that
`starbattle generate --json` prints, read back and graded as `starbattle grade` would. Reported per band:
- boards whose published difficulty, band or fun differ from the re-grade of the exported board (target 0);
- the difficulty quartiles and where they sit inside the band (0 = its lower edge, 1 = its upper edge, on a log
  scale; easy and expert are open at one end and measured against tuning's virtual edge, see tuning.py);
- the share of difficulty that hypothetical steps make (trial and error), median and mean.

    python bench/bench_generated_bands.py --seeds 10 --workers 2
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from starbattle_core.formats import puzzle_from_json  # noqa: E402
from starbattle_core.generator import GeneratorConfig, Slot, board_to_json, generate  # noqa: E402
from starbattle_core.generator.tuning import band_middle  # noqa: E402
from starbattle_core.grader import SOLVER_VERSION, GradingConfig, grade  # noqa: E402

BANDS = ("easy", "medium", "hard", "expert")


def one(job: tuple[str, int, int, int, float]) -> dict | None:
    band, seed, size, stars, budget = job
    grading = GradingConfig()
    generation = generate(Slot("starbattle", size, stars, band), seed, budget, GeneratorConfig(), grading)
    board = generation.board
    if board is None:
        return None
    published = board_to_json(board)
    regraded = grade(puzzle_from_json(published, where="exported"), grading)
    hypothetical = sum(s.cost for s in regraded.steps if s.chain)
    return {
        "band": band,
        "seed": seed,
        "difficulty": published["difficulty"],
        "fun": published["fun"],
        "same": (regraded.difficulty, regraded.band, regraded.experience.fun)
        == (published["difficulty"], published["band"], published["fun"]),
        "share": hypothetical / max(regraded.difficulty, 1),
        "tuned": published["tune_rounds"] > 0,
    }


def position(difficulty: int, band: str, grading: GradingConfig) -> float:
    """Where a difficulty sits in its band, 0 at the lower edge and 1 at the upper, on a log scale."""
    middle = band_middle(Slot("starbattle", 10, 2, band), grading)
    assert middle is not None
    low_quarter, _, high_quarter = middle
    # The middle half runs from 0.25 to 0.75.
    low = low_quarter / (high_quarter / low_quarter) ** 0.5
    high = high_quarter * (high_quarter / low_quarter) ** 0.5
    return math.log(difficulty / low) / math.log(high / low)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--stars", type=int, default=2)
    parser.add_argument("--budget", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--bands", nargs="*", default=list(BANDS))
    args = parser.parse_args()
    grading = GradingConfig()
    print(
        f"solver {SOLVER_VERSION}; cutoffs {grading.easy_below}/{grading.medium_below}/{grading.hard_below}; "
        f"{args.size}x{args.size} {args.stars}-star, seeds {args.first_seed}..{args.first_seed + args.seeds - 1}"
    )
    jobs = [
        (band, seed, args.size, args.stars, args.budget)
        for band in args.bands
        for seed in range(args.first_seed, args.first_seed + args.seeds)
    ]
    with multiprocessing.Pool(args.workers) as pool:
        records = [r for r in pool.map(one, jobs, chunksize=1) if r is not None]
    print(f"{len(records)}/{len(jobs)} boards made; published != regraded: {sum(not r['same'] for r in records)}")
    print(
        f"{'band':7} {'n':>3} {'tuned':>5} {'q1':>7} {'median':>7} {'q3':>7}  {'position q1/med/q3':>20}  trial share"
    )
    for band in args.bands:
        rows = [r for r in records if r["band"] == band]
        if len(rows) < 2:
            continue
        q1, med, q3 = statistics.quantiles([r["difficulty"] for r in rows], n=4, method="inclusive")
        where = "/".join(f"{position(int(q), band, grading):.2f}" for q in (q1, med, q3))
        shares = [r["share"] for r in rows]
        print(
            f"{band:7} {len(rows):>3} {sum(r['tuned'] for r in rows):>5} {q1:>7.0f} {med:>7.0f} {q3:>7.0f}  "
            f"{where:>20}  median {statistics.median(shares):.0%}, mean {statistics.mean(shares):.0%}"
        )


if __name__ == "__main__":
    main()
