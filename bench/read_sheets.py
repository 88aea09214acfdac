"""Score blind readers' picks on contact sheets, and how often picking at random would do as well.

    python bench/read_sheets.py --sheet sheet-1.txt "1, 5, 6, 7, 8, 9, 11, 12, 13, 15, 17, 18" --sheet ...

Each `--sheet` is what `contact_sheet.py --blind SEED` printed (its `key:` line, and for Queens its `drawn as:` line)
and the numbers one reader picked as generated. Prints the generated boards each reader found, the total, the
chance that picking at random finds that many or more, and (Queens) the picks by the design mode each generated
board was drawn in.

A reader picks as many boards as a sheet has generated ones, so the generated boards among random picks follow a
hypergeometric law, not a binomial one (a sheet of 12 + 12: 6 on average, a standard deviation of 1.25, where coin
flips on each board would give 1.73); the chance for several sheets is the law of their sum.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from math import comb
from pathlib import Path
from typing import NoReturn

import numpy as np


def fail(message: str) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def found_by_chance(sheets: list[tuple[int, int]]) -> list[float]:
    """The law of how many generated boards random picks find over `sheets`, each (boards, generated on it), a reader
    picking as many as are generated: entry k is the chance of exactly k."""
    law = np.ones(1)
    for boards, generated in sheets:
        one = [comb(generated, k) * comb(boards - generated, generated - k) for k in range(generated + 1)]
        law = np.convolve(law, np.array(one, dtype=float) / comb(boards, generated))  # the law of a sum
    return [float(p) for p in law]


def read_key(path: Path) -> tuple[int, set[int], dict[int, str]]:
    """(boards on the sheet, the generated ones' numbers, the mode each was drawn in) from contact_sheet's output."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        fail(f"{path}: {error.strerror}")
    except UnicodeDecodeError:
        fail(f"{path}: not a text file (UTF-8)")
    key = re.search(r"^key: generated are ([\d, ]+)$", text, re.MULTILINE)
    generated = {int(n) for n in re.findall(r"\d+", key.group(1))} if key else set()
    if not generated:
        fail(f"{path}: no 'key: generated are ...' line (the output of contact_sheet.py --blind)")
    drawn_line = re.search(r"^drawn as: (.+)$", text, re.MULTILINE)
    drawn = {int(n): mode for n, mode in re.findall(r"(\d+) (\w+)", drawn_line.group(1))} if drawn_line else {}
    return 2 * len(generated), generated, drawn


def read_picks(text: str, boards: int, wanted: int, where: str) -> set[int]:
    try:
        picks = [int(n) for n in text.replace(",", " ").split()]
    except ValueError:
        fail(f"{where}: picks must be board numbers, not {text!r}")
    if len(set(picks)) != wanted or len(picks) != wanted or not all(1 <= n <= boards for n in picks):
        fail(f"{where}: a reader picks {wanted} different boards numbered 1 to {boards}, not {text!r}")
    return set(picks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sheet", nargs=2, action="append", required=True, metavar=("KEY_FILE", "PICKS"))
    args = parser.parse_args()
    read = []  # every sheet read and checked before anything is printed
    for key_file, pick_text in args.sheet:
        boards, generated, drawn = read_key(Path(key_file))
        read.append((key_file, boards, generated, drawn, read_picks(pick_text, boards, len(generated), key_file)))
    found = total = 0
    by_mode: Counter[str] = Counter()
    picked_by_mode: Counter[str] = Counter()
    for key_file, _, generated, drawn, picks in read:
        hits = len(picks & generated)
        print(f"{key_file}: {hits} of {len(generated)}")
        found += hits
        total += len(generated)
        for number, mode in drawn.items():
            by_mode[mode] += 1
            picked_by_mode[mode] += number in picks
    chance = sum(found_by_chance([(boards, len(generated)) for _, boards, generated, _, _ in read])[found:])
    print(f"total {found} of {total}; by chance this many or more: {chance:.4f} (one time in {1 / chance:.0f})")
    if by_mode:
        print("by mode drawn: " + ", ".join(f"{m} {picked_by_mode[m]} of {n}" for m, n in by_mode.most_common()))


if __name__ == "__main__":
    main()
