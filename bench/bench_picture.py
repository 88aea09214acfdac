"""Benchmark of `from-image` (in-process): exact reads per kind of picture and the time per picture.

Pictures of the shared data's boards are made at run time by tests/picture_boards.py (puzz.link's renderer pzpr
under node, Chromium screenshots, scan and JPEG damage; seeded), never the project's own renderer. Each is read as a
user reads it, without --stars or --game (`starbattle from-image shot.png`): a read is exact when it gives the
board's partition of cells. A wrong read is counted apart, and among them the silent ones: those whose solution
count (with the board's own rules) is unique, so that nothing on the command's line says the board is off. The
time is decoding plus reading (median, 90th percentile, max); the count's time is shown beside it.

    python bench/bench_picture.py                      # 40 pictures of each kind and variant (480)
    python bench/bench_picture.py --per-cell 10 --save /tmp/pictures   # keep the pictures (and index.jsonl)
    python bench/bench_picture.py --load /tmp/pictures                 # read kept pictures again
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import numpy as np  # noqa: E402
from picture_boards import KINDS, VARIANTS, Picture, picture_maker, shared_boards  # noqa: E402

from starbattle_cli.picture_input import decode_picture  # noqa: E402
from starbattle_core.counter import count_solutions  # noqa: E402
from starbattle_core.formats import puzzle_from_json, puzzle_to_json  # noqa: E402
from starbattle_core.picture import read_board  # noqa: E402
from starbattle_core.puzzle import InputError, Puzzle  # noqa: E402

STAR_BATTLE = ("starbattle/archive.jsonl", "starbattle/labelled.jsonl", "starbattle/handmade.jsonl")
QUEENS = ("queens/linkedin.jsonl", "queens/community.jsonl")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def chosen_boards(kind: str, count: int, rng: np.random.Generator) -> list[Puzzle]:
    """`count` different boards for a kind, each of a size drawn evenly from the sizes left: Star Battle boards
    and community Queens (sizes the Star Battle files lack, up to 17x17) for the two bordered kinds, Queens boards
    for LinkedIn's."""
    names = QUEENS if kind == "linkedin" else (*STAR_BATTLE, "queens/community.jsonl")
    by_size: dict[int, list[Puzzle]] = defaultdict(list)
    for name in names:
        for board in shared_boards(name):
            if board.size >= 6:
                by_size[board.size].append(board)
    picked = []
    for _ in range(count):
        sizes = sorted(size for size, boards in by_size.items() if boards)
        boards = by_size[sizes[int(rng.integers(len(sizes)))]]
        picked.append(boards.pop(int(rng.integers(len(boards)))))
    return picked


def make(per_cell: int, seed: int) -> list[Picture]:
    rng = np.random.default_rng(seed)
    wanted = []
    for kind in KINDS:
        boards = chosen_boards(kind, per_cell * len(VARIANTS), rng)
        wanted += [(board, kind, VARIANTS[i // per_cell]) for i, board in enumerate(boards)]
    with picture_maker() as maker:
        return maker.pictures(wanted, seed)


def save(pictures: list[Picture], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "index.jsonl").open("w") as index:
        for number, picture in enumerate(pictures):
            suffix = "jpg" if picture.data[:2] == b"\xff\xd8" else "png"
            file = f"{number:04d}-{picture.kind}-{picture.variant}.{suffix}"
            (folder / file).write_bytes(picture.data)
            record = {"file": file, "kind": picture.kind, "variant": picture.variant, "name": picture.name}
            index.write(json.dumps({**record, "board": puzzle_to_json(picture.puzzle)}) + "\n")


def load(folder: Path) -> list[Picture]:
    pictures = []
    for line in (folder / "index.jsonl").read_text().splitlines():
        record = json.loads(line)
        puzzle = puzzle_from_json(record["board"])
        data = (folder / record["file"]).read_bytes()
        pictures.append(Picture(record["kind"], record["variant"], puzzle, data, record["file"]))
    return pictures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--per-cell", type=int, default=40, help="pictures of each kind and variant")
    parser.add_argument("--seed", type=int, default=20261227)
    parser.add_argument("--save", type=Path, help="write the pictures and index.jsonl to this folder")
    parser.add_argument("--load", type=Path, help="read the pictures of an earlier --save instead of making them")
    parser.add_argument("--show-failures", action="store_true", help="name every picture not read exactly")
    args = parser.parse_args()
    started = time.perf_counter()
    pictures = load(args.load) if args.load else make(args.per_cell, args.seed)
    made = time.perf_counter() - started
    if args.save:
        save(pictures, args.save)
    results: dict[tuple[str, str], dict[str, list[float] | int]] = defaultdict(
        lambda: {"exact": 0, "refused": 0, "wrong": 0, "silent": 0, "rules": 0, "read": [], "cpu": [], "count": []}
    )
    failures = []
    for picture in pictures:
        row = results[(picture.kind, picture.variant)]
        expected = picture.puzzle
        start, cpu = time.perf_counter(), time.process_time()
        try:
            read = read_board(decode_picture(picture.data, picture.name))
        except InputError as error:
            row["refused"] += 1  # type: ignore[operator]
            failures.append(f"{picture.name}: refused: {error}")
            continue
        finally:
            row["read"].append(time.perf_counter() - start)  # type: ignore[union-attr]
            row["cpu"].append(time.process_time() - cpu)  # type: ignore[union-attr]
        got = read.puzzle
        row["rules"] += got.game == expected.game and got.stars == expected.stars  # type: ignore[operator]
        if got.size == expected.size and got.regions == expected.regions:
            row["exact"] += 1  # type: ignore[operator]
            start = time.perf_counter()
            count_solutions(got, limit=10)
            row["count"].append(time.perf_counter() - start)  # type: ignore[union-attr]
            continue
        row["wrong"] += 1  # type: ignore[operator]
        # Judged with the board's own rules: what a user who knows the game and star count would see.
        try:
            as_meant = Puzzle(got.size, expected.stars, got.regions, expected.game)
            silent = count_solutions(as_meant, limit=2).count == 1
        except InputError:
            silent = False
        row["silent"] += silent  # type: ignore[operator]
        failures.append(f"{picture.name}: read {got.size}x{got.size} by {read.regions_from}, wrong{' (unique!)' if silent else ''}")
    print(f"{len(pictures)} pictures ({'loaded' if args.load else 'made'} in {made:.0f} s)\n")
    header = f"{'kind':10} {'variant':8} {'pictures':>8} {'exact':>7} {'refused':>7} {'wrong':>6} {'silent':>6} "
    print(header + f"{'rules':>6}  read ms: median    p90    max   count ms: median    max")
    for kind in KINDS:
        kind_rows = [(variant, results[(kind, variant)]) for variant in VARIANTS if (kind, variant) in results]
        for variant, row in [*kind_rows, ("all", _merged([row for _, row in kind_rows]))]:
            read_ms = [1000 * t for t in row["read"]]  # type: ignore[union-attr]
            count_ms = [1000 * t for t in row["count"]] or [0.0]  # type: ignore[union-attr]
            total = len(read_ms)
            print(
                f"{kind:10} {variant:8} {total:8} {row['exact'] / total:7.1%} {row['refused']:7} {row['wrong']:6} "
                f"{row['silent']:6} {row['rules']:6}  {statistics.median(read_ms):15.0f} {percentile(read_ms, 0.9):6.0f} "
                f"{max(read_ms):6.0f}  {statistics.median(count_ms):16.0f} {max(count_ms):6.0f}"
            )
    if args.show_failures:
        print("\n" + "\n".join(failures))


def _merged(rows: list[dict[str, list[float] | int]]) -> dict[str, list[float] | int]:
    merged: dict[str, list[float] | int] = {}
    for key in rows[0]:
        values = [row[key] for row in rows]
        merged[key] = [v for value in values for v in value] if isinstance(values[0], list) else sum(values)  # type: ignore[misc,arg-type]
    return merged


if __name__ == "__main__":
    main()
