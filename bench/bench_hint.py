"""Benchmark of `hint` on 10x10 boards (in-process timings): how long a player waits after clicking "hint".

The players' states are taken along each board's own solve path: for a seeded sample of boards, the marks after a
seeded random number of the grader's steps (right marks only; a wrong mark is answered before any technique runs),
plus the state just before the hardest step (the slowest hint a player can ask for on that board). Prints the
median, 90th percentile and max per kind of state, over every state and repeat.

    python bench/bench_hint.py                     # 10x10 hand-made boards and a sample of 10x10 archive boards
    python bench/bench_hint.py --boards 40 --states 5 --repeat 3
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from starbattle_core.formats import puzzle_from_json  # noqa: E402
from starbattle_core.grader import grade  # noqa: E402
from starbattle_core.grader.hint import hint  # noqa: E402
from starbattle_core.puzzle import Puzzle  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
FILES = ["starbattle/handmade.jsonl", "starbattle/archive.jsonl"]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def boards(count: int, seed: int) -> list[Puzzle]:
    rows = [
        json.loads(line)
        for name in FILES
        for line in (SHARED / name).read_text(encoding="utf-8").splitlines()
        if line.strip() and json.loads(line)["size"] == 10
    ]
    rng = random.Random(seed)
    chosen = rng.sample(rows, min(count, len(rows)))
    return [puzzle_from_json(row, where=f"board {i}") for i, row in enumerate(chosen)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--boards", type=int, default=30, help="10x10 boards sampled from the shared data")
    parser.add_argument("--states", type=int, default=4, help="random states along each solve path")
    parser.add_argument("--repeat", type=int, default=3, help="timings per state")
    parser.add_argument("--seed", type=int, default=20261201)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    timings: dict[str, list[float]] = {"along the path": [], "before the hardest step": []}
    sample = boards(args.boards, args.seed)
    for puzzle in sample:
        steps = grade(puzzle).steps
        hardest = max(range(len(steps)), key=lambda i: steps[i].cost)
        cuts = [("along the path", rng.randrange(len(steps))) for _ in range(args.states)]
        cuts.append(("before the hardest step", hardest))
        for kind, cut in cuts:
            stars = empties = 0
            for step in steps[:cut]:
                stars |= step.stars
                empties |= step.empties
            for _ in range(args.repeat):
                start = time.perf_counter()
                answer = hint(puzzle, stars, empties)
                timings[kind].append((time.perf_counter() - start) * 1000.0)
                assert answer.status == "step", (puzzle.id, cut, answer.message)
    print(f"hint on {len(sample)} 10x10 boards, {args.repeat} timings per state (ms):")
    everything = [t for values in timings.values() for t in values]
    for kind, values in [*timings.items(), ("all states", everything)]:
        print(
            f"  {kind:24} n={len(values):4}  median {statistics.median(values):7.1f}  "
            f"p90 {percentile(values, 0.9):7.1f}  max {max(values):7.1f}"
        )


if __name__ == "__main__":
    main()
