"""Measure the generator (in-process timings; run on a quiet machine for figures to quote).

    python bench/bench_generator.py --looks        looks score and shape features: real boards vs raw generated
    python bench/bench_generator.py --unique       share of attempts ending unique without and with repair
    python bench/bench_generator.py --slots        seconds to one accepted board for each of the seven daily slots
    python bench/bench_generator.py --experience   experience-score parts: hand-made, raw generated, accepted
    python bench/bench_generator.py --variety      10x10 2-star layout pairs sharing > 60% of stars: windows vs random

With no option, everything runs (several minutes). `--seeds N` sets the seeds per slot, `--attempts N` the
attempts for --unique, `--budget S` the seconds per slot and seed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from starbattle_core.formats import read_jsonl  # noqa: E402
from starbattle_core.generator import (  # noqa: E402
    GeneratorConfig,
    Slot,
    generate,
    grow_queens_regions,
    grow_starbattle_regions,
    looks_features,
    looks_score,
    near_duplicate,
    repair,
)
from starbattle_core.generator.looks import FEATURES  # noqa: E402
from starbattle_core.grader import grade  # noqa: E402
from starbattle_core.layouts import enumerate_layouts, layout_to_cells, sample_layouts  # noqa: E402
from starbattle_core.puzzle import Puzzle  # noqa: E402

SHARED = ROOT.parent / "shared" / "data"
REAL = {
    "starbattle/handmade": "starbattle/handmade.jsonl",
    "starbattle/archive": "starbattle/archive.jsonl",
    "queens/linkedin": "queens/linkedin.jsonl",
    "queens/community": "queens/community.jsonl",
}
DAILY = [
    Slot("starbattle", 10, 2, "easy"),
    Slot("starbattle", 10, 2, "medium"),
    Slot("starbattle", 10, 2, "hard"),
    Slot("starbattle", 10, 2, "expert"),
    Slot("queens", 9, 1, "easy"),
    Slot("queens", 9, 1, "medium"),
    Slot("queens", 9, 1, "hard"),
]


def pct(values: Sequence[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def raw_board(game: str, size: int, stars: int, seed: int) -> tuple[Puzzle, int]:
    """A freshly grown board (no repair) and its intended solution."""
    layout = layout_to_cells(sample_layouts(size, stars, 1, np.random.default_rng([seed, size, stars]))[0])
    rng = random.Random(seed)
    if game == "queens":
        regions = grow_queens_regions(size, layout, rng).regions
    else:
        regions = grow_starbattle_regions(size, stars, layout, rng).regions
    assert regions is not None
    return Puzzle(size, stars, regions, game, solution=layout), layout


def bench_looks(count: int) -> None:
    print("== looks: score percentiles (5/10/50/90) and feature medians ==")
    groups: dict[str, list[Puzzle]] = {name: list(read_jsonl(str(SHARED / f))) for name, f in REAL.items()}
    groups["generated starbattle 10x10 2-star (raw)"] = [raw_board("starbattle", 10, 2, s)[0] for s in range(count)]
    groups["generated queens 9x9 (raw)"] = [raw_board("queens", 9, 1, s)[0] for s in range(count)]
    gate = GeneratorConfig().looks_gate
    real_scores: list[float] = []
    for name, boards in groups.items():
        scores = [looks_score(p) for p in boards]
        if not name.startswith("generated"):
            real_scores += scores
        features = {f: statistics.median(looks_features(p)[f] for p in boards) for f in FEATURES}
        shown = " ".join(f"{f}={v:.2f}" for f, v in features.items())
        passing = sum(s >= gate for s in scores) / len(scores)
        print(
            f"{name:42s} n={len(boards):5d} score {pct(scores, 5):5.1f} {pct(scores, 10):5.1f} "
            f"{pct(scores, 50):5.1f} {pct(scores, 90):5.1f}  pass {passing:6.1%}  {shown}"
        )
    print(
        f"real boards pooled: n={len(real_scores)}, 5th percentile {pct(real_scores, 5):.1f} "
        f"(the gate is {gate:g}), 1st {pct(real_scores, 1):.1f}"
    )


def bench_unique(attempts: int) -> None:
    print(f"== unique share per attempt ({attempts} attempts each) ==")
    config = GeneratorConfig()
    for game, size, stars in (("queens", 9, 1), ("starbattle", 10, 2)):
        raw = repaired = 0
        rounds: list[int] = []
        start = time.perf_counter()
        for seed in range(attempts):
            puzzle, layout = raw_board(game, size, stars, seed)
            mended = repair(puzzle, layout, config.repair_rounds(game), random.Random(seed), config.repair_sample)
            raw += mended.status == "unique" and mended.rounds == 0
            if mended.status == "unique":
                repaired += 1
                rounds.append(mended.rounds)
        seconds = (time.perf_counter() - start) / attempts
        print(
            f"{game} {size}x{size} {stars}-star: unique without repair {raw / attempts:.1%}, with repair "
            f"{repaired / attempts:.1%} (median rounds {statistics.median(rounds) if rounds else 0}, "
            f"{seconds * 1000:.0f} ms per attempt)"
        )


def bench_slots(seeds: int, budget: float) -> list:
    print(f"== seconds to one accepted board, {seeds} seeds per slot, budget {budget:g} s ==")
    accepted = []
    day = []
    for slot in DAILY:
        times, missed, candidates = [], 0, []
        for seed in range(seeds):
            start = time.perf_counter()
            generation = generate(slot, seed, budget)
            times.append(time.perf_counter() - start)
            candidates.append(generation.counters.candidates)
            if generation.board is None:
                missed += 1
            else:
                accepted.append(generation.board)
        day.append(statistics.median(times))
        print(
            f"{slot.game:10s} {slot.size}x{slot.size} {slot.stars}-star {slot.band:6s}: "
            f"median {pct(times, 50):6.1f} s, p90 {pct(times, 90):6.1f} s, max {max(times):6.1f} s, "
            f"candidates median {pct(candidates, 50):.0f}, budget hit {missed}/{seeds}"
        )
    print(f"a day of seven boards, sum of medians: {sum(day):.1f} s")
    return accepted


def parts(grades: list) -> str:
    solved = [g for g in grades if g.solved]
    if not solved:
        return "none solved"
    e = [g.experience for g in solved]
    return (
        f"n={len(solved)} climax median {statistics.median(x.climax for x in e):.2f}, a-ha mean "
        f"{statistics.mean(x.aha for x in e):.1f}, follow-up median "
        f"{statistics.median(x.follow_up for x in e):.2f}, grind median {statistics.median(x.grind for x in e)}, "
        f"fun median {statistics.median(x.fun for x in e):.1f}"
    )


def bench_experience(count: int, accepted: list) -> None:
    print("== experience parts ==")
    hand = list(read_jsonl(str(SHARED / "starbattle/handmade.jsonl")))
    print(f"hand-made star battle          {parts([grade(p) for p in hand])}")
    linkedin = list(read_jsonl(str(SHARED / "queens/linkedin.jsonl")))[:count]
    print(f"linkedin queens (first {count})     {parts([grade(p) for p in linkedin])}")
    config = GeneratorConfig()
    for game, size, stars in (("starbattle", 10, 2), ("queens", 9, 1)):
        grades = []
        for seed in range(count):
            puzzle, layout = raw_board(game, size, stars, seed)
            mended = repair(puzzle, layout, config.repair_rounds(game), random.Random(seed), config.repair_sample)
            if mended.status == "unique":
                grades.append(grade(mended.puzzle))
        print(f"raw generated {game} {size}x{size} {parts(grades)}")
    if accepted:
        print(f"accepted (--slots boards)       {parts([b.grade for b in accepted])}")


def bench_variety(window: int, draws: int) -> None:
    print("== layout variety, 10x10 2-star: pairs sharing > 60% of stars ==")
    consecutive = []
    for rows in enumerate_layouts(10, 2):
        consecutive.append(layout_to_cells(rows))
        if len(consecutive) == window:
            break
    random_draws = [layout_to_cells(rows) for rows in sample_layouts(10, 2, draws, 2026)]
    for name, group in (("first window in enumeration order", consecutive), ("random draws", random_draws)):
        pairs = [(a, b) for i, a in enumerate(group) for b in group[i + 1 :]]
        share = sum(near_duplicate(a, b) for a, b in pairs) / len(pairs)
        print(f"{name:36s} {len(group)} layouts: {share:.2%} of {len(pairs)} pairs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    for flag in ("looks", "unique", "slots", "experience", "variety"):
        parser.add_argument(f"--{flag}", action="store_true")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--attempts", type=int, default=100)
    parser.add_argument("--budget", type=float, default=120.0)
    args = parser.parse_args()
    everything = not any((args.looks, args.unique, args.slots, args.experience, args.variety))
    if everything or args.looks:
        bench_looks(150)
    if everything or args.unique:
        bench_unique(args.attempts)
    if everything or args.variety:
        bench_variety(200, 200)
    accepted = bench_slots(args.seeds, args.budget) if everything or args.slots else []
    if everything or args.experience:
        bench_experience(40, accepted)


if __name__ == "__main__":
    main()
