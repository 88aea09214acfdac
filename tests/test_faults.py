"""Bad input and faults found by trying the commands from outside (issue 11): nothing silently misread, no
traceback, bounded work. Each test here failed before its fix; they run the real entry point (in-process, or as a
subprocess where a signal, a memory limit or a second process is the point)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, run_starbattle, shared_file
from starbattle_core.formats import parse_puzzles, puzzle_from_json, puzzle_to_json, read_jsonl
from starbattle_core.puzzle import PuzzleError, cells_to_coords
from starbattle_core.puzzlink import puzzle_from_puzzlink, puzzle_to_puzzlink

FIVE = ["AAABC", "AAABC", "AADBC", "AEDBC", "AEEBB"]
FIVE_ANSWER = [[0, 3], [1, 0], [2, 2], [3, 4], [4, 1]]
HANDMADE = list(read_jsonl(str(shared_file("starbattle/handmade.jsonl"))))
QUEENS = list(read_jsonl(str(shared_file("queens/linkedin.jsonl"))))[:20]
TWO_STAR = next(p for p in HANDMADE if p.size == 10 and p.stars == 2)


def one_line_error(err: str) -> str:
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def cli(*args: str, stdin: bytes | None = None, timeout: float = 120, **env: str) -> subprocess.CompletedProcess[bytes]:
    """`starbattle ARGS` as a user runs it: a new process."""
    return subprocess.run(
        [sys.executable, "-c", "from starbattle_cli.app import main; main()", *args],
        input=stdin,
        capture_output=True,
        timeout=timeout,
        cwd=REPO,
        env={**os.environ, **env},
    )


# --- silent misreads -------------------------------------------------------------------------------------------


def test_a_board_without_stars_is_an_error_not_a_one_star_board(capsys, tmp_path) -> None:
    obj = puzzle_to_json(TWO_STAR)
    del obj["stars"]
    path = tmp_path / "no-stars.jsonl"
    path.write_text(json.dumps(obj) + "\n", encoding="utf-8")
    for command in ("verify", "grade"):
        status, out, err = run_starbattle(capsys, command, str(path))
        assert status == 2 and out == "", out
        assert "line 1: missing 'stars'" in one_line_error(err)


@pytest.mark.parametrize(
    "typo, known",
    [("strs", "stars"), ("regoins", "regions"), ("givens", "givenCats"), ("soluton", "solution"), ("Game", "game")],
)
def test_an_unknown_key_is_an_error_naming_the_closest_known_key(capsys, tmp_path, typo: str, known: str) -> None:
    obj = puzzle_to_json(TWO_STAR)
    obj[typo] = obj.pop(known) if known in obj else [[0, 0]]
    path = tmp_path / "typo.jsonl"
    path.write_text(json.dumps(obj) + "\n", encoding="utf-8")
    status, _, err = run_starbattle(capsys, "verify", str(path))
    assert status == 2
    assert f"line 1: unknown key \"{typo}\" (did you mean '{known}'?)" in one_line_error(err)


def test_the_project_reads_back_what_it_writes_and_the_shared_data() -> None:
    """The description keys the shared data and `generate --json` / `show --json` write are known, not errors."""
    for puzzle in HANDMADE + QUEENS:
        assert puzzle.solution is not None
    obj = {**puzzle_to_json(TWO_STAR), "band": "hard", "difficulty": 812, "fun": 60.5, "looks": 71.0, "seed": 3}
    obj.update(version="1", repair_rounds=2, tune_rounds=1, counters={}, date="2026-12-01", slot="starbattle-hard")
    assert puzzle_from_json(obj) == TWO_STAR


def test_queens_and_meowdoku_boards_need_no_star_count() -> None:
    queens = {"game": "queens", "regions": FIVE}
    assert puzzle_from_json(queens).stars == 1
    meowdoku = puzzle_from_json(
        {"regionMap": [[ord(ch) - 65 for ch in row] for row in FIVE], "solution": [3, 0, 2, 4, 1]}
    )
    assert (meowdoku.game, meowdoku.stars) == ("queens", 1)


@pytest.mark.parametrize(
    "solution, message",
    [
        (FIVE_ANSWER + [[4, 1]], "the solution lists R5C2 twice (items 5 and 6)"),
        ([[0, 3], [0, 3], [2, 2], [3, 4], [4, 1]], "the solution lists R1C4 twice (items 1 and 2)"),
        ([[0, 3], [1, 0], [2, 2], [3, 4], [4, 2]], "the solution does not fit: column 2 has 0 stars"),
    ],
)
def test_verify_checks_a_supplied_solution_and_says_where_it_is_wrong(capsys, tmp_path, solution, message) -> None:
    path = tmp_path / "wrong.jsonl"
    path.write_text(json.dumps({"regions": FIVE, "stars": 1, "solution": solution}) + "\n", encoding="utf-8")
    status, out, err = run_starbattle(capsys, "verify", str(path))
    assert status == 2 and out == ""
    assert message in one_line_error(err)


def test_a_text_picture_names_a_cell_listed_twice() -> None:
    text = "stars: 1\nsolution: R1C4 R2C1 R3C3 R4C5 R5C2 R5C2\n" + "\n".join(FIVE)
    with pytest.raises(PuzzleError, match="line 2: solution: R5C2 is named twice"):
        list(parse_puzzles(text))


def test_queens_keep_their_game_through_puzzlink(capsys, tmp_path) -> None:
    for puzzle in QUEENS:
        url = puzzle_to_puzzlink(puzzle)
        assert url.endswith("#queens")
        back = puzzle_from_puzzlink(url)
        assert back == puzzle and back.game == "queens"
    assert puzzle_from_puzzlink(puzzle_to_puzzlink(TWO_STAR)).game == "starbattle"
    with pytest.raises(PuzzleError, match="unknown fragment '#chess'"):
        puzzle_from_puzzlink(puzzle_to_puzzlink(QUEENS[0]).replace("#queens", "#chess"))
    path = tmp_path / "urls.txt"
    path.write_text(puzzle_to_puzzlink(QUEENS[0]) + "\n", encoding="utf-8")
    _, out, _ = run_starbattle(capsys, "grade", str(path), "--json")
    assert json.loads(out)["game"] == "queens"


def test_meowdoku_json_is_graded_as_queens(capsys, tmp_path) -> None:
    puzzle = QUEENS[0]
    columns = [c for _, c in cells_to_coords(puzzle.solution, puzzle.size)]
    path = tmp_path / "meow.json"
    path.write_text(
        json.dumps({"name": "meow", "regionMap": puzzle.region_grid(), "solution": columns}), encoding="utf-8"
    )
    _, out, _ = run_starbattle(capsys, "grade", str(path), "--json")
    assert json.loads(out)["game"] == "queens"


def test_a_text_picture_names_the_line_of_its_star_count() -> None:
    rows = ["AAAAABBBBB", "AAAAABBBBB", "CCCCCDDDDD", "CCCCCDDDDD", "EEEEEFFFFF"]
    rows += ["EEEEEFFFFF", "GGGGGHHHHH", "GGGGGHHHHH", "IIIIIJJJJJ", "IIIIIJJJJJ"]
    with pytest.raises(PuzzleError, match=r"^f line 1: no valid layout exists for a 10x10 board with 5 stars"):
        list(parse_puzzles("stars: 5\n" + "\n".join(rows), "f"))
    with pytest.raises(PuzzleError, match=r"^f line 2: queens has one queen per unit, not 2"):
        list(parse_puzzles("game: queens\nstars: 2\n" + "\n".join(FIVE), "f"))
