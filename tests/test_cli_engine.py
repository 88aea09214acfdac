"""The engine commands through the real entry point (`starbattle_cli.app.main`): verify, solve, layouts; exit
statuses 0/1/2, the --json fields, and bad input as one line on stderr without a traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, run_starbattle

from starbattle_core.formats import puzzle_to_json, read_jsonl, read_puzzles
from starbattle_core.puzzle import is_solution

EXAMPLES = REPO / "data" / "examples.jsonl"
FIVE = ["AAABC", "AAABC", "AADBC", "AEDBC", "AEEBB"]
FIVE_ANSWER = [[0, 3], [1, 0], [2, 2], [3, 4], [4, 1]]
# Four 2x2 quadrants on a 4x4 board: both 1-star layouts of the board fit, so two solutions.
TWO_WAYS = ["AABB", "AABB", "CCDD", "CCDD"]


run = run_starbattle


def write_jsonl(path: Path, objects: list[dict]) -> str:
    path.write_text("".join(json.dumps(obj) + "\n" for obj in objects), encoding="utf-8")
    return str(path)


def assert_one_line_error(err: str) -> None:
    assert err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err, err


# --- the shipped examples ------------------------------------------------------------------------------


def test_examples_are_real_attributed_and_unique(capsys) -> None:
    puzzles = list(read_jsonl(str(EXAMPLES)))
    assert len(puzzles) >= 8 and {p.game for p in puzzles} == {"starbattle", "queens"}
    for line in EXAMPLES.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        assert record["license"].startswith("MIT") and record["source"]
        assert "archive" not in record["source"]
    status, out, err = run(capsys, "verify", str(EXAMPLES))
    assert status == 0, out + err
    lines = out.strip().split("\n")
    assert len(lines) == len(puzzles) + 1
    assert all(line.startswith(f"{p.id}: unique (") for p, line in zip(puzzles, lines[:-1], strict=True))
    assert lines[-1] == f"{len(puzzles)} of {len(puzzles)} puzzles unique"


# --- verify --------------------------------------------------------------------------------------------


def test_verify_json_fields(capsys, tmp_path) -> None:
    puzzles = [{"id": "five", "regions": FIVE, "stars": 1, "solution": FIVE_ANSWER}, {"regions": TWO_WAYS, "stars": 1}]
    path = write_jsonl(tmp_path / "p.jsonl", puzzles)
    status, out, _ = run(capsys, "verify", path, "--json")
    assert status == 1
    first, second = (json.loads(line) for line in out.strip().split("\n"))
    assert {"id", "count", "exact", "solution", "ms", "nodes"} <= set(first)
    assert first["id"] == "five" and first["count"] == 1 and first["exact"] is True
    assert first["solution"] == FIVE_ANSWER and first["matches_file"] is True
    assert isinstance(first["ms"], float) and first["ms"] >= 0 and isinstance(first["nodes"], int)
    assert second["id"] == "#2" and second["count"] == 2 and second["exact"] is False and second["unique"] is False


def test_verify_exit_statuses(capsys, tmp_path) -> None:
    unique = write_jsonl(tmp_path / "u.jsonl", [{"regions": FIVE, "stars": 1}])
    assert run(capsys, "verify", unique)[0] == 0
    ambiguous = write_jsonl(tmp_path / "a.jsonl", [{"regions": FIVE, "stars": 1}, {"regions": TWO_WAYS, "stars": 1}])
    status, out, _ = run(capsys, "verify", ambiguous)
    assert status == 1 and "#2: NOT unique: at least 2 solutions" in out and "1 of 2 puzzles unique" in out
    # The only answer's first star forbidden: no solution at all.
    none = write_jsonl(tmp_path / "n.jsonl", [{"regions": FIVE, "stars": 1, "crosses": [[0, 3]]}])
    status, out, _ = run(capsys, "verify", none)
    assert status == 1 and "NOT unique: no solution" in out


def test_verify_reads_standard_input_and_other_formats(capsys, monkeypatch, tmp_path) -> None:
    url = "https://puzz.link/p?starbattle/6/6/1/4ilbhgdnmhou\n"
    status, out, _ = run(capsys, "verify", "-", stdin=url, monkeypatch=monkeypatch)
    assert status == 0 and out.startswith("#1: unique")
    picture = tmp_path / "five.txt"
    picture.write_text("\n".join(FIVE) + "\n", encoding="utf-8")
    assert run(capsys, "verify", str(picture), "--stars", "1")[0] == 0


def test_real_puzzlink_boards_verify_unique(capsys, tmp_path) -> None:
    """Boards from penpa-edit's puzz.link tests and pzprjs's own test: a decoding slip would lose uniqueness."""
    urls = [
        "https://puzz.link/p?starbattle/6/6/1/4ilbhgdnmhou",
        "https://puzz.link/p?starbattle/10/10/2/5g252c2qkgbakk98igse7g88cp3730so000u",
        "http://puzz.link/p?starbattle/10/10/2/l95las9vb5mmurbelo2m849c5gp068ci9029",
        "pzv.jp/p.html?starbattle/9/9/2/12a955kh37khi20fe0g13toea1c07g",
    ]
    path = tmp_path / "urls.txt"
    path.write_text("# real boards\n" + "\n".join(urls) + "\n", encoding="utf-8")
    status, out, _ = run(capsys, "verify", str(path))
    assert status == 0 and out.strip().endswith("4 of 4 puzzles unique")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"regions": ["AAB", "ABB", "CC"], "stars": 1}\n', "line 1: 'regions' row 3, column 1: the row has 2 cells"),
        ('{"regions": ["AABC", "ABBC", "CDDD", "DDDD"], "stars": 1}\n', "region 'C' is not connected"),
        ("AAB\n", "line 1: the picture does not say how many stars"),
        ("https://puzz.link/p?starbattle/6/6/1/4ilbhg\n", "line 1: puzz.link URL: border data has 6 characters"),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys, tmp_path, content: str, message: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(content, encoding="utf-8")
    for command in ("verify", "solve"):
        status, out, err = run(capsys, command, str(path))
        assert status == 2 and out == ""
        assert_one_line_error(err)
        assert message in err


def test_missing_file_and_bad_options_are_status_2(capsys) -> None:
    status, _, err = run(capsys, "verify", "/no/such/file.jsonl")
    assert status == 2 and "cannot read /no/such/file.jsonl" in err
    assert_one_line_error(err)
    status, _, err = run(capsys, "solve", str(EXAMPLES), "--limit", "0")
    assert status == 2 and "--limit must be at least 1, not 0" in err
    status, _, err = run(capsys, "layouts", "count", "--size", "40", "--stars", "2")
    assert status == 2 and "out of range" in err
    assert_one_line_error(err)


def test_the_console_script_prints_no_traceback(tmp_path) -> None:
    """Through a real process, as a user runs it."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    code = "from starbattle_cli.app import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", code, "verify", str(bad)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 2 and done.stdout == ""
    assert_one_line_error(done.stderr)
    assert "line 1: not JSON" in done.stderr


# --- solve ---------------------------------------------------------------------------------------------


def test_solve_shows_the_board_count_and_time(capsys, tmp_path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"id": "five", "regions": FIVE, "stars": 1}])
    status, out, _ = run(capsys, "solve", path)
    assert status == 0
    assert out.startswith("five: starbattle 5x5, 1 star per unit\n┏")
    assert out.count("★") == 5 and "1 solution; " in out and " ms, " in out
    status, out, _ = run(capsys, "solve", path, "--ascii", "--letters")
    assert out.isascii() and out.count(" * ") == 5
    queens = write_jsonl(tmp_path / "q.jsonl", [{"id": "five", "regions": FIVE, "game": "queens"}])
    assert run(capsys, "solve", queens)[1].startswith("five: queens 5x5, 1 queen per unit\n")


def test_solve_limit_and_json(capsys, tmp_path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"regions": TWO_WAYS, "stars": 1}])
    status, out, _ = run(capsys, "solve", path, "--limit", "5", "--json")
    record = json.loads(out)
    assert status == 0 and record["count"] == 2 and record["exact"] is True
    assert {"id", "count", "exact", "solutions", "ms", "nodes"} <= set(record)
    puzzle = next(read_puzzles(path))
    masks = {sum(1 << (r * 4 + c) for r, c in solution) for solution in record["solutions"]}
    assert len(masks) == 2 and all(is_solution(puzzle, mask) for mask in masks)
    status, out, _ = run(capsys, "solve", path, "--limit", "1")
    assert "at least 1 solution (stopped at the limit)" in out


def test_solve_status_1_without_solution(capsys, tmp_path) -> None:
    path = write_jsonl(tmp_path / "p.jsonl", [{"regions": FIVE, "stars": 1, "given_empty": [[0, 3]]}])
    status, out, _ = run(capsys, "solve", path)
    assert status == 1 and "no solution" in out and "[×]" in out


# --- layouts -------------------------------------------------------------------------------------------


def test_layouts_count(capsys) -> None:
    assert run(capsys, "layouts", "count", "--size", "10", "--stars", "2")[1] == "146510\n"
    status, out, _ = run(capsys, "layouts", "count", "--size", "9", "--stars", "1", "--json")
    assert status == 0 and json.loads(out) == {"size": 9, "stars": 1, "count": 47622}


def test_layouts_sample_is_seeded_and_valid(capsys) -> None:
    args = ("layouts", "sample", "--size", "8", "--stars", "1", "--seed", "7", "-n", "4", "--json")
    status, out, _ = run(capsys, *args)
    assert status == 0 and run(capsys, *args)[1] == out
    records = [json.loads(line) for line in out.strip().split("\n")]
    assert len(records) == 4
    for record in records:
        cells = {tuple(rc) for rc in record["cells"]}
        assert sorted(r for r, _ in cells) == list(range(8)) and sorted(c for _, c in cells) == list(range(8))
        assert not any((r + dr, c + dc) in cells for r, c in cells for dr in (-1, 0, 1) for dc in (-1, 1))
    status, out, _ = run(capsys, "layouts", "sample", "--size", "6", "--stars", "1", "-n", "2")
    pictures = out.strip().split("\n\n")
    assert len(pictures) == 2 and all(p.count("★") == 6 and len(p.split("\n")) == 6 for p in pictures)
    status, _, err = run(capsys, "layouts", "sample", "--size", "6", "--stars", "2")
    assert status == 2 and "no layout exists" in err


def test_json_written_by_solve_reads_back(capsys, tmp_path) -> None:
    """A solved board's JSON (puzzle_to_json with the found solution) verifies as unique."""
    puzzle = next(read_puzzles(write_jsonl(tmp_path / "p.jsonl", [{"regions": FIVE, "stars": 1}])))
    _, out, _ = run(capsys, "solve", str(tmp_path / "p.jsonl"), "--json")
    solution = sum(1 << (r * 5 + c) for r, c in json.loads(out)["solutions"][0])
    again = write_jsonl(tmp_path / "again.jsonl", [puzzle_to_json(puzzle, solution)])
    assert run(capsys, "verify", again)[0] == 0
