"""bench/read_sheets.py: the chance of a reader's score by random picks, against counting every way to pick; and the
script as a reader of contact sheets uses it, bad input included."""

from __future__ import annotations

import importlib.util
import itertools
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import REPO

SCRIPT = REPO / "bench" / "read_sheets.py"
spec = importlib.util.spec_from_file_location("read_sheets", SCRIPT)
assert spec is not None and spec.loader is not None
read_sheets = importlib.util.module_from_spec(spec)
spec.loader.exec_module(read_sheets)


@pytest.mark.parametrize("sheets", [[(4, 2)], [(6, 3), (4, 2)], [(8, 4), (6, 3)]])
def test_the_chance_is_the_count_over_every_way_to_pick(sheets: list[tuple[int, int]]) -> None:
    """Every way a reader can pick (as many boards as are generated, on each sheet) counted, boards 0..K-1 being
    the generated ones."""
    ways = [list(itertools.combinations(range(boards), generated)) for boards, generated in sheets]
    found: Counter[int] = Counter()
    for picks in itertools.product(*ways):
        found[sum(sum(n < generated for n in pick) for pick, (_, generated) in zip(picks, sheets, strict=True))] += 1
    everything = sum(found.values())
    law = read_sheets.found_by_chance(sheets)
    assert len(law) == sum(generated for _, generated in sheets) + 1
    assert law == pytest.approx([found[k] / everything for k in range(len(law))])


def run(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), *args]
    return subprocess.run(command, check=False, capture_output=True, text=True, timeout=60)


def test_a_reader_s_picks_are_scored_by_sheet_by_mode_and_against_chance(tmp_path: Path) -> None:
    first, second = tmp_path / "sheet-1.txt", tmp_path / "sheet-2.txt"
    first.write_text("generated 1/2\nkey: generated are 1, 4\ndrawn as: 1 organic, 4 frame\nwrote s.png\n")
    second.write_text("key: generated are 2, 3\ndrawn as: 2 organic, 3 rings\n")
    done = run("--sheet", str(first), "1, 4", "--sheet", str(second), "1 3")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == [f"{first}: 2 of 2", f"{second}: 1 of 2"]
    # A sheet of 2 + 2 gives 0, 1 or 2 with chances 1/6, 4/6, 1/6: 3 or more of 4 is 2 * (1/6 * 4/6) + 1/36 = 9/36
    assert lines[2] == "total 3 of 4; by chance this many or more: 0.2500 (one time in 4)"
    assert lines[3] == "by mode drawn: organic 1 of 2, frame 1 of 1, rings 1 of 1"


@pytest.mark.parametrize(
    ("key", "picks", "message"),
    [
        ("key: generated are 1, 4\n", "1, 2, 3", "a reader picks 2 different boards numbered 1 to 4, not '1, 2, 3'"),
        ("key: generated are 1, 4\n", "1, 9", "a reader picks 2 different boards numbered 1 to 4, not '1, 9'"),
        ("key: generated are 1, 4\n", "one, two", "picks must be board numbers, not 'one, two'"),
        ("wrote s.png\n", "1, 2", "no 'key: generated are ...' line (the output of contact_sheet.py --blind)"),
        ("key: generated are , \n", "", "no 'key: generated are ...' line (the output of contact_sheet.py --blind)"),
    ],
)
def test_bad_input_is_one_line_and_status_2(tmp_path: Path, key: str, picks: str, message: str) -> None:
    sheet = tmp_path / "sheet.txt"
    sheet.write_text(key)
    done = run("--sheet", str(sheet), picks)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"error: {sheet}: {message}\n"


def test_a_missing_or_binary_key_file_is_one_line_and_status_2(tmp_path: Path) -> None:
    binary = tmp_path / "sheet.png"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    good = tmp_path / "good.txt"
    good.write_text("key: generated are 1, 4\n")
    for path, message in ((tmp_path / "none.txt", "No such file or directory"), (binary, "not a text file (UTF-8)")):
        # after a good sheet: nothing is printed of it either
        done = run("--sheet", str(good), "1, 4", "--sheet", str(path), "1")
        assert (done.returncode, done.stdout, done.stderr) == (2, "", f"error: {path}: {message}\n")
