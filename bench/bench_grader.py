"""Benchmark and calibration of the step grader on the shared data (in-process timings).

For every data file (or a seeded sample per group with --per-group): grading time per board (median, 95th
percentile, max) per file, size, stars and label; soundness (every mark agrees with the known solution) and the
completion fraction; the median difficulty per group; on the archive, how well difficulty separates the site's
labels per size (AUC: the probability that a random harder-labelled board scores above a random easier one, ties
half); and the experience-score parts on the hand-made and published boards.

    python bench/bench_grader.py                      # everything (the 14x14 archive boards take long)
    python bench/bench_grader.py --per-group 20       # a seeded sample of 20 boards per (file, size, label)
    python bench/bench_grader.py --files starbattle/archive.jsonl --max-size 10
    python bench/bench_grader.py --files starbattle/archive.jsonl --min-size 14 --per-group 40 --clock cpu
    python bench/bench_grader.py --files starbattle/archive.jsonl --workers 2 --json graded.jsonl   # then:
    python bench/label_ceiling.py graded.jsonl
    python bench/bench_grader.py ... --no-chains      # as `starbattle grade` grades: no chains for people

`--no-chains` leaves out what only the narration needs (`grade(..., chains=False)`: the same steps, difficulty,
band and scores; `explain`, `hint` and the published walkthroughs keep the chains), so its walkthrough hashes are
not comparable with a run that has them.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import multiprocessing
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _engine_tree() -> Path:
    """The checkout whose engine grades: this one, or `--tree DIR` (read before the engine is imported, so a
    before/after pair runs the same bench on two trees in the same minutes)."""
    if "--tree" in sys.argv:
        return Path(sys.argv[sys.argv.index("--tree") + 1]).resolve()
    return REPO


sys.path.insert(0, str(_engine_tree()))

from starbattle_core.formats import puzzle_from_json  # noqa: E402
from starbattle_core.grader import SOLVER_VERSION, grade, walkthrough_json  # noqa: E402
from starbattle_core.puzzle import Puzzle  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
FILES = ["starbattle/handmade.jsonl", "starbattle/archive.jsonl", "queens/linkedin.jsonl", "queens/community.jsonl"]
LABEL_ORDER = {"easy": 0, "normal": 1, "medium": 1, "hard": 2}


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def auc(higher: list[int], lower: list[int]) -> float:
    """P(a random board of the harder label scores above a random board of the easier one), ties count half."""
    wins = sum((hi > lo) + 0.5 * (hi == lo) for hi in higher for lo in lower)
    return wins / (len(higher) * len(lower))


def load(
    name: str, per_group: int | None, max_size: int | None, seed: int, min_size: int = 0
) -> list[tuple[dict, Puzzle]]:
    rows = [json.loads(line) for line in (SHARED / name).read_text(encoding="utf-8").splitlines() if line.strip()]
    if max_size:
        rows = [row for row in rows if row["size"] <= max_size]
    rows = [row for row in rows if row["size"] >= min_size]
    if per_group:
        groups: dict[tuple, list[dict]] = defaultdict(list)
        for row in rows:
            groups[(row["size"], row.get("stars", 1), row.get("label"))].append(row)
        rng = random.Random(seed)
        rows = [
            row for key in sorted(groups, key=str) for row in rng.sample(groups[key], min(per_group, len(groups[key])))
        ]
    return [(row, puzzle_from_json(row, where=f"{name} {row.get('id')}")) for row in rows]


# Wall seconds, or this process's CPU seconds: on a shared machine (a load of 15 on 2 cores made 14x14 wall times
# about 8x the CPU times) the CPU figure is what a solve costs; on a quiet one the two agree.
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def grade_one(job: tuple[str, dict, Puzzle, str, bool]) -> dict:
    name, row, puzzle, clock_name, chains = job
    clock = CLOCKS[clock_name]
    start = clock()
    result = grade(puzzle, chains=chains)
    ms = (clock() - start) * 1000
    solution = puzzle.solution or 0
    sound = not (result.stars & ~solution) and not (result.empty & solution)
    fun = result.experience
    return {
        "file": name,
        "id": row.get("id"),
        "size": puzzle.size,
        "stars": puzzle.stars,
        "label": row.get("label"),
        "ms": ms,
        "solved": result.solved,
        "sound": sound,
        "difficulty": result.difficulty,
        "band": result.band,
        "steps": len(result.steps),
        "codes": [step.code for step in result.steps],
        # The whole walkthrough (steps, chains, sentences, scores, version), for a byte-identity check (--against).
        "walkthrough": hashlib.sha256(
            json.dumps(walkthrough_json(puzzle, result), sort_keys=True).encode()
        ).hexdigest(),
        "fun": fun.fun,
        "climax": fun.climax,
        "aha": fun.aha,
        "follow_up": fun.follow_up,
        "grind": fun.grind,
    }


def compare(records: list[dict], other_file: str) -> None:
    """Per group: how many boards graded in both runs have another walkthrough (byte for byte) or difficulty, and
    the CPU or wall time of the two runs side by side (medians, same boards)."""
    other = {(r["file"], r["id"]): r for r in map(json.loads, Path(other_file).read_text().splitlines())}
    groups: dict[tuple, list[tuple[dict, dict]]] = defaultdict(list)
    for r in records:
        before = other.get((r["file"], r["id"]))
        if before is not None:
            groups[(r["file"], r["size"], r["stars"], r["label"] or "-")].append((before, r))
    print(f"\nAgainst {other_file} (same boards): walkthroughs differing, difficulties moved, medians before -> now")
    for key, pairs in sorted(groups.items(), key=lambda kv: str(kv[0])):
        moved = [(b, r) for b, r in pairs if b["difficulty"] != r["difficulty"]]
        differ = sum(b.get("walkthrough") != r["walkthrough"] for b, r in pairs)
        print(
            f"  {key[0]} {key[1]}x{key[1]} {key[2]}-star {key[3]}: {len(pairs)} boards, {differ} walkthroughs differ, "
            f"{len(moved)} difficulties moved; ms {statistics.median(b['ms'] for b, _ in pairs):.0f} -> "
            f"{statistics.median(r['ms'] for _, r in pairs):.0f}, max {max(b['ms'] for b, _ in pairs):.0f} -> "
            f"{max(r['ms'] for _, r in pairs):.0f}; median difficulty "
            f"{statistics.median(b['difficulty'] for b, _ in pairs):.0f} -> "
            f"{statistics.median(r['difficulty'] for _, r in pairs):.0f}"
        )
        for b, r in moved[:5]:
            print(f"    {r['id']}: {b['difficulty']} -> {r['difficulty']}")


def main() -> None:
    args = _arguments()
    print(f"solver {SOLVER_VERSION} from {_engine_tree()}")
    jobs = [
        (name, row, puzzle, args.clock, not args.no_chains)
        for name in args.files
        for row, puzzle in load(name, args.per_group, args.max_size, args.seed, args.min_size)
    ]
    if args.workers > 1:
        # Each board is still timed in-process, inside its worker; two workers on two cores slow each other a
        # little, so the timing tables in docs/performance.md come from --workers 1.
        with multiprocessing.Pool(args.workers) as pool:
            records = pool.map(grade_one, jobs, chunksize=1)
    else:
        records = [grade_one(job) for job in jobs]
    for r in records:
        if not r["sound"]:
            print(f"UNSOUND {r['file']} {r['id']}", flush=True)
    if args.json_out:
        Path(args.json_out).write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    if args.against:
        compare(records, args.against)
    report_timing(records, args.files, args.clock)
    report_calibration([r for r in records if r["file"] == "starbattle/archive.jsonl"])
    report_experience(records, args.files)


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", nargs="*", default=FILES)
    parser.add_argument("--per-group", type=int, default=None, help="seeded sample size per (file, size, label)")
    parser.add_argument("--max-size", type=int, default=None)
    parser.add_argument("--min-size", type=int, default=0)
    parser.add_argument("--clock", choices=CLOCKS, default="wall", help="wall seconds, or this process's CPU seconds")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-chains", action="store_true", help="grade as `starbattle grade` does: no chains")
    parser.add_argument("--workers", type=int, default=1, help="grade in this many processes (timings: use 1)")
    parser.add_argument("--json", dest="json_out", default=None, help="also write the per-board results here")
    parser.add_argument("--tree", default=None, help="grade with the engine of this checkout (e.g. main's)")
    parser.add_argument(
        "--against", default=None, help="a --json file of another run: count the boards whose walkthrough differs"
    )
    return parser.parse_args()


def report_timing(records: list[dict], files: list[str], clock: str) -> None:
    print(f"\nTiming, soundness and completion per group (ms in-process, {clock} clock)")
    print(
        f"{'file':26} {'size':>4} {'K':>2} {'label':7} {'n':>4} {'solved':>7} {'sound':>6} "
        f"{'median':>8} {'p95':>8} {'max':>8} {'med.diff':>9}"
    )
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for r in records:
        groups[(r["file"], r["size"], r["stars"], r["label"] or "-")].append(r)
    for (name, size, stars, label), rows in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1], str(kv[0][3]))):
        ms = [r["ms"] for r in rows]
        print(
            f"{name:26} {size:>4} {stars:>2} {label:7} {len(rows):>4} "
            f"{sum(r['solved'] for r in rows) / len(rows):>7.1%} {sum(r['sound'] for r in rows) / len(rows):>6.0%} "
            f"{statistics.median(ms):>8.1f} {percentile(ms, 0.95):>8.1f} "
            f"{max(ms):>8.1f} {statistics.median(r['difficulty'] for r in rows):>9.0f}"
        )
    print("\nCompletion per file")
    for name in files:
        rows = [r for r in records if r["file"] == name]
        if rows:
            print(
                f"  {name}: {sum(r['solved'] for r in rows)}/{len(rows)} solved, "
                f"{sum(r['sound'] for r in rows)}/{len(rows)} sound"
            )


def report_calibration(archive: list[dict]) -> None:
    """How the archive's labels order by difficulty, per size, and the bands they are given."""
    if not archive:
        return
    print("\nCalibration on the archive: AUC (harder label scores higher), per size")
    for size in sorted({r["size"] for r in archive}):
        by_label: dict[str, list[int]] = defaultdict(list)
        for r in archive:
            if r["size"] == size:
                by_label[r["label"]].append(r["difficulty"])
        labels = sorted(by_label, key=lambda lab: LABEL_ORDER.get(lab, 9))
        for easier, harder in itertools.pairwise(labels):
            print(
                f"  {size}x{size}: P({harder} > {easier}) = {auc(by_label[harder], by_label[easier]):.3f}"
                f"  (medians {harder} {statistics.median(by_label[harder]):.0f}, "
                f"{easier} {statistics.median(by_label[easier]):.0f})"
            )
    bands: defaultdict[tuple[int, str], defaultdict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in archive:
        bands[(r["size"], r["label"])][r["band"]] += 1
    print(
        "  bands given per (size, label): " + "; ".join(f"{k[0]} {k[1]}: {dict(v)}" for k, v in sorted(bands.items()))
    )


def report_experience(records: list[dict], files: list[str]) -> None:
    print("\nExperience parts (means; climax = position of the hardest step, aha = a-ha moments)")
    for name in files:
        for label in sorted({r["label"] or "-" for r in records if r["file"] == name}):
            rows = [r for r in records if r["file"] == name and (r["label"] or "-") == label and r["solved"]]
            if rows:
                mean = {
                    key: statistics.mean(r[key] for r in rows) for key in ("fun", "climax", "aha", "follow_up", "grind")
                }
                pass_rate = sum(r["fun"] >= 75 for r in rows) / len(rows)
                print(
                    f"  {name:26} {label:7} n={len(rows):4} fun {mean['fun']:5.1f} (>=75: {pass_rate:4.0%}) climax "
                    f"{mean['climax']:.2f} (median {statistics.median(r['climax'] for r in rows):.2f}) "
                    f"aha {mean['aha']:.1f} "
                    f"follow-ups {mean['follow_up']:.0%} grind {mean['grind']:.1f}"
                )


if __name__ == "__main__":
    main()
