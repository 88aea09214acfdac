"""Invariance of the grade on the real boards, and what it costs.

Every board is graded as stored and again under seeded symmetries (one of the 7 non-identity rotations and
reflections) with its regions relettered at random; a board "moves" when difficulty, band, fun or the multiset of
techniques differ (target: none). The cost: the time to find the canonical form (all 8 symmetries and the region
renumbering) against the grade itself, and the time the hypothetical steps' chains add (grade with and without).

    python bench/bench_invariance.py                          # the archive, 14x14 sampled (5 per label)
    python bench/bench_invariance.py --files queens/linkedin.jsonl --turns 2
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from starbattle_core.grader import SOLVER_VERSION, Grade, grade  # noqa: E402
from starbattle_core.grader.canonical import canonical_form, move_cells, symmetry_maps  # noqa: E402
from starbattle_core.puzzle import Puzzle, region_name  # noqa: E402
from starbattle_core.region_map import puzzle_from_symbols  # noqa: E402

SHARED = REPO.parent / "shared" / "data"


def turned(puzzle: Puzzle, symmetry: int, letters: list[int]) -> Puzzle:
    n = puzzle.size
    moved = symmetry_maps(n)[symmetry]
    regions = [0] * (n * n)
    for cell, region in enumerate(puzzle.regions):
        regions[moved[cell]] = letters[region]
    grid = [[region_name(regions[r * n + c]) for c in range(n)] for r in range(n)]
    return puzzle_from_symbols(
        grid,
        puzzle.stars,
        puzzle.game,
        given_stars=move_cells(puzzle.given_stars, moved),
        given_empty=move_cells(puzzle.given_empty, moved),
    )


def measure(result: Grade) -> tuple[object, ...]:
    return result.difficulty, result.band, result.experience.fun, sorted(Counter(s.code for s in result.steps).items())


def timed(function: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    value = function(*args, **kwargs)
    return value, (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", nargs="*", default=["starbattle/archive.jsonl"])
    parser.add_argument("--turns", type=int, default=1, help="seeded symmetry + relettering per board")
    parser.add_argument("--sample-14", type=int, default=5, help="14x14 boards per label (they take seconds)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"solver {SOLVER_VERSION}; measured in-process, one process")
    rows = [
        (name, json.loads(line))
        for name in args.files
        for line in (SHARED / name).read_text(encoding="utf-8").splitlines()
    ]
    big: dict[str, list[tuple[str, dict]]] = defaultdict(list)
    kept: list[tuple[str, dict]] = []
    for name, row in rows:
        (big[row.get("label") or "-"] if row["size"] >= 14 else kept).append((name, row))
    for label in sorted(big):
        kept += random.Random(args.seed).sample(big[label], min(args.sample_14, len(big[label])))
    from starbattle_core.formats import puzzle_from_json

    groups: dict[tuple[str, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    moved = band_moved = boards = 0
    for name, row in kept:
        puzzle = puzzle_from_json(row, where=row.get("id", ""))
        base, ms = timed(grade, puzzle)
        _, plain_ms = timed(grade, puzzle, chains=False)
        _, canonical_ms = timed(canonical_form, puzzle)
        group = groups[(name, puzzle.size)]
        group["grade"].append(ms)
        group["plain"].append(plain_ms)
        group["canonical"].append(canonical_ms)
        boards += 1
        for _ in range(args.turns):
            other = turned(puzzle, rng.randrange(1, 8), rng.sample(range(puzzle.size), puzzle.size))
            again = grade(other, chains=False)
            if measure(again) != measure(base):
                moved += 1
                band_moved += again.band != base.band
                print(f"MOVED {name} {row.get('id')}: {measure(base)[:3]} -> {measure(again)[:3]}", flush=True)
    print(f"\n{boards} boards x {args.turns} turn(s): {moved} moved (target 0), {band_moved} changed band")
    print("\nCost per board, ms (median / p95): grade with chains, grade without chains, canonical form")
    for (name, size), times in sorted(groups.items()):

        def cell(values: list[float]) -> str:
            ordered = sorted(values)
            return f"{statistics.median(ordered):8.2f} / {ordered[int(0.95 * (len(ordered) - 1))]:8.2f}"

        print(
            f"  {name:26} {size:>2}x{size:<2} n={len(times['grade']):4}  {cell(times['grade'])}  "
            f"{cell(times['plain'])}  {cell(times['canonical'])}"
        )


if __name__ == "__main__":
    main()
