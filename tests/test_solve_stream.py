"""`solve --limit N` streams: the engine's `Solutions` enumerates every solution once (against the brute force, on
both sides of its hand-over from the SAT solver to the search), and the CLI prints each as it is found in memory that
stays flat however large N is."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from brute_force import brute_force_solutions
from hypothesis import given, settings
from hypothesis import strategies as st
from test_counter import SHAPES, boards, stripes

from starbattle_core import counter
from starbattle_core.counter import Solutions, count_solutions
from starbattle_core.puzzle import Puzzle


@pytest.mark.parametrize("held", [1_000, 3], ids=["sat-only", "search-after-3"])
@pytest.mark.parametrize("shape", SHAPES, ids=[f"{n}x{n}-{k}star" for n, k in SHAPES])
@settings(max_examples=25, deadline=None, derandomize=True)
@given(data=st.data())
def test_solutions_are_every_solution_once(shape, held: int, data: st.DataObject) -> None:
    puzzle, extra_stars, extra_empty = data.draw(boards(shape))
    previous, counter.SAT_HELD = counter.SAT_HELD, held
    try:
        found = list(Solutions(puzzle, stars=extra_stars, empty=extra_empty))
    finally:
        counter.SAT_HELD = previous
    assert len(found) == len(set(found))
    assert sorted(found) == brute_force_solutions(puzzle, extra_stars, extra_empty)


def test_solutions_start_as_the_count_does() -> None:
    """The first solutions are the count's, in its order: `--limit 2` and `--limit 10**9` begin alike."""
    puzzle = stripes(7)
    first = count_solutions(puzzle, limit=50).solutions
    stream = Solutions(puzzle)
    assert tuple(solution for solution, _ in zip(stream, range(50), strict=False)) == first


def test_solutions_past_the_sat_solvers_share_are_all_there() -> None:
    puzzle = stripes(8)  # every one of the 8x8 one-star layouts is a solution
    found = list(Solutions(puzzle))
    assert (
        len(found) == len(set(found)) == count_solutions(puzzle, limit=10**6, sat_after=None).count > counter.SAT_HELD
    )


SOLVE = [sys.executable, "-c", "from starbattle_cli.app import main; main()", "solve"]


def peak_kib(pid: int) -> int:
    """The process's peak resident memory so far (VmHWM), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_solve_streams_a_huge_limit_in_flat_memory(tmp_path: Path) -> None:
    """--limit 10**9 on a board with 47,622 solutions (9x9, one star, each row a region): the solutions come out as
    they are found, and the CLI's peak memory after 20,000 of them is what it was after 2,000 (it used to keep
    every one, about 550 bytes each, and refused a limit past 100,000)."""
    board = tmp_path / "rows.json"
    board.write_text(json.dumps({"game": "starbattle", "stars": 1, "regions": [chr(65 + r) * 9 for r in range(9)]}))
    run = subprocess.Popen(
        [*SOLVE, str(board), "--limit", "1000000000", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    peaks = {}
    head = b""
    try:
        assert run.stdout is not None
        seen = 0
        deadline = time.monotonic() + 300
        for mark in (2_000, 20_000):
            while seen < mark:
                chunk = run.stdout.read1(1 << 16)
                assert chunk and time.monotonic() < deadline, run.stderr.read() if run.stderr else ""
                head += chunk if len(head) < 1 << 16 else b""
                seen += chunk.count(b"]]")  # a solution's list of [row, column] pairs ends there
            peaks[mark] = peak_kib(run.pid)
    finally:
        run.kill()
        run.communicate()
    assert head.startswith(b'{"id": "#1", "solutions": [[[0, ')
    assert peaks[20_000] - peaks[2_000] < 2048, peaks  # 18,000 more solutions, not 2 MiB more memory


def test_solve_json_is_one_object_a_puzzle(tmp_path: Path) -> None:
    """Written as it streams, the record is still one JSON object on one line, with the fields it always had."""
    board = tmp_path / "rows.json"
    board.write_text(json.dumps({"game": "starbattle", "stars": 1, "regions": [chr(65 + r) * 6 for r in range(6)]}))
    done = subprocess.run(
        [*SOLVE, str(board), "--limit", "1000", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    [line] = done.stdout.splitlines()
    record = json.loads(line)
    assert set(record) == {"id", "solutions", "count", "exact", "ms", "nodes"}
    assert (record["count"], record["exact"], len(record["solutions"])) == (90, True, 90)
    masks = {sum(1 << (r * 6 + c) for r, c in solution) for solution in record["solutions"]}
    assert masks == set(brute_force_solutions(Puzzle(6, 1, tuple(cell // 6 for cell in range(36)))))
