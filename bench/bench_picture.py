"""Benchmark of `from-image` (in-process): exact reads per kind of picture and the time per picture.

Pictures of the shared data's boards are made at run time by tests/picture_boards.py (puzz.link's renderer pzpr
under node, Chromium screenshots, scan and JPEG damage; seeded), never the project's own renderer. Each is read as a
user reads it, without --stars or --game (`starbattle from-image shot.png`): a read is exact when it gives the
board's partition of cells. A wrong read is counted apart, and among them the silent ones: those whose solution
count (with the board's own rules) is unique, so that nothing on the command's line says the board is off.
`assumed` counts the boards whose game and star count the command assumed right, of those that follow the
conventions (a Queens level drawn with thick borders is read as Star Battle with the usual star count, and says so).
The time is decoding plus reading, wall clock (median, 90th percentile, max) and CPU (median, max); the count's time
is shown beside it.

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
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

import numpy as np  # noqa: E402
from picture_boards import KINDS, VARIANTS, Picture, picture_maker, shared_boards  # noqa: E402

from starbattle_cli.picture_input import decode_picture  # noqa: E402
from starbattle_core.counter import count_solutions  # noqa: E402
from starbattle_core.formats import puzzle_from_json, puzzle_to_json  # noqa: E402
from starbattle_core.picture import read_board, usual_stars  # noqa: E402
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
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    failures = []
    for picture in pictures:
        tally = tallies[(picture.kind, picture.variant)]
        failure = read_one(picture, tally)
        if failure:
            failures.append(f"{picture.name}: {failure}")
    print(f"{len(pictures)} pictures ({'loaded' if args.load else 'made'} in {made:.0f} s)\n")
    print(
        f"{'kind':10} {'variant':8} {'pictures':>8} {'exact':>7} {'refused':>7} {'wrong':>6} {'silent':>6} "
        f"{'assumed':>9}  read ms: median    p90    max  cpu ms: median    max  count ms: median    max"
    )
    for kind in KINDS:
        rows = [(variant, tallies[(kind, variant)]) for variant in VARIANTS if (kind, variant) in tallies]
        every = Tally()
        for _, tally in rows:
            every.add(tally)
        for variant, tally in [*rows, ("all", every)]:
            print(f"{kind:10} {variant:8} {tally.line()}")
    if args.show_failures:
        print("\n" + "\n".join(failures))


def read_one(picture: Picture, tally: Tally) -> str | None:
    """Read a picture as `starbattle from-image` does and tally the outcome; what went wrong, if anything."""
    expected = picture.puzzle
    tally.pictures += 1
    start, cpu = time.perf_counter(), time.process_time()
    try:
        read = read_board(decode_picture(picture.data, picture.name))
    except InputError as error:
        tally.refused += 1
        return f"refused: {error}"
    finally:
        tally.read.append(time.perf_counter() - start)
        tally.cpu.append(time.process_time() - cpu)
    got = read.puzzle
    # The conventions can only be right for a Queens board in LinkedIn's colours and a Star Battle board with the
    # usual star count for its size (not for a community Queens level drawn with borders).
    if (picture.kind == "linkedin") == (expected.game == "queens") and (
        expected.game == "queens" or expected.stars == usual_stars(expected.size)
    ):
        tally.conventional += 1
        tally.rules += got.game == expected.game and got.stars == expected.stars
    if got.size == expected.size and got.regions == expected.regions:
        tally.exact += 1
        start = time.perf_counter()
        count_solutions(got, limit=10)
        tally.count.append(time.perf_counter() - start)
        return None
    tally.wrong += 1
    # Judged with the board's own rules: what a user who gives the game and star count would see.
    try:
        silent = count_solutions(Puzzle(got.size, expected.stars, got.regions, expected.game), limit=2).count == 1
    except InputError:
        silent = False
    tally.silent += silent
    return f"read {got.size}x{got.size} from {read.regions_from}, wrong{' and unique' if silent else ''}"


@dataclass
class Tally:
    """The outcomes and times of one kind and variant of picture."""

    pictures: int = 0
    exact: int = 0
    refused: int = 0
    wrong: int = 0
    silent: int = 0  # wrong, and the count says unique: nothing on the line shows it
    conventional: int = 0  # boards whose game and star count follow the conventions the command assumes
    rules: int = 0  # of those, game and star count assumed right
    read: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    count: list[float] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        for name in ("pictures", "exact", "refused", "wrong", "silent", "conventional", "rules"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.read += other.read
        self.cpu += other.cpu
        self.count += other.count

    def line(self) -> str:
        read, cpu = [1000 * t for t in self.read], [1000 * t for t in self.cpu]
        count = [1000 * t for t in self.count] or [0.0]
        assumed = f"{self.rules}/{self.conventional}"
        return (
            f"{self.pictures:8} {self.exact / self.pictures:7.1%} {self.refused:7} {self.wrong:6} {self.silent:6} "
            f"{assumed:>9}  {statistics.median(read):15.0f} {percentile(read, 0.9):6.0f} {max(read):6.0f}  "
            f"{statistics.median(cpu):14.0f} {max(cpu):6.0f}  {statistics.median(count):16.0f} {max(count):6.0f}"
        )


if __name__ == "__main__":
    main()
