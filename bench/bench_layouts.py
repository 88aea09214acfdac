"""Benchmark of the layout bank, and the layout-variety measurement of the generator issue.

Run from the repository root:  python bench/bench_layouts.py [--repeat 5] [--big]

Prints, in-process (median, 95th percentile and max over repeats, cold caches for every count):
  1. count_layouts for every (N, K) of ../shared/docs/layout_counts.txt, checked against the file;
     with --big also the boards beyond the file up to 14x14 (about two minutes more);
  2. building the 10x10 2-star bank (146,510 layouts), tables warm and cold;
  3. sampling speed: microseconds per layout in batches of 10,000, and milliseconds for one draw;
  4. layout variety on 10x10 2-star: the share of layout pairs sharing more than 60% of their stars, all pairs
     inside windows of consecutive layouts in enumeration order, against uniform random draws.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np

from starbattle_core import layouts
from starbattle_core.layout_tables import layout_tables
from starbattle_core.layouts import count_layouts, layout_bank, sample_layouts

REPO = Path(__file__).resolve().parents[1]
LAYOUT_COUNTS = REPO.parent / "shared" / "docs" / "layout_counts.txt"
# Boards beyond the golden file. 1-star values are OEIS A002464; the others are this counter's own earlier
# results (a regression check, not an independent one). 14x14 2-star alone takes about a minute and a half.
BEYOND_THE_FILE: list[tuple[int, int, int | None]] = [
    (13, 1, 831_283_558),
    (14, 1, 11_661_506_218),
    (12, 3, 2),
    (13, 3, 42_732),
    (14, 3, 596_777_194),
    (12, 2, 6_798_881_226),
    (13, 2, 1_567_979_086_356),
    (14, 2, 390_673_279_156_006),
]
SIMILAR = 0.6  # the generator's near-duplicate threshold: more than 60% of the stars shared


def forget_caches() -> None:
    count_layouts.cache_clear()
    layout_tables.cache_clear()
    layouts._bank.cache_clear()


def timed(call: Callable[[], object], repeat: int, cold: bool = True) -> tuple[list[float], object]:
    """Milliseconds of each of `repeat` calls (caches forgotten before each when cold) and the last result."""
    spent = []
    result = None
    for _ in range(repeat):
        if cold:
            forget_caches()
        start = time.perf_counter()
        result = call()
        spent.append((time.perf_counter() - start) * 1000)
    return spent, result


def summary(ms: list[float]) -> str:
    return f"median {np.median(ms):9.2f} ms  p95 {np.percentile(ms, 95):9.2f} ms  max {max(ms):9.2f} ms"


def golden_counts() -> list[tuple[int, int, int | None]]:
    rows = [line.split() for line in LAYOUT_COUNTS.read_text().splitlines()]
    return [(int(n), int(k), int(c)) for n, k, c in (r for r in rows if r and not r[0].startswith("#"))]


def bench_counts(boards: list[tuple[int, int, int | None]], repeat: int) -> None:
    total_median = 0.0
    for size, stars, expected in boards:
        ms, got = timed(partial(count_layouts, size, stars), repeat)
        total_median += float(np.median(ms))
        check = "" if expected is None else ("  ok" if got == expected else f"  MISMATCH, file says {expected:,}")
        print(f"  {size:2}x{size:<2} {stars}-star {got:>18,}  {summary(ms)}{check}")
    print(f"  sum of medians: {total_median:.0f} ms")


def bench_bank(repeat: int) -> None:
    ms, bank = timed(lambda: layout_bank(10, 2), repeat)
    assert isinstance(bank, np.ndarray)
    print(f"  10x10 2-star bank {bank.shape}, {bank.nbytes / 1e6:.1f} MB, tables cold: {summary(ms)}")
    count_layouts(10, 2)

    def bank_only() -> np.ndarray:
        layouts._bank.cache_clear()
        return layout_bank(10, 2)

    ms, _ = timed(bank_only, repeat, cold=False)
    print(f"  10x10 2-star bank, tables warm:           {summary(ms)}")


def bench_sampling(repeat: int) -> None:
    for size, stars in [(10, 2), (11, 2), (12, 1), (14, 3)]:
        count_layouts(size, stars)  # tables warm: this measures drawing, not counting
        ms, _ = timed(partial(sample_layouts, size, stars, 10_000, 1), repeat, cold=False)
        one, _ = timed(partial(sample_layouts, size, stars, 1, 2), 50, cold=False)
        per_layout = float(np.median(ms)) * 1000 / 10_000
        print(
            f"  {size:2}x{size:<2} {stars}-star: {per_layout:7.1f} us/layout in batches of 10,000;"
            f" one draw: {summary(one)}"
        )


def star_masks(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A 10x10 layout's 100 cells as two uint64 words (rows 0-4 and rows 5-9), for popcounts of overlaps."""
    low = np.zeros(len(rows), dtype=np.uint64)
    high = np.zeros(len(rows), dtype=np.uint64)
    for r in range(5):
        low |= rows[:, r].astype(np.uint64) << np.uint64(10 * r)
        high |= rows[:, r + 5].astype(np.uint64) << np.uint64(10 * r)
    return low, high


def similar_pairs(rows: np.ndarray, stars_total: int) -> tuple[int, int, int]:
    """Among the given layouts: (pairs sharing more than SIMILAR of their stars, pairs sharing at least SIMILAR,
    all pairs). "More than" is the generator's near-duplicate rule: star_overlap(a, b, stars_total) > 0.6."""
    low, high = star_masks(rows)
    shared = np.bitwise_count(low[:, None] & low[None, :]) + np.bitwise_count(high[:, None] & high[None, :])
    upper = shared[np.triu(np.ones(shared.shape, dtype=bool), k=1)]
    return int((upper > SIMILAR * stars_total).sum()), int((upper >= SIMILAR * stars_total).sum()), len(upper)


def bench_variety(seed: int) -> None:
    bank = layout_bank(10, 2)
    stars_total = 20
    print(
        f"  10x10 2-star, {len(bank):,} layouts; similar = more than {SIMILAR:.0%} of the {stars_total} stars shared"
        f" (at least {SIMILAR:.0%} in brackets)"
    )
    for window in (100, 1000):
        shares, shares_at_least = [], []
        for start in range(0, len(bank) - window + 1, window):
            similar, at_least, pairs = similar_pairs(bank[start : start + window], stars_total)
            shares.append(similar / pairs)
            shares_at_least.append(at_least / pairs)
        share = np.array(shares)
        print(
            f"  enumeration order, windows of {window:4} consecutive layouts: first window {shares[0]:6.1%}"
            f" ({shares_at_least[0]:.1%}), mean over {len(shares)} windows {share.mean():6.1%}"
            f" ({np.mean(shares_at_least):.1%}), min {share.min():.1%}, max {share.max():.1%}"
        )
    rng = np.random.default_rng(seed)
    for draws in (100, 1000, 3000):
        similar, at_least, pairs = similar_pairs(sample_layouts(10, 2, draws, rng), stars_total)
        print(
            f"  uniform random draws, {draws:4} layouts ({pairs:>9,} pairs): {similar / pairs:6.2%}"
            f" ({at_least / pairs:.2%})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5, help="timed repetitions per measurement (default 5)")
    parser.add_argument("--big", action="store_true", help="also count the boards beyond the golden file (slow)")
    parser.add_argument("--seed", type=int, default=20261129, help="seed of the random draws")
    args = parser.parse_args()
    print(f"count_layouts, cold caches, {args.repeat} repeats each:")
    bench_counts(golden_counts(), args.repeat)
    if args.big:
        print("count_layouts beyond the golden file, 1 run each:")
        bench_counts(BEYOND_THE_FILE, 1)
    print("layout bank:")
    bench_bank(args.repeat)
    print("sampling (tables warm):")
    bench_sampling(args.repeat)
    print("layout variety:")
    bench_variety(args.seed)


if __name__ == "__main__":
    main()
