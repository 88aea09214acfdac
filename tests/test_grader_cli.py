"""`starbattle grade` and `starbattle explain` through the real entry point: fields, exit statuses, stdin, and
bad input as one line on stderr with status 2."""

from __future__ import annotations

import json

from conftest import run_starbattle, shared_file

import starbattle_cli.commands_grade  # noqa: F401  (registers the commands until app.py imports the module)

# Rows 5 and 6 lie in region F on a one-star board: no solution, so the grader cannot finish.
BROKEN = {
    "game": "starbattle",
    "size": 6,
    "stars": 1,
    "regions": ["AAABBB", "AABBBC", "DDDCCC", "DDEECC", "FFFFFF", "FFFFFF"],
}


def run(capsys, monkeypatch, *args: str, stdin: str | None = None) -> tuple[int, str, str]:
    return run_starbattle(capsys, *args, stdin=stdin, monkeypatch=monkeypatch)


def handmade_lines(count: int) -> str:
    """The first `count` hand-made boards below 14x14, as JSON Lines."""
    with open(shared_file("starbattle/handmade.jsonl"), encoding="utf-8") as handle:
        lines = [line for line in handle if json.loads(line)["size"] < 14]
    return "".join(lines[:count])


def test_grade_json_has_the_agreed_fields(capsys, monkeypatch) -> None:
    status, out, err = run(capsys, monkeypatch, "grade", "-", "--json", stdin=handmade_lines(3))
    assert status == 0 and err == ""
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 3
    for record in records:
        assert {"id", "solved", "difficulty", "band", "steps", "hardest", "climax", "fun", "version"} <= set(record)
        assert record["solved"] is True and record["band"] in ("easy", "medium", "hard", "expert")
        assert record["hardest"]["cost"] >= 1 and 1 <= record["hardest"]["step"] <= record["steps"]
        assert 0 <= record["fun"] <= 100 and record["version"].startswith("grader-")


def test_grade_from_a_file(capsys, monkeypatch, tmp_path) -> None:
    path = tmp_path / "queens.jsonl"
    with open(shared_file("queens/linkedin.jsonl"), encoding="utf-8") as handle:
        path.write_text("".join(handle.readlines()[:30]), encoding="utf-8")
    status, out, _ = run(capsys, monkeypatch, "grade", str(path), "--json")
    assert status == 0 and len(out.splitlines()) == 30
    assert {json.loads(line)["band"] for line in out.splitlines()} <= {"easy", "medium", "hard"}
    status, out, _ = run(capsys, monkeypatch, "grade", "-", stdin=handmade_lines(1))
    assert status == 0
    assert "difficulty" in out and "band" in out and "hardest:" in out and "fun " in out


def test_capped_grade_reports_stuck_with_status_1(capsys, monkeypatch) -> None:
    status, out, _ = run(capsys, monkeypatch, "grade", "-", "--json", "--max-cost", "1", stdin=handmade_lines(1))
    record = json.loads(out)
    assert status == 1 and record["solved"] is False and record["open"] > 0


def test_unsolvable_board_is_stuck(capsys, monkeypatch) -> None:
    status, out, _ = run(capsys, monkeypatch, "grade", "-", stdin=json.dumps(BROKEN))
    assert status == 1 and ("stuck" in out or "no solution" in out)


def test_grade_says_what_the_narrated_grade_says(capsys, monkeypatch) -> None:
    """`grade` leaves out the chains for people (only `explain` shows them): its every field must be the full,
    narrated grade's, on boards whose steps need chains (the archive's 10x10 hard ones)."""
    from starbattle_cli.commands_grade import _grading
    from starbattle_cli.puzzle_input import puzzle_label
    from starbattle_cli.records import grade_summary
    from starbattle_core.formats import puzzle_from_json
    from starbattle_core.grader import grade

    with open(shared_file("starbattle/archive.jsonl"), encoding="utf-8") as handle:
        rows = [line for line in handle if (json.loads(line)["size"], json.loads(line)["label"]) == (10, "hard")][:6]
    status, out, err = run(capsys, monkeypatch, "grade", "-", "--json", stdin="".join(rows))
    assert status == 0 and err == ""
    printed = [json.loads(line) for line in out.splitlines()]
    config = _grading()
    links = 0
    for index, (line, record) in enumerate(zip(rows, printed, strict=True), 1):
        puzzle = puzzle_from_json(json.loads(line))
        narrated = grade(puzzle, config)
        links += sum(len(step.chain) for step in narrated.steps)
        assert record == json.loads(json.dumps(grade_summary(puzzle, puzzle_label(puzzle, index), narrated)))
    assert links > 0  # the boards do have chains to leave out


def test_explain_text_and_json(capsys, monkeypatch) -> None:
    status, out, _ = run(capsys, monkeypatch, "explain", "-", stdin=handmade_lines(1))
    assert status == 0
    assert "1. [" in out and "total" in out
    status, out, _ = run(capsys, monkeypatch, "explain", "-", "--json", stdin=handmade_lines(2))
    records = [json.loads(line) for line in out.splitlines()]
    assert status == 0 and len(records) == 2
    for record in records:
        assert record["steps"][-1]["total"] == record["difficulty"]
        assert all(step["sentence"] for step in record["steps"])


def test_bad_input_is_one_line_and_status_2(capsys, monkeypatch, tmp_path) -> None:
    for command in ("grade", "explain"):
        status, out, err = run(capsys, monkeypatch, command, "-", stdin='{"size": 3, "regions": ["AB"]}\n')
        assert status == 2 and out == "" and err.startswith("error: ") and len(err.strip().splitlines()) == 1
        status, _, err = run(capsys, monkeypatch, command, str(tmp_path / "missing.jsonl"))
        assert status == 2 and "missing.jsonl" in err and "Traceback" not in err
