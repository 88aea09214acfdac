"""Bad input and faults found by trying the commands from outside (issue 11): nothing silently misread, no
traceback, bounded work. Each test here failed before its fix; they run the real entry point (in-process, or as a
subprocess where a signal, a memory limit or a second process is the point)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

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
        check=False,
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
    ("typo", "known"),
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
    ("solution", "message"),
    [
        ([*FIVE_ANSWER, [4, 1]], "the solution lists R5C2 twice (items 5 and 6)"),
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


# --- tracebacks --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [977, 990, 998])
@pytest.mark.parametrize("field", ["id", "size", "regions", "solution", "cats", "given_empty"])
def test_json_nested_deep_in_a_field_is_one_line(capsys, tmp_path, field: str, depth: int) -> None:
    obj = json.dumps({"regions": FIVE, "stars": 1})[:-1] + f', "{field}": ' + "[" * depth + "]" * depth + "}"
    path = tmp_path / "deep.json"
    path.write_text(obj, encoding="utf-8")
    for command in ("verify", "grade"):
        status, out, err = run_starbattle(capsys, command, str(path))
        assert status == 2 and out == ""
        one_line_error(err)


def test_yaml_nested_deep_is_one_line(tmp_path) -> None:
    config = tmp_path / "deep.yaml"
    config.write_text("grading: " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    done = cli("stats", STARBATTLE_CONFIG=str(config))
    assert done.returncode == 2
    assert "nested too deeply" in one_line_error(done.stderr.decode())


def test_a_negative_seed_is_one_line(capsys) -> None:
    status, out, err = run_starbattle(capsys, "layouts", "sample", "--size", "6", "--stars", "1", "--seed", "-5")
    assert status == 2 and out == ""
    assert "--seed must be at least 0, not -5" in one_line_error(err)


# --- bounded work ------------------------------------------------------------------------------------------------


# The CLI under a 1 GiB limit on its address space, set in the child before the CLI starts.
LIMITED = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
LIMITED_CLI = [sys.executable, "-c", LIMITED + "from starbattle_cli.app import main; main()"]


def test_an_endless_input_is_refused_at_the_size_limit() -> None:
    done = subprocess.run([*LIMITED_CLI, "verify", "/dev/zero"], capture_output=True, timeout=300, check=False)
    assert done.returncode == 2 and done.stdout == b""
    assert "/dev/zero: larger than 8 MiB, the limit for a puzzle file" in one_line_error(done.stderr.decode())


@pytest.mark.parametrize(
    ("picture", "message"),
    [
        ("stars: 1\n" + "A\n" * 200_000, "line 2: the picture has more than 30 rows"),
        ("stars: 1\n" + "A " * 1_000_000 + "\n", "line 2: 2,000,000 characters, more than a picture's row can hold"),
    ],
)
def test_a_huge_text_picture_stops_early(picture: str, message: str) -> None:
    with pytest.raises(PuzzleError, match=message):
        list(parse_puzzles(picture, "big"))


def test_layouts_sample_streams_a_huge_count_in_bounded_memory() -> None:
    """-n 1,000,000,000 used to allocate 7.45 GiB at once; now the first layouts come out under a 1 GiB limit."""
    run = subprocess.Popen(
        [*LIMITED_CLI, "layouts", "sample", "--size", "10", "--stars", "2", "-n", "1000000000", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert run.stdout is not None
        lines = [run.stdout.readline() for _ in range(40_000)]  # past the first chunk of 32,768
    finally:
        run.kill()
        run.communicate()
    assert all(json.loads(line)["size"] == 10 for line in lines)


def test_layouts_sample_chunks_draw_the_layouts_of_one_call(capsys) -> None:
    from starbattle_core.layouts import layout_to_cells, sample_layouts

    status, out, _ = run_starbattle(capsys, "layouts", "sample", "--size", "6", "--stars", "1", "-n", "70000", "--json")
    assert status == 0
    drawn = [sum(1 << (r * 6 + c) for r, c in json.loads(line)["cells"]) for line in out.splitlines()]
    assert drawn == [layout_to_cells(rows) for rows in sample_layouts(6, 1, 70_000, 0)]


# A 14x14 board cut into 14 one-row strips: rows and regions coincide, so it has as many solutions as layouts
# (millions) and keeps the solver and the grader busy for minutes.
STRIPS = {"game": "starbattle", "stars": 3, "regions": [chr(65 + r) * 14 for r in range(14)]}


@pytest.mark.parametrize("command", ["solve", "grade"])
def test_timeout_ends_with_one_line_and_status_2(tmp_path, command: str) -> None:
    path = tmp_path / "strips.json"
    path.write_text(json.dumps({**STRIPS, "id": "strips"}), encoding="utf-8")
    extra = ["--limit", "100000"] if command == "solve" else []
    done = cli(command, str(path), "--timeout", "2", *extra)
    assert done.returncode == 2, done
    assert "strips: not finished within 2 s (--timeout)" in one_line_error(done.stderr.decode())


def test_a_timeout_is_not_swallowed_by_a_library_that_catches_every_error() -> None:
    """The timer's exception lands wherever the work is. click's echo looks its stream up inside `except Exception`
    (once per printed solution), so an ordinary exception landing there was dropped and `solve --timeout 2` once ran
    82 s to its --limit. Here the work is almost all inside such a clause: the timeout must still get out."""
    from starbattle_cli.puzzle_input import OutOfTime, deadline

    def busy_under_a_broad_except() -> None:
        give_up = time.monotonic() + 10
        with deadline(0.05, "loop"):
            while time.monotonic() < give_up:
                try:
                    for _ in range(10_000):
                        pass
                except Exception:  # what a library does around a lookup it can do without
                    pass

    with pytest.raises(OutOfTime, match=r"^loop: not finished within 0\.05 s"):
        busy_under_a_broad_except()


def test_verify_timeout_interrupts_the_count(tmp_path) -> None:
    """A proof of uniqueness takes far longer than a millisecond on the largest hand-made board (14x14, 3 stars)."""
    biggest = max(HANDMADE, key=lambda p: (p.size, p.stars))
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(puzzle_to_json(biggest)) + "\n", encoding="utf-8")
    done = cli("verify", str(path), "--timeout", "0.001")
    assert done.returncode == 2 and done.stdout == b""
    assert f"{biggest.id}: not finished within 0.001 s (--timeout)" in one_line_error(done.stderr.decode())


def test_grade_has_a_default_timeout() -> None:
    from starbattle_cli.commands_grade import GRADE_TIMEOUT, grade

    default = grade.__defaults__[-1] if grade.__defaults__ else None
    assert 0 < GRADE_TIMEOUT <= 120 and getattr(default, "default", None) == GRADE_TIMEOUT


def test_a_stuck_board_has_no_band(capsys, tmp_path) -> None:
    path = tmp_path / "open.json"
    path.write_text(json.dumps({"id": "open", "regions": ["AABB", "AABB", "CCDD", "CCDD"], "stars": 1}), "utf-8")
    status, out, _ = run_starbattle(capsys, "grade", str(path), "--json")
    summary = json.loads(out)
    assert status == 1 and summary["solved"] is False and summary["band"] is None
    status, out, _ = run_starbattle(capsys, "grade", str(path))
    assert "no band (not solved)" in out and "band easy" not in out


def test_the_fun_breakdown_reads_in_words(capsys) -> None:
    status, out, _ = run_starbattle(capsys, "grade", str(REPO / "data" / "examples.jsonl"))
    assert status == 0
    assert (
        "the hardest step comes" in out
        and "of 100 (50: the gate" in out
        and "a-ha moment" in out
        and "quick follow-ups" in out
    )
    assert "a-ha x" not in out and "follow-ups " not in out


def test_ids_are_printed_safely(capsys, tmp_path) -> None:
    path = tmp_path / "evil.jsonl"
    evil = "board\x1b[2J\x1b]0;owned\x07\x9b"
    path.write_text(json.dumps({"id": evil, "regions": FIVE, "stars": 1}) + "\n", encoding="utf-8")
    for command in ("verify", "solve", "grade", "explain"):
        status, out, err = run_starbattle(capsys, command, str(path))
        assert status == 0, err
        assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
        assert "board\\x1b[2J" in out, out


def test_help_shows_flags_as_flags_and_version() -> None:
    done = cli("verify", "--help", COLUMNS="100")
    assert b"<bool>" not in done.stdout and b"--json" in done.stdout
    done = cli("verify", str(REPO / "data" / "examples.jsonl"), "--json", "true")
    assert done.returncode == 2
    assert "--json is a flag and takes no value" in one_line_error(done.stderr.decode())
    done = cli("--version")
    assert done.returncode == 0 and done.stdout.decode().startswith("starbattle 0.")
