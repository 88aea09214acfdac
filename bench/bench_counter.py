"""Time count_solutions(limit=2) in-process over JSONL puzzle files and print per-group figures.

Usage: python bench/bench_counter.py [PATH ...] [--per-group N] [--min-size N] [--sat] [--baseline] [--clock cpu]

Groups are (file, size, stars, label), then each file as a whole; for each: how many boards, median / 95th
percentile / max milliseconds (each count from cold tables, as in a fresh process), median / max search nodes, and
how many boards the search handed to the SAT solver (`counter.SAT_AFTER`). Every count is checked: unique,
exhaustive, and equal to the file's solution when it has one.
`--sat` times, on the same boards in the same run, the pure search (`sat_after=None`) and two SAT solvers from
python-sat (CaDiCaL 1.5.3 and MiniSat 2.2) given the whole board in the plain clause encoding (exactly K per
unit as a sequential counter, "not both" per touching pair), limit 2 by blocking the first solution; their times
include building the clauses. `--baseline` also times a plain row-by-row backtracker (row layouts, column and
region counts, no propagation), capped at `--baseline-per-group` boards a group and `--baseline-max-size`, so the
speed-up is measured in the same run rather than claimed.
`--clock cpu` times every count in this process's CPU seconds instead of wall seconds: on a shared machine (a load
of 15 on 2 cores made 14x14 wall times 10-15x the CPU times) it is the figure that says what the count costs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from itertools import combinations, pairwise
from pathlib import Path
from typing import Any

from pysat.card import CardEnc, EncType
from pysat.formula import IDPool
from pysat.solvers import Solver

from starbattle_core.counter import SAT_AFTER, CountResult, clear_caches, count_solutions
from starbattle_core.formats import puzzle_from_json
from starbattle_core.puzzle import Puzzle

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
# The rivals timed by --sat, as (column name, python-sat solver name).
SAT_SOLVERS = [("CaDiCaL", "cadical153"), ("MiniSat", "minisat22")]
# Per board: (ms, nodes, handed to SAT, naive ms, [pure search ms, SAT ms per solver] with --sat).
Row = tuple[float, int, bool, float | None, list[float]]

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"
DEFAULT_FILES = [
    SHARED / "starbattle" / "archive.jsonl",
    SHARED / "starbattle" / "handmade.jsonl",
    SHARED / "queens" / "linkedin.jsonl",
]


def baseline_count(puzzle: Puzzle, limit: int = 2) -> int:
    """A plain row-by-row backtracker: the naive search the counter is measured against."""
    n, k = puzzle.size, puzzle.stars
    rows = [cols for cols in combinations(range(n), k) if all(b - a > 1 for a, b in pairwise(cols))]
    column_count = [0] * n
    region_count = [0] * n
    found = 0

    def place(r: int, previous: tuple[int, ...]) -> None:
        nonlocal found
        if r == n:
            if all(count == k for count in region_count):
                found += 1
            return
        for cols in rows:
            if any(abs(a - b) <= 1 for a in previous for b in cols):
                continue
            regions = [puzzle.regions[r * n + c] for c in cols]
            if any(column_count[c] == k for c in cols):
                continue
            for c, g in zip(cols, regions, strict=True):
                column_count[c] += 1
                region_count[g] += 1
            if all(region_count[g] <= k for g in regions):
                place(r + 1, cols)
            for c, g in zip(cols, regions, strict=True):
                column_count[c] -= 1
                region_count[g] -= 1
            if found >= limit:
                return

    place(0, ())
    return found


def plain_sat_count(puzzle: Puzzle, solver_name: str, limit: int = 2) -> int:
    """A SAT solver on the whole board in the plain clause encoding: a variable per cell, exactly K per row, column
    and region as a sequential counter, "not both" per touching pair, each solution blocked before the next call."""
    n, k = puzzle.size, puzzle.stars
    units = [[r * n + c + 1 for c in range(n)] for r in range(n)] + [
        [r * n + c + 1 for r in range(n)] for c in range(n)
    ]
    units += [[cell + 1 for cell in range(n * n) if puzzle.regions[cell] == region] for region in range(n)]
    pool = IDPool(start_from=n * n + 1)
    clauses = [clause for unit in units for clause in CardEnc.equals(unit, k, vpool=pool, encoding=EncType.seqcounter)]
    for r in range(n):
        for c in range(n):
            for rr, cc in ((r, c + 1), (r + 1, c - 1), (r + 1, c), (r + 1, c + 1)):
                if 0 <= rr < n and 0 <= cc < n:
                    clauses.append([-(r * n + c + 1), -(rr * n + cc + 1)])
    clauses += [[cell + 1] for cell in range(n * n) if puzzle.given_stars >> cell & 1]
    clauses += [[-(cell + 1)] for cell in range(n * n) if puzzle.given_empty >> cell & 1]
    found = 0
    with Solver(name=solver_name, bootstrap_with=clauses) as solver:
        while found < limit and solver.solve():
            found += 1
            solver.add_clause([-literal for literal in solver.get_model()[: n * n] if literal > 0])
    return found


def cold_count(puzzle: Puzzle, sat_after: int | None, clock: Callable[[], float]) -> tuple[CountResult, float]:
    """count_solutions to 2 from cold tables, as in a fresh process, and its milliseconds on `clock`."""
    clear_caches()
    start = clock()
    result = count_solutions(puzzle, limit=2, sat_after=sat_after)
    return result, (clock() - start) * 1000.0


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


class Disagreement(Exception):
    """A board whose count is not its file's one solution, or on which two counters disagree."""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=DEFAULT_FILES)
    parser.add_argument("--per-group", type=int, default=0, help="at most this many boards per group (0: all)")
    parser.add_argument("--sat", action="store_true", help="also time the pure search and the SAT solvers")
    parser.add_argument("--sat-after", type=int, default=SAT_AFTER, help="the counter's node budget before SAT")
    parser.add_argument("--baseline", action="store_true", help="also time the naive row-by-row backtracker")
    parser.add_argument("--baseline-per-group", type=int, default=2)
    parser.add_argument("--baseline-max-size", type=int, default=10, help="the naive search takes minutes above this")
    parser.add_argument("--min-size", type=int, default=0, help="only boards at least this big")
    parser.add_argument("--clock", choices=CLOCKS, default="wall", help="wall seconds, or this process's CPU seconds")
    args = parser.parse_args(argv)
    groups: dict[tuple[str, int, int, str], list[Row]] = defaultdict(list)
    try:
        for path in args.paths:
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    if line.strip():
                        time_board(args, groups, path.name, number, json.loads(line))
    except Disagreement as disagreement:
        print(disagreement)
        return 1
    report(args, groups)
    return 0


def time_board(
    args: argparse.Namespace, groups: dict[tuple[str, int, int, str], list[Row]], name: str, number: int, obj: Any
) -> None:
    """Count one board (and time its rivals when asked) into its group; a Disagreement names what went wrong."""
    clock = CLOCKS[args.clock]
    where = f"{name} line {number}"
    puzzle = puzzle_from_json(obj, where=where)
    key = (name, puzzle.size, puzzle.stars, str(obj.get("label") or "-"))
    if puzzle.size < args.min_size or (args.per_group and len(groups[key]) >= args.per_group):
        return
    # Every count pays for its tables, as the SAT rivals pay for their clauses; with --sat the pure search goes
    # first on every other board, so neither side gains from running second.
    search = cold_count(puzzle, None, clock) if args.sat and number % 2 == 0 else None
    result, count_ms = cold_count(puzzle, args.sat_after, clock)
    if result.count != 1 or not result.exact:
        raise Disagreement(f"{where}: {result.count} solutions (exact={result.exact})")
    if puzzle.solution is not None and result.solutions[0] != puzzle.solution:
        raise Disagreement(f"{where}: found a solution other than the file's")
    rivals: list[float] = []
    if args.sat:
        search = search or cold_count(puzzle, None, clock)
        rivals.append(search[1])
        if search[0].solutions != result.solutions:
            raise Disagreement(f"{where}: the pure search disagrees")
        for rival, solver_name in SAT_SOLVERS:
            start = clock()
            if plain_sat_count(puzzle, solver_name) != 1:
                raise Disagreement(f"{where}: {rival} disagrees")
            rivals.append((clock() - start) * 1000.0)
    naive_ms = None
    if args.baseline and puzzle.size <= args.baseline_max_size and len(groups[key]) < args.baseline_per_group:
        start = clock()
        if baseline_count(puzzle) != 1:
            raise Disagreement(f"{where}: the baseline disagrees")
        naive_ms = (clock() - start) * 1000.0
    groups[key].append((count_ms, result.nodes, result.engine == "sat", naive_ms, rivals))


def report(args: argparse.Namespace, groups: dict[tuple[str, int, int, str], list[Row]]) -> None:
    """One line per group and per file: the counter's times and nodes, its SAT hand-offs, the rivals' times."""
    header = f"{'file':<16} {'size':>4} {'K':>2} {'label':<7} {'boards':>6} {'median':>8} {'p95':>8} {'max':>8}"
    header += f" {'nodes':>6} {'max':>6} {'SAT':>4}"
    if args.sat:
        for name in ["search", *[name for name, _ in SAT_SOLVERS]]:
            header += f" {name + ' median':>14} {'p95':>7} {'max':>8}"
    if args.baseline:
        header += f" {'naive median':>13} {'(boards)':>8}"
    print(header + f"   (ms, {args.clock} clock)")
    by_file: dict[str, list[Row]] = defaultdict(list)
    for (name, _, _, _), rows in groups.items():
        by_file[name] += rows
    summary = [((name, 0, 0, "all"), rows) for name, rows in by_file.items()]
    for (name, size, stars, label), rows in [*groups.items(), *summary]:
        ms = [row[0] for row in rows]
        nodes = [row[1] for row in rows]
        shape = f"{size:>4} {stars:>2}" if size else f"{'*':>4} {'*':>2}"
        line = f"{name:<16} {shape} {label:<7} {len(rows):>6} {statistics.median(ms):>8.2f}"
        line += f" {percentile(ms, 0.95):>8.2f} {max(ms):>8.2f} {statistics.median(nodes):>6.0f} {max(nodes):>6}"
        line += f" {sum(row[2] for row in rows):>4}"
        for column in range(len(rows[0][4])):
            times = [row[4][column] for row in rows]
            line += f" {statistics.median(times):>14.2f} {percentile(times, 0.95):>7.1f} {max(times):>8.1f}"
        naive = [row[3] for row in rows if row[3] is not None]
        if naive:
            line += f" {statistics.median(naive):>13.1f} {len(naive):>8}"
        print(line)


if __name__ == "__main__":
    sys.exit(main())
