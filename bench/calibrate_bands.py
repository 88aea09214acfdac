"""Star Battle band cutoffs derived from labelled boards, with a held-out check.

The labels (read from ../shared/data for measurement only, never copied):
- `starbattle/archive.jsonl`: a puzzle site's 10x10 2-star boards labelled medium / hard;
- `starbattle/labelled.jsonl`: a puzzle app's 10x10 2-star and 14x14 3-star packs labelled normal / hard, and
  KrazyDad 10x10 2-star boards with their published "logic work" figure.

The published boards are 10x10 2-star, so the cutoffs are fitted there. Every group (source and label) is split
in two by a seeded shuffle; the cutoffs are fitted on one half only:
- medium | hard: the difficulty that best separates medium/normal from hard boards (balanced accuracy);
- easy | medium: the 10th percentile of the medium/normal boards (easy is easier than nine in ten boards that
  sites call medium);
- hard | expert: the 75th percentile of the hard boards (expert is the hardest quarter of what sites call hard).
The other half scores them: how often the medium/hard cutoff agrees with the labels, the bands each label lands
in, the AUC of normal against hard per size and the Spearman correlation of difficulty with logic work.

With --with-14 the 14x14 3-star boards of both publishers are graded too (the site's hard ones take most of half
an hour on two cores) and the 10x10 cutoffs are carried over to 14x14 by what the same labels score at both sizes:
for each publisher and label, the ratio of its 14x14 median to its 10x10 median (fit half); the size factor is the
median of those ratios, and each 14x14 cutoff is the fitted 10x10 one times the factor (two significant figures).
One factor for all three keeps the bands' widths of 10x10, and the median keeps one label that changes its meaning
with the size (the site's 14x14 hard boards need whole-board chains of chains, its 10x10 ones seldom a trial step)
from setting the scale. The held-out half checks it: at each size, the bands each label lands in, and per
publisher the medium|hard agreement. Each group's quantile mapping (the 10x10 cutoff's quantile in the group's
10x10 boards, read in its 14x14 boards) is printed beside it as the cross-check.

    python bench/calibrate_bands.py --workers 2                 # grade, fit, score; prints the YAML lines
    python bench/calibrate_bands.py --with-14 --workers 2 --json calibration.jsonl   # and the 14x14 fit
    python bench/calibrate_bands.py --graded calibration.jsonl  # reuse the grades of an earlier run (--json)
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from starbattle_core.formats import puzzle_from_json  # noqa: E402
from starbattle_core.grader import SOLVER_VERSION, BandCutoffs, GradingConfig, grade  # noqa: E402

SHARED = REPO.parent / "shared" / "data" / "starbattle"


def labelled_rows(with_14: bool) -> list[dict]:
    rows = []
    for name in ("archive.jsonl", "labelled.jsonl"):
        for line in (SHARED / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            label = row.get("label") or ""
            wanted = row["size"] == 10 or (with_14 and row["size"] == 14)
            if wanted and (label in ("medium", "normal", "hard") or label.startswith("logic work")):
                row["file"] = name
                rows.append(row)
    return rows


def grade_row(row: dict) -> dict:
    board = {key: value for key, value in row.items() if key != "file"}  # "file" is ours, not the board's
    result = grade(puzzle_from_json(board, where=row["id"]), chains=False)
    label = row["label"]
    return {
        "id": row["id"],
        "file": row["file"],
        "size": row["size"],
        "label": label,
        "logic_work": int(label.split()[-1]) if label.startswith("logic work") else None,
        "difficulty": result.difficulty,
        "solved": result.solved,
        "hypothetical": sum(s.cost for s in result.steps if s.chain or s.code.startswith(("H", "F"))),
    }


def ranks(values: list[float]) -> np.ndarray:
    """Ranks 1..n, ties sharing their mean rank."""
    array = np.asarray(values, float)
    order = array.argsort(kind="stable")
    ranked = np.empty(len(array))
    ranked[order] = np.arange(1, len(array) + 1)
    for value in np.unique(array):
        tied = array == value
        ranked[tied] = ranked[tied].mean()
    return ranked


def spearman(a: list[float], b: list[float]) -> float:
    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def auc(higher: list[int], lower: list[int]) -> float:
    wins = sum((h > low) + 0.5 * (h == low) for h in higher for low in lower)
    return wins / (len(higher) * len(lower))


def best_split(easier: list[int], harder: list[int]) -> int:
    """The cutoff c (easier below c, harder at or above) with the best balanced accuracy; ties: the lowest."""
    best, best_score = 0, -1.0
    for c in sorted(set(easier) | set(harder)):
        score = (sum(d < c for d in easier) / len(easier) + sum(d >= c for d in harder) / len(harder)) / 2
        if score > best_score:
            best, best_score = c, score
    return best


def round_cutoff(value: float) -> int:
    """Two significant figures: a cutoff is a claim about the scale, not about one board."""
    digits = max(0, len(str(int(value))) - 2)
    return int(round(value / 10**digits) * 10**digits)


def split_halves(records: list[dict], seed: int) -> tuple[list[dict], list[dict]]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in records:
        groups[(r["file"], r["size"], "logic" if r["logic_work"] is not None else r["label"])].append(r)
    fit, held = [], []
    rng = random.Random(seed)
    for key in sorted(groups):
        members = sorted(groups[key], key=lambda r: r["id"])
        rng.shuffle(members)
        fit += members[: len(members) // 2]
        held += members[len(members) // 2 :]
    return fit, held


def is_medium(r: dict) -> bool:
    return r["label"] in ("medium", "normal")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graded", help="read the grades from this file instead of grading")
    parser.add_argument("--json", dest="json_out", help="write the grades here")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--with-14", action="store_true", help="also grade the 14x14 boards and fit their cutoffs")
    parser.add_argument("--seed", type=int, default=10)
    args = parser.parse_args()
    print(f"solver {SOLVER_VERSION}")
    if args.graded:
        records = [json.loads(line) for line in Path(args.graded).read_text(encoding="utf-8").splitlines()]
    else:
        rows = labelled_rows(args.with_14)
        with multiprocessing.Pool(args.workers) as pool:
            records = pool.map(grade_row, rows, chunksize=1)
    if args.json_out:
        Path(args.json_out).write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    unsolved = [r["id"] for r in records if not r["solved"]]
    print(f"{len(records)} boards graded, {len(unsolved)} stuck {unsolved[:5]}")
    fit, held = split_halves(records, args.seed)
    ten = [r for r in fit if r["size"] == 10]
    medium = [r["difficulty"] for r in ten if is_medium(r)]
    hard = [r["difficulty"] for r in ten if r["label"] == "hard"]
    medium_below = round_cutoff(best_split(medium, hard))
    easy_below = round_cutoff(float(np.percentile(medium, 10)))
    hard_below = round_cutoff(float(np.percentile(hard, 75)))
    config = GradingConfig(easy_below=easy_below, medium_below=medium_below, hard_below=hard_below)
    today = GradingConfig()
    print(f"\nFitted on {len(fit)} boards (10x10 medium/normal {len(medium)}, hard {len(hard)}):")
    print(f"  easy_below: {easy_below}\n  medium_below: {medium_below}\n  hard_below: {hard_below}")

    print(
        f"\nHeld out ({len(held)} boards): bands per label, fitted cutoffs (today's {today.easy_below}/"
        f"{today.medium_below}/{today.hard_below} in brackets)"
    )
    for (file, size, label), members in sorted(_by_label(held).items()):
        bands: dict[str, int] = defaultdict(int)
        old: dict[str, int] = defaultdict(int)
        for r in members:
            bands[config.band(r["difficulty"])] += 1
            old[today.band(r["difficulty"])] += 1
        shown = ", ".join(f"{b} {bands[b]} ({old[b]})" for b in ("easy", "medium", "hard", "expert"))
        print(f"  {file:15} {size}x{size} {label:11} n={len(members):3}: {shown}")
    held_ten = [r for r in held if r["size"] == 10 and r["logic_work"] is None]
    agree = [(r["difficulty"] >= medium_below) == (r["label"] == "hard") for r in held_ten]
    print(
        f"  medium|hard cutoff agrees with the label on {sum(agree)}/{len(agree)} held-out 10x10 boards "
        f"(balanced: {_balanced(held_ten, medium_below):.3f})"
    )

    print("\nRanking (no cutoffs involved), held-out half / all boards:")
    for size in sorted({r["size"] for r in records}):
        for part, members in (("held out", held), ("all", records)):
            app = [
                r for r in members if r["file"] == "labelled.jsonl" and r["size"] == size and r["logic_work"] is None
            ]
            site = [r for r in members if r["file"] == "archive.jsonl" and r["size"] == size]
            for name, group in (("app normal<hard", app), ("site medium<hard", site)):
                high = [r["difficulty"] for r in group if r["label"] == "hard"]
                low = [r["difficulty"] for r in group if is_medium(r)]
                if high and low:
                    print(f"  {size}x{size} {name:17} {part:8} AUC {auc(high, low):.3f} (n={len(group)})")
            logic = [r for r in members if r["logic_work"] is not None and r["size"] == size]
            if logic:
                rho = spearman([r["difficulty"] for r in logic], [r["logic_work"] for r in logic])
                print(f"  {size}x{size} KrazyDad logic work {part:8} Spearman {rho:.3f} (n={len(logic)})")
    if any(r["size"] == 14 for r in records):
        fit_size(fit, held, config, 14)
    share = [r["hypothetical"] / r["difficulty"] for r in records if r["label"] == "hard" and r["difficulty"]]
    print(
        f"\nHypothetical share of difficulty on the hard-labelled boards: mean {np.mean(share):.1%}, "
        f"median {np.median(share):.1%}"
    )


def label_medians(records: list[dict], size: int) -> dict[tuple[str, str], float]:
    """The median difficulty per (file, label) of the labelled boards of one size (logic-work boards aside)."""
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for r in records:
        if r["size"] == size and r["logic_work"] is None:
            groups[(r["file"], r["label"])].append(r["difficulty"])
    return {key: float(np.median(values)) for key, values in groups.items()}


def size_factor(fit: list[dict], size: int) -> tuple[float, dict[tuple[str, str], float]]:
    """The median over publishers and labels of (median at `size`) / (median at 10x10), and each ratio."""
    ten, big = label_medians(fit, 10), label_medians(fit, size)
    ratios = {key: big[key] / ten[key] for key in sorted(ten) if key in big}
    return float(np.median(list(ratios.values()))), ratios


def scaled_cutoffs(config: GradingConfig, factor: float) -> BandCutoffs:
    edges = (config.easy_below, config.medium_below, config.hard_below)
    easy, medium, hard = (round_cutoff(edge * factor) for edge in edges)
    return BandCutoffs(easy_below=easy, medium_below=medium, hard_below=hard)


def quantile_mapped(fit: list[dict], key: tuple[str, str], size: int, cutoff: int) -> float | None:
    """The group's `size` difficulty at the quantile where `cutoff` sits among its 10x10 boards (None when the
    cutoff lies outside them: a quantile of 0 or 1 maps to nothing)."""
    ten = [r["difficulty"] for r in fit if r["size"] == 10 and (r["file"], r["label"]) == key]
    big = [r["difficulty"] for r in fit if r["size"] == size and (r["file"], r["label"]) == key]
    share = sum(d < cutoff for d in ten) / len(ten)
    if not 0 < share < 1:
        return None
    return float(np.quantile(big, share))


def fit_size(fit: list[dict], held: list[dict], config: GradingConfig, size: int) -> BandCutoffs:
    """Carry the fitted 10x10 cutoffs over to `size` boards (module docstring) and score them on the held half."""
    factor, ratios = size_factor(fit, size)
    sized = scaled_cutoffs(config, factor)
    print(f"\n{size}x{size}: the same labels at both sizes, fit half (median difficulty {size}x{size} / 10x10):")
    for (file, label), ratio in ratios.items():
        ten, big = label_medians(fit, 10)[(file, label)], label_medians(fit, size)[(file, label)]
        mapped = [quantile_mapped(fit, (file, label), size, c) for c in (config.easy_below, config.medium_below)]
        shown = " / ".join("-" if m is None else f"{m:.0f}" for m in mapped)
        print(
            f"  {file:15} {label:7} {big:8.0f} / {ten:6.0f} = {ratio:6.2f}   quantile-mapped easy / medium cutoffs "
            f"{shown}"
        )
    every = [size_factor(split_halves(fit + held, seed)[0], size)[0] for seed in range(10)]
    print(
        f"  size factor (median of the ratios) {factor:.2f}; on all boards {size_factor(fit + held, size)[0]:.2f}, "
        f"on the fit halves of split seeds 0-9 {min(every):.2f} / {float(np.median(every)):.2f} / {max(every):.2f} "
        "(min / median / max):"
    )
    print(
        f"  size_bands:\n    {size}: {{easy_below: {sized.easy_below}, medium_below: {sized.medium_below}, "
        f"hard_below: {sized.hard_below}}}"
    )
    print(f"\nHeld out: bands per label, {size}x{size} cutoffs (the 10x10 cutoffs in brackets); 10x10 beside them")
    for (file, board_size, label), members in sorted(_by_label(held).items()):
        if board_size not in (10, size) or label == "logic work":
            continue
        cut = sized if board_size == size else config.cutoffs()
        bands: dict[str, int] = defaultdict(int)
        old: dict[str, int] = defaultdict(int)
        for r in members:
            bands[cut.band(r["difficulty"])] += 1
            old[config.band(r["difficulty"])] += 1
        shown = ", ".join(f"{b} {bands[b] / len(members):4.0%} ({old[b] / len(members):4.0%})" for b in BANDS)
        print(f"  {file:15} {board_size}x{board_size} {label:7} n={len(members):3}: {shown}")
    for file in ("archive.jsonl", "labelled.jsonl"):
        for board_size, cut in ((10, config.cutoffs()), (size, sized)):
            group = [r for r in held if r["file"] == file and r["size"] == board_size and r["logic_work"] is None]
            if group:
                agree = sum((r["difficulty"] >= cut.medium_below) == (r["label"] == "hard") for r in group)
                print(
                    f"  {file:15} {board_size}x{board_size} medium|hard at {cut.medium_below}: agrees on "
                    f"{agree}/{len(group)} (balanced {_balanced(group, cut.medium_below):.3f})"
                )
    return sized


BANDS = ("easy", "medium", "hard", "expert")


def _by_label(records: list[dict]) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in records:
        groups[(r["file"], r["size"], "logic work" if r["logic_work"] is not None else r["label"])].append(r)
    return groups


def _balanced(records: list[dict], cutoff: int) -> float:
    medium = [r["difficulty"] for r in records if is_medium(r)]
    hard = [r["difficulty"] for r in records if r["label"] == "hard"]
    return (sum(d < cutoff for d in medium) / len(medium) + sum(d >= cutoff for d in hard) / len(hard)) / 2


if __name__ == "__main__":
    main()
